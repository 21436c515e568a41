"""The step climb through the nodes: five modules before the simulated 7 cm step, the driver
playing Table 2.3 (``step_climb.CLIMB_TABLE``) and its rows advanced by ~/step_climb_advance (the
operator on the robot; the simulator when a wheel lands)."""

import math
import threading

import numpy as np
import pytest
import rclpy
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseStamped
from rclpy.parameter import Parameter
from soro_interfaces.action import RunGait
from std_msgs.msg import Float64MultiArray

from soft_snake import climbing, model
from soft_snake.bag_analysis import HEAD, PAST_EDGE, WHEELS
from soft_snake.commander import SoftSnakeCommander
from soft_snake.sim_node import SoftSnakeSimNode
from soro_node.commander import CommanderError
from soro_node.waiting import poll

pytestmark = pytest.mark.ros


def _before_the_step(launch_in_test, **params):
    """Five modules launched before the step (the simulator's ``params`` over the launch file's):
    the driver's commander, and the messages seen by topic (wheels and head poses)."""
    robot = launch_in_test(
        'soft_snake.launch.py',
        arguments={'segments': '5', 'step_ahead_m': '0.15'},
        params={'soft_snake_sim': params} if params else None,
        commander=SoftSnakeCommander,
        topics={WHEELS: Float64MultiArray, PAST_EDGE: Float64MultiArray, HEAD: PoseStamped},
    )
    return robot.commander, robot.probe.messages


@pytest.mark.parametrize('step_ahead_m', [0.15, 0.0])
def test_before_the_step_the_simulator_is_built_in_the_sheath(step_ahead_m):
    """The sheath sets the body's radius and joints, so it is in the compiled model, as offline
    (``climbing.climb_step``); without a step the bare calibrated body. A sheath put on after
    the build changed only the lift: through the nodes wheel 1 got over at 21-25 s and no other
    wheel (offline 3 s and all six)."""
    rclpy.init()
    try:
        node = SoftSnakeSimNode(
            parameter_overrides=[
                Parameter('port', value=''),
                Parameter('segments', value=5),
                Parameter('step_ahead_m', value=step_ahead_m),
            ],
        )
        try:
            bare = model.CALIBRATED.body
            expected = climbing.sheathed(bare) if step_ahead_m else bare
            assert node.sim.params == expected
            assert node.sim.model.geom('segment2a').size[0] == pytest.approx(
                expected.body_radius_m
            )
            # the sideways position servo of segment 2's middle joint (half its bend)
            joint = node.sim.model.joint('y2_1').id
            servo = list(node.sim.model.actuator_trnid[:, 0]).index(joint)
            kp = node.sim.model.actuator_gainprm[servo, 0]
            assert kp == pytest.approx(expected.joint_stiffness_nm_per_rad / 0.5)
        finally:
            node.destroy_node()
    finally:
        rclpy.try_shutdown()


def test_a_start_seed_places_the_snake_where_the_offline_climb_starts(launch_in_test):
    """bench/snake_step.py --through-nodes runs the offline climb's ten starts."""
    heads = _before_the_step(launch_in_test, start_seed=3)[1][HEAD]
    assert poll(lambda: heads, 10.0)
    start, head = climbing.Start.jittered(3), heads[-1].pose
    # the head's plate is the root the start moves; motion capture's noise is 0.5 mm
    assert (head.position.x, head.position.y) == pytest.approx(
        (start.along_m, start.across_m), abs=0.003
    )
    assert 2 * math.atan2(head.orientation.z, head.orientation.w) == pytest.approx(
        start.heading_rad, abs=0.01
    )


def test_rows_advance_on_the_service_and_the_wheels_are_reported(launch_in_test):
    snake, seen = _before_the_step(launch_in_test)
    wheels, feedback, box = seen[WHEELS], [], {}
    worker = threading.Thread(
        target=lambda: box.setdefault(
            'result',
            snake.run_gait('step_climb', 2.0, 2.0944, duration_s=5.0, on_feedback=feedback.append),
        )
    )
    worker.start()
    assert poll(lambda: feedback, 10.0)
    assert feedback[-1].step_climb_row == 1
    assert snake.advance_row() == 'lifting wheel 2'
    assert poll(lambda: feedback[-1].step_climb_row == 2, 3.0)
    assert snake.advance_row() == 'lifting wheel 3'
    worker.join(timeout=20.0)
    assert box['result'].success and 'every chamber vented' in box['result'].message
    with pytest.raises(CommanderError, match='no step climb is running'):
        snake.advance_row()
    assert wheels and len(wheels[-1].data) == 6
    assert max(max(m.data) for m in wheels) > 0.02  # row 1 raised the head


def test_the_simulator_advances_the_rows_as_the_wheels_get_over_the_step(launch_in_test):
    """The sheathed simulator calls ~/step_climb_advance itself when a wheel gets over: rows 1 to
    3 here (wheel 2 over at 10.6-14.9 s through the nodes). The whole climb through the nodes,
    every wheel over within 60 s in 9 of 10 jittered runs, is bench/snake_step.py
    --through-nodes's, and make demo's."""
    snake, seen = _before_the_step(launch_in_test)
    # each row at its own ω and share as offline; no manual advance here
    goal = snake.send_goal(
        snake.gait_client,
        RunGait.Goal(gait='step_climb', frequency_hz=1.0, beta_rad=2.0944, cycles=90),
    )
    assert goal.accepted

    def rows() -> list[int]:
        return [f.step_climb_row for f in goal.feedback]

    try:
        # 45 s leave a loaded machine's real-time simulator room
        assert poll(lambda: rows() and rows()[-1] >= 3, 45.0), rows()[-1:]
    finally:
        goal.cancel()
    assert goal.ended(10.0) and goal.status == GoalStatus.STATUS_CANCELED
    assert goal.result.message == 'cancelled; every chamber vented'
    assert rows()[0] == 1 and rows() == sorted(rows())
    # the simulator judged wheel 2 over: it has been at the 7 cm step's height, the tail down
    heights = np.array([m.data for m in seen[WHEELS]])
    assert heights[:, 1].max() > 0.06 and heights[:, -1].max() < 0.02
