"""The per-robot analyses of recorded experiments, and what one writes. No rclpy.

A robot package registers its analysis under the entry-point group ``soro_analysis.robots`` (in its
setup.py: ``'soro_analysis.robots': ['terresoro = terresoro_gait.bag_analysis:ANALYSIS']``), so
that every robot plugs into the same ``soro-analyze`` without this package depending on it. An
analysis is a pure function from a Recording (and its options, declared as ParamSpecs) to a Report:
numbers, figures (written as PNG beside the data they show) and a summary.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

from soro_analysis.recording import MalformedMessages, MissingTopics, Recording
from soro_node.arguments import yaml_document
from soro_node.params import ParamSpec, check_all

GROUP = 'soro_analysis.robots'


@dataclass
class Report:
    """What an analysis found: ``numbers`` (headline figures), ``figures`` (PNG name -> the data it
    shows) and the summary's markdown ``lines``. Everything in ``numbers`` and ``figures`` is
    JSON-able (numpy included)."""

    title: str
    lines: list[str] = field(default_factory=list)
    numbers: dict = field(default_factory=dict)
    figures: dict[str, dict] = field(default_factory=dict)

    def document(self) -> dict:
        """The ``figures.json`` document: title, numbers and figures, JSON-able (non-finite floats
        null)."""
        return _jsonable({'title': self.title, 'numbers': self.numbers, 'figures': self.figures})

    def write(self, out: Path) -> tuple[Path, Path]:
        """``summary.md`` and ``figures.json`` in ``out`` (the PNGs are there already)."""
        summary, data = out / 'summary.md', out / 'figures.json'
        summary.write_text('\n'.join([f'# {self.title}', '', *self.lines, '']))
        data.write_text(json.dumps(self.document(), indent=1) + '\n')
        return summary, data


@dataclass(frozen=True)
class Analysis:
    """A robot's analysis as registered: ``signature`` names the topics that identify its bags,
    ``run`` makes the Report, ``options`` are the ``-p name:=value`` it takes, ``types`` the type
    (pkg/msg/Name) of each topic it reads, which a bag must hold them as."""

    robot: str
    description: str
    signature: tuple[str, ...]  # topics that together identify a bag of this robot
    # (recording, output folder, checked options) -> Report
    run: Callable[[Recording, Path, dict], Report]
    options: tuple[ParamSpec, ...] = ()
    types: Mapping[str, str] = field(default_factory=dict)


class AnalysisError(ValueError):
    """No analysis fits, or an option is refused; the message is one line."""


def registered() -> dict[str, Analysis]:
    """Every robot's analysis installed in this environment, by robot name."""
    found = {}
    for point in entry_points(group=GROUP):
        analysis = point.load()
        found[analysis.robot] = analysis
    return found


def choose(
    recording: Recording, robot: str = 'auto', known: dict[str, Analysis] | None = None
) -> Analysis:
    """The analysis named ``robot``, or with 'auto' the one whose signature topics the bag has."""
    known = registered() if known is None else known
    if robot != 'auto':
        if robot not in known:
            raise AnalysisError(
                f'no analysis for robot {robot!r}; installed: {", ".join(sorted(known)) or "none"}'
            )
        return known[robot]
    fits = [a for a in known.values() if all(recording.count(t) for t in a.signature)]
    if len(fits) != 1:
        wanted = '; '.join(f'{a.robot}: {", ".join(a.signature)}' for a in known.values())
        raise AnalysisError(
            f"{recording.path}: {'no' if not fits else 'more than one'} robot's topics in "
            'this bag '
            '(it has '
            f'{", ".join(sorted(recording.topics)) or "no messages"}; '
            'each robot needs '
            f'{wanted}); name one with --robot'
        )
    return fits[0]


def options(analysis: Analysis, pairs: Iterable[str]) -> dict:
    """``name:=value`` pairs (values read as YAML, as ``ros2 run -p`` does) checked against the
    analysis' options; the unset ones keep their defaults."""
    specs, values = {s.name: s for s in analysis.options}, {}
    for pair in pairs:
        name, sep, text = pair.partition(':=')
        if not sep or name not in specs:
            allowed = ', '.join(specs) or 'none'
            raise AnalysisError(
                f"option {pair!r}: expected name:=value with a name of {analysis.robot}'s "
                'options '
                f'({allowed})'
            )
        values[name] = yaml_document(text) if text else ''
    try:
        return check_all(analysis.options, values)
    except ValueError as error:
        raise AnalysisError(str(error)) from None


def analyze(
    path: Path,
    out: Path,
    robot: str = 'auto',
    pairs: Iterable[str] = (),
    progress: Callable[[int], None] | None = None,
) -> tuple[Report, list[str]]:
    """Read the bag at ``path``, run its robot's analysis into ``out`` and write the report there;
    (report, warnings about the bag). Raises MissingTopics or AnalysisError with one line. The
    analysis writes into a hidden folder in ``out`` whose files move into ``out`` once the report
    is whole: an analysis that fails half-way leaves ``out`` as it was."""
    recording = Recording.open(path, progress)
    analysis = choose(recording, robot)
    checked = options(analysis, pairs)
    recording.require(*analysis.signature, types=analysis.types)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out, prefix='.analysis-'))
    try:
        report = analysis.run(recording, staging, checked)
        if recording.warnings:
            report.lines += ['', '## The bag', *(f'- {w}' for w in recording.warnings)]
        report.write(staging)
        for written in staging.iterdir():
            os.replace(written, out / written.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report, recording.warnings


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (np.floating, float)):
        return None if not math.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


__all__ = [
    'Analysis',
    'AnalysisError',
    'MalformedMessages',
    'MissingTopics',
    'Report',
    'analyze',
    'choose',
    'options',
    'registered',
]
