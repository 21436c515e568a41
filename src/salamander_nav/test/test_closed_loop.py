"""The follower in closed loop on a plant that is not its model (issue 28 items 6 and 7): the LOS
tracker and the progress checker as the controller runs them, the front module's cable and wheel
loops of the simulated firmware, and ``kinematics.Plant`` with a curvature lag of one body length
and a steering gain error, stepped in Python (no ROS), on paths CHOMP plans through the thesis's
scenes."""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from salamander_nav import kinematics, origami, tracking
from salamander_nav.device import BOTTOM_WHEELS, ModuleFirmware
from salamander_nav.distance_field import DistanceField
from salamander_nav.kinematics import ModuleGeometry, Plant, PlantError
from salamander_nav.los import LosSettings, LosTracker
from salamander_nav.parameters import CONTROLLER
from salamander_nav.planning import PlannerOptions, plan
from salamander_nav.scene import load_scene

SCENE = load_scene(Path(__file__).resolve().parents[3] / 'config' / 'salamander_scene.yaml')
FIELD = DistanceField.from_scene(SCENE)
# §3.4.5 (90° to 0°) and Fig. 3.27 (-90° to -90°)
THESIS_TASKS = {
    'sec3.4.5': (tuple(SCENE.start), tuple(SCENE.goal)),
    'fig3.27': ((0.35, 1.8, -math.pi / 2), (2.25, 1.0, -math.pi / 2)),
}
# the case: the path's curvature one body length behind the bend, and 20 % under it
LAGGING = PlantError(curvature_lag_m=origami.BODY_LENGTH_M, bend_gain=0.8)
# the controller set for that robot: its feed-forward previews the path's curvature half the lag
FOR_LAG = LosSettings(curvature_preview_m=0.5 * origami.BODY_LENGTH_M)
GEOMETRY = ModuleGeometry()
CONTROL_S, PHYSICS_S = 0.05, 0.005  # the controller's 20 Hz; the firmware's loops much faster
# the controller's defaults
DEFAULTS = {spec.name: spec.default for spec in CONTROLLER}
SPEED = DEFAULTS['speed_m_s']
# the simulator's motion capture: 1 mm, and the heading's noise that over half a body length
MOCAP_NOISE = np.array([0.001, 0.001, 0.001 / (origami.BODY_LENGTH_M / 2)])


@dataclass
class Drive:
    """How a closed-loop follow ended: the outcome, where, and the trail of the front wheel set."""

    outcome: str
    pose: np.ndarray
    trail: np.ndarray
    seconds: float


def follow(
    path,
    start,
    error,
    goal_heading=None,
    limit_s=300.0,
    blocked_after_s=math.inf,
    settings=None,
    seed=0,
):
    """Follow ``path`` from ``start`` on a plant with ``error`` as the controller does, seen by
    the simulator's motion capture (1 mm noise), until the tracker stops (then coasting to a
    halt), the progress checker gives up or ``limit_s`` passes; from ``blocked_after_s`` on the
    plant does not move (an obstacle in front: its wheels slip)."""
    tracker = LosTracker(path, settings or LosSettings(), goal_heading)
    rng = np.random.default_rng(seed)
    progress = tracking.ProgressChecker(
        DEFAULTS['progress_required_m'], DEFAULTS['progress_window_s']
    )
    module = ModuleFirmware(1, GEOMETRY, 20.9, 0.1)
    plant, t, trail = Plant(start, error), 0.0, [np.array(start[:2], dtype=float)]
    while t < limit_s:
        seen = plant.state[:3] + rng.standard_normal(3) * MOCAP_NOISE
        step = tracker.step(seen, t, t)
        if not step.drive:
            coast(module, plant, t)
            return Drive(step.status, plant.state[:3].copy(), np.array(trail), t)
        stuck = progress.update(step.distance_left_m, t)
        if stuck:
            return Drive(stuck, plant.state[:3].copy(), np.array(trail), t)
        command = tracking.steering_command(
            step, SPEED, origami.S_MAX_M, GEOMETRY.wheel_radius_m, module.bend()
        )
        module.command(command.bend, command.wheel_rad_s, t)
        t = drive_for(module, plant, t, CONTROL_S, moving=t < blocked_after_s)
        trail.append(plant.state[:2].copy())
    return Drive('still driving', plant.state[:3].copy(), np.array(trail), t)


def drive_for(module, plant, t: float, seconds: float, moving: bool = True) -> float:
    """Step the module's loops and the plant for ``seconds`` from ``t``; the time after."""
    for _ in range(round(seconds / PHYSICS_S)):
        module.step(t, PHYSICS_S)
        v = kinematics.forward_speed(*module.wheels[list(BOTTOM_WHEELS)], GEOMETRY.wheel_radius_m)
        if moving:
            plant.step(float(v), origami.steering_curvature(module.bend()), PHYSICS_S)
        t += PHYSICS_S
    return t


def coast(module, plant, t: float) -> None:
    """The wheels stopped as the controller stops them, the robot rolling on through their lag."""
    module.command(module.bend(), (0.0,) * 3, t)
    drive_for(module, plant, t, 1.0)


def planned(task: str, clearance_m: float = 0.06):
    """CHOMP's path for one of the thesis's tasks with ``clearance_m`` from the obstacles: the
    half-width 40 mm and 20 mm of margin for tracking error (issue 28 item 1)."""
    start, goal = THESIS_TASKS[task]
    result = plan('chomp', FIELD, start, goal, PlannerOptions(clearance_m=clearance_m))
    assert result.success, result.reason
    return result.path, start, float(result.headings[-1])


@pytest.mark.parametrize('task', THESIS_TASKS)
def test_arrives_on_the_lagging_plant_on_both_thesis_scenes(task):
    """The issue's case: the tracker before issue 28 circled a waypoint of these paths for ever;
    set for the lag, it stops within the goal tolerance, 50 mm, at the goal's heading."""
    path, start, end_heading = planned(task)
    drive = follow(path, start, LAGGING, end_heading, settings=FOR_LAG)
    assert drive.outcome == 'goal reached', drive.outcome
    assert math.dist(drive.pose[:2], path[-1]) < 0.05
    assert abs(drive.pose[2] - end_heading) < LosSettings.goal_heading_tolerance_rad


def test_with_the_thesis_controller_the_lagging_plant_misses_fig_3_27s_goal():
    """The path ends on a turn near κ_max: a body whose path turns a body length after its bend,
    steered by the curvature at its projection (no preview, the default), passes the goal about
    55 mm away: missed, not circled."""
    path, start, end_heading = planned('fig3.27')
    drive = follow(path, start, LAGGING, end_heading)
    assert drive.outcome == 'goal missed', drive.outcome
    assert 0.05 <= math.dist(drive.pose[:2], path[-1]) < 0.1


@pytest.mark.parametrize('task', THESIS_TASKS)
@pytest.mark.parametrize(
    'error, settings', [(PlantError(), None), (LAGGING, FOR_LAG)], ids=['model', 'lagging']
)
def test_driven_clearance_on_both_thesis_scenes(task, error, settings):
    """At least the robot's half-width, 40 mm, from every obstacle, and the follow ends at the
    goal."""
    path, start, end_heading = planned(task)
    drive = follow(path, start, error, end_heading, settings=settings)
    assert drive.outcome == 'goal reached', drive.outcome
    assert FIELD.clearance(drive.trail).min() >= 0.04


def test_a_blocked_follow_is_given_up_with_the_reason_within_10_s():
    path, start, end_heading = planned('sec3.4.5')
    drive = follow(path, start, LAGGING, end_heading, blocked_after_s=5.0)
    assert drive.outcome.startswith('no progress'), drive.outcome
    # given up a progress window (8 s) after its last progress, which came before it was blocked
    # or just after (the projection can still creep on along the path): within the 10 s
    assert 5.0 + 8.0 - 0.5 < drive.seconds <= 5.0 + 10.0


def test_a_goal_passed_with_the_wrong_heading_is_missed_not_circled():
    # a straight path whose end asks for a heading it cannot arrive with
    path = [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0)]
    drive = follow(path, (0.0, 0.0, 0.0), LAGGING, math.pi / 2)
    assert drive.outcome == 'goal missed' and drive.pose[0] == pytest.approx(1.0, abs=0.05)
    assert drive.seconds < 20.0
