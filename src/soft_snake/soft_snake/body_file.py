"""The simulator's parameter file: every ``body.BodyParameters`` field by name, one ``name: value``
line each (YAML). Written by ``soft-snake-fit``, read by ``soft-snake-tables --params``, the sim
node's ``body_parameters_file`` and anything else that builds a ``SnakeSim``. No ROS.

Generic over the dataclass's fields, so a field added to ``BodyParameters`` is written and read
with no change here. A name the file leaves out keeps the calibrated default; an unknown name or a
value that is not a finite positive number is refused in one line (``ValueError``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import yaml

from soft_snake import body, calibration
from soro_node.arguments import read_input, write_output


def dump(params: body.BodyParameters) -> str:
    """``params`` as the file's text: a comment line, then ``name: value`` per field."""
    lines = ['# soft_snake body parameters (body.BodyParameters; SI units, radians)']
    lines += [f'{name}: {value!r}' for name, value in dataclasses.asdict(params).items()]
    return '\n'.join(lines)


def write(path: Path, params: body.BodyParameters) -> None:
    """``params`` to ``path``, whole or not at all (a temporary file renamed into place)."""
    write_output(Path(path), dump(params))


def parse(text: str, source: str = 'parameters') -> body.BodyParameters:
    """The parameters in ``text`` over the calibrated default; ValueError (one line, starting with
    ``source``) for anything else than a mapping of known names to finite positive numbers."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        problem = getattr(error, 'problem', None) or 'not YAML'
        raise ValueError(f'{source}: {problem}') from None
    if not isinstance(document, dict):
        raise ValueError(f'{source}: not a mapping of parameter names to values')
    fields = {f.name for f in dataclasses.fields(body.BodyParameters)}
    values = {}
    for name, value in document.items():
        if name not in fields:
            raise ValueError(
                f'{source}: unknown parameter {name!r}; known: {", ".join(sorted(fields))}'
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f'{source}: {name} = {value!r}: must be a number')
        values[name] = float(value)
    try:  # BodyParameters refuses a value that is not finite and positive
        return dataclasses.replace(calibration.CALIBRATED, **values)
    except ValueError as error:
        raise ValueError(f'{source}: {error}') from None


def load(path: str | Path) -> body.BodyParameters:
    """The parameter file at ``path`` (see ``parse``); ValueError in one line naming the file."""
    return parse(read_input(path), str(path))
