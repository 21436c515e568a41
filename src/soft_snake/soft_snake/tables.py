"""The thesis's measured tables, shipped verbatim as data (appendix 5.1; spec A4.2-A4.3): the
surfaces' friction factors (Table 5.1) and the snake's speeds in BL/s for each gait, module count,
frequency, β and surface (Tables 5.2-5.7). No ROS."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from importlib.resources import files

from soft_snake.gaits import SIDEWINDING, UNDULATION, body_length_m

SURFACES = ('rubber', 'paper', 'carpet', 'grass')
TABLE_OF = {
    (UNDULATION, 3): '5_2',
    (UNDULATION, 4): '5_3',
    (UNDULATION, 5): '5_4',
    (SIDEWINDING, 3): '5_5',
    (SIDEWINDING, 4): '5_6',
    (SIDEWINDING, 5): '5_7',
}


@dataclass(frozen=True)
class Cell:
    """One measured speed: the gait, module count, frequency (Hz), β (rad, and as printed),
    surface, BL/s."""

    gait: str
    segments: int
    frequency_hz: float
    beta_rad: float
    beta_text: str
    surface: str
    bl_per_s: float

    @property
    def speed_m_s(self) -> float:
        """The measured speed in m/s: BL/s times the body length of ``segments`` modules."""
        return self.bl_per_s * body_length_m(self.segments)


def _rows(name: str) -> list[dict]:
    text = (files('soft_snake') / 'data' / f'table_{name}.csv').read_text()
    return list(csv.DictReader(line for line in text.splitlines() if not line.startswith('#')))


def beta_of(text: str) -> float:
    """β in rad from its text: a number of radians ('2.094') or a multiple of π as the thesis
    prints it ('2π/3', 'π/2', 'π', '-π/2', '0.5π'; 'pi' for 'π' too); ValueError for anything
    else."""
    text = text.strip().replace('pi', 'π')
    if 'π' not in text:
        return float(text)
    numerator, slash, denominator = text.partition('/')
    factor = numerator.strip()
    if not factor.endswith('π'):
        raise ValueError(f'{text!r}: π must end the numerator (kπ/m)')
    factor = factor.removesuffix('π').strip()
    k = {'': 1.0, '+': 1.0, '-': -1.0}.get(factor)
    m = float(denominator) if slash else 1.0
    if m == 0:
        raise ValueError(f'{text!r}: divided by zero')
    return (float(factor) if k is None else k) * math.pi / m


def speeds() -> list[Cell]:
    """Every cell of Tables 5.2-5.7, in the tables' own order."""
    return [
        Cell(
            gait,
            n,
            float(row['frequency_hz']),
            beta_of(row['beta']),
            row['beta'],
            surface,
            float(row[surface]),
        )
        for (gait, n), name in TABLE_OF.items()
        for row in _rows(name)
        for surface in SURFACES
    ]


def friction() -> dict[str, tuple[float, float]]:
    """Table 5.1: surface → (sliding, rolling) friction factors, as printed."""
    return {row['surface']: (float(row['sliding']), float(row['rolling'])) for row in _rows('5_1')}
