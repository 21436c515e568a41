"""soro_node.base_node.shut_down: a shutdown that loses the race to rclpy's own SIGINT handler
(both saw the context up) ends quietly, and any other failure still raises; run_node stopped at
start or mid-goal ends cleanly, its goal's client answered."""

import signal
import subprocess
import sys

import pytest
import rclpy
from action_msgs.msg import GoalStatus
from rclpy._rclpy_pybind11 import RCLError
from soro_interfaces.action import ExecuteWalk

from soro_node.base_node import ActionClient, shut_down
from soro_node.commander import Commander
from soro_node.waiting import poll

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


# three timers in one mutually exclusive group on three threads: when the node stops, handlers
# that found the group busy are still running on the pool
BUSY_THREADS = """
import sys, time, rclpy
from rclpy.executors import MultiThreadedExecutor
from soro_node.base_node import run_node
class Busy(rclpy.node.Node):
    def __init__(self):
        super().__init__('busy')
        self.ticks = 0
        for _ in range(3):
            self.create_timer(0.001, self.tick)
    def tick(self):
        self.ticks += 1
        time.sleep(0.002)
sys.exit(run_node(Busy, 'busy', lambda: MultiThreadedExecutor(3), until=lambda n: n.ticks >= 100))
"""


def test_a_multithreaded_node_stops_without_a_callback_failing_at_exit():
    """tensegrity_live printed "The following exception was never retrieved: cannot use
    Destroyable because destruction was requested" on every Ctrl-C under ros2 launch: a handler
    still on the pool triggered the guard condition the executor's shutdown had destroyed."""
    for _ in range(3):
        ended = subprocess.run(
            [sys.executable, '-c', BUSY_THREADS], capture_output=True, text=True, timeout=30
        )
        assert ended.returncode == 0 and ended.stderr == '', ended.stderr


def test_ctrl_c_while_a_node_starts_ends_it_quietly_with_0():
    ended = subprocess.run(
        [sys.executable, '-c', CTRL_C_AT_START], capture_output=True, text=True, timeout=30
    )
    assert ended.returncode == 0 and 'Traceback' not in ended.stderr, ended.stderr


# a plain node whose walk goes on for 30 s, reporting its progress
WALKER = """
import sys, time, rclpy
from rclpy.executors import MultiThreadedExecutor
from soro_interfaces.action import ExecuteWalk
from soro_node.base_node import action_server, progress_reporter, run_goal, run_node

class Walker(rclpy.node.Node):
    def __init__(self):
        super().__init__('walker')
        self.server = action_server(self, ExecuteWalk, '~/walk', self.walk)

    def walk(self, goal_handle):
        progress = progress_reporter(goal_handle, lambda n: ExecuteWalk.Feedback(cycle=n))

        def work():
            for n in range(600):
                progress(n)
                time.sleep(0.05)
            return 'walked'

        result = ExecuteWalk.Result()
        return run_goal(goal_handle, result, work, (), self.get_logger(), 'cancelled')

sys.exit(run_node(Walker, 'walker', lambda: MultiThreadedExecutor(2)))
"""


def test_ctrl_c_mid_goal_ends_the_goal_and_answers_its_client():
    """A plain node (run_node) stopped while a goal runs: the goal aborts at its next progress, its
    client has the result, and the node exits 0 (before, rclpy's handler shut the context down
    under the goal and its client waited for ever)."""
    walker = subprocess.Popen(
        [sys.executable, '-c', WALKER], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    rclpy.init()
    commander = Commander('walker_commander')
    try:
        sent = commander.send_goal(
            ActionClient(commander, ExecuteWalk, '/walker/walk'), ExecuteWalk.Goal()
        )
        assert sent.accepted and poll(lambda: sent.feedback, 5.0)
        walker.send_signal(signal.SIGINT)
        assert sent.ended(5.0), 'the client got no result'
        assert sent.status == GoalStatus.STATUS_ABORTED
        assert sent.result.message == 'aborted: the node is stopping'
        assert walker.wait(timeout=10) == 0, walker.communicate()[0]
    finally:
        walker.kill()
        commander.close()
        rclpy.try_shutdown()
