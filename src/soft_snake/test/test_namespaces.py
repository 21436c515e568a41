"""Two snakes in one domain (issue 25.5): the simulator advances the step climb of the driver in
its own namespace, not the one at the root (it named /soft_snake_driver/step_climb_advance)."""

import pytest
import rclpy
from rclpy.parameter import Parameter

from soft_snake.sim_node import SoftSnakeSimNode

pytestmark = pytest.mark.ros


@pytest.mark.parametrize(
    'namespace, service',
    [
        ('snake2', '/snake2/soft_snake_driver/step_climb_advance'),
        ('', '/soft_snake_driver/step_climb_advance'),
    ],
)
def test_the_simulator_advances_its_own_namespaces_driver(namespace, service):
    rclpy.init()
    try:
        sim = SoftSnakeSimNode(
            namespace=namespace,
            parameter_overrides=[
                Parameter('port', value=''),
                Parameter('segments', value=5),
                Parameter('step_ahead_m', value=0.15),
            ],
        )
        try:
            # as rcl resolves it
            assert sim.resolve_service_name(sim.advance.srv_name) == service
        finally:
            sim.destroy_node()
    finally:
        rclpy.try_shutdown()
