"""Command-line arguments of softbots' commands, refused as node parameters are. No rclpy.

- ``CommandParser``: an ArgumentParser whose refusal is one line, ``prog: argument --dt: ...``, exit code 2.
- ``checked(spec)``: an argparse ``type`` that reads a value as a ``ParamSpec``'s type and refuses what the spec
  refuses (range, NaN and infinities, choices), so that a command and a node share one declaration;
  ``add_option`` declares an option that way, with the spec's default and description.
- ``output_file`` / ``output_dir``: an output path made and probed while the arguments are read, so a command that
  cannot write its result says so before it works for minutes, not after.
"""
from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path

from soro_node.params import ParamSpec

STDOUT = Path('-')


class CommandParser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(2, f'{self.prog}: {message} (--help for usage)\n')


def checked(spec: ParamSpec) -> Callable[[str], object]:
    """The argparse ``type`` for ``spec``: its Python type (int, float or str), then its checks."""
    kind = type(spec.default)

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'{text!r} is not {_NAMES.get(kind, kind.__name__)}') from None
        problem = spec.problem(value)
        if problem:
            raise argparse.ArgumentTypeError(f'{text}: {problem}')
        return value

    return parse


_NAMES = {int: 'a whole number', float: 'a number'}


def add_option(parser: argparse.ArgumentParser, flag: str, spec: ParamSpec, **kwargs) -> None:
    """``flag`` read and refused as ``spec``; default and help from the spec unless ``kwargs`` say otherwise."""
    limits = f' ({spec.allowed_range})' if (spec.low, spec.high) != (None, None) else ''
    parser.add_argument(flag, type=checked(spec), **{'default': spec.default, 'help': spec.description + limits,
                                                     **kwargs})


def output_file(text: str) -> Path:
    """A file to write (its folder made now); ``-`` stands for stdout. Probed by opening it for appending, which
    leaves an existing file as it is and removes the probe of a new one."""
    if text == '-':
        return STDOUT
    path = Path(text).expanduser()
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open('a'):
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        raise argparse.ArgumentTypeError(f'cannot write {text}: {_reason(error, path)}') from None
    return path


def output_dir(text: str) -> Path:
    """A folder to write into, made now and probed with a temporary file."""
    path = Path(text).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(f'cannot write into {text}: {_reason(error, path)}') from None
    return path


def _reason(error: OSError, path: Path) -> str:
    """The OS's reason, naming the path it is about when that is another one (a file where a folder must be)."""
    about = error.filename and Path(error.filename) != path
    return f'{error.strerror}: {error.filename}' if about else error.strerror
