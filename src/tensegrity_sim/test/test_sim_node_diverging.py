"""The live node started with cables its step cannot hold: its own launch, apart from
test_sim_node's shared one (a launch for one test ends the ROS context the module's shares)."""

import math
import time

import numpy as np
import pytest
from soro_interfaces.msg import TensegrityState

from soro_node.waiting import poll

pytestmark = pytest.mark.ros


def test_a_run_that_diverges_stops_publishing_and_never_sends_nan(launch_in_test):
    """Started with cables its step cannot hold (no reset to refuse): the run is stopped at the
    first blown-up state, and nothing non-finite is published."""
    state = '/stiff/tensegrity_sim/state'
    robot = launch_in_test(
        'tensegrity.launch.py',
        arguments={'namespace': 'stiff'},
        params={
            '/stiff/tensegrity_sim': {
                'cable_stiffness_n_per_m': 1.0e7,
                'dt_s': 0.1,
                'real_time_factor': 10.0,
            }
        },
        topics={state: TensegrityState},
    )
    log = robot.process('stiff/tensegrity_sim').log
    assert poll(lambda: 'publishing stopped until ~/reset' in log.read_text(), 20.0), (
        log.read_text()
    )
    count = len(robot.probe.messages[state])
    time.sleep(0.3)  # 30 ticks of the 100 Hz clock
    assert len(robot.probe.messages[state]) == count, 'publishing must stop once the run diverged'
    for message in robot.probe.messages[state]:
        assert np.all(np.isfinite(message.cable_strains)) and math.isfinite(message.energy)
