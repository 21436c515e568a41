"""Table sweeps on Ray: the simulator's prediction of many cells with given parameters
(``model.SnakeModel``), each cell a Ray task that gets the cell, the model and how long to run it
(never the driver's state). No ROS.

``RaySweep`` is an embedded local Ray by default (``ray.init`` with a bounded ``num_cpus``, no
dashboard, its logs in a temporary folder, shut down afterwards) or joins an existing cluster
(``address``, ``host:port`` of its head). ``soft-snake-tables`` and ``soft-snake-fit`` both sweep
through it.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Callable

from soft_snake import tables
from soft_snake.model import SnakeModel
from soft_snake.reproduction import Prediction, RunLength, predict

# how long it takes to learn that nobody listens at --address, or that what listens is no Ray head
CONNECT_TIMEOUT_S = 5.0
# a Ray head's port is a gRPC server, which answers HTTP/2's client preface (RFC 9113 §3.4: the
# magic, then a SETTINGS frame, here empty) with its own SETTINGS frame (type 4)
HTTP2_PREFACE = b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
SETTINGS_FRAME_TYPE = 4


def nothing() -> None:
    """A task that does nothing: what a task costs Ray itself (``bench/soft_snake_fit.py``)."""


class SweepError(RuntimeError):
    """Ray could not be started or joined: one line."""


class RaySweep:
    """A Ray session (a context manager) that predicts cells: embedded with ``workers`` CPUs, or
    the cluster at ``address``."""

    def __init__(self, address: str | None = None, workers: int = 1):
        self.address, self.workers = address, workers
        self._temp_dir: str | None = None
        self._pending: list = []

    def __enter__(self) -> RaySweep:
        """Join ``address`` (checked to answer first) or start a local Ray; SweepError if not."""
        import ray

        # ray.init makes SIGTERM exit at once with status 15; the command's own handler (unwind,
        # end the workers, exit 143: soro_node.arguments) is put back after it. Ctrl-C or SIGTERM
        # while Ray starts would leave its processes behind: held until it has started (Ray's
        # threads inherit the mask, so the main thread gets them), then raised here and unwound.
        sigterm = signal.getsignal(signal.SIGTERM)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            self._start(ray)
        finally:
            if sigterm is not None:
                signal.signal(signal.SIGTERM, sigterm)
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
            except BaseException:
                self.__exit__()
                raise
        self._task = ray.remote(num_cpus=1)(predict)
        return self

    def _start(self, ray) -> None:
        os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
        quiet = {'logging_level': logging.WARNING, 'log_to_driver': False}
        if self.address:
            _check_reachable(self.address)
            try:
                ray.init(address=self.address, **quiet)
            except (ConnectionError, RuntimeError, ValueError) as error:  # one line, whichever
                raise SweepError(f'--address {self.address}: {_first_line(error)}') from None
        else:
            # short: Ray's socket paths must fit in 107 characters
            self._temp_dir = tempfile.mkdtemp(prefix='ray-', dir='/tmp')
            ray.init(
                num_cpus=self.workers,
                include_dashboard=False,
                _temp_dir=self._temp_dir,
                **quiet,
            )

    def __exit__(self, *exc) -> None:
        """Cancel what a cluster still runs (it would finish it for nobody), leave Ray; a local Ray
        ends with its workers (cancelling those first crashes Ray 2.60's driver)."""
        import ray

        if self.address:
            for ref in self._pending:
                ray.cancel(ref)
        ray.shutdown()
        if self._temp_dir:
            shutil.rmtree(self._temp_dir, ignore_errors=True)

    def sweep(
        self, cells: list[tables.Cell], model: SnakeModel, run: RunLength | None = None
    ) -> list[Prediction]:
        """The predictions of ``cells`` by the simulator built from ``model`` (run for ``run``,
        default ``RunLength()``), in their order."""
        run = run or RunLength()
        out = {}
        self.sweep_many([model], cells, run, lambda _i, predictions: out.update(p=predictions))
        return out['p']

    def sweep_many(
        self,
        models: list[SnakeModel],
        cells: list[tables.Cell],
        run: RunLength,
        on_done: Callable[[int, list[Prediction]], None],
    ) -> None:
        """Every cell with every model, all in flight at once; ``on_done(index, predictions)`` as
        each model's last cell completes, so a caller can store it at once."""
        import ray

        owner, results = {}, {i: {} for i in range(len(models))}
        for i, model in enumerate(models):
            for j, cell in enumerate(cells):
                owner[self._task.remote(cell, model, run)] = (i, j)
        self._pending = list(owner)
        while self._pending:
            done, self._pending = ray.wait(self._pending, num_returns=1)
            i, j = owner[done[0]]
            results[i][j] = ray.get(done[0])
            if len(results[i]) == len(cells):
                on_done(i, [results[i][k] for k in range(len(cells))])


def _check_reachable(address: str) -> None:
    """SweepError unless a gRPC server (a Ray head's) answers at ``host:port``: Ray itself retries
    for a minute where nobody listens, and for minutes where something else does."""
    if '://' in address:  # ray://: Ray Client, which a sweep does not use
        raise SweepError(f'--address {address}: give host:port of the Ray head (no scheme)')
    host, _, port = address.rpartition(':')
    if not host or not port.isdigit():
        raise SweepError(f'--address {address}: not host:port of a Ray head')
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S) as head:
            head.sendall(HTTP2_PREFACE)
            frame = _read_at_most(head, 9)
    except OSError as error:
        raise SweepError(
            f'--address {address}: no Ray head answers there ({error.strerror or error})'
        ) from None
    if len(frame) < 4 or frame[3] != SETTINGS_FRAME_TYPE:
        raise SweepError(
            f'--address {address}: something listens there, but not a Ray head (no gRPC answer)'
        )


def _read_at_most(connection: socket.socket, size: int) -> bytes:
    """Up to ``size`` bytes, fewer if the peer closes first (the socket's timeout applies)."""
    data = b''
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
