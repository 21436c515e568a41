"""The simulator's parameter file: every field of ``model.SnakeModel`` (the body's and the
chambers') by name, one ``name: value`` line each (YAML). Written by ``soft-snake-fit``, read by
``soft-snake-tables --params``, the sim node's ``body_parameters_file`` and anything else that
builds a ``SnakeSim``. No ROS.

Generic over the dataclasses' fields, so a field added to either is written and read with no
change here. A name the file leaves out keeps the calibrated default; an unknown name or a value
its dataclass refuses is refused in one line (``ValueError``).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from soft_snake.model import CALIBRATED, SnakeModel, check_names
from soro_node.arguments import read_input, write_output, yaml_document


def dump(model: SnakeModel) -> str:
    """``model`` as the file's text: a comment line, then ``name: value`` per field (YAML's own
    float notation: ``5e-05``, a string to YAML 1.1, is written ``5.0e-05``)."""
    header = '# soft_snake simulator parameters (body and chambers; SI units, radians)\n'
    return header + yaml.safe_dump(model.values(), sort_keys=False).rstrip('\n')


def write(path: Path, model: SnakeModel) -> None:
    """``model`` to ``path``, whole or not at all (a temporary file renamed into place)."""
    write_output(Path(path), dump(model))


def parse(text: str, source: str = 'parameters') -> SnakeModel:
    """The parameters in ``text`` over the calibrated model; ValueError (one line, starting with
    ``source``) for anything else than a mapping of known names to numbers their dataclass
    takes."""
    try:  # the dataclasses refuse a value out of their range
        return CALIBRATED.replaced(_values(_mapping(text)))
    except ValueError as error:
        raise ValueError(f'{source}: {error}') from None


def _mapping(text: str) -> dict:
    try:
        document = yaml_document(text)
    except yaml.YAMLError as error:
        raise ValueError(getattr(error, 'problem', None) or 'not YAML') from None
    if not isinstance(document, dict):
        raise ValueError('not a mapping of parameter names to values')
    return document


def _values(document: dict) -> dict[str, float]:
    check_names(document)
    for name, value in document.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f'{name} = {value!r}: must be a number')
    try:
        return {name: float(value) for name, value in document.items()}
    except OverflowError:
        raise ValueError('a value too large for a float') from None


def load(path: str | Path) -> SnakeModel:
    """The parameter file at ``path`` (see ``parse``); ValueError in one line naming the file."""
    return parse(read_input(path), str(path))


def load_or_calibrated(path: str | Path | None) -> SnakeModel:
    """``load(path)``, or the calibrated model when ``path`` is empty or None (the default of every
    option and parameter that names such a file)."""
    return load(path) if path else CALIBRATED
