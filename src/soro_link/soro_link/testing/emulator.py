"""Real firmware images running in an emulated ATmega328P (qemu-system-avr), their UART on a
pseudo-terminal that a bridge opens like a board's USB serial port. No ROS.

``EmulatedBoard`` mirrors ``SimulatedDevice``'s cable: ``port`` is a stable symlink to qemu's
pseudo-terminal, ``unplug`` stops the emulator (the path vanishes and the host's open port fails)
and ``replug`` starts it again from reset. What qemu 7.2 models of the chip: the CPU, the USART and
the 16-bit Timer1; not Timer0, the GPIO ports, the ADC, TWI or the chip's watchdog (writes to them
are ignored, reads give 0), and its ``sleep`` never wakes. The pins a firmware writes are still
seen: with ``trace_pins`` qemu logs every write to a GPIO port, and ``port_writes`` reads them back
(in order, but the log reaches its file up to a few hundred ms late).

Images are built by the shared rules (``soro_link/firmware/board.mk``) with ``build_images``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

QEMU = 'qemu-system-avr'
PTY_LINE = re.compile(r'char device redirected to (/dev/pts/\d+)')
PORT_WRITE = re.compile(
    r'atmega-gpio-([bcd]): unimplemented device write \(size 1, offset 0x2, value '
    r'(0x[0-9a-f]+)\)'
)
START_TIMEOUT_S = 5.0


class EmulatorMissing(RuntimeError):
    """The emulator or the AVR toolchain is not installed."""


def missing_tools() -> str | None:
    """One line naming what is missing to build and emulate the firmware, or None when all is
    there."""
    absent = [
        tool for tool in ('avr-gcc', 'avr-objcopy', 'avr-size', QEMU) if shutil.which(tool) is None
    ]
    if not absent:
        return None
    return (
        f"{', '.join(absent)} not found: the firmware tests need Debian's gcc-avr, "
        'avr-libc, binutils-avr and '
        f'qemu-system-misc (make test installs them when run as root)'
    )


def build_images(makefile: Path, out_dir: Path) -> dict[str, Path]:
    """Builds every board with ``makefile`` (board.mk) into ``out_dir``: {board: elf path}. Raises
    EmulatorMissing without the toolchain, RuntimeError with the compiler's output when the build
    fails."""
    if (why := missing_tools()) is not None:
        raise EmulatorMissing(why)
    run = subprocess.run(
        ['make', '-s', '-f', str(makefile), f'OUT={out_dir}'], capture_output=True, text=True
    )
    if run.returncode != 0:
        raise RuntimeError(f'firmware build failed:\n{run.stdout}{run.stderr}')
    return {elf.stem: elf for elf in sorted(Path(out_dir).glob('*.elf'))}


class EmulatedBoard:
    """One firmware image in qemu-system-avr (the Arduino Uno machine).

    Args:
        elf: the image.
        port: symlink path to create for the UART's pseudo-terminal; a fresh temporary path
            when None.
        trace_pins: log GPIO port writes (``port_writes``); costs a line per write.
    """

    def __init__(self, elf: str | Path, port: str | Path | None = None, trace_pins: bool = False):
        if shutil.which(QEMU) is None:
            raise EmulatorMissing(missing_tools())
        self.elf, self.trace_pins = Path(elf), trace_pins
        self._tmpdir = tempfile.TemporaryDirectory(prefix='soro_avr_')
        self.port = str(port or Path(self._tmpdir.name) / 'ttyACM0')
        self.trace_path = Path(self._tmpdir.name) / 'pins.log'
        self._process: subprocess.Popen | None = None

    def start(self) -> EmulatedBoard:
        """Power the chip up (``replug``) and return the board."""
        self.replug()
        return self

    def replug(self) -> None:
        """Power the chip up from reset on a fresh pseudo-terminal behind the same path."""
        command = [
            QEMU,
            '-machine',
            'uno',
            '-bios',
            str(self.elf),
            '-nographic',
            '-serial',
            'pty',
            '-monitor',
            'none',
        ]
        if self.trace_pins:
            command += ['-d', 'unimp', '-D', str(self.trace_path)]
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        pts = self._pseudo_terminal()
        link = Path(self.port)
        link.unlink(missing_ok=True)
        link.symlink_to(pts)

    def _pseudo_terminal(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        output = ''
        while time.monotonic() < deadline:
            line = self._process.stdout.readline()
            if not line:  # qemu exited
                break
            output += line
            if match := PTY_LINE.search(line):
                return match.group(1)
        self.unplug()
        raise RuntimeError(
            f'{QEMU} did not start {self.elf.name}: {output.strip() or "no output"}'
        )

    def unplug(self) -> None:
        """Pull the cable: the emulator stops, the path disappears and the host's open port
        fails."""
        Path(self.port).unlink(missing_ok=True)
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process.stdout.close()
            self._process = None

    @property
    def running(self) -> bool:
        """Whether qemu is running: started, not unplugged, not exited."""
        return self._process is not None and self._process.poll() is None

    def port_writes(self) -> list[tuple[str, int]]:
        """Every value the firmware wrote to a GPIO output register since the last start or replug,
        in order: [('B', 0x05), ...]."""
        if not self.trace_path.exists():
            return []
        return [
            (m.group(1).upper(), int(m.group(2), 16))
            for m in PORT_WRITE.finditer(self.trace_path.read_text())
        ]

    def stop(self) -> None:
        """Stop the emulator and remove its temporary folder (the pin trace with it)."""
        self.unplug()
        self._tmpdir.cleanup()

    def __enter__(self) -> EmulatedBoard:
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()
