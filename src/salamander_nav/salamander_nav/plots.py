"""The salamander's figures in the thesis's manner: planned paths among obstacles (Figs. 3.27 and
3.30) and path tracking with projection and reference points (Fig. 3.31). Pure matplotlib on the
house style; lengths in m on the axes. No ROS."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.patches import Circle, Polygon

from salamander_nav.scene import Scene
from soro_analysis.plotting import figure

# by the name's first word (the planner); a second path of one planner is dashed
PLANNER_COLOURS = {'chomp': 'tab:red', 'lattice_astar': 'tab:blue'}


def scene_axes(scene: Scene, title: str, ax=None):
    """(figure or None, axes) with the scene's obstacles drawn grey and its bounds as the limits,
    equal scale."""
    fig = None
    if ax is None:
        fig, axes = figure(size=(6.5, 5.5))
        ax = axes[0, 0]
    for x, y, r in scene.circles:
        ax.add_patch(Circle((x, y), r, color='0.55', zorder=1))
    for polygon in scene.polygons:
        ax.add_patch(Polygon(polygon, closed=True, color='0.55', zorder=1))
    xmin, ymin, xmax, ymax = scene.bounds
    ax.set(
        xlim=(xmin, xmax),
        ylim=(ymin, ymax),
        xlabel='x (m)',
        ylabel='y (m)',
        title=title,
        aspect='equal',
    )
    return fig, ax


def pose_arrow(ax, pose, colour: str, label: str | None = None, length: float = 0.12) -> None:
    """An arrow at (x, y) pointing along the heading ψ (rad)."""
    x, y, psi = pose
    ax.annotate(
        '',
        (x + length * math.cos(psi), y + length * math.sin(psi)),
        (x, y),
        arrowprops={'arrowstyle': '->', 'color': colour, 'lw': 2},
        zorder=4,
    )
    ax.plot([x], [y], 'o', color=colour, label=label, zorder=4)


def plans_figure(scene: Scene, plans: dict, start, goal, title: str):
    """Fig. 3.30-style: each planner's path (name -> (N, 2) m) among the obstacles, with start and
    goal poses."""
    fig, ax = scene_axes(scene, title)
    drawn = set()
    for name, path in plans.items():
        path = np.asarray(path).reshape(-1, 2)
        planner = name.split()[0]
        ax.plot(
            path[:, 0],
            path[:, 1],
            '--' if planner in drawn else '-',
            color=PLANNER_COLOURS.get(planner, 'k'),
            lw=2,
            label=name,
            zorder=3,
        )
        drawn.add(planner)
    pose_arrow(ax, start, 'tab:green', 'start')
    pose_arrow(ax, goal, 'tab:purple', 'goal')
    ax.legend(loc='best')
    return fig


def tracking_figure(
    scene: Scene, planned, positions, projections, references, headings, title: str
):
    """Fig. 3.31-style: the planned path, the robot's positions (blue) with its heading (orange),
    the LOS projection (red) and reference (yellow) points. Arrays (N, 2) m; headings (N,) rad."""
    fig, ax = scene_axes(scene, title)
    planned = np.asarray(planned).reshape(-1, 2)
    ax.plot(planned[:, 0], planned[:, 1], '-', color='0.2', lw=1.5, label='planned', zorder=2)
    positions = np.asarray(positions).reshape(-1, 2)
    ax.plot(positions[:, 0], positions[:, 1], '.', color='tab:blue', ms=3, label='robot', zorder=3)
    every = slice(None, None, max(1, len(positions) // 25))
    u, v = np.cos(headings[every]), np.sin(headings[every])
    ax.quiver(
        *positions[every].T,
        u,
        v,
        color='tab:orange',
        scale=25,
        width=0.004,
        zorder=4,
        label='heading',
    )
    for points, colour, label in (
        (projections, 'tab:red', 'projection'),
        (references, 'gold', 'reference'),
    ):
        points = np.asarray(points).reshape(-1, 2)
        if len(points):
            ax.plot(points[:, 0], points[:, 1], '.', color=colour, ms=4, label=label, zorder=3)
    ax.legend(loc='best')
    return fig
