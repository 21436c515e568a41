#!/usr/bin/env bash
# The AVR toolchain and emulator the firmware needs (Debian/Ubuntu packages gcc-avr, avr-libc, binutils-avr,
# qemu-system-misc). Installed with apt when run as root; otherwise one line says what is missing, and with
# --required (make firmware) that is an error, without it (make test) the firmware tests skip.
set -uo pipefail

packages="gcc-avr avr-libc binutils-avr qemu-system-misc"
have() {
    command -v avr-gcc && command -v avr-size && command -v qemu-system-avr && [[ -e /usr/lib/avr/include/avr/io.h ]]
}
install() { apt-get install -y -q --no-install-recommends $packages; }

have >/dev/null && exit 0
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "firmware tools: apt-get install $packages" >&2
    log=$(mktemp)
    if { install || { apt-get update -q && install; }; } >"$log" 2>&1 && have >/dev/null; then
        rm -f "$log"
        exit 0
    fi
    echo "firmware tools: apt-get install failed (output: $log)" >&2
fi
skip=$([[ ${1:-} == --required ]] || echo '; the firmware tests will skip')
echo "firmware tools missing (install: apt-get install $packages)$skip" >&2
[[ ${1:-} == --required ]] && exit 1
exit 0
