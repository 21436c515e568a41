"""pytest plugin: tests marked ``ros`` run only with DDS confined to this machine, and parallel workers apart.

`make test` runs pytest through tools/netns_run.sh, which sets what is checked here; a bare `pytest` outside it
stops with one line saying how to run it instead of multicasting discovery onto the network. Under pytest-xdist
(``-n``) every worker gets a ROS domain and a folder of simulated ports of its own, so two workers' nodes never
discover each other and their simulated boards never take each other's port paths.
"""
import os

import pytest

MAX_DOMAIN_ID = 232                  # the highest ROS_DOMAIN_ID Fast DDS turns into valid UDP ports


def worker_environment(environ, worker: str) -> dict:
    """The ROS_DOMAIN_ID and SOFTBOTS_SIM_ROOT of xdist worker ``worker`` ('gw0', 'gw1', ...) given the run's."""
    index = int(worker.removeprefix('gw'))
    domain = (int(environ.get('ROS_DOMAIN_ID', '0')) + 1 + index) % (MAX_DOMAIN_ID + 1)
    root = environ.get('SOFTBOTS_SIM_ROOT') or '/tmp/softbots'
    return {'ROS_DOMAIN_ID': str(domain), 'SOFTBOTS_SIM_ROOT': f'{root}/{worker}'}


def pytest_configure(config):
    # before any test module is imported: softbots_bringup.description reads SOFTBOTS_SIM_ROOT on import, rclpy
    # and every node process started later read ROS_DOMAIN_ID from the environment they inherit
    worker = os.environ.get('PYTEST_XDIST_WORKER')
    if worker:
        os.environ.update(worker_environment(os.environ, worker))


def worker_group(item) -> str:
    """The xdist group an item runs in: every test of a file on one worker (its module's robot is started once),
    and every test of an emulated board on the same one (qemu-system-avr takes a whole core while it runs, and the
    firmware tests time the board's watchdog: two boards at once on a 2-core machine starve each other)."""
    return 'qemu-avr' if 'elf' in getattr(item, 'fixturenames', ()) else str(item.path)


@pytest.hookimpl(tryfirst=True)          # before xdist's own hook reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(worker_group(item)))
    if not any(item.get_closest_marker('ros') for item in items):
        return
    if os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE') != 'LOCALHOST' or 'ROS_DOMAIN_ID' not in os.environ:
        pytest.exit('tests marked "ros" need DDS kept on this machine: run them through `make test` or '
                    '`tools/netns_run.sh python -m pytest ...`', returncode=2)
