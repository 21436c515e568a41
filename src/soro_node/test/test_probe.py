"""soro_node.probe_node.Probe's lifecycle calls: a transition is judged by its answer, and one
whose answer never comes (Fast DDS drops a response to a client it has not matched in time) by
the state the node is in afterwards."""

import threading
import time

import pytest
import rclpy
from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.lifecycle import Node as LifecycleNode
from rclpy.lifecycle import TransitionCallbackReturn

from soro_node.probe_node import Probe

pytestmark = pytest.mark.ros


@pytest.fixture
def spun():
    """Spins the nodes handed to it on their own executor until the test ends."""
    rclpy.init()
    executor, nodes = MultiThreadedExecutor(num_threads=2), []

    def spin(node):
        nodes.append(node)
        executor.add_node(node)
        return node

    thread = threading.Thread(target=executor.spin, daemon=True)
    try:
        thread.start()
        yield spin
    finally:
        executor.shutdown()
        for node in nodes:
            node.destroy_node()
        rclpy.try_shutdown()
        thread.join(timeout=5.0)


def mute_lifecycle(state_id: int, release: threading.Event):
    """A node that serves change_state without answering until ``release`` is set, and get_state
    with ``state_id``: what a client sees when its response is lost."""
    node = rclpy.create_node('mute')
    group = ReentrantCallbackGroup()

    def never_in_time(_request, response):
        release.wait(10.0)
        return response

    def state(_request, response):
        response.current_state = State(id=state_id)
        return response

    node.create_service(ChangeState, '/mute/change_state', never_in_time, callback_group=group)
    node.create_service(GetState, '/mute/get_state', state, callback_group=group)
    return node


class RefusesFirstActivate(LifecycleNode):
    def __init__(self):
        super().__init__('managed')
        self.refused = False

    def on_activate(self, state):
        if not self.refused:
            self.refused = True
            return TransitionCallbackReturn.FAILURE
        return super().on_activate(state)


def test_a_transition_is_judged_by_its_answer(spun):
    spun(RefusesFirstActivate())
    probe = Probe('probe', {})
    try:
        assert probe.change_state('managed', Transition.TRANSITION_CONFIGURE)
        assert probe.lifecycle_state('managed') == State.PRIMARY_STATE_INACTIVE
        assert not probe.change_state('managed', Transition.TRANSITION_ACTIVATE)
        assert probe.lifecycle_state('managed') == State.PRIMARY_STATE_INACTIVE
        assert probe.change_state('managed', Transition.TRANSITION_ACTIVATE)
        assert probe.lifecycle_state('managed') == State.PRIMARY_STATE_ACTIVE
        assert probe.lifecycle_state('nobody', timeout_s=0.5) is None
    finally:
        probe.close()


@pytest.mark.parametrize(
    ('state_after', 'succeeded'),
    [(State.PRIMARY_STATE_ACTIVE, True), (State.PRIMARY_STATE_INACTIVE, False)],
)
def test_a_transition_whose_answer_is_lost_is_judged_by_the_state_after_it(
    spun, state_after, succeeded
):
    release = threading.Event()
    spun(mute_lifecycle(state_after, release))
    probe = Probe('probe', {})
    try:
        began = time.monotonic()
        assert probe.change_state('mute', Transition.TRANSITION_ACTIVATE, 1.0) is succeeded
        assert time.monotonic() - began < 5.0
    finally:
        release.set()  # the late answer reaches the probe's client before anything is destroyed
        time.sleep(0.5)
        probe.close()
