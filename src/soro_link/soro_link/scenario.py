"""Run installed executables as a scenario (for ``make demo`` and tests): start, record, stop cleanly. No rclpy.

Each process gets its own log file; stopping sends SIGINT (what Ctrl-C and ``ros2 launch`` send) and waits, so
nodes close their bags and put devices in their safe state before they exit.
"""
from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from ament_index_python.packages import get_package_prefix

STOP_TIMEOUT_S = 10.0


class ScenarioError(RuntimeError):
    """A process of the scenario failed; the message names it and points at its log."""


def executable(package: str, name: str) -> str:
    """Path of an installed console script (``ros2 run package name`` without the ros2 CLI)."""
    path = Path(get_package_prefix(package)) / 'lib' / package / name
    if not path.exists():
        raise ScenarioError(f'{package}/{name} is not installed (run make build)')
    return str(path)


class Process:
    def __init__(self, name: str, command: list[str], log_dir: Path):
        self.name, self.log = name, log_dir / f'{name}.log'
        self._log_file = self.log.open('w')
        self.popen = subprocess.Popen(command, stdout=self._log_file, stderr=subprocess.STDOUT)

    def check_running(self) -> None:
        if self.popen.poll() is not None:
            raise ScenarioError(f'{self.name} exited early with code {self.popen.returncode}; see {self.log}')

    def wait_for_output(self, text: str, timeout_s: float = 20.0) -> None:
        """Block until ``text`` appears in the process's log (e.g. a node saying it is ready)."""
        deadline = time.monotonic() + timeout_s
        while text not in self.log.read_text(errors='replace'):
            self.check_running()
            if time.monotonic() > deadline:
                raise ScenarioError(f'{self.name} did not print {text!r} within {timeout_s:g} s; see {self.log}')
            time.sleep(0.05)

    def stop(self) -> int:
        """SIGINT, then wait; kill after STOP_TIMEOUT_S. Returns the exit code."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)
            try:
                self.popen.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log_file.close()
        return self.popen.returncode


def run_for(seconds: float, processes: list[Process], until_exit: Process | None = None) -> None:
    """Let ``processes`` run for ``seconds`` (checking they stay up), or until ``until_exit`` finishes by itself,
    then stop the others in reverse start order. Raises ScenarioError if a process failed or ``seconds`` ran out
    before ``until_exit`` finished."""
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (until_exit and until_exit.popen.poll() is not None):
            for process in processes:
                if process is not until_exit:
                    process.check_running()
            time.sleep(0.1)
        if until_exit and until_exit.popen.poll() is None:
            raise ScenarioError(f'{until_exit.name} did not finish within {seconds:g} s; see {until_exit.log}')
    finally:
        codes = {p.name: p.stop() for p in reversed(processes)}
    failed = {name: code for name, code in codes.items() if code != 0}
    if failed:
        raise ScenarioError(f'processes did not stop cleanly: {failed}; logs in {processes[0].log.parent}')
