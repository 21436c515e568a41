"""Command-line entry points of pom_voxel, every refusal one line and exit code 2:

- ``pom-gait``: a gait's actuator sequence by POM inverse kinematics, and every named effector's
  predicted displacement over one cycle (mm), as JSON;
- ``pom-mocap``: recorded lab-frame marker tracks to the body-frame loops POM predicts (spec A8),
  as JSON and plots;
- ``pom-fe-check``: POM against a finite-element frame model of a box of voxels (the paper's Fig.
  2), JSON and plots.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from pom_voxel import fe_check, gaits, mocap, structure
from pom_voxel.lattice import LatticeError
from pom_voxel.planes_of_motion import PlanesOfMotion
from soro_node.arguments import (
    STDOUT,
    CommandParser,
    add_option,
    ends_on_ctrl_c,
    output_dir,
    output_file,
    read_input,
    refuse,
    write_output,
)
from soro_node.params import ParamSpec

SAMPLES = ParamSpec('samples', 100, 'samples over one cycle', 1, 100_000)
STEP_PERIOD = ParamSpec(
    'step_period_s', 1.0, 'time between key poses (s); the paper gives none', 1e-3, 3600.0
)
IDEALITY = ParamSpec(
    'ideality',
    1.0,
    "η: share of a plane's motion reaching nodes off the actuator (0.8: the authors' robot; "
    "pom-fe-check --structure gives the frame's for a structure)",
    0.01,
    1.0,
)


def _parser() -> CommandParser:
    parser = CommandParser(
        prog='pom-gait', description="a gait's actuator sequence and predicted effector paths"
    )
    parser.add_argument('--structure', required=True, help='structure YAML, e.g. config/pom.yaml')
    parser.add_argument('--gait', default='tripod', choices=sorted(gaits.GAITS))
    add_option(parser, '--samples', SAMPLES)
    add_option(parser, '--step-period', STEP_PERIOD)
    add_option(parser, '--ideality', IDEALITY)
    parser.add_argument(
        '--shape', default='linear', choices=gaits.SHAPES, help='between key poses'
    )
    parser.add_argument(
        '--reverse', action='store_true', help='the cycle backwards: walk backwards'
    )
    parser.add_argument(
        '--json', type=output_file, default=STDOUT, help='write here ("-": stdout, the default)'
    )
    return parser


@ends_on_ctrl_c('pom-gait')
def main(argv: list[str] | None = None) -> int:
    """``pom-gait``: the gait's key-pose strokes by POM inverse kinematics, interpolated over one
    cycle, and every named effector's predicted displacement, in mm, as JSON. Returns the exit code
    (2: a structure or gait refused)."""
    args = _parser().parse_args(argv)
    try:
        pom = PlanesOfMotion(structure.load(args.structure), args.ideality)
        g = gaits.gait(args.gait)
        keys, solved = gaits.key_strokes(pom, g, args.reverse)
        t, strokes = gaits.interpolate(keys[1:], args.step_period, args.samples, args.shape)
    except LatticeError as error:
        return refuse('pom-gait', error)
    names = [a.name for a in pom.structure.actuators]
    document = {
        'gait': g.name,
        'reverse': args.reverse,
        'units': 'mm',
        'actuators': names,
        'key_strokes_mm': keys.tolist(),
        'saturation': [s.report(names) for s in solved],
        't_s': t.tolist(),
        'strokes_mm': strokes.tolist(),
        'effectors': {name: x.tolist() for name, x in gaits.trajectories(pom, strokes).items()},
    }
    write_output(args.json, json.dumps(document, indent=1))
    if args.json != STDOUT:
        print(
            f'pom-gait: {g.name}, {len(t)} samples of {len(names)} actuators written to '
            f'{args.json}',
            file=sys.stderr,
        )
    return 0


STRUT = ParamSpec(
    'strut_mm',
    fe_check.STRUT_M * 1000,
    "side of the struts' square section (mm); FERVOR: 1.27",
    0.01,
    100.0,
)
YOUNG = ParamSpec(
    'young_gpa',
    fe_check.YOUNG_PA / 1e9,
    "the struts' Young's modulus (GPa); FERVOR's Ultem: 6.89",
    0.001,
    1000.0,
)
DISPLACEMENT = ParamSpec(
    'displacement_mm',
    1.0,
    "POM's stroke q (mm): the control node's displacement (across a void, each end's)",
    -5.0,
    5.0,
)
THETA_ALIGN = ParamSpec(
    'theta_align_deg', 90.0, "camera-to-robot mounting angle (deg); the authors' 90", -360.0, 360.0
)


def read_tracks(path: Path) -> np.ndarray:
    """(T, 4, 2) marker tracks from a .npy array or a CSV of one row per frame (x1, y1, ..., x4,
    y4)."""
    try:
        data = (
            _read_npy(path)
            if path.suffix == '.npy'
            else np.loadtxt(io.StringIO(read_input(path)), delimiter=',', ndmin=2)
        )
    except ValueError as error:
        raise LatticeError(
            f'{path}: cannot read marker tracks ({str(error).splitlines()[0]})'
        ) from None
    return mocap.check_tracks(
        data.reshape(len(data), 4, 2) if data.ndim == 2 and data.shape[1] == 8 else data
    )


def _read_npy(path: Path) -> np.ndarray:
    """A .npy array of numbers, its header checked against the file's size before anything is
    allocated (a header may claim 10^16 frames); ValueError with one line otherwise (an .npz
    archive, pickled objects, a short file)."""
    try:
        with open(path, 'rb') as source:
            if source.read(4) == b'PK\x03\x04':
                raise ValueError(
                    "an .npz archive (zip) named .npy; give the array itself, np.save's output"
                )
            source.seek(0)
            version = np.lib.format.read_magic(source)
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read_header(source)
            if dtype.hasobject or dtype.kind not in 'biuf':
                raise ValueError(f'an array of {dtype}, not of numbers')
            claimed, held = (
                math.prod(shape) * dtype.itemsize,
                os.fstat(source.fileno()).st_size - source.tell(),
            )
            if claimed > held:
                raise ValueError(
                    f'its header claims shape {shape} ({claimed} bytes) but the file holds {held}'
                )
            source.seek(0)
            return np.load(source, allow_pickle=False)
    except OSError as error:
        raise ValueError(error.strerror) from None


@ends_on_ctrl_c('pom-mocap')
def mocap_main(argv: list[str] | None = None) -> int:
    """``pom-mocap``: (T, 4, 2) lab-frame marker tracks in ``--units`` to the body-frame loops in
    mm (spec A8), as JSON and, with ``--plots``, a figure. Returns the exit code (2: tracks
    unreadable or refused)."""
    parser = CommandParser(
        prog='pom-mocap', description='lab-frame marker tracks to body-frame loops (spec A8)'
    )
    parser.add_argument('tracks', type=Path, help='(T, 4, 2) .npy, or CSV rows x1,y1,...,x4,y4')
    parser.add_argument(
        '--units', choices=sorted(mocap.UNITS_MM), required=True, help='of the input'
    )
    parser.add_argument(
        '--json', type=output_file, default=STDOUT, help='write here ("-": stdout, the default)'
    )
    parser.add_argument('--plots', type=output_dir, help='write body_frame_markers.png here')
    add_option(parser, '--theta-align', THETA_ALIGN)
    parser.add_argument('--rescale', choices=mocap.RESCALES, default='variance_ratio')
    parser.add_argument(
        '--marker-order', default='0,1,2,3', help="the model's marker for each column of the data"
    )
    args = parser.parse_args(argv)
    try:
        order = tuple(int(k) for k in args.marker_order.split(','))
        out = mocap.preprocess(
            read_tracks(args.tracks), args.units, args.theta_align, order, rescale=args.rescale
        )
    except (LatticeError, ValueError) as error:
        return refuse('pom-mocap', error)
    write_output(
        args.json,
        json.dumps(
            {
                'markers': out.markers.transpose(1, 0, 2).tolist(),
                'units': 'mm',
                'dropped_frames': out.dropped_frames,
            },
            allow_nan=False,
        ),
    )
    if args.plots:
        _plot_loops(out.markers, args.plots / 'body_frame_markers.png')
    print(
        f'pom-mocap: {len(out.markers)} frames ({out.dropped_frames} dropped for a missing '
        'marker)',
        file=sys.stderr,
    )
    return 0


@ends_on_ctrl_c('pom-fe-check')
def fe_check_main(argv: list[str] | None = None) -> int:
    """``pom-fe-check``: POM against a finite-element frame model of an NX x NY x NZ box of voxels
    driven as the paper drove its Fig. 2 (or by a corner push), as JSON and, with ``--plots``, a
    figure. Returns the exit code (2: an argument malformed or the box refused)."""
    args = _fe_parser().parse_args(argv)
    try:
        result = fe_check.check(
            _fe_structure(args),
            args.displacement_mm,
            args.strut_mm / 1000,
            args.young_gpa * 1e9,
            driven=args.driven,
        )
    except LatticeError as error:
        return refuse('pom-fe-check', error)
    write_output(args.json, json.dumps(result.document(), indent=1))
    if args.plots:
        from pom_voxel.fe_plots import fe_figure

        fe_figure(result, args.plots / 'fig2_fe_vs_pom.png')
    what = args.structure or f'{args.voxels or BOX} voxels'
    print(
        f'pom-fe-check: {what}, {result.drive} drive: up to '
        f'{100 * result.displacement_lost:.1f} % of displacement lost (the paper, its 4,4,1 '
        f'layer: up to {100 * fe_check.PAPER_LOSS:.1f} %); {_ideality_line(result)}',
        file=sys.stderr,
    )
    return 0


# the paper's Fig. 2 layer
BOX = '4,4,1'


def _fe_parser() -> CommandParser:
    parser = CommandParser(
        prog='pom-fe-check', description='POM against a 3D frame model of a box of voxels'
    )
    parser.add_argument(
        '--voxels',
        help=f"NX,NY,NZ voxels of the box (default {BOX}: the paper's; the actuator drives the "
        f'bottom layer); at most {fe_check.MAX_VOXELS} in all',
    )
    parser.add_argument(
        '--drive',
        choices=fe_check.DRIVES,
        help="void (default): the paper's actuator across a void, pushing two nodes apart; "
        "corner_push: one corner voxel's outer node pushed, apexes pinned",
    )
    parser.add_argument(
        '--void',
        help='X,Y of the void the actuator sits in (half-pitches, both even; default the '
        'central one)',
    )
    parser.add_argument(
        '--driven',
        default='force',
        choices=fe_check.DRIVEN,
        help='the void actuator by a force or by its extension (a linear frame: the same result)',
    )
    parser.add_argument(
        '--structure',
        help='a structure YAML (e.g. config/pom.yaml) instead of a box: its actuator, as it sits, '
        'driven the same way; the scale is the η a POM model of it can take',
    )
    parser.add_argument('--actuator', help='with --structure, which actuator (default the first)')
    add_option(parser, '--displacement-mm', DISPLACEMENT)
    add_option(parser, '--strut-mm', STRUT)
    add_option(parser, '--young-gpa', YOUNG)
    parser.add_argument(
        '--json', type=output_file, default=STDOUT, help='write here ("-": stdout, the default)'
    )
    parser.add_argument('--plots', type=output_dir, help='write fig2_fe_vs_pom.png here')
    return parser


def _ideality_line(result) -> str:
    """The η the check gives, or why none (a scale means something only where POM's pattern
    holds)."""
    missed = 100 * result.residual_share
    if result.residual_share <= fe_check.PATTERN_HOLDS:
        return (
            f'FE = {result.scale:.3f} x POM (the ideality η a model of this size can take), '
            f'{missed:.1f} % not captured'
        )
    return (
        f"{missed:.1f} % of the motion is not POM's pattern (FE ≈ {result.scale:.3f} x POM): no "
        'single η makes POM fit this plane'
    )


def _fe_structure(args) -> structure.Structure:
    """The box the options describe, or the named actuator of ``--structure`` alone; LatticeError
    for an option that the other would leave unused."""
    box_options = [f for f, v in (('--voxels', args.voxels), ('--drive', args.drive)) if v]
    if args.structure:
        if box_options or args.void:
            given = ', '.join(box_options + ['--void'] * bool(args.void))
            raise LatticeError(f'{given}: options of a box, and --structure brings its own')
        return fe_check.with_actuator(structure.load(args.structure), args.actuator)
    if args.actuator:
        raise LatticeError("--actuator names one of --structure's; a box has one actuator")
    drive = args.drive or 'void'
    if args.void and drive != 'void':
        raise LatticeError(f"--void places the void drive's actuator; {drive} has none")
    counts = _whole_numbers(args.voxels or BOX, 3, '--voxels', 'NX,NY,NZ')
    void = None if args.void is None else _whole_numbers(args.void, 2, '--void', 'X,Y')
    return fe_check.box(*counts, drive=drive, void=void)


def _whole_numbers(text: str, count: int, option: str, form: str) -> list[int]:
    """``count`` comma-separated whole numbers; LatticeError naming ``option`` otherwise."""
    try:
        values = [int(n) for n in text.split(',')]
        if len(values) == count:
            return values
    except ValueError:
        pass
    raise LatticeError(f'{option} {text!r}: expected {form}, {count} whole numbers')


def _plot_loops(markers: np.ndarray, path: Path) -> None:
    from soro_analysis.plotting import figure, save  # matplotlib only when plots are asked for

    fig, axes = figure(1, 4, size=(3.2, 3.2))
    for k, ax in enumerate(axes[0]):
        ax.plot(markers[:, k, 0], markers[:, k, 1])
        ax.set(title=f'marker {k}', xlabel='x, mm', ylabel='y, mm', aspect='equal')
    save(fig, path)


if __name__ == '__main__':
    sys.exit(main())
