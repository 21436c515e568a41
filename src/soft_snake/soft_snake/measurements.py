"""A robot's measured speeds as a CSV file, the input of ``soft-snake-fit``. No ROS.

One row per measured cell: ``gait`` (undulation, sidewinding), ``segments`` (3-5), ``frequency_hz``
(Hz, at most 2), ``phase_offset_rad`` (β between adjacent segments, rad, within ±2π: a number or a
multiple of π as the thesis prints it, ``2π/3``), ``surface`` (one of Table 5.1's) and
``speed_bl_per_s`` (the centre of mass's speed in body lengths per second, the tables' unit). Rows
become ``tables.Cell``; the thesis's Tables 5.2-5.7 are the first such file
(``data/measured_tables.csv``). A cell measured in several rows (repeated trials) is one cell at
their mean speed, so that no trial of a held-out cell trains the fit.
Every refusal is one line naming the row (its line in the file) or column (``MeasurementError``).
"""

from __future__ import annotations

import csv
import dataclasses
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
    """The cells of a measured CSV as ``tables.Cell``, in the order of their first row, repeated
    rows of a cell merged (``merge_repeats``); MeasurementError on the first bad row."""
    reader = csv.DictReader(io.StringIO(text))
    try:
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise MeasurementError(f'{source}: missing column(s) {", ".join(missing)}')
        cells = [_cell(row, f'{source} line {reader.line_num}') for row in reader]
    except csv.Error as error:  # a quote left open swallows the file into one field
        raise MeasurementError(f'{source} line {reader.line_num}: {error}') from None
    if not cells:
        raise MeasurementError(f'{source}: no measured rows')
    return merge_repeats(cells)


def merge_repeats(cells: list[tables.Cell]) -> list[tables.Cell]:
    """One cell per gait, segments, frequency, β and surface, at the mean speed of its rows."""
    trials: dict[tuple, list[tables.Cell]] = {}
    for c in cells:
        # β to a milliradian: 2.0944 and 2π/3 are the same offset written two ways
        key = (c.gait, c.segments, round(c.frequency_hz, 6), round(c.beta_rad, 3), c.surface)
        trials.setdefault(key, []).append(c)
    return [
        dataclasses.replace(same[0], bl_per_s=sum(c.bl_per_s for c in same) / len(same))
        for same in trials.values()
    ]


def _cell(row: dict, where: str) -> tables.Cell:
    """One row (``where`` names it: file and line) as a Cell, each column checked."""
    friction = tables.friction()
    surface, gait = (row['surface'] or '').strip(), (row['gait'] or '').strip()
    if surface not in friction:
        raise MeasurementError(
            f'{where}: surface {surface!r}: allowed {", ".join(sorted(friction))}'
        )
    segments = _number(row, 'segments', where, int)
    frequency = _number(row, 'frequency_hz', where, float)
    beta = _phase_offset(row['phase_offset_rad'], where)
    speed = _number(row, 'speed_bl_per_s', where, float)
    if speed < 0:
        raise MeasurementError(f'{where}: speed_bl_per_s = {speed}: must be >= 0')
    try:  # the gait's own checks: known gait, 3-5 segments, frequency in (0, 2] Hz, |β| <= 2π
        Gait(gait, segments, frequency, beta)
    except GaitError as error:
        raise MeasurementError(f'{where}: {error}') from None
    text = row['phase_offset_rad'].strip()
    return tables.Cell(gait, segments, frequency, beta, text, surface, speed)


def _number(row: dict, column: str, where: str, kind):
    text = (row[column] or '').strip()
    try:
        value = kind(text)
    except ValueError:
        what = 'a whole number' if kind is int else 'a number'
        raise MeasurementError(f'{where}: {column} = {text!r}: not {what}') from None
    if not math.isfinite(value):
        raise MeasurementError(f'{where}: {column} = {text}: must be finite')
    return value


def _phase_offset(text: str, where: str) -> float:
    """β in rad from a number or the thesis's ``kπ/m``."""
    text = (text or '').strip()
    try:
        value = tables.beta_of(text)
    except ValueError:
        raise MeasurementError(
            f'{where}: phase_offset_rad = {text!r}: not a number of radians (or kπ/m)'
        ) from None
    if not math.isfinite(value):
        raise MeasurementError(f'{where}: phase_offset_rad = {text}: must be finite')
    return value
