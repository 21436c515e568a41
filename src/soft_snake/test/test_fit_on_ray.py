"""soft-snake-fit for real on a local Ray cluster started here (``ray start --head`` in the test's
temporary folder, loopback only, one CPU), joined through --address: its outputs, and a cut fit
continued without simulating again what it stored. The cluster is ended in teardown, only the
processes this ``ray start`` started (its own session), never with ``ray stop``."""

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from soft_snake import evaluation, fit, measurements, model_file, tables
from soro_node.waiting import poll

pytestmark = pytest.mark.ros  # a cluster of processes: run inside tools/netns_run.sh


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        socket.create_connection(('127.0.0.1', port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture
def ray_head(tmp_path, monkeypatch):
    """A Ray head on loopback (host:port), ended with its whole session afterwards. Its token is
    its own (not the user's ~/.ray/auth_token, which other Ray users on the machine share)."""
    token = tmp_path / 'auth_token'
    token.write_text(secrets.token_hex(32))
    monkeypatch.setenv('RAY_AUTH_MODE', 'token')
    monkeypatch.setenv('RAY_AUTH_TOKEN_PATH', str(token))
    port = _free_port()
    # Ray's socket paths must fit in 107 characters: a short link into tmp_path
    temp = tmp_path / 'ray'
    temp.mkdir()
    link = Path('/tmp') / f'ray-i29-{os.getpid()}'
    link.unlink(missing_ok=True)
    link.symlink_to(temp)
    head = subprocess.Popen(
        [
            str(Path(sys.executable).with_name('ray')),
            'start',
            '--head',
            '--block',
            f'--port={port}',
            '--node-ip-address=127.0.0.1',
            f'--temp-dir={link}',
            '--num-cpus=1',
            '--include-dashboard=false',
            '--disable-usage-stats',
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: ended as one, nobody else's Ray
    )
    try:
        assert poll(lambda: _answers(port) or head.poll() is not None, timeout_s=120)
        assert head.poll() is None, 'ray start ended'
        yield f'127.0.0.1:{port}'
    finally:
        # `ray start --block` ends its processes at once on SIGINT (1.3 s here); on SIGTERM it
        # takes 33 s
        for signum, wait_s in ((signal.SIGINT, 10), (signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(head.pid, signum)
                head.wait(timeout=wait_s)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
        link.unlink(missing_ok=True)


def _few_cells() -> str:
    """Six cells of each gait at 4 modules on paper and grass, at 2 Hz (undulation) and 0.875 Hz
    (sidewinding): short periods, short runs."""
    cells = [
        c
        for c in tables.speeds()
        if c.segments == 4 and c.surface in ('paper', 'grass') and c.frequency_hz in (2.0, 0.875)
    ]
    return measurements.csv_text(
        [c for c in cells if c.gait == 'undulation'][:6]
        + [c for c in cells if c.gait == 'sidewinding'][:6]
    )


def _fit(measured: Path, out: Path, address: str, evaluations: int, base: Path):
    """soft-snake-fit as a command of its own (Ray keeps the first token it read for the whole
    process: an earlier test's local Ray would leave it the user's)."""
    command = [
        sys.executable,
        '-c',
        FIT,
        str(measured),
        '--out',
        str(out),
        '--base',
        str(base),
        '--address',
        address,
        '--split',
        '0.8',
        '--evaluations',
        str(evaluations),
        '--min-duration',
        '0.5',
        '--cycles',
        '2',
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


FIT = 'import sys; from soft_snake.cli import fit_main; sys.exit(fit_main())'


def test_fit_on_a_cluster(ray_head, tmp_path):
    measured, out, base = tmp_path / 'measured.csv', tmp_path / 'fit', tmp_path / 'mine.yaml'
    measured.write_text(_few_cells())
    base.write_text('segment_mass_kg: 0.15\n')  # a heavier robot than the thesis's
    first = _fit(measured, out, ray_head, 2, base)
    assert first.returncode == 0, first.stderr
    store = (out / fit.STORE).read_text().splitlines()
    assert len(store) == 2
    report = json.loads((out / 'report.json').read_text())
    assert report['evaluations']['simulated_this_run'] == 2
    held = report['held_out']
    assert set(held) == {'simulator', 'friction_rank', 'friction_table', 'factor_model'}
    assert held['simulator']['cells'] == held['friction_table']['cells'] == 2
    assert held['factor_model']['cells'] == 2
    effects = report['main_effects']
    assert set(effects) == {'measured', 'simulator'}
    assert set(effects['simulator']) == {'undulation', 'sidewinding'}
    assert set(effects['simulator']['undulation']) == set(evaluation.FACTORS)
    best = model_file.load(out / 'params.yaml')
    assert best.values() == report['parameters']
    assert list(report['best']) == list(fit.FITTED)
    # fitted from the robot's own file: what the fit does not fit stays the file's
    assert best == model_file.load(base).replaced(report['best'])
    assert best.body.segment_mass_kg == 0.15 and report['base'] == str(base)
    assert (out / 'scatter.png').stat().st_size > 0 and (out / 'table_5_3.png').exists()
    assert (out / 'table_5_6.png').exists() and (out / 'main_effects.png').stat().st_size > 0
    assert not [p for p in out.iterdir() if p.name.startswith('.')]  # nothing half-written
    assert 'friction_table' in first.stdout and 'evaluation 2/2 (simulated)' in first.stderr
    # the fit cut after 2 evaluations, run again to 3: the two stored ones are read, one simulated
    again = _fit(measured, out, ray_head, 3, base)
    assert again.returncode == 0, again.stderr
    report = json.loads((out / 'report.json').read_text())
    assert report['evaluations']['simulated_this_run'] == 1
    assert (out / fit.STORE).read_text().splitlines()[:2] == store
    assert len((out / fit.STORE).read_text().splitlines()) == 3
    assert again.stderr.count('(stored)') == 2 and again.stderr.count('(simulated)') == 1
