"""tools/ros_isolation.py: parallel test workers never share a ROS domain or a folder of
simulated ports."""

import fcntl
import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import ros_isolation


def test_every_worker_has_a_domain_and_a_port_folder_of_its_own():
    run = {'ROS_DOMAIN_ID': '42', 'SOFTBOTS_SIM_ROOT': '/tmp/sb-run'}
    workers = [ros_isolation.worker_environment(run, f'gw{k}') for k in range(8)]
    domains = {w['ROS_DOMAIN_ID'] for w in workers}
    assert len(domains) == 8 and '42' not in domains  # nor the controlling process's
    assert [w['SOFTBOTS_SIM_ROOT'] for w in workers] == [f'/tmp/sb-run/gw{k}' for k in range(8)]


def test_worker_domains_stay_in_the_range_fast_dds_accepts():
    run = {'ROS_DOMAIN_ID': str(ros_isolation.MAX_DOMAIN_ID)}
    environment = ros_isolation.worker_environment(run, 'gw3')
    assert 0 <= int(environment['ROS_DOMAIN_ID']) <= ros_isolation.MAX_DOMAIN_ID
    assert environment['SOFTBOTS_SIM_ROOT'] == '/tmp/softbots/gw3'  # the default, per worker


def test_the_simulated_ports_of_this_worker_are_its_own():
    """What the harness's launch descriptions resolve, read on import: the worker's folder, not
    the run's."""
    worker = os.environ.get('PYTEST_XDIST_WORKER')
    if worker is None:
        pytest.skip('not in a pytest-xdist worker (-n0)')
    from softbots_bringup.description import SIM_ROOT

    assert SIM_ROOT.endswith(f'/{worker}') and os.environ['SOFTBOTS_SIM_ROOT'] == SIM_ROOT


def test_a_niced_worker_is_niced_in_every_thread_and_comes_back():
    """Linux nices threads, not processes: every thread of the worker (a BLAS pool's too) runs at
    the niceness while the context lasts, and at its own again after."""
    started, stop = threading.Event(), threading.Event()
    helper = threading.Thread(target=lambda: (started.set(), stop.wait(5.0)), daemon=True)
    helper.start()
    started.wait(5.0)
    before = ros_isolation.thread_niceness()
    try:
        with ros_isolation._niced(7):
            assert set(ros_isolation.thread_niceness().values()) == {7}
    finally:
        stop.set()
        helper.join(5.0)
    after = ros_isolation.thread_niceness()
    assert {tid: after[tid] for tid in after if tid in before} == {
        tid: before[tid] for tid in after if tid in before
    }


def test_threads_that_end_while_read_are_left_out():
    """The CI run that failed: a thread of an earlier test ended between the listing of
    /proc/self/task and its getpriority."""
    done = threading.Event()

    def churn():
        while not done.is_set():
            short = threading.Thread(target=lambda: None)
            short.start()
            short.join()

    churners = [threading.Thread(target=churn) for _ in range(4)]
    for thread in churners:
        thread.start()
    try:
        readings = [ros_isolation.thread_niceness() for _ in range(300)]
    finally:
        done.set()
        for thread in churners:
            thread.join(5.0)
    assert all(threading.get_native_id() in reading for reading in readings)


def _item(path: str, *markers: str):
    return SimpleNamespace(
        path=Path(path), get_closest_marker=lambda name: name in markers or None
    )


def test_modules_that_start_nodes_take_turns_and_only_they_need_dds_kept_local(monkeypatch):
    monkeypatch.delenv('ROS_AUTOMATIC_DISCOVERY_RANGE', raising=False)
    config = SimpleNamespace(stash=pytest.Stash())
    items = [_item('a.py'), _item('ray.py', 'cores'), _item('ray.py')]
    ros_isolation.pytest_collection_modifyitems(config, items)
    assert config.stash[ros_isolation.ROS_MODULES] == set()
    with pytest.raises(pytest.exit.Exception, match='need DDS kept on this machine'):
        ros_isolation.pytest_collection_modifyitems(config, [*items, _item('nodes.py', 'ros')])
    assert config.stash[ros_isolation.ROS_MODULES] == {Path('nodes.py')}


@pytest.mark.cores
def test_a_cores_test_holds_the_turn_while_it_runs(tmp_path_factory):
    """A test marked cores (a local Ray, a process pool) holds the run's turn while it runs, as
    a module starting nodes does, so that it never fills the cores beside a robot's nodes."""
    with ros_isolation.turn_lock(tmp_path_factory).open('w') as other:
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
