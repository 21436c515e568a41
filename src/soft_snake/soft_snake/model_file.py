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

from soft_snake.model import CALIBRATED, SnakeModel
from soro_node.arguments import read_input, write_output


def dump(model: SnakeModel) -> str:
    """``model`` as the file's text: a comment line, then ``name: value`` per field."""
    lines = ['# soft_snake simulator parameters (body and chambers; SI units, radians)']
    lines += [f'{name}: {value!r}' for name, value in model.values().items()]
    return '\n'.join(lines)


def write(path: Path, model: SnakeModel) -> None:
    """``model`` to ``path``, whole or not at all (a temporary file renamed into place)."""
    write_output(Path(path), dump(model))


def parse(text: str, source: str = 'parameters') -> SnakeModel:
    """The parameters in ``text`` over the calibrated model; ValueError (one line, starting with
    ``source``) for anything else than a mapping of known names to numbers their dataclass
    takes."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        problem = getattr(error, 'problem', None) or 'not YAML'
        raise ValueError(f'{source}: {problem}') from None
    if not isinstance(document, dict):
        raise ValueError(f'{source}: not a mapping of parameter names to values')
    for name, value in document.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f'{source}: {name} = {value!r}: must be a number')
    try:  # the dataclasses refuse a value out of their range
        return CALIBRATED.replaced({name: float(value) for name, value in document.items()})
    except ValueError as error:
        raise ValueError(f'{source}: {error}') from None


def load(path: str | Path) -> SnakeModel:
    """The parameter file at ``path`` (see ``parse``); ValueError in one line naming the file."""
    return parse(read_input(path), str(path))
