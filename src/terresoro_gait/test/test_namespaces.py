"""Two simulated TerreSoRo-III robots in one ROS domain, launched as terresoro.launch.py launches
them under namespace:=robot1 and namespace:=robot2: each connects to its own simulated robot, walks
the gait its own commander sends, and neither namespace carries the other's data (issue 25.5)."""

import pytest
import rclpy
from soro_interfaces.msg import ExecutedEdge

from softbots_bringup import runner
from soro_node.probe_node import Probe
from soro_node.waiting import poll
from terresoro_gait.commander import TerreSoroCommander

pytestmark = pytest.mark.ros
# each robot's own gait: distinct primitives, so an edge on the wrong namespace would show
GAITS = {'robot1': [1, 2], 'robot2': [1, 5, 3]}
# quicker primitives than the paper's τ = 0.55 s, laid over the launch's own parameters
FAST = (
    '/**:\n  ros__parameters: {tau_s: 0.2}\n/**/terresoro_sim:\n  ros__parameters: '
    '{settle_s: 0.08}\n'
)


def edges(namespace):
    return (
        f'/{namespace}/terresoro_executor/executed_edge'
        if namespace
        else '/terresoro_executor/executed_edge'
    )


def walked(probe, namespace):
    """The gait's primitives that the executor in ``namespace`` reported, as (from, to)
    vertices."""
    return [
        (m.initial_vertex, m.terminal_vertex)
        for m in probe.messages[edges(namespace)]
        if not m.transition
    ]


@pytest.fixture
def two_robots(tmp_path):
    fast = tmp_path / 'fast.yaml'
    fast.write_text(FAST)
    rclpy.init()
    started = []
    try:
        # one log folder: the runner keeps the two robots' logs apart
        for namespace in GAITS:
            started += runner.start(
                'terresoro.launch.py',
                tmp_path,
                {
                    'sim': 'true',
                    'namespace': namespace,
                    'weights_file': str(tmp_path / f'{namespace}_weights.csv'),
                },
                [fast],
            )
        yield started
    finally:
        codes = runner.stop_all(started, at_once=True)
        rclpy.try_shutdown()
    # sim, executor, learner, synthesis
    assert len(codes) == 2 * 4 and set(codes.values()) == {0}, codes
    # stopped as ros2 launch stops them, all at once: each simulator still confirms its executor's
    # safe state
    assert [p.name for p in started if 'not confirmed' in p.log.read_text()] == []


def test_two_namespaced_robots_each_walk_their_own_gait_unseen_by_the_other(two_robots):
    probe = Probe('probe', {edges(ns): ExecutedEdge for ns in ('robot1', 'robot2', '')})
    commanders = {
        ns: TerreSoroCommander(
            executor='terresoro_executor',
            learner='terresoro_learner',
            synthesis='terresoro_synthesis',
            namespace=ns,
        )
        for ns in GAITS
    }
    try:
        # learner and synthesis have no ready line: up before they stop
        for commander in commanders.values():
            assert commander.learn_client.wait_for_server(timeout_sec=60.0)
            assert commander.synthesis_client.wait_for_service(timeout_sec=60.0)
        for ns, gait in GAITS.items():
            result = commanders[ns].execute_gait(gait, cycles=2, timeout_s=30.0)
            assert result.success, f'{ns}: {result.message}'
        assert poll(lambda: all(len(walked(probe, ns)) >= 2 * len(GAITS[ns]) for ns in GAITS), 5.0)
    finally:
        for commander in commanders.values():
            commander.close()
        probe.close()
    for ns, gait in GAITS.items():
        assert walked(probe, ns) == list(zip(gait, gait[1:] + gait[:1])) * 2, (
            f'{ns} walked {walked(probe, ns)}'
        )
    assert probe.messages[edges('')] == []  # nothing in the root namespace


@pytest.mark.parametrize(
    'namespace, action',
    [
        ('robot2', '/robot2/terresoro_executor/execute_walk'),
        ('', '/terresoro_executor/execute_walk'),
    ],
)
def test_the_learner_walks_its_own_namespaces_executor(namespace, action):
    """Its `executor` parameter named /terresoro_executor: a namespaced learner drove the root
    robot (or none)."""
    from terresoro_gait.learner_node import TerreSoroLearner

    rclpy.init()
    try:
        learner = TerreSoroLearner(namespace=namespace)
        try:
            # as rcl resolves it
            assert learner.resolve_service_name(learner.walk_action) == action
        finally:
            learner.destroy_node()
    finally:
        rclpy.try_shutdown()
