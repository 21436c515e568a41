"""A robot's measured speeds as a CSV file, the input of ``soft-snake-fit``. No ROS.

One row per measured cell: ``gait`` (undulation, sidewinding), ``segments`` (3-5), ``frequency_hz``
(Hz, at most 2), ``phase_offset_rad`` (β between adjacent segments, rad: a number or a fraction of
π as the thesis prints it, ``2π/3``), ``surface`` (one of Table 5.1's) and ``speed_bl_per_s`` (the
centre of mass's speed in body lengths per second, the tables' unit). Rows become
``tables.Cell``; the thesis's Tables 5.2-5.7 are the first such file
(``data/measured_tables.csv``).
Every refusal is one line naming the row or column (``MeasurementError``).
"""

from __future__ import annotations

import csv
import io
import math
from importlib.resources import files

from soft_snake import tables
from soft_snake.gaits import Gait, GaitError

COLUMNS = ('gait', 'segments', 'frequency_hz', 'phase_offset_rad', 'surface', 'speed_bl_per_s')
THESIS_CSV = 'measured_tables.csv'


class MeasurementError(ValueError):
    """A measured CSV refused: one line naming the row or column."""


def thesis_csv_text() -> str:
    """Tables 5.2-5.7 as a measured CSV, generated from ``tables.speeds()``."""
    return csv_text(tables.speeds())


def csv_text(cells: list[tables.Cell]) -> str:
    """``cells`` as a measured CSV (β as each cell prints it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(COLUMNS)
    for c in cells:
        writer.writerow(
            [c.gait, c.segments, repr(c.frequency_hz), c.beta_text, c.surface, repr(c.bl_per_s)]
        )
    return out.getvalue()


def thesis_cells() -> list[tables.Cell]:
    """The shipped CSV of the thesis's tables, read as any user's file is."""
    return parse((files('soft_snake') / 'data' / THESIS_CSV).read_text(), THESIS_CSV)


def parse(text: str, source: str = 'measurements') -> list[tables.Cell]:
    """Every row of a measured CSV as a ``tables.Cell``; MeasurementError on the first bad one."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise MeasurementError(f'{source}: missing column(s) {", ".join(missing)}')
    cells = [_cell(row, f'{source} row {n}') for n, row in enumerate(reader, start=2)]
    if not cells:
        raise MeasurementError(f'{source}: no measured rows')
    return cells


def _cell(row: dict, where: str) -> tables.Cell:
    """One row (``where`` names it: file and line) as a Cell, each column checked."""
    friction = tables.friction()
    if row['surface'] not in friction:
        raise MeasurementError(
            f'{where}: surface {row["surface"]!r}: allowed {", ".join(sorted(friction))}'
        )
    segments = _number(row, 'segments', where, int)
    frequency = _number(row, 'frequency_hz', where, float)
    beta = _phase_offset(row['phase_offset_rad'], where)
    speed = _number(row, 'speed_bl_per_s', where, float)
    if speed < 0:
        raise MeasurementError(f'{where}: speed_bl_per_s = {speed}: must be >= 0')
    try:  # the gait's own checks: known gait, 3-5 segments, frequency in (0, 2] Hz
        Gait(row['gait'], segments, frequency, beta)
    except GaitError as error:
        raise MeasurementError(f'{where}: {error}') from None
    text = row['phase_offset_rad'].strip()
    return tables.Cell(row['gait'], segments, frequency, beta, text, row['surface'], speed)


def _number(row: dict, column: str, where: str, kind):
    text = (row[column] or '').strip()
    try:
        value = kind(text)
    except ValueError:
        raise MeasurementError(f'{where}: {column} = {text!r}: not a number') from None
    if not math.isfinite(value):
        raise MeasurementError(f'{where}: {column} = {text}: must be finite')
    return value


def _phase_offset(text: str, where: str) -> float:
    """β in rad from a number or the thesis's ``kπ/m``."""
    text = (text or '').strip()
    try:
        value = tables.beta_of(text) if 'π' in text else float(text)
    except (ValueError, ZeroDivisionError):
        raise MeasurementError(
            f'{where}: phase_offset_rad = {text!r}: not a number of radians (or kπ/m)'
        ) from None
    if not math.isfinite(value):
        raise MeasurementError(f'{where}: phase_offset_rad = {text}: must be finite')
    return value
