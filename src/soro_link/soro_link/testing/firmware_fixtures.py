"""pytest fixtures of the boards' firmware tests (registered with ``-p`` in tools/pytest.ini):
every image built once per session, and the test module's image (its ``FIRMWARE_IMAGE``) running
in qemu-system-avr.

A test module names its board and whether qemu should log the pins it writes::

    FIRMWARE_IMAGE, TRACE_PINS = 'pom_board', True
"""

from __future__ import annotations

import fcntl

import pytest

from soro_link.testing.emulator import EmulatedBoard, build_images

# from the repository root; it finds each board's source by its path
BOARD_MK = 'src/soro_link/firmware/board.mk'


@pytest.fixture(scope='session')
def firmware_images(request, tmp_path_factory) -> dict:
    """{board: elf path} of every board in board.mk, built once (seconds per image)."""
    return build_images(request.config.rootpath / BOARD_MK, tmp_path_factory.mktemp('firmware'))


@pytest.fixture(scope='module')
def elf(request, firmware_images):
    """The image of the test module's board (``FIRMWARE_IMAGE``)."""
    return firmware_images[request.module.FIRMWARE_IMAGE]


@pytest.fixture
def board(request, elf, tmp_path_factory):
    """A fresh emulated board running ``elf``, stopped after the test; pin writes traced when the
    module's ``TRACE_PINS`` is true. One board at a time across parallel test workers:
    qemu-system-avr takes a whole core, and two boards on a 2-core machine starve each other's
    watchdog timing."""
    lock = tmp_path_factory.getbasetemp().parent / 'emulated-board.lock'  # the whole run's
    trace_pins = getattr(request.module, 'TRACE_PINS', False)
    with lock.open('w') as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with EmulatedBoard(elf, trace_pins=trace_pins) as emulated:
            yield emulated
