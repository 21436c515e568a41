"""pom-gait and pom-mocap: the JSON they write, and one-line refusals."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pom_voxel import cli

CONFIG = str(Path(__file__).resolve().parents[3] / 'config' / 'pom.yaml')


def test_pom_gait_writes_the_sequence_and_every_effectors_cycle(tmp_path):
    out = tmp_path / 'tripod.json'
    assert (
        cli.main(
            ['--structure', CONFIG, '--gait', 'tripod', '--samples', '80', '--json', str(out)]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    strokes = np.array(doc['strokes_mm'])
    assert doc['actuators'] == ['blue', 'yellow', 'red', 'green'] and strokes.shape == (80, 4)
    # blue at each key pose
    assert strokes[::10, 0] == pytest.approx([5, 5, 0, -5, -5, -5, 0, 5])
    front_left = np.array(doc['effectors']['front_left'])
    assert front_left.shape == (80, 3) and front_left[::10, 2] == pytest.approx(
        [0, 5, 5, 5, 0, -5, -5, -5]
    )
    assert doc['saturation'] == ['within the stroke limits'] * 9
    assert doc['t_s'][-1] == pytest.approx(8 * 79 / 80)


@pytest.mark.parametrize(
    'arguments, message',
    [
        (['--samples', '0'], 'argument --samples: 0: allowed range is [1, 100000]'),
        (['--step-period', 'nan'], 'argument --step-period: nan: must be finite'),
        (['--json', '/proc/x.json'], 'argument --json: cannot write /proc/x.json'),
    ],
)
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
    tracks = np.array([[-7.62, 7.62], [7.62, 7.62], [-7.62, -7.62], [7.62, -7.62]]) + rng.normal(
        0, 0.05, (50, 4, 2)
    )
    np.save(tmp_path / 'marks_cm.npy', tracks)
    np.savetxt(tmp_path / 'marks_cm.csv', tracks.reshape(50, 8), delimiter=',')
    for name in ('marks_cm.npy', 'marks_cm.csv'):
        out = tmp_path / f'{name}.json'
        assert (
            cli.mocap_main(
                [
                    str(tmp_path / name),
                    '--units',
                    'cm',
                    '--json',
                    str(out),
                    '--plots',
                    str(tmp_path / 'plots'),
                ]
            )
            == 0
        )
        doc = json.loads(out.read_text())
        assert (
            doc['units'] == 'mm'
            and np.array(doc['markers']).shape == (4, 50, 2)
            and doc['dropped_frames'] == 0
        )
    assert (tmp_path / 'plots' / 'body_frame_markers.png').read_bytes()[:4] == b'\x89PNG'
    np.save(tmp_path / 'wrong.npy', np.zeros((50, 3, 2)))
    assert cli.mocap_main([str(tmp_path / 'wrong.npy'), '--units', 'mm']) == 2
    assert 'expected (T, 4, 2)' in capsys.readouterr().err


@pytest.mark.parametrize(
    'content, message',
    [
        ('voxels: [1, 2\n', 'not YAML (while parsing a flow sequence)'),
        ('pitch_m: 0.1\nvoxels: []\npitch_m: 0.2\n', "not YAML ('pitch_m' given twice (line 3))"),
        ('- 1\n- 2\n', 'expected a mapping with voxels, actuators and effectors, not list'),
        ('', 'not an empty document'),
        (b'\x9c\xff\x00junk', 'not text (byte 0 is not UTF-8)'),
        (None, 'Is a directory'),
        (
            'voxel: [{centre: [1, 1, 1]}]\n',
            'unknown field(s) voxel; allowed: voxels, actuators, effectors, pitch_m',
        ),
        ('voxels: 5\n', 'voxels = 5: expected a non-empty list'),
        ('voxels: [5]\n', 'voxels[0] = 5: expected {centre: [x, y, z], extension: false}'),
        (
            'voxels: [{centre: [1, 1, 1], extension: maybe}]\n',
            "extension = 'maybe': expected true or false",
        ),
        (
            'voxels: [{centre: [1, 1, 100000000000000000000001]}]\n',
            'three integers (half-pitch units) of at most',
        ),
        (
            'voxels: [{centre: [1, 1, 1]}]\nactuators: 3\n',
            'actuators = 3: expected a non-empty list',
        ),
        (
            'voxels: [{centre: [1, 1, 1]}]\neffectors: [[2, 1, 1]]\n',
            'effectors = [[2, 1, 1]]: expected a mapping',
        ),
        (
            'voxels: [{centre: [1, 1, 1]}]\npitch_m: abc\n',
            "pitch_m = 'abc': expected a finite number > 0 (m)",
        ),
        (
            'voxels: [{centre: [1, 1, 1]}]\npitch_m: .inf\n',
            'pitch_m = inf: expected a finite number > 0 (m)',
        ),
    ],
    ids=[
        'not-yaml',
        'key-twice',
        'a-list',
        'empty',
        'binary',
        'directory',
        'typo',
        'voxels-int',
        'voxel-int',
        'extension-str',
        'huge-int',
        'actuators-int',
        'effectors-list',
        'pitch-str',
        'pitch-inf',
    ],
)
def test_pom_gait_refuses_a_malformed_structure_file_in_one_line(
    tmp_path, content, message, capsys
):
    path = tmp_path / 'structure.yaml'
    if content is None:
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert cli.main(['--structure', str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith('pom-gait: ') and message in err and err.count('\n') == 1, err


TRACKS = np.array(
    [[-7.62, 7.62], [7.62, 7.62], [-7.62, -7.62], [7.62, -7.62]]
) + np.random.default_rng(0).normal(0, 0.05, (50, 4, 2))


def _npz_named_npy(path):
    np.savez(path.with_suffix('.npz'), tracks=TRACKS)
    path.with_suffix('.npz').rename(path)


def _header_of_1e16_frames(path):
    with path.open('wb') as out:
        np.lib.format.write_array_header_1_0(
            out, {'descr': '<f8', 'fortran_order': False, 'shape': (10**16, 4, 2)}
        )
        out.write(bytes(64))


@pytest.mark.parametrize(
    'write, message',
    [
        (_npz_named_npy, 'an .npz archive (zip) named .npy'),
        (
            _header_of_1e16_frames,
            'its header claims shape (10000000000000000, 4, 2) (640000000000000000 bytes) but '
            'the file holds 64',
        ),
        (
            lambda path: np.save(path, TRACKS * 1e200),
            'marker positions up to 7.81e+200 mm give no finite body-frame',
        ),
        (lambda path: np.save(path, TRACKS.astype(object)), 'an array of object, not of numbers'),
    ],
    ids=['npz', 'huge-header', 'overflow', 'objects'],
)
def test_pom_mocap_refuses_what_it_cannot_read_or_compute_in_one_line(
    tmp_path, write, message, capsys
):
    write(tmp_path / 'tracks.npy')
    out = tmp_path / 'out.json'
    assert cli.mocap_main([str(tmp_path / 'tracks.npy'), '--units', 'mm', '--json', str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith('pom-mocap: ') and message in err and err.count('\n') == 1, err
    assert not out.exists()  # nothing written, not even a JSON of NaN


@pytest.mark.ros
@pytest.mark.parametrize(
    'node, parameters, message',
    [
        (
            'sim_node',
            ['markers:=[marker_yr, nope]'],
            'parameter markers: no effector nope in the structure; it has marker_yr, ',
        ),
        (
            'controller_node',
            ['markers:=[nope]', 'autostart:=true'],
            'parameter markers: no effector nope',
        ),
        (
            'controller_node',
            ['structure_file:={bad}', 'autostart:=true'],
            'voxels = 5: expected a non-empty list',
        ),
    ],
)
def test_pom_nodes_refuse_a_bad_marker_or_structure_with_its_reason(
    tmp_path, node, parameters, message
):
    (tmp_path / 'bad.yaml').write_text('voxels: 5\n')
    arguments = [p.format(bad=tmp_path / 'bad.yaml') for p in parameters] + [
        f'port:={tmp_path / "tty"}'
    ]
    ended = subprocess.run(
        [
            sys.executable,
            '-c',
            f'import sys; from pom_voxel.{node} import main; sys.exit(main())',
            '--ros-args',
        ]
        + [a for p in arguments for a in ('-p', p)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ended.returncode == 2 and message in ended.stderr and 'Traceback' not in ended.stderr, (
        ended.stderr
    )
