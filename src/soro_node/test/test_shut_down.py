"""soro_node.base_node.shut_down: a shutdown that loses the race to rclpy's own SIGINT handler
(both saw the context up) ends quietly, and any other failure still raises."""

import subprocess
import sys

import pytest
import rclpy
from rclpy._rclpy_pybind11 import RCLError

from soro_node.base_node import shut_down

pytestmark = pytest.mark.ros


def _lost_the_race():
    raise RCLError('failed to shutdown: rcl_shutdown already called on the given context')


def test_a_context_someone_else_shut_down_is_down(monkeypatch):
    rclpy.init()
    rclpy.shutdown()  # the handler won
    monkeypatch.setattr(rclpy, 'try_shutdown', _lost_the_race)
    shut_down()
    assert not rclpy.ok()


def test_a_failure_on_a_live_context_still_raises(monkeypatch):
    rclpy.init()
    try:
        monkeypatch.setattr(rclpy, 'try_shutdown', _lost_the_race)
        with pytest.raises(RCLError):
            shut_down()
    finally:
        monkeypatch.undo()
        rclpy.try_shutdown()


# a node whose Ctrl-C comes while run_node builds its executor (under load, a launch's Ctrl-C can
# land between the node printing it is up and its spinning)
CTRL_C_AT_START = """
import sys, rclpy
from soro_node.base_node import run_node
def interrupted():
    raise KeyboardInterrupt
sys.exit(run_node(lambda: rclpy.create_node('early'), 'early', make_executor=interrupted))
"""


def test_ctrl_c_while_a_node_starts_ends_it_quietly_with_0():
    ended = subprocess.run(
        [sys.executable, '-c', CTRL_C_AT_START], capture_output=True, text=True, timeout=30
    )
    assert ended.returncode == 0 and 'Traceback' not in ended.stderr, ended.stderr
