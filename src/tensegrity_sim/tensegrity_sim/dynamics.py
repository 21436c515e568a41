"""Equations (2)-(5) of Savin, Vorochaeva, Kurenkov (2020) for any structure, with the spec's sign
fixes.

State of a structure with n_r rods: an array of shape (..., n_r, 13), leading axes broadcast (a
batch of runs): columns 0:3 the rod's centre c (m), 3:6 its velocity v (m/s), 6:10 its orientation
q (unit quaternion, body to world), 10:13 its angular velocity ω (rad/s, world frame). The rod axis
is body x (as in the authors' package, so the quaternions match spec B6); the paper draws it along
body z, which only relabels the body frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from soro_geometry import quaternion
from tensegrity_sim import analysis, compiled
from tensegrity_sim.structure import Structure

C, V, Q, W = slice(0, 3), slice(3, 6), slice(6, 10), slice(10, 13)
STATE_WIDTH = 13


def make_state(centres, velocities, quaternions, angular_velocities) -> np.ndarray:
    """Stack per-rod arrays (..., n_r, 3|4) into a state (..., n_r, 13)."""
    return np.concatenate(
        [
            np.asarray(x, dtype=float)
            for x in (centres, velocities, quaternions, angular_velocities)
        ],
        axis=-1,
    )


@dataclass
class Kinematics:
    """Rod ends ordered as [first ends of all rods, second ends of all rods], shape (..., 2 n_r,
    3)."""

    ends: np.ndarray
    end_velocities: np.ndarray
    half_axis: np.ndarray  # (L/2) u per rod, (..., n_r, 3)


class Dynamics:
    """Right-hand side and energy of a Structure; the cable rest lengths can change between calls
    (actuation)."""

    def __init__(self, structure: Structure):
        self.structure = structure
        s = structure
        n_r = s.n_rods
        # vertex -> row in Kinematics.ends
        end_row = np.empty(s.n_vertices, dtype=np.intp)
        end_row[s.rods[:, 0]] = np.arange(n_r)
        end_row[s.rods[:, 1]] = n_r + np.arange(n_r)
        self.cable_a, self.cable_b = end_row[s.cables[:, 0]], end_row[s.cables[:, 1]]
        # force on the ends from per-cable forces on end a (end b gets the opposite): F_ends =
        # incidence @ f
        self.incidence = np.zeros((2 * n_r, s.n_cables))
        self.incidence[self.cable_a, np.arange(s.n_cables)] += 1.0
        self.incidence[self.cable_b, np.arange(s.n_cables)] -= 1.0
        self.half_length = (0.5 * s.rod_length_m)[:, None]
        self.mass = s.rod_mass_kg[:, None]
        self.inertia = s.rod_inertia()[:, None]
        self.weight = self.mass * s.gravity_m_s2
        self.rest_length = s.cable_rest_length_m.copy()
        self.has_damping = bool(np.any(s.cable_damping_n_s_per_m > 0))
        self._compiled = None

    def set_rest_lengths(self, rest_length_m) -> None:
        """Actuate: new cable rest lengths (m), validated by the Structure rules."""
        self.rest_length = self.structure.with_rest_lengths(rest_length_m).cable_rest_length_m
        self._compiled = None

    def compiled_batch(self) -> compiled.Batch:
        """This structure with its current rest lengths as the compiled kernels read it (built once
        per change)."""
        if self._compiled is None:
            self._compiled = compiled.batch_of([self.structure], [self.rest_length])
        return self._compiled

    def kinematics(self, y: np.ndarray) -> Kinematics:
        """Of state ``y`` (..., n_r, 13): the rod ends [c - (L/2) u, c + (L/2) u] (..., 2 n_r, 3)
        in m, their velocities v ∓ ω × (L/2) u in m/s and the half axes (L/2) u (..., n_r, 3)."""
        c, v, q, w = y[..., C], y[..., V], y[..., Q], y[..., W]
        half_axis = self.half_length * quaternion.body_x(q)
        spin = quaternion.cross(w, half_axis)
        return Kinematics(
            np.concatenate([c - half_axis, c + half_axis], axis=-2),
            np.concatenate([v - spin, v + spin], axis=-2),
            half_axis,
        )

    def cable_lengths(self, y: np.ndarray) -> np.ndarray:
        """ℓ_i (m), shape (..., n_c)."""
        ends = self.kinematics(y).ends
        return np.linalg.norm(ends[..., self.cable_b, :] - ends[..., self.cable_a, :], axis=-1)

    def strains(self, y: np.ndarray) -> np.ndarray:
        """ε = (ℓ - l⁰)/l⁰ per cable (fraction), shape (..., n_c)."""
        return analysis.strains(self.cable_lengths(y), self.rest_length)

    def tensions(self, lengths: np.ndarray) -> np.ndarray:
        """Elastic tension s (ℓ - ρ) (N) per cable, zero when slack if the cables are
        unilateral."""
        stretch = lengths - self.rest_length
        if self.structure.unilateral:
            stretch = np.maximum(stretch, 0.0)
        return self.structure.cable_stiffness_n_per_m * stretch

    def cable_forces(self, k: Kinematics) -> np.ndarray:
        """Force on each cable's first end (N), shape (..., n_c, 3); the second end gets the
        opposite."""
        s = self.structure
        d = k.ends[..., self.cable_b, :] - k.ends[..., self.cable_a, :]
        length = np.linalg.norm(d, axis=-1)
        direction = d / length[..., None]
        # (2), sign fixed: a stretched cable pulls a to b
        force = self.tensions(length)[..., None] * direction
        if self.has_damping:
            relative = (
                k.end_velocities[..., self.cable_b, :] - k.end_velocities[..., self.cable_a, :]
            )
            if s.damping_mode == 'relative_axial':
                relative = np.sum(relative * direction, axis=-1, keepdims=True) * direction
            # (3) on vertex a: γ (ṙ_b - ṙ_a)
            damping = s.cable_damping_n_s_per_m[:, None] * relative
            if s.unilateral:  # a slack cable transmits nothing, neither spring nor damper
                damping = damping * (length > self.rest_length)[..., None]
            force = force + damping
        return force

    def ground_forces(self, k: Kinematics) -> np.ndarray:
        """Penalty normal force and regularised Coulomb friction on every rod end (N), shape (...,
        2 n_r, 3)."""
        g = self.structure.ground
        depth = g.height_m - k.ends[..., 2]
        sink_rate = -k.end_velocities[..., 2]
        normal = np.where(
            depth > 0,
            np.maximum(g.stiffness_n_per_m * depth + g.damping_n_s_per_m * sink_rate, 0),
            0,
        )
        slip = k.end_velocities[..., :2]
        speed = np.linalg.norm(slip, axis=-1)
        friction = (
            -(g.friction * normal / np.maximum(speed, g.slip_velocity_m_s))[..., None] * slip
        )
        return np.concatenate([friction, normal[..., None]], axis=-1)

    def rates(self, y: np.ndarray) -> np.ndarray:
        """dy/dt for a state (..., n_r, 13): Newton-Euler (4) and the quaternion kinematics (5)."""
        s = self.structure
        k = self.kinematics(y)
        end_forces = self.incidence @ self.cable_forces(k)
        if s.ground is not None:
            end_forces = end_forces + self.ground_forces(k)
        n_r = s.n_rods
        first, second = end_forces[..., :n_r, :], end_forces[..., n_r:, :]
        v, w = y[..., V], y[..., W]
        force = first + second + self.weight - s.rod_drag_linear_n_s_per_m * v
        # τ = (r1 - c) × f1 + (r2 - c) × f2 with r1 - c = -(L/2)u and r2 - c = +(L/2)u
        torque = quaternion.cross(k.half_axis, second - first) - s.rod_drag_angular_n_m_s * w
        q_dot = 0.5 * quaternion.multiply_pure(w, y[..., Q])  # (5)
        # (4) with isotropic inertia, d(Iω)/dt = τ has no gyroscopic term (see
        #     Structure.rod_inertia)
        return np.concatenate([v, force / self.mass, q_dot, torque / self.inertia], axis=-1)

    def energy(self, y: np.ndarray) -> np.ndarray:
        """Kinetic + elastic + gravitational (+ ground penalty) energy (J), shape (...)."""
        s = self.structure
        v, w, c = y[..., V], y[..., W], y[..., C]
        kinetic = 0.5 * np.sum(
            self.mass[:, 0] * np.sum(v * v, -1) + self.inertia[:, 0] * np.sum(w * w, -1), -1
        )
        stretch = self.cable_lengths(y) - self.rest_length
        if s.unilateral:
            stretch = np.maximum(stretch, 0.0)
        elastic = 0.5 * np.sum(s.cable_stiffness_n_per_m * stretch**2, -1)
        potential = -np.sum(self.mass[:, 0] * (c @ s.gravity_m_s2), -1)
        if s.ground is not None:
            depth = np.maximum(s.ground.height_m - self.kinematics(y).ends[..., 2], 0)
            potential = potential + 0.5 * s.ground.stiffness_n_per_m * np.sum(depth**2, -1)
        return kinetic + elastic + potential

    def momentum(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Total linear momentum (kg·m/s) and angular momentum about the origin (kg·m²/s), shapes
        (..., 3)."""
        linear = self.mass * y[..., V]
        angular = quaternion.cross(y[..., C], linear) + self.inertia * y[..., W]
        return linear.sum(-2), angular.sum(-2)

    def centre_of_mass(self, y: np.ndarray) -> np.ndarray:
        """The structure's centre of mass (m), shape (..., 3)."""
        return np.sum(self.mass * y[..., C], -2) / self.mass.sum()
