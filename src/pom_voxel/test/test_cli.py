"""pom-gait and pom-mocap: the JSON they write, and one-line refusals."""
import json
from pathlib import Path

import numpy as np
import pytest

from pom_voxel import cli

CONFIG = str(Path(__file__).resolve().parents[3] / 'config' / 'pom.yaml')


def test_pom_gait_writes_the_sequence_and_every_effectors_cycle(tmp_path):
    out = tmp_path / 'tripod.json'
    assert cli.main(['--structure', CONFIG, '--gait', 'tripod', '--samples', '80', '--json', str(out)]) == 0
    doc = json.loads(out.read_text())
    strokes = np.array(doc['strokes_mm'])
    assert doc['actuators'] == ['blue', 'yellow', 'red', 'green'] and strokes.shape == (80, 4)
    assert strokes[::10, 0] == pytest.approx([5, 5, 0, -5, -5, -5, 0, 5])        # blue at each key pose
    front_left = np.array(doc['effectors']['front_left'])
    assert front_left.shape == (80, 3) and front_left[::10, 2] == pytest.approx([0, 5, 5, 5, 0, -5, -5, -5])
    assert doc['saturation'] == ['within the stroke limits'] * 9
    assert doc['t_s'][-1] == pytest.approx(8 * 79 / 80)


@pytest.mark.parametrize('arguments, message', [
    (['--samples', '0'], 'argument --samples: 0: allowed range is [1, 100000]'),
    (['--step-period', 'nan'], 'argument --step-period: nan: must be finite'),
    (['--json', '/proc/x.json'], 'argument --json: cannot write /proc/x.json'),
])
def test_pom_gait_refuses_bad_values_in_one_line(arguments, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(['--structure', CONFIG] + arguments)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count('\n') == 1 and message in err


def test_pom_gait_names_a_bad_structure(tmp_path, capsys):
    bad = tmp_path / 'bad.yaml'
    bad.write_text('voxels: [{centre: [1, 2, 1]}]\n')
    assert cli.main(['--structure', str(bad)]) == 2
    assert 'voxel (1, 2, 1): a voxel centre is three odd integers' in capsys.readouterr().err


def test_pom_mocap_reads_npy_and_csv_and_plots(tmp_path, capsys):
    rng = np.random.default_rng(0)
    tracks = np.array([[-7.62, 7.62], [7.62, 7.62], [-7.62, -7.62], [7.62, -7.62]]) + rng.normal(0, 0.05, (50, 4, 2))
    np.save(tmp_path / 'marks_cm.npy', tracks)
    np.savetxt(tmp_path / 'marks_cm.csv', tracks.reshape(50, 8), delimiter=',')
    for name in ('marks_cm.npy', 'marks_cm.csv'):
        out = tmp_path / f'{name}.json'
        assert cli.mocap_main([str(tmp_path / name), '--units', 'cm', '--json', str(out),
                               '--plots', str(tmp_path / 'plots')]) == 0
        doc = json.loads(out.read_text())
        assert doc['units'] == 'mm' and np.array(doc['markers']).shape == (4, 50, 2) and doc['dropped_frames'] == 0
    assert (tmp_path / 'plots' / 'body_frame_markers.png').read_bytes()[:4] == b'\x89PNG'
    np.save(tmp_path / 'wrong.npy', np.zeros((50, 3, 2)))
    assert cli.mocap_main([str(tmp_path / 'wrong.npy'), '--units', 'mm']) == 2
    assert 'expected (T, 4, 2)' in capsys.readouterr().err
