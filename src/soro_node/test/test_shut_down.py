"""soro_node.base_node.shut_down: a shutdown that loses the race to rclpy's own SIGINT handler
(both saw the context up) ends quietly, and any other failure still raises."""

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
