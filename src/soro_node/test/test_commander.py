"""soro_node.commander: every call ends within its timeout, and a goal whose caller stopped waiting
does not go on running on the robot: it is cancelled."""

import subprocess
import sys
import threading
import time

import pytest
import rclpy
import rclpy.action
from rclpy.action import CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from soro_interfaces.action import ExecuteWalk

from soro_node.base_node import ActionClient
from soro_node.commander import Commander, CommanderError
from soro_node.waiting import poll

pytestmark = pytest.mark.ros


@pytest.fixture
def endless_walk():
    """A server, in a context of its own, whose walks go on until cancelled; the list of how each
    ended."""
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('endless_walker', context=context)
    ended, closing = [], threading.Event()

    def walk(goal_handle):
        while not goal_handle.is_cancel_requested and not closing.wait(0.02):
            pass
        if closing.is_set():
            goal_handle.abort()
            ended.append('still running at the end')
        else:
            goal_handle.canceled()
            ended.append('cancelled')
        return ExecuteWalk.Result()

    rclpy.action.ActionServer(
        node,
        ExecuteWalk,
        '/endless/walk',
        walk,
        callback_group=ReentrantCallbackGroup(),
        cancel_callback=lambda _goal: CancelResponse.ACCEPT,
    )
    # a thread per walk running, and one left to answer cancels
    executor = MultiThreadedExecutor(num_threads=3, context=context)
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield ended
    closing.set()
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown(context=context)


def test_a_goal_that_outlives_its_timeout_is_cancelled(endless_walk):
    rclpy.init()
    commander = Commander('walk_commander')
    try:
        client = ActionClient(commander, ExecuteWalk, '/endless/walk')
        with pytest.raises(CommanderError, match='no answer within 0.5 s'):
            commander.run_action(client, ExecuteWalk.Goal(), timeout_s=0.5)
        assert poll(lambda: endless_walk == ['cancelled'], 5.0), (
            'the goal went on after the caller gave up'
        )
    finally:
        commander.close()
        rclpy.try_shutdown()


def test_meeting_a_server_node_is_a_round_trip(endless_walk):
    """A commander knows a server's node can answer it once a parameter request came back; a node
    that serves no parameters (not there, or a server of another name) gets one try, not the
    whole timeout."""
    rclpy.init()
    commander = Commander('meeting_commander')
    try:
        assert commander.meet('/endless_walker/walk', timeout_s=10.0)
        assert '/endless_walker' in commander._met
        began = time.monotonic()
        assert not commander.meet('/nobody_here/walk', timeout_s=10.0)
        assert time.monotonic() - began < 5.0
    finally:
        commander.close()
        rclpy.try_shutdown()


def test_parameters_are_read_and_set_as_ros2_param_does(endless_walk):
    rclpy.init()
    commander = Commander('parameter_commander')
    try:
        assert commander.parameters('/endless_walker', 'use_sim_time') == [False]
        with pytest.raises(CommanderError, match='has not declared all of use_sim_time, no_such'):
            commander.parameters('/endless_walker', 'use_sim_time', 'no_such')
        changed, undeclared = commander.set_parameters(
            'endless_walker', use_sim_time=True, no_such=1.0
        )
        assert changed.successful and not undeclared.successful, undeclared.reason
        assert commander.parameters('endless_walker', 'use_sim_time') == [True]
        with pytest.raises(CommanderError, match='no service /nobody/get_parameters'):
            commander.parameters('/nobody', 'use_sim_time', timeout_s=0.5)
    finally:
        commander.close()
        rclpy.try_shutdown()


def test_closing_a_commander_cancels_its_goals_still_running(endless_walk):
    """Nobody waits for them any more, so the robot must not go on: a goal sent and one whose
    caller is still waiting are both cancelled, and the waiting caller gets CommanderError."""
    rclpy.init()
    commander = Commander('closing_commander')
    client = ActionClient(commander, ExecuteWalk, '/endless/walk')
    errors = []

    def wait_for_a_walk() -> None:
        try:
            commander.run_action(client, ExecuteWalk.Goal(), timeout_s=3.0)
        except CommanderError as error:
            errors.append(error)

    try:
        sent = commander.send_goal(client, ExecuteWalk.Goal())
        waiting = threading.Thread(target=wait_for_a_walk)
        waiting.start()
        assert sent.accepted and poll(lambda: len(commander._goals) == 2, 5.0)
    finally:
        commander.close()
    waiting.join(timeout=10.0)
    assert poll(lambda: endless_walk == ['cancelled', 'cancelled'], 5.0), endless_walk
    assert len(errors) == 1 and not waiting.is_alive()
    rclpy.try_shutdown()


# two commanders of one name, one after the other, as a demo's runs make them
TWICE = """
import rclpy
from soro_interfaces.action import ExecuteWalk
from soro_node.base_node import ActionClient
from soro_node.commander import Commander
rclpy.init()
for _ in range(2):
    commander = Commander('twice_commander')
    ActionClient(commander, ExecuteWalk, '/nobody/walk')
    commander.close()
rclpy.shutdown()
"""


def test_a_closed_commander_leaves_its_name_free_for_the_next():
    """Its action clients are destroyed with it: before, their handles kept the node alive, and
    rcl warned that a publisher was already registered for the second commander's rosout."""
    ran = subprocess.run([sys.executable, '-c', TWICE], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert 'already registered' not in ran.stderr, ran.stderr
