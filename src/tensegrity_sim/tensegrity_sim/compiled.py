"""Equations (2)-(5) and the fixed-step RK4 loop compiled with numba, for runs and batches of runs.

``dynamics.Dynamics.rates`` stays the readable reference; this is the same right-hand side written
as loops over rods, cables and rod ends, so that a step costs arithmetic instead of numpy's
per-call overhead on arrays of a few elements (the tests hold it to the reference to 1e-12). Every
function here works on a batch: B runs of one topology (the same rods and cables), each with its
own parameters and state. Compiled code is cached on disk (numba's ``cache=True``: beside this
file, or in NUMBA_CACHE_DIR), so only the first run on a machine compiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tensegrity_sim.structure import Structure

DAMPING_MODES = {'relative_full': 1, 'relative_axial': 2}  # Structure.damping_mode
NO_DAMPING = 0
# present (0/1), height (m), stiffness (N/m), damping (N s/m), friction (-), slip velocity (m/s)
GROUND_FIELDS = 6


@dataclass(frozen=True)
class Batch:
    """The parameters of B structures of one topology, as the compiled kernels read them (batch
    axis first).

    cable_a, cable_b (n_c,) rows of the rod ends [first ends, second ends]; half_length, mass,
    inertia (B, n_r); weight (B, n_r, 3) N; stiffness, damping, rest_length (B, n_c); unilateral,
    damping_mode (B,) int; drag (B, 2) linear N s/m and angular N m s; ground (B, GROUND_FIELDS).
    """

    cable_a: np.ndarray
    cable_b: np.ndarray
    half_length: np.ndarray
    mass: np.ndarray
    inertia: np.ndarray
    weight: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    rest_length: np.ndarray
    unilateral: np.ndarray
    damping_mode: np.ndarray
    drag: np.ndarray
    ground: np.ndarray

    def arrays(self) -> tuple:
        """The fields in declaration order, the compiled kernels' positional arguments."""
        return (
            self.cable_a,
            self.cable_b,
            self.half_length,
            self.mass,
            self.inertia,
            self.weight,
            self.stiffness,
            self.damping,
            self.rest_length,
            self.unilateral,
            self.damping_mode,
            self.drag,
            self.ground,
        )


def topology(structure: Structure) -> tuple:
    """What structures must share to be integrated in one batch."""
    return structure.n_rods, structure.rods.tobytes(), structure.cables.tobytes()


def batch_of(structures: list[Structure], rest_lengths: list[np.ndarray] | None = None) -> Batch:
    """The Batch of ``structures`` (one topology; ValueError otherwise), with their own rest
    lengths or these."""
    first = structures[0]
    if any(topology(s) != topology(first) for s in structures):
        raise ValueError(
            'a batch integrates structures of one topology (the same rods and cables) only'
        )
    end_row = np.empty(first.n_vertices, dtype=np.int64)
    end_row[first.rods[:, 0]] = np.arange(first.n_rods)
    end_row[first.rods[:, 1]] = first.n_rods + np.arange(first.n_rods)
    rest = (
        rest_lengths if rest_lengths is not None else [s.cable_rest_length_m for s in structures]
    )

    def stack(values, dtype=float):
        return np.ascontiguousarray(np.array(values, dtype=dtype))

    return Batch(
        cable_a=end_row[first.cables[:, 0]].copy(),
        cable_b=end_row[first.cables[:, 1]].copy(),
        half_length=stack([0.5 * s.rod_length_m for s in structures]),
        mass=stack([s.rod_mass_kg for s in structures]),
        inertia=stack([s.rod_inertia() for s in structures]),
        weight=stack([s.rod_mass_kg[:, None] * s.gravity_m_s2 for s in structures]),
        stiffness=stack([s.cable_stiffness_n_per_m for s in structures]),
        damping=stack([s.cable_damping_n_s_per_m for s in structures]),
        rest_length=stack(rest),
        unilateral=stack([s.unilateral for s in structures], np.int64),
        damping_mode=stack(
            [
                DAMPING_MODES[s.damping_mode]
                if np.any(s.cable_damping_n_s_per_m > 0)
                else NO_DAMPING
                for s in structures
            ],
            np.int64,
        ),
        drag=stack([(s.rod_drag_linear_n_s_per_m, s.rod_drag_angular_n_m_s) for s in structures]),
        ground=stack([_ground(s) for s in structures]),
    )


def repeat(batch: Batch, runs: int) -> Batch:
    """A batch of one structure as ``runs`` copies of it."""
    shared = {'cable_a', 'cable_b'}
    return Batch(
        **{
            name: value if name in shared else np.repeat(value, runs, axis=0)
            for name, value in vars(batch).items()
        }
    )


def _ground(structure: Structure) -> tuple:
    g = structure.ground
    if g is None:
        return (0.0,) * GROUND_FIELDS
    return (
        1.0,
        g.height_m,
        g.stiffness_n_per_m,
        g.damping_n_s_per_m,
        g.friction,
        g.slip_velocity_m_s,
    )


@njit(cache=True)
def _rod_ends(y, half_length, ends, end_velocities, half_axis):
    """Rod ends and their velocities (2 n_r, 3), and (L/2) u per rod (n_r, 3), of one state (n_r,
    13)."""
    n_r = y.shape[0]
    for i in range(n_r):
        qw, qx, qy, qz = y[i, 6], y[i, 7], y[i, 8], y[i, 9]
        norm2 = qw * qw + qx * qx + qy * qy + qz * qz
        scale = half_length[i] / norm2  # body x = R(q) e_x, for q of any norm
        ax = scale * (qw * qw + qx * qx - qy * qy - qz * qz)
        ay = scale * 2.0 * (qx * qy + qw * qz)
        az = scale * 2.0 * (qx * qz - qw * qy)
        wx, wy, wz = y[i, 10], y[i, 11], y[i, 12]
        sx, sy, sz = wy * az - wz * ay, wz * ax - wx * az, wx * ay - wy * ax  # ω × (L/2) u
        half_axis[i, 0], half_axis[i, 1], half_axis[i, 2] = ax, ay, az
        ends[i, 0], ends[i, 1], ends[i, 2] = y[i, 0] - ax, y[i, 1] - ay, y[i, 2] - az
        ends[n_r + i, 0], ends[n_r + i, 1], ends[n_r + i, 2] = (
            y[i, 0] + ax,
            y[i, 1] + ay,
            y[i, 2] + az,
        )
        end_velocities[i, 0], end_velocities[i, 1], end_velocities[i, 2] = (
            y[i, 3] - sx,
            y[i, 4] - sy,
            y[i, 5] - sz,
        )
        end_velocities[n_r + i, 0] = y[i, 3] + sx
        end_velocities[n_r + i, 1] = y[i, 4] + sy
        end_velocities[n_r + i, 2] = y[i, 5] + sz


@njit(cache=True)
def _add_cable_forces(b, batch, ends, end_velocities, forces):
    """Eqs. (2)-(3): each cable's spring (and damper) force on its ends, added to ``forces`` (2
    n_r, 3)."""
    cable_a, cable_b, stiffness, damping, rest = (
        batch[0],
        batch[1],
        batch[6][b],
        batch[7][b],
        batch[8][b],
    )
    unilateral, mode = batch[9][b], batch[10][b]
    d = np.empty(3)
    for j in range(cable_a.shape[0]):
        a, e = cable_a[j], cable_b[j]
        for k in range(3):
            d[k] = ends[e, k] - ends[a, k]
        length = np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        stretch = length - rest[j]
        if unilateral and stretch < 0.0:
            stretch = 0.0
        tension = stiffness[j] * stretch
        axial = 0.0
        if mode == 2:
            for k in range(3):
                axial += (end_velocities[e, k] - end_velocities[a, k]) * (d[k] / length)
        # a slack cable transmits nothing, neither spring nor damper
        taut = not unilateral or length > rest[j]
        for k in range(3):
            direction = d[k] / length
            f = tension * direction
            if mode == 1 and taut:
                f += damping[j] * (end_velocities[e, k] - end_velocities[a, k])
            elif mode == 2 and taut:
                f += damping[j] * (axial * direction)
            forces[a, k] += f
            forces[e, k] -= f


@njit(cache=True)
def _add_ground_forces(ground, ends, end_velocities, forces):
    """Penalty normal force and regularised Coulomb friction on every rod end, added to
    ``forces``."""
    height, stiffness, damping, friction, slip_velocity = (
        ground[1],
        ground[2],
        ground[3],
        ground[4],
        ground[5],
    )
    for e in range(ends.shape[0]):
        depth = height - ends[e, 2]
        normal = 0.0
        if depth > 0.0:
            normal = max(stiffness * depth + damping * -end_velocities[e, 2], 0.0)
        vx, vy = end_velocities[e, 0], end_velocities[e, 1]
        scale = friction * normal / max(np.sqrt(vx * vx + vy * vy), slip_velocity)
        forces[e, 0] += -scale * vx
        forces[e, 1] += -scale * vy
        forces[e, 2] += normal


@njit(cache=True)
def rates_into(b, batch, y, out, ends, end_velocities, half_axis, forces):
    """dy/dt of run b's state y (n_r, 13) into out: Newton-Euler (4) and quaternion kinematics (5).
    ``ends``, ``end_velocities``, ``forces`` (2 n_r, 3) and ``half_axis`` (n_r, 3) are scratch
    space."""
    n_r = y.shape[0]
    mass, inertia, weight, drag, ground = (
        batch[3][b],
        batch[4][b],
        batch[5][b],
        batch[11][b],
        batch[12][b],
    )
    _rod_ends(y, batch[2][b], ends, end_velocities, half_axis)
    forces[:] = 0.0
    _add_cable_forces(b, batch, ends, end_velocities, forces)
    if ground[0] != 0.0:
        _add_ground_forces(ground, ends, end_velocities, forces)
    for i in range(n_r):
        for k in range(3):
            out[i, k] = y[i, 3 + k]
            out[i, 3 + k] = (
                forces[i, k] + forces[n_r + i, k] + weight[i, k] - drag[0] * y[i, 3 + k]
            ) / mass[i]
        fx, fy, fz = (
            forces[n_r + i, 0] - forces[i, 0],
            forces[n_r + i, 1] - forces[i, 1],
            forces[n_r + i, 2] - forces[i, 2],
        )
        ax, ay, az = half_axis[i, 0], half_axis[i, 1], half_axis[i, 2]
        # τ = (L/2) u × (f2 - f1); isotropic inertia: no gyroscopic term (see
        # Structure.rod_inertia)
        tx = ay * fz - az * fy - drag[1] * y[i, 10]
        ty = az * fx - ax * fz - drag[1] * y[i, 11]
        tz = ax * fy - ay * fx - drag[1] * y[i, 12]
        wx, wy, wz = y[i, 10], y[i, 11], y[i, 12]
        qw, qx, qy, qz = y[i, 6], y[i, 7], y[i, 8], y[i, 9]
        out[i, 6] = 0.5 * (-wx * qx - wy * qy - wz * qz)  # (5): q̇ = ½ [0, ω] ⊗ q
        out[i, 7] = 0.5 * (wx * qw + wy * qz - wz * qy)
        out[i, 8] = 0.5 * (wy * qw + wz * qx - wx * qz)
        out[i, 9] = 0.5 * (wz * qw + wx * qy - wy * qx)
        out[i, 10], out[i, 11], out[i, 12] = tx / inertia[i], ty / inertia[i], tz / inertia[i]


@njit(cache=True)
def _normalize_quaternions(y):
    for i in range(y.shape[0]):
        norm = np.sqrt(
            y[i, 6] * y[i, 6] + y[i, 7] * y[i, 7] + y[i, 8] * y[i, 8] + y[i, 9] * y[i, 9]
        )
        for k in range(6, 10):
            y[i, k] /= norm


@njit(cache=True)
def _rk4_step(b, batch, y, dt, k1, k2, k3, k4, tmp, ends, end_velocities, half_axis, forces):
    """One RK4 step of run b, in place, the reference's operations in its order
    (integrate.step_rk4)."""
    n_r = y.shape[0]
    rates_into(b, batch, y, k1, ends, end_velocities, half_axis, forces)
    for i in range(n_r):
        for k in range(13):
            tmp[i, k] = y[i, k] + 0.5 * dt * k1[i, k]
    rates_into(b, batch, tmp, k2, ends, end_velocities, half_axis, forces)
    for i in range(n_r):
        for k in range(13):
            tmp[i, k] = y[i, k] + 0.5 * dt * k2[i, k]
    rates_into(b, batch, tmp, k3, ends, end_velocities, half_axis, forces)
    for i in range(n_r):
        for k in range(13):
            tmp[i, k] = y[i, k] + dt * k3[i, k]
    rates_into(b, batch, tmp, k4, ends, end_velocities, half_axis, forces)
    for i in range(n_r):
        for k in range(13):
            y[i, k] = y[i, k] + dt / 6.0 * (k1[i, k] + 2 * k2[i, k] + 2 * k3[i, k] + k4[i, k])
    _normalize_quaternions(y)


@njit(cache=True)
def _finite_and_bounded(y, blow_up):
    for i in range(y.shape[0]):
        for k in range(13):
            if not abs(y[i, k]) < blow_up:  # NaN compares False
                return False
    return True


@njit(cache=True)
def rk4_runs(batch, y0, dt, per_sample, n_samples, blow_up, states):
    """Fixed-step RK4 of every run b from y0[b] (n_r, 13), quaternions kept unit; samples every
    ``per_sample`` steps into states[b] (n_samples + 1, n_r, 13), t = 0 included. Per run, the
    first sample at which the state was non-finite or beyond ``blow_up`` (that run stops there), or
    -1."""
    runs, n_r = y0.shape[0], y0.shape[1]
    diverged_at = np.full(runs, -1)
    k1, k2, k3, k4, tmp = (
        np.empty((n_r, 13)),
        np.empty((n_r, 13)),
        np.empty((n_r, 13)),
        np.empty((n_r, 13)),
        np.empty((n_r, 13)),
    )
    ends, end_velocities, forces = (
        np.empty((2 * n_r, 3)),
        np.empty((2 * n_r, 3)),
        np.empty((2 * n_r, 3)),
    )
    half_axis = np.empty((n_r, 3))
    for b in range(runs):
        y = y0[b].copy()
        _normalize_quaternions(y)
        states[b, 0] = y
        for i in range(1, n_samples + 1):
            for _ in range(per_sample):
                _rk4_step(
                    b, batch, y, dt, k1, k2, k3, k4, tmp, ends, end_velocities, half_axis, forces
                )
            if not _finite_and_bounded(y, blow_up):
                diverged_at[b] = i
                break
            states[b, i] = y
    return diverged_at


@njit(cache=True)
def rates_of_runs(batch, ys, out):
    """dy/dt of every run's state ys[b] (n_r, 13) into out[b]: the compiled right-hand side on its
    own."""
    n_r = ys.shape[1]
    ends, end_velocities, forces = (
        np.empty((2 * n_r, 3)),
        np.empty((2 * n_r, 3)),
        np.empty((2 * n_r, 3)),
    )
    half_axis = np.empty((n_r, 3))
    for b in range(ys.shape[0]):
        rates_into(b, batch, ys[b], out[b], ends, end_velocities, half_axis, forces)
