"""Firmware benchmark: each board's real image in qemu-system-avr beside its Python stand-in, in
the same run. JSON on stdout.

Per board: rtt_p50_ms / rtt_p99_ms, command -> ack through the bridges' link supervisor, for the
emulated chip (`firmware`) and the Python simulated device behind a pseudo-terminal
(`python_device`); `ratio_p50`, firmware over Python; flash_bytes / ram_bytes (static: .data +
.bss, the stack not counted) of the image against the ATmega328P's 32,256 (bootloader taken off)
and 2,048. A pseudo-terminal and qemu's USART have no baud rate: the round trips are software cost
only, as in link.py.
"""

import json
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from link import round_trips_s  # bench/link.py: one round-trip loop for both benchmarks

from pom_voxel.device import PomBoardFirmware
from soft_snake.device import SnakeHeadFirmware
from soft_snake.valves import to_wire
from soro_link.device import SimulatedDevice
from soro_link.protocol import link_protocol
from soro_link.testing.emulator import EmulatedBoard, build_images, missing_tools
from terresoro_gait.device import TerreSoroFirmware
from terresoro_gait.substrate import substrate_weights

BOARD_MK = Path(__file__).resolve().parents[1] / 'src' / 'soro_link' / 'firmware' / 'board.mk'
FLASH_MAX, RAM_MAX = 32256, 2048
BOARDS = {  # image: (Python stand-in, a valid command and its fields)
    'terresoro_board': (
        lambda: TerreSoroFirmware(substrate_weights('whiteboard', 4), range(4)),
        'set_limbs',
        {'drive': (1, 0, -1, 0)},
    ),
    'snake_head': (SnakeHeadFirmware, 'set_valves', to_wire(np.full((4, 3), 0.5))),
    'pom_board': (PomBoardFirmware, 'set_strokes', {'target_um': (100, -100, 0, 0)}),
}


def rtts_ms(port: str, protocol, command: str, fields: dict, n: int) -> list[float]:
    return [
        1000 * s for s in round_trips_s(port, protocol, command, lambda i: fields, n, warm_up=50)
    ]


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        'rtt_p50_ms': round(statistics.median(ordered), 3),
        'rtt_p99_ms': round(ordered[int(0.99 * (len(ordered) - 1))], 3),
    }


def image_size(elf: Path) -> dict:
    sections = dict(
        line.split()[:2]
        for line in subprocess.run(
            ['avr-size', '-A', str(elf)], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        if line.startswith('.')
    )
    size = {name: int(sections.get(name, 0)) for name in ('.text', '.data', '.bss', '.noinit')}
    return {
        'flash_bytes': size['.text'] + size['.data'],
        'flash_max': FLASH_MAX,
        'ram_bytes': size['.data'] + size['.bss'] + size['.noinit'],
        'ram_max': RAM_MAX,
    }


def main(n: int = 1000) -> None:
    if (why := missing_tools()) is not None:
        print(json.dumps({'skipped': why}))
        return
    result = {}
    with tempfile.TemporaryDirectory() as out:
        images = build_images(BOARD_MK, Path(out))
        for board, (model, command, fields) in BOARDS.items():
            protocol = link_protocol(*model().schemas)
            with EmulatedBoard(images[board]) as emulated:
                firmware = percentiles(rtts_ms(emulated.port, protocol, command, fields, n))
            with SimulatedDevice(model(), tick_s=0.001) as device:
                python = percentiles(rtts_ms(device.port, protocol, command, fields, n))
            result[board] = {
                'firmware': firmware,
                'python_device': python,
                'ratio_p50': round(firmware['rtt_p50_ms'] / python['rtt_p50_ms'], 2),
                **image_size(images[board]),
            }
    result['fits'] = all(
        r['flash_bytes'] <= FLASH_MAX and r['ram_bytes'] <= RAM_MAX * 3 / 4
        for r in result.values()
    )
    print(json.dumps(result))


if __name__ == '__main__':
    main()
