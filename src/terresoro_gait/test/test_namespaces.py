"""Two simulated TerreSoRo-III robots in one ROS domain, launched as terresoro.launch.py launches
them under namespace:=robot1 and namespace:=robot2: each connects to its own simulated robot, walks
the gait its own commander sends, and neither namespace carries the other's data (issue 25.5)."""

import functools

import pytest
import rclpy
from soro_interfaces.msg import ExecutedEdge

from softbots_bringup.testing import close_all
from soro_node.waiting import poll
from terresoro_gait.commander import TerreSoroCommander

pytestmark = pytest.mark.ros
# each robot's own gait: distinct primitives, so an edge on the wrong namespace would show
GAITS = {'robot1': [1, 2], 'robot2': [1, 5, 3]}
# quicker primitives than the paper's τ = 0.55 s, laid over the launch's own parameters
FAST = {'/**': {'tau_s': 0.2}, '/**/terresoro_sim': {'settle_s': 0.08}}


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
def two_robots(launch_in_test, tmp_path):
    """{namespace: LaunchedRobot}, each with its commander and a probe of its own namespace's
    executed edges and the root's."""
    robots = {
        namespace: launch_in_test(
            'terresoro.launch.py',
            arguments={
                'namespace': namespace,
                'weights_file': str(tmp_path / f'{namespace}_weights.csv'),
            },
            params=FAST,
            commander=functools.partial(
                TerreSoroCommander,
                executor='terresoro_executor',
                learner='terresoro_learner',
                synthesis='terresoro_synthesis',
                namespace=namespace,
            ),
            topics={edges(namespace): ExecutedEdge, edges(''): ExecutedEdge},
        )
        for namespace in GAITS
    }
    yield robots
    # stopped as ros2 launch stops them, all at once
    codes = close_all(list(robots.values()), at_once=True)
    # sim, executor, learner, synthesis; the two robots' processes (and logs) kept apart by name
    assert len(codes) == 2 * 4 and set(codes.values()) == {0}, codes
    # each simulator still confirms its executor's safe state
    processes = [p for robot in robots.values() for p in robot.processes]
    assert [p.name for p in processes if 'not confirmed' in p.log.read_text()] == []


def test_two_namespaced_robots_each_walk_their_own_gait_unseen_by_the_other(two_robots):
    commanders = {ns: robot.commander for ns, robot in two_robots.items()}
    # learner and synthesis have no ready line: up before they stop
    for commander in commanders.values():
        assert commander.learn_client.wait_for_server(timeout_sec=60.0)
        assert commander.synthesis_client.wait_for_service(timeout_sec=60.0)
    for ns, gait in GAITS.items():
        result = commanders[ns].execute_gait(gait, cycles=2, timeout_s=30.0)
        assert result.success, f'{ns}: {result.message}'
    probes = {ns: robot.probe for ns, robot in two_robots.items()}
    assert poll(
        lambda: all(len(walked(probes[ns], ns)) >= 2 * len(GAITS[ns]) for ns in GAITS), 5.0
    )
    for ns, gait in GAITS.items():
        assert walked(probes[ns], ns) == list(zip(gait, gait[1:] + gait[:1])) * 2, (
            f'{ns} walked {walked(probes[ns], ns)}'
        )
    # nothing in the root namespace
    assert [probe.messages[edges('')] for probe in probes.values()] == [[], []]


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
