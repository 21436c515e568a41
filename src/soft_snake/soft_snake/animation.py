"""A short top-view animation of a simulated run, for people who would rather watch than read: the
body's axis, its wheels' axles and the centre of mass's trail, drawn by matplotlib into a GIF. No
ROS."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from soft_snake import simulator
from soft_snake.gaits import Gait, chamber_states

FPS = 20


def record(gait: Gait, surface: str, duration_s: float, params) -> tuple[np.ndarray, np.ndarray]:
    """Body axes (F, 3 N + 2, 3) and centre of mass (F, 3) at ``FPS`` frames per second of
    simulated time."""
    sim = simulator.SnakeSim(gait.segments, surface, params)
    every = round(1.0 / (FPS * simulator.TICK_S))
    frames, com = [], []

    def grab(s: simulator.SnakeSim) -> None:
        if round(s.t_s / simulator.TICK_S) % every == 0:
            frames.append(s.body_points())
            com.append(s.com())

    sim.run(lambda t: chamber_states(gait, t), duration_s, on_tick=grab)
    return np.array(frames), np.array(com)


def write_gif(frames: np.ndarray, com: np.ndarray, path: Path, title: str) -> Path:
    """Top view of ``frames`` (F, P, 3), the body's axis as ``record`` gives it (every third point
    a plate), and of the centre of mass ``com`` (F, 3), in m, as the GIF ``path`` at ``FPS`` frames
    per second, titled ``title`` and the time; returns ``path``. The last frame also goes to a PNG
    beside it."""
    from matplotlib.animation import FuncAnimation, PillowWriter

    from soro_analysis import plotting

    fig, axes = plotting.figure(size=(6.0, 4.0))
    ax = axes[0, 0]
    xy = np.concatenate([frames[..., :2].reshape(-1, 2), com[:, :2]])
    low, high = xy.min(axis=0) - 0.1, xy.max(axis=0) + 0.1
    ax.set(
        xlim=(low[0], high[0]),
        ylim=(low[1], high[1]),
        aspect='equal',
        xlabel='x (m)',
        ylabel='y (m)',
    )
    (body_line,) = ax.plot([], [], '-', lw=6, color='tab:cyan', solid_capstyle='round')
    (plates,) = ax.plot([], [], 's', ms=5, color='0.2')
    (trail,) = ax.plot([], [], '-', lw=1, color='tab:red')
    label = ax.set_title(title)

    def draw(k: int):
        body_line.set_data(frames[k, :, 0], frames[k, :, 1])
        plates.set_data(frames[k, ::3, 0], frames[k, ::3, 1])
        trail.set_data(com[: k + 1, 0], com[: k + 1, 1])
        label.set_text(f'{title}  t = {k / FPS:.1f} s')
        return body_line, plates, trail, label

    FuncAnimation(fig, draw, frames=len(frames), blit=True).save(
        path, writer=PillowWriter(fps=FPS)
    )
    plotting.save(fig, path.with_suffix('.png'))  # the last frame, as a still
    return path
