"""pytest plugin: tests marked ``ros`` run only with DDS confined to this machine, and parallel
workers apart.

`make test` runs pytest through tools/netns_run.sh, which sets what is checked here; a bare
`pytest` outside it stops with one line saying how to run it instead of multicasting discovery onto
the network. Under pytest-xdist (``-n``) every worker gets a ROS domain and a folder of simulated
ports of its own, so two workers' nodes never discover each other and their simulated boards never
take each other's port paths; and the test modules that start nodes take turns across workers
(the pure tests run beside them), because two robots' nodes on a 2-core machine starve each other
past their acks and watchdogs. A test marked ``cores`` (a local Ray, a process pool: a process
per core) takes the same turns for itself, for the same reason, without needing DDS kept local.
"""

import contextlib
import fcntl
import os
from pathlib import Path

import pytest

MAX_DOMAIN_ID = 232  # the highest ROS_DOMAIN_ID Fast DDS turns into valid UDP ports


def worker_environment(environ, worker: str) -> dict:
    """The ROS_DOMAIN_ID and SOFTBOTS_SIM_ROOT of xdist worker ``worker`` ('gw0', 'gw1', ...),
    given the run's."""
    index = int(worker.removeprefix('gw'))
    domain = (int(environ.get('ROS_DOMAIN_ID', '0')) + 1 + index) % (MAX_DOMAIN_ID + 1)
    root = environ.get('SOFTBOTS_SIM_ROOT') or '/tmp/softbots'
    return {'ROS_DOMAIN_ID': str(domain), 'SOFTBOTS_SIM_ROOT': f'{root}/{worker}'}


# On import, as the first plugin of tools/pytest.ini (xdist names the worker before its plugins
# load): the harness plugin imports softbots_bringup.description, which reads SOFTBOTS_SIM_ROOT on
# import, and rclpy and every node process started later read ROS_DOMAIN_ID from the environment.
if os.environ.get('PYTEST_XDIST_WORKER'):
    os.environ.update(worker_environment(os.environ, os.environ['PYTEST_XDIST_WORKER']))
    # two workers on two cores: numpy's BLAS threads on top would only take turns with them
    for threads in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
        os.environ.setdefault(threads, '1')


ROS_MODULES = pytest.StashKey[set]()


def pytest_collection_modifyitems(config, items):
    """Note the modules that start ROS nodes; exit pytest (code 2) if one was collected and DDS
    is not kept local.

    Local means ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and a ROS_DOMAIN_ID set, as
    tools/netns_run.sh does."""
    config.stash[ROS_MODULES] = {item.path for item in items if item.get_closest_marker('ros')}
    if not config.stash[ROS_MODULES]:
        return
    if (
        os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE') != 'LOCALHOST'
        or 'ROS_DOMAIN_ID' not in os.environ
    ):
        pytest.exit(
            'tests marked "ros" need DDS kept on this machine: run them through `make test` '
            'or '
            '`tools/netns_run.sh python -m pytest ...`',
            returncode=2,
        )


@pytest.fixture(scope='module', autouse=True)
def ros_modules_take_turns(request, tmp_path_factory):
    """Holds the whole run's turn while a module with tests marked ``ros`` runs, so one worker at
    a time starts nodes; others pass freely, their worker niced while they do, so that the nodes'
    deadlines come first on the shared cores."""
    if _in_ros_module(request):
        with _turn(tmp_path_factory):
            yield
        return
    with _niced(PURE_NICENESS if os.environ.get('PYTEST_XDIST_WORKER') else 0):
        yield


@pytest.fixture(autouse=True)
def core_filling_tests_take_turns(request, tmp_path_factory):
    """Holds the turn while a test marked ``cores`` runs outside a ``ros`` module (which holds it
    already): a process per core would take the cores a robot's nodes need for their deadlines."""
    if not request.node.get_closest_marker('cores') or _in_ros_module(request):
        yield
        return
    with _turn(tmp_path_factory):
        yield


def _in_ros_module(request) -> bool:
    """Whether the requesting test or module is in a module that starts ROS nodes."""
    return request.node.path in request.config.stash.get(ROS_MODULES, set())


def turn_lock(tmp_path_factory) -> Path:
    """The whole run's turn lock file: every worker's basetemp shares one parent."""
    return tmp_path_factory.getbasetemp().parent / 'ros-modules.lock'


@contextlib.contextmanager
def _turn(tmp_path_factory):
    """The whole run's turn (``turn_lock``), held while the context lasts."""
    with turn_lock(tmp_path_factory).open('w') as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


PURE_NICENESS = 10


@contextlib.contextmanager
def _niced(niceness: int):
    """Every thread of this process at ``niceness`` while the context lasts (Linux nices threads,
    not processes), then back; without the right to raise priority again, it stays niced."""
    before = thread_niceness() if niceness else {}
    for tid in before:
        with contextlib.suppress(ProcessLookupError):
            os.setpriority(os.PRIO_PROCESS, tid, niceness)
    try:
        yield
    finally:
        for tid, value in before.items():
            with contextlib.suppress(PermissionError, ProcessLookupError):
                os.setpriority(os.PRIO_PROCESS, tid, value)


def thread_niceness() -> dict[int, int]:
    """Niceness of each live thread of this process by thread id; a thread that ends while it
    is read is left out (the listing and the reads cannot be one step)."""
    niceness = {}
    for tid in map(int, os.listdir('/proc/self/task')):
        with contextlib.suppress(ProcessLookupError):
            niceness[tid] = os.getpriority(os.PRIO_PROCESS, tid)
    return niceness
