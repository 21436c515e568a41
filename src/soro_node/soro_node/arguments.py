"""Command-line arguments of softbots' commands, refused as node parameters are. No rclpy.

- ``CommandParser``: an ArgumentParser whose refusal is one line, ``prog: argument --dt: ...``,
  exit code 2.
- ``checked(spec)``: an argparse ``type`` that reads a value as a ``ParamSpec``'s type and refuses
  what the spec refuses (range, NaN and infinities, choices), so that a command and a node share
  one declaration; ``add_option`` declares an option that way, with the spec's default and
  description.
- ``output_file`` / ``output_dir``: an output path made and probed while the arguments are read, so
  a command that cannot write its result says so before it works for minutes, not after;
  ``write_output`` writes it whole or not at all (a temporary file renamed into place). A command
  that refuses its input after that (``refuse``, or argparse's own refusal) removes the folders
  the reading made: a refused command leaves nothing behind. One path given as two outputs is
  refused by ``CommandParser``.
- ``read_input``: an input file's text, read with a size bound (``/dev/zero`` is refused, not read
  forever); a UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8") is dropped. ``yaml_document``:
  the YAML in it, a key given twice refused (PyYAML keeps the last one silently).
- ``worker_count``: worker processes asked for, capped at the cores this process may run on.
- Every command interruptible: a CommandParser reading ``sys.argv`` puts back SIGINT's default
  handler that a process started with ``&`` from a script inherits as ignored, and makes SIGTERM
  unwind like SIGINT (``finally`` and ``with`` blocks run, so worker pools end with the command and
  nothing is left half-written). A test calling ``main(argv)`` in its own process keeps that
  process's handlers. ``ends_on_ctrl_c(prog)`` makes a command's Ctrl-C one line, exit 130.
"""

from __future__ import annotations

import argparse
import errno
import functools
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Hashable
from pathlib import Path

import yaml

from soro_node.params import ParamSpec

STDOUT = Path('-')
# folders output_file and output_dir made while the current command's arguments were read
_made: list[Path] = []
# the files and folders output_file and output_dir gave while they were read (real paths)
_outputs: list[tuple[str, str]] = []


class CommandParser(argparse.ArgumentParser):
    """The commands' ArgumentParser: one-line refusals (exit code 2); interruptible commands."""

    def parse_known_args(self, args=None, namespace=None):
        """Parse as argparse does, first making SIGINT and SIGTERM unwind when reading sys.argv."""
        # a command started from its command line (not a test calling main(argv))
        if args is None:
            interruptible()
        _made.clear()
        _outputs.clear()
        parsed = super().parse_known_args(args, namespace)
        self._check_outputs()
        return parsed

    def _check_outputs(self) -> None:
        """Refuse one path given for two outputs (``--json out --plots out``: the file would land
        on the folder, or two files on each other, after the work)."""
        seen: dict[str, str] = {}
        for kind, path in _outputs:
            if path in seen:
                self.error(f'{path} is given as two outputs ({seen[path]} and {kind})')
            seen[path] = kind

    def error(self, message: str):
        """Exit with code 2 after one line on stderr: ``prog: message (--help for usage)``, the
        folders the arguments made removed."""
        remove_made_folders()
        self.exit(2, f'{self.prog}: {message} (--help for usage)\n')


def checked(spec: ParamSpec) -> Callable[[str], object]:
    """The argparse ``type`` for ``spec``: its Python type (int, float or str), then its checks."""
    kind = type(spec.default)

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f'{text!r} is not {_NAMES.get(kind, kind.__name__)}'
            ) from None
        problem = spec.problem(value)
        if problem:
            raise argparse.ArgumentTypeError(f'{text}: {problem}')
        return value

    return parse


_NAMES = {int: 'a whole number', float: 'a number'}


def add_option(parser: argparse.ArgumentParser, flag: str, spec: ParamSpec, **kwargs) -> None:
    """``flag`` read and refused as ``spec``; default and help from the spec unless ``kwargs`` say
    otherwise."""
    limits = f' ({spec.allowed_range})' if (spec.low, spec.high) != (None, None) else ''
    parser.add_argument(
        flag,
        type=checked(spec),
        **{'default': spec.default, 'help': spec.description + limits, **kwargs},
    )


def output_file(text: str) -> Path:
    """A file to write (its folder made now); ``-`` stands for stdout. Probed by opening it for
    appending, which leaves an existing file as it is and removes the probe of a new one; a device
    or FIFO (``/dev/null``, a named pipe) only by its permissions, since opening a FIFO waits for
    its reader."""
    if text == '-':
        return STDOUT
    path = _nonempty(text)
    try:
        _make_folder(path.parent)
        _probe_file(path)
    except OSError as error:
        raise argparse.ArgumentTypeError(f'cannot write {text}: {_reason(error, path)}') from None
    if not _special(path):
        _outputs.append(('a file', os.path.realpath(path)))
    return path


def probe_writable(path: Path) -> None:
    """Make ``path``'s folder and check that the file can be written, before work whose result
    goes there (a node's goal): OSError says why not."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _probe_file(path)


def _probe_file(path: Path) -> None:
    """Open ``path`` for appending, which leaves an existing file as it is, and remove the probe
    of a new one; a device or FIFO only by its permissions (opening a FIFO waits for its
    reader). OSError says why it cannot be written."""
    if _special(path):
        if not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return
    existed = path.exists()
    with path.open('a'):
        pass
    if not existed:
        path.unlink()


def output_dir(text: str) -> Path:
    """A folder to write into, made now and probed with a temporary file."""
    path = _nonempty(text)
    try:
        _make_folder(path)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(
            f'cannot write into {text}: {_reason(error, path)}'
        ) from None
    _outputs.append(('a folder', os.path.realpath(path)))
    return path


def _nonempty(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError('an empty path')
    return Path(text).expanduser()


def _make_folder(path: Path) -> None:
    """``path`` with its missing parents made, each one made remembered for
    ``remove_made_folders``."""
    # remembered first: a mkdir that fails half-way has made some of them
    _made.extend(p for p in (path, *path.parents) if not p.exists())
    path.mkdir(parents=True, exist_ok=True)


def refuse(prog: str, message) -> int:
    """A refusal after the arguments were read: one line on stderr, ``prog: message``, the (still
    empty) folders the arguments made removed; returns 2, the exit code."""
    remove_made_folders()
    print(f'{prog}: {message}', file=sys.stderr)
    return 2


def ends_on_ctrl_c(prog: str):
    """Decorate a command's ``main``: Ctrl-C (KeyboardInterrupt, once its ``finally`` blocks have
    run) ends it with one line, ``prog: interrupted``, the empty folders its arguments made
    removed, and exit code 130 (128 + SIGINT), not a traceback."""

    def decorate(main):
        @functools.wraps(main)
        def run(*args, **kwargs):
            try:
                return main(*args, **kwargs)
            except KeyboardInterrupt:
                remove_made_folders()
                print(f'{prog}: interrupted', file=sys.stderr)
                return 128 + signal.SIGINT

        return run

    return decorate


def remove_made_folders() -> None:
    """Remove the folders the arguments made, deepest first, where they are still empty (nothing
    the command wrote is removed)."""
    for folder in sorted(set(_made), key=lambda p: len(p.absolute().parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:  # written into, or gone already
            pass
    _made.clear()


def _reason(error: OSError, path: Path) -> str:
    """The OS's reason, naming the path it is about when that is another one (a file where a folder
    must be)."""
    about = error.filename and Path(error.filename) != path
    return f'{error.strerror}: {error.filename}' if about else error.strerror


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread so that the command unwinds as on Ctrl-C; exits 143 (128
    + SIGTERM)."""

    def __init__(self):
        """Exit status 143 (128 + SIGTERM)."""
        super().__init__(128 + signal.SIGTERM)


def _terminate(_signum, _frame):
    # a second SIGTERM ends the process even if this is caught
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise Terminated


def interruptible() -> None:
    """SIGINT raises KeyboardInterrupt and SIGTERM raises Terminated in this (main) thread,
    whatever was inherited: a script's ``cmd &`` starts ``cmd`` with SIGINT ignored, and SIGTERM's
    default ends a process without unwinding it (its spawned workers live on). A handler someone
    installed on purpose is kept."""
    if threading.current_thread() is not threading.main_thread():
        # only the main thread may set handlers; its caller did
        return
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_IGN, signal.SIG_DFL):
        signal.signal(signal.SIGTERM, _terminate)


def write_output(path: Path, text: str) -> None:
    """``text`` (a newline added) to stdout for ``-``; straight into a device or FIFO
    (``/dev/null``, a named pipe), which a rename would replace; else to ``path`` (a symlink's
    target, the link kept) through a temporary file in its folder renamed over it, with the mode
    the file had or a new file gets (the umask's): an interrupted or failed write leaves the old
    file, or none, never a half of the new one."""
    if path == STDOUT:
        print(text)
        return
    if _special(path):
        with path.open('w') as out:
            out.write(text + '\n')
        return
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f'.{target.name}.', suffix='.part')
    try:
        os.fchmod(fd, mode)  # mkstemp's is 0600
        with os.fdopen(fd, 'w') as out:
            out.write(text + '\n')
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _special(path: Path) -> bool:
    """A device, FIFO or socket: written into, never replaced."""
    return path.exists() and not (path.is_file() or path.is_dir())


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# a scene, structure or track file; anything larger is a mistake (or /dev/zero)
MAX_INPUT_BYTES = 64 * 2**20


def read_input(path: str | Path, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The text of an input file; ValueError with one line (the path and why) when it cannot be
    read, is not UTF-8 text, or holds more than ``max_bytes``, checked as it is read, so an endless
    file stops there."""
    try:
        with open(path, 'rb') as source:
            data = source.read(max_bytes + 1)
    except OSError as error:
        raise ValueError(f'{path}: {error.strerror}') from None
    if len(data) > max_bytes:
        raise ValueError(
            f'{path}: more than {max_bytes // 2**20} MiB; not an input file of this command'
        )
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as error:
        raise ValueError(f'{path}: not text (byte {error.start} is not UTF-8)') from None


def yaml_document(text: str):
    """The YAML document in ``text``, safe types only, numbers as YAML 1.2 and ROS read them
    (``1e-3`` is a float; PyYAML's YAML 1.1 wants ``1.0e-3``); yaml.YAMLError when it is not
    YAML or a mapping gives a key twice (its problem names the key and its line)."""
    return yaml.load(text, Loader=_UniqueKeys)  # noqa: S506 (a SafeLoader)


class _UniqueKeys(yaml.SafeLoader):
    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != 'tag:yaml.org,2002:float']
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, Hashable):
                continue  # PyYAML refuses it itself
            if key in seen:
                line = key_node.start_mark.line + 1
                raise yaml.constructor.ConstructorError(
                    problem=f'{key!r} given twice (line {line})', problem_mark=key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


# YAML 1.2's core schema floats: an exponent needs no dot (1e-3), beside .inf and .nan
_UniqueKeys.add_implicit_resolver(
    'tag:yaml.org,2002:float',
    re.compile(
        r'^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?'
        r'|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$'
    ),
    list('-+0123456789.'),
)


def cores() -> int:
    """The cores this process may run on (its affinity mask, which containers and taskset
    narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_count(requested: int, prog: str, flag: str) -> int:
    """``requested`` worker processes, at most one per core: more only contend for the same cores
    (and ``--processes 100000`` would fork until memory runs out). Says so on stderr when it
    caps."""
    available = cores()
    if requested > available:
        print(
            f'{prog}: {flag} {requested}: capped at the {available} cores available',
            file=sys.stderr,
        )
    return max(1, min(requested, available))
