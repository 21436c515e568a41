"""A recorded soft-snake run analysed (soro-analyze --robot soft_snake), as the thesis reports its
runs (§2.2.2, §5.1): the centre of mass's speed in mm/s and body lengths per second, the curvature
of its path (the deviation of Figs. 5.2 and 5.5), and Fig. 2.7/2.9-style trajectories; the
chambers' pressures over the run beside them.

The run is where the driver commanded any chamber open; the gait period is read off the commanded
duties (the interval between a chamber's openings), so neither needs to be given. The body length
follows from the module count in the duties' layout (86 + 106 N mm, Table 2.1's snake), or from
``body_parameters_file``'s sizes (``-p body_parameters_file:=params.yaml``, the file the run was
launched with) for a snake of other sizes.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from soft_snake import body, locomotion, model_file
from soro_analysis.analyses import Analysis, AnalysisError, Report
from soro_analysis.plotting import figure, save
from soro_analysis.recording import Recording
from soro_node.params import ParamSpec

COM, HEAD = '/mocap/soft_snake/com', '/mocap/soft_snake/head'
DUTY, PRESSURE = '/soft_snake_driver/valve_duty', '/soft_snake_driver/chamber_pressure'
# simulated runs before the step only
WHEELS, PAST_EDGE = '/soft_snake_sim/wheel_heights', '/soft_snake_sim/wheel_past_edge'
OPTIONS = (
    ParamSpec('period_s', 0.0, 'gait period (s); 0: read it off the commanded duties', 0.0, 100.0),
    ParamSpec(
        'body_parameters_file',
        '',
        "the snake's parameter file (soft-snake-fit's params.yaml), whose sizes give the body "
        "length (empty: Table 2.1's, 86 + 106 N mm)",
    ),
    ParamSpec(
        'settle_periods',
        1,
        'whole periods left out at the start, while the body takes up the gait',
        0,
        100,
    ),
)


def analyze(recording: Recording, out: Path, options: dict) -> Report:
    """The run in ``recording`` analysed into ``out``: centre-of-mass speed (mm/s, BL/s) and
    forward speed, path curvature (1/m), the trajectory, speed and chamber figures, and the step
    climb when a simulated run recorded its wheels; over whole gait periods after
    ``options['settle_periods']``. Raises MissingTopics without the centre of mass or the duties,
    AnalysisError when the duties' module count changes, no chamber opened, the period cannot be
    read off the duties or fewer than two periods were tracked after settling."""
    recording.require(COM, DUTY)
    duty_t, duty = _duties(recording)
    segments = duty.shape[1]
    opened = np.flatnonzero(duty.reshape(len(duty), -1).max(axis=1) > 0)
    if not len(opened):
        raise AnalysisError(f'{DUTY}: no chamber was ever opened: no gait ran in this recording')
    begin, end = duty_t[opened[0]], duty_t[opened[-1]]
    period = options['period_s'] or gait_period(duty_t, duty)
    com = recording.series(COM, x=lambda m: m.pose.position.x, y=lambda m: m.pose.position.y)
    t, xy = com.time(), np.column_stack([com['x'], com['y']])
    during = (t >= begin) & (t <= end)
    start = begin + options['settle_periods'] * period
    path = locomotion.cycle_path(t[during], xy[during], period, start)
    if len(path) < 2:
        raise AnalysisError(
            f'{COM}: fewer than two whole gait periods of {period:.2f} s tracked after settling'
        )
    headings = _headings(recording, path, start, period)
    speed, forward = (
        locomotion.speed(path, period),
        locomotion.forward_speed(path, headings, period),
    )
    report = Report(f'Soft snake run: {recording.path}')
    length = _body_length_m(segments, options['body_parameters_file'])
    report.numbers = {
        'segments': segments,
        'body_length_m': length,
        'period_s': period,
        'frequency_hz': 1.0 / period,
        'run_s': float(end - begin),
        'periods_measured': len(path) - 1,
        'distance_m': locomotion.length(path),
        'speed_mm_s': 1e3 * speed,
        'speed_bl_s': speed / length,
        'forward_speed_mm_s': 1e3 * forward,
        'path_curvature_per_m': locomotion.mean_curvature(path),
    }
    _figures(report, recording, out, t[during], xy[during], path, duty_t, duty, begin, period)
    n = report.numbers
    direction = 'head first' if forward >= 0 else 'backwards (tail first)'
    report.lines += [
        f'## Run: {n["segments"]} modules ({n["body_length_m"] * 1e3:.0f} mm), '
        f'{n["run_s"]:.1f} s at '
        f'{n["frequency_hz"]:.3f} Hz, {n["periods_measured"]} periods measured',
        '',
        f'- centre-of-mass speed: {n["speed_mm_s"]:.1f} mm/s = {n["speed_bl_s"]:.3f} '
        f'BL/s, {direction} '
        f'({n["forward_speed_mm_s"]:+.1f} mm/s along the body)',
        f'- distance along the path: {n["distance_m"]:.3f} m; mean path curvature (deviation): '
        f'{n["path_curvature_per_m"]:.2f} 1/m',
        '- trajectory.png: the centre of mass (Figs. 2.7, 2.9); speed.png: per period; '
        'chambers.png: pressures',
    ]
    if recording.count(WHEELS):
        _step(report, recording, out, begin)
    return report


def _step(report: Report, recording: Recording, out: Path, begin: float) -> None:
    """The step climb: how high each wheel got, and where each wheel ended: at the step's height,
    and on the step (resting on its top, past its edge: ``body.on_step``) where the bag has
    ``PAST_EDGE``."""
    t = recording.receive_s(WHEELS) - begin
    heights = np.array([m.data for m in recording.messages(WHEELS)])
    peak, last = heights.max(axis=0), heights[-1]
    up = body.up_on_step(last)
    past = (
        np.array([m.data for m in recording.messages(PAST_EDGE)])
        if recording.count(PAST_EDGE)
        else None
    )
    on = None if past is None else body.on_step(last, past[-1])
    report.numbers.update(
        {
            'wheel_peak_height_m': peak,
            'wheels_at_step_height_at_end': int(np.sum(up)),
            'wheels_on_step_at_end': None if on is None else int(np.sum(on)),
        }
    )
    fig, ax = figure(2 if past is not None else 1, 1, size=(7.0, 3.0), sharex=True)
    for k in range(heights.shape[1]):
        ax[0, 0].plot(t, heights[:, k] * 1e3, lw=0.8, label=f'wheel {k + 1}')
    ax[0, 0].axhline(body.STEP_HEIGHT_M * 1e3, color='k', ls='--', lw=0.8, label='the 7 cm step')
    ax[0, 0].set(ylabel='wheel bottom height (mm)', title='Step climb, Table 2.3')
    ax[0, 0].legend(ncol=4)
    if past is not None:
        t_past = recording.receive_s(PAST_EDGE) - begin
        for k in range(past.shape[1]):
            ax[1, 0].plot(t_past, past[:, k] * 1e3, lw=0.8, label=f'wheel {k + 1}')
        ax[1, 0].axhline(0.0, color='k', ls='--', lw=0.8, label="the step's edge")
        ax[1, 0].set(ylabel='centre past the edge (mm)')
    ax[-1, 0].set(xlabel='time since the gait began (s)')
    save(fig, out / 'step_climb.png')
    report.figures['step_climb.png'] = {'t_s': t, 'wheel_height_m': heights}
    if on is None:
        where = 'not recorded (no ~/wheel_past_edge in this bag)'
    else:
        report.figures['step_climb.png'].update(past_edge_t_s=t_past, wheel_past_edge_m=past)
        off = [
            f'wheel {k + 1} ({last[k] * 1e3:.0f} mm up, {past[-1][k] * 1e3:.0f} mm past the edge)'
            for k in np.flatnonzero(~on)
        ]
        where = f'{int(np.sum(on))} of {len(on)}' + (f'; off it: {", ".join(off)}' if off else '')
    report.lines += [
        '',
        '## Step climb (simulated 7 cm step)',
        '',
        '- highest each wheel got (mm, head to tail): '
        f'{", ".join(f"{h * 1e3:.0f}" for h in peak)}',
        f"- wheels at the step's height at the end: {int(np.sum(up))} of {len(last)}",
        f'- wheels on the step at the end (resting on its top, past its edge): {where}',
        '- step_climb.png: wheel heights and how far past the edge, over time',
    ]


def _body_length_m(segments: int, parameters_file: str) -> float:
    """The snake's length (m): the parameter file's sizes, or Table 2.1's; AnalysisError (one
    line) for a file refused."""
    try:
        return model_file.load_or_calibrated(parameters_file).body.length_m(segments)
    except ValueError as error:
        raise AnalysisError(f'body_parameters_file: {error}') from None


def gait_period(t_s: np.ndarray, duty: np.ndarray) -> float:
    """The gait period (s) from commanded duties (T, N, 3) at ``t_s``: the median interval between
    openings of the chamber that opened most often."""
    opening = (duty[1:] > 0) & (duty[:-1] == 0)  # (T-1, N, 3)
    busiest = np.unravel_index(np.argmax(opening.sum(axis=0)), opening.shape[1:])
    times = t_s[1:][opening[:, busiest[0], busiest[1]]]
    if len(times) < 2:
        raise AnalysisError(
            f'{DUTY}: no chamber opened twice; give the gait period with period_s:=...'
        )
    return float(np.median(np.diff(times)))


def _duties(recording: Recording) -> tuple[np.ndarray, np.ndarray]:
    messages = recording.messages(DUTY)
    rows = {m.layout.dim[0].size for m in messages if m.layout.dim}
    if len(rows) != 1:
        raise AnalysisError(
            f'{DUTY}: the module count changes or is missing in the layout ({sorted(rows)})'
        )
    n = rows.pop()
    return recording.receive_s(DUTY), np.array(
        [np.asarray(m.data, dtype=float).reshape(n, 3) for m in messages]
    )


def _headings(recording, path, start, period) -> np.ndarray:
    """The body's heading in each measured period (centre of mass to head); along the path without
    a head."""
    if not recording.count(HEAD):
        return np.full(len(path), math.atan2(*(path[-1] - path[0])[::-1]))
    head = recording.series(HEAD, x=lambda m: m.pose.position.x, y=lambda m: m.pose.position.y)
    head_path = locomotion.cycle_path(
        head.time(), np.column_stack([head['x'], head['y']]), period, start
    )
    return locomotion.body_headings(path, head_path)


def _figures(report, recording, out, t, xy, path, duty_t, duty, begin, period) -> None:
    fig, ax = figure(size=(5.0, 5.0))
    ax[0, 0].plot(xy[:, 0], xy[:, 1], lw=0.6, color='tab:gray', label='centre of mass')
    ax[0, 0].plot(path[:, 0], path[:, 1], 'o-', ms=3, color='tab:blue', label='per-period mean')
    ax[0, 0].plot(*xy[0], 'k^', label='start')
    ax[0, 0].set(
        xlabel='x (m)',
        ylabel='y (m)',
        title='Centre-of-mass trajectory (Figs. 2.7, 2.9)',
    )
    # a square box, the limits widened around the path: a straight run stays readable
    ax[0, 0].set_aspect('equal', adjustable='datalim')
    ax[0, 0].legend(loc='best')
    save(fig, out / 'trajectory.png')
    steps = np.hypot(*np.diff(path, axis=0).T) / period
    fig, ax = figure(size=(6.0, 3.0))
    ax[0, 0].step(np.arange(1, len(steps) + 1), steps * 1e3, where='mid')
    ax[0, 0].set(
        xlabel='gait period', ylabel='speed (mm/s)', title='Centre-of-mass speed per period'
    )
    save(fig, out / 'speed.png')
    pressure_t, pressure = _pressures(recording, duty.shape[1])
    fig, ax = figure(size=(7.0, 3.0))
    if len(pressure):
        image = ax[0, 0].imshow(
            pressure.reshape(len(pressure), -1).T / 1e3,
            aspect='auto',
            cmap='coolwarm',
            extent=(pressure_t[0] - begin, pressure_t[-1] - begin, pressure.shape[1] * 3, 0),
        )
        fig.colorbar(image, ax=ax[0, 0], label='gauge pressure (kPa)')
    ax[0, 0].set(
        xlabel='time since the gait began (s)',
        ylabel='chamber (3 i + j)',
        title='Chamber pressures',
    )
    save(fig, out / 'chambers.png')
    report.figures.update(
        {
            'trajectory.png': {'com_m': xy, 'cycle_path_m': path},
            'speed.png': {'speed_m_s': steps},
            'chambers.png': {'t_s': pressure_t - begin, 'pressure_pa': pressure},
        }
    )


def _pressures(recording: Recording, segments: int) -> tuple[np.ndarray, np.ndarray]:
    messages = recording.messages(PRESSURE)
    if not messages:
        return np.zeros(0), np.zeros((0, segments, 3))
    return recording.receive_s(PRESSURE), np.array(
        [np.asarray(m.data).reshape(segments, 3) for m in messages]
    )


ANALYSIS = Analysis(
    'soft_snake',
    'pneumatic soft snake: centre-of-mass speed (mm/s, BL/s), path curvature, trajectories',
    (COM, DUTY),
    analyze,
    OPTIONS,
    {
        COM: 'geometry_msgs/msg/PoseStamped',
        HEAD: 'geometry_msgs/msg/PoseStamped',
        DUTY: 'std_msgs/msg/Float64MultiArray',
        PRESSURE: 'std_msgs/msg/Float64MultiArray',
        WHEELS: 'std_msgs/msg/Float64MultiArray',
        PAST_EDGE: 'std_msgs/msg/Float64MultiArray',
    },
)
