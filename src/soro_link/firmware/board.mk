# The build rules of every soro_link board (ATmega328P, 16 MHz): plain avr-gcc and avr-libc, no Arduino IDE.
#
#   make -f src/soro_link/firmware/board.mk OUT=build/firmware     every image: OUT/<board>.elf and .hex
#
# A board is its package's firmware/<board>.c, linked with soro_board.c; its message header is generated from the
# Python schemas (python -m soro_link.c_header) and kept beside it. The build prints each image's flash and RAM
# use and fails when an image does not fit the chip (32 kB flash with 0.5 kB for the bootloader, 2 kB RAM).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c

OUT       ?= build/firmware
LINK_DIR  := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SRC       := $(LINK_DIR)/../..
MCU       := atmega328p
CC        := avr-gcc
OBJCOPY   := avr-objcopy
BOARD_FLAGS ?=            # e.g. -DSNAKE_MODULES=5 -DSORO_WATCHDOG_MS=300: a board's compile-time settings
CFLAGS    := -mmcu=$(MCU) -DF_CPU=16000000UL -std=c99 -Os -Wall -Wextra -Werror -pedantic -ffunction-sections \
             -fdata-sections -Wl,--gc-sections -I$(LINK_DIR) $(BOARD_FLAGS)
FLASH_MAX := 32256
RAM_MAX   := 2048

# board name -> its source
BOARDS    := terresoro_board snake_head pom_board
terresoro_board_SRC := $(SRC)/terresoro_gait/firmware/terresoro_board.c
snake_head_SRC      := $(SRC)/soft_snake/firmware/snake_head.c
pom_board_SRC       := $(SRC)/pom_voxel/firmware/pom_board.c

.PHONY: all
all: $(foreach b,$(BOARDS),$(OUT)/$(b).elf $(OUT)/$(b).hex)

$(OUT)/%.elf: $(LINK_DIR)/soro_board.c $(wildcard $(LINK_DIR)/*.h) $(wildcard $(SRC)/*/firmware/*.[ch])
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -I$(dir $($*_SRC)) -o $@ $($*_SRC) $(LINK_DIR)/soro_board.c
	@avr-size -A $@ | awk -v board=$* -v fmax=$(FLASH_MAX) -v rmax=$(RAM_MAX) ' \
	    /^\.(text|data) /{f += $$2} /^\.(data|bss|noinit) /{r += $$2} \
	    END {printf "%-16s flash %5d of %d bytes (%4.1f %%)   RAM %4d of %d bytes (%4.1f %%, stack not counted)\n", \
	         board, f, fmax, 100 * f / fmax, r, rmax, 100 * r / rmax; \
	         if (f > fmax || r > rmax * 3 / 4) {print board ": does not fit (RAM: 3/4 at most, the rest is stack)"; \
	             exit 1}}' \
	    || { rm -f $@; exit 1; }

$(OUT)/%.hex: $(OUT)/%.elf
	$(OBJCOPY) -O ihex -R .eeprom $< $@
