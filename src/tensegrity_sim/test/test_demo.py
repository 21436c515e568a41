"""``make demo``'s scenario and the installed node: sweep, a live run recorded to MCAP and read
back, bad start-up."""

import json
import subprocess

import numpy as np
import pytest

from softbots_bringup.runner import executable
from softbots_bringup.share import installed
from soro_analysis.bag import read_messages
from tensegrity_sim import demo

pytestmark = pytest.mark.ros


def test_demo_records_a_live_run_that_matches_the_core(tmp_path, capsys):
    assert demo.main(['--out', str(tmp_path)]) == 0
    sweep = json.loads((tmp_path / 'sweep.json').read_text())
    assert (sweep['psi_min_deg'], sweep['psi_max_deg']) == (36.0, 68.0)
    for png in ('fig3_strain_vs_time.png', 'fig4_psi_ranges.png', 'live/strains.png'):
        assert (tmp_path / png).read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    states = [m for _, _, m in read_messages(tmp_path / 'live_bag', [demo.STATE])]
    times = np.array([m.sim_time_s for m in states])
    # from the release to the end of the transient
    assert times[0] == 0.0 and times[-1] >= demo.LIVE_SECONDS
    assert np.all(np.diff(times) >= 0)
    strains = np.array([m.cable_strains for m in states])
    assert np.all(np.isfinite(strains))
    # spec B7 at ψ = 50°, t = 0: 36.0 / 67.9 / 56.7 % (upper / lower / side)
    assert 100 * strains[0, :3] == pytest.approx([36.0, 67.9, 56.7], abs=0.1)
    markers = [m for _, _, m in read_messages(tmp_path / 'live_bag', [demo.MARKERS])]
    assert len(markers) >= 0.9 * len(states) and len(markers[-1].markers) == 4
    summary = (tmp_path / 'summary.md').read_text()
    assert 'ψ_min = 36° and ψ_max = 68°' in summary
    assert (
        'largest difference from the offline core (savin2020_reproduce, same ψ, same '
        'simulated times)'
    ) in summary
    assert float(summary.split('same simulated times): ')[1].split(' ')[0]) < 1e-9
    live = json.loads((tmp_path / 'live' / 'figures.json').read_text())
    assert (
        live['numbers']['psi_deg'] == pytest.approx(50.0)
        and live['numbers']['max_difference_to_core'] < 1e-9
    )


def test_node_refuses_a_bad_start_up_parameter_with_its_range():
    node = executable('tensegrity_sim', 'tensegrity_live')
    config = installed('config/tensegrity.yaml')
    done = subprocess.run(
        [node, '--ros-args', '--params-file', str(config), '-p', 'psi:=1.66'],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert 'parameter psi = 1.66: allowed range is (0.0, 1.5707963267948966)' in done.stderr


def test_an_output_folder_that_cannot_be_made_is_one_line(tmp_path, capsys):
    (tmp_path / 'blocker').write_text('a file where the folder would go')
    with pytest.raises(SystemExit) as exit_:
        demo.main(['--out', str(tmp_path / 'blocker' / 'run')])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count('\n') == 1
    assert (
        err.startswith('tensegrity-demo: argument --out: cannot write into ') and 'blocker' in err
    )
