"""tools/ros_isolation.py: parallel test workers never share a ROS domain or a folder of simulated ports."""
from pathlib import Path
from types import SimpleNamespace

import ros_isolation


def test_every_worker_has_a_domain_and_a_port_folder_of_its_own():
    run = {'ROS_DOMAIN_ID': '42', 'SOFTBOTS_SIM_ROOT': '/tmp/sb-run'}
    workers = [ros_isolation.worker_environment(run, f'gw{k}') for k in range(8)]
    domains = {w['ROS_DOMAIN_ID'] for w in workers}
    assert len(domains) == 8 and '42' not in domains          # nor the domain of the controlling process
    assert [w['SOFTBOTS_SIM_ROOT'] for w in workers] == [f'/tmp/sb-run/gw{k}' for k in range(8)]


def test_worker_domains_stay_in_the_range_fast_dds_accepts():
    run = {'ROS_DOMAIN_ID': str(ros_isolation.MAX_DOMAIN_ID)}
    environment = ros_isolation.worker_environment(run, 'gw3')
    assert 0 <= int(environment['ROS_DOMAIN_ID']) <= ros_isolation.MAX_DOMAIN_ID
    assert environment['SOFTBOTS_SIM_ROOT'] == '/tmp/softbots/gw3'      # the default tree, per worker


def test_a_files_tests_share_a_worker_and_every_emulated_board_runs_on_one():
    board_test = SimpleNamespace(fixturenames=['board', 'elf', 'request'], path=Path('src/pom/test/test_firmware.py'))
    other = SimpleNamespace(fixturenames=['launch'], path=Path('src/pom/test/test_firmware.py'))
    assert ros_isolation.worker_group(board_test) == 'qemu-avr'
    assert ros_isolation.worker_group(other) == 'src/pom/test/test_firmware.py' != ros_isolation.worker_group(
        SimpleNamespace(fixturenames=[], path=Path('src/pom/test/test_nodes.py')))
