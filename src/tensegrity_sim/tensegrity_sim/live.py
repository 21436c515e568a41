"""A simulation that runs against the clock, for the node: reset, actuate, advance, and a snapshot
to publish.

Pure (no rclpy): ``live_node`` turns snapshots into messages and requests into these calls.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from soro_geometry import quaternion
from tensegrity_sim import analysis
from tensegrity_sim.dynamics import C, Dynamics, Q, V, W, make_state
from tensegrity_sim.integrate import STEPPERS, SimulationDiverged, diverged
from tensegrity_sim.presets import Preset
from tensegrity_sim.structure import Structure, StructureError

# RGBA per analysis.cable_status: slack grey-blue, normal green, over-strained red
STATUS_COLOURS = np.array([[0.45, 0.55, 0.75, 0.8], [0.1, 0.8, 0.2, 1.0], [0.95, 0.1, 0.1, 1.0]])
# m from the world's origin: a rod placed beyond is a typo, not a structure (1e300 gave inf energy)
MAX_EXTENT_M = 1e3
MAX_STEPS_PER_ADVANCE = 2000  # a stalled clock must not turn one tick into minutes of catch-up


@dataclass
class Snapshot:
    """Everything the node publishes about one instant; arrays in the structure's rod and cable
    order."""

    sim_time_s: float
    psi_deg: float
    centres: np.ndarray  # (n_r, 3) m
    quaternions: np.ndarray  # (n_r, 4) w, x, y, z
    velocities: np.ndarray  # (n_r, 3) m/s
    angular_velocities: np.ndarray
    ends: np.ndarray  # (2 n_r, 3) first ends, then second ends
    cable_ends: np.ndarray  # (n_c, 2) rows of ``ends``
    rod_lengths: np.ndarray  # (n_r,) m
    lengths: np.ndarray  # (n_c,) m
    rest_lengths: np.ndarray
    strains: np.ndarray
    tensions: np.ndarray
    status: np.ndarray  # (n_c,) analysis.cable_status
    centre_of_mass: np.ndarray
    energy: float

    @property
    def normal_mode(self) -> bool:
        """Every cable in the normal regime: neither slack nor over-strained."""
        return bool(np.all(self.status == 1))


class LiveSimulation:
    """One structure stepped with a fixed-step integrator; stops for good (until reset) if it
    diverges."""

    def __init__(self, preset: Preset, structure: Structure, integrator: str, dt_s: float):
        if integrator not in STEPPERS:
            raise ValueError(
                f'integrator = {integrator!r}: allowed values are {", ".join(STEPPERS)}'
            )
        self.preset = replace(preset, structure=structure)
        self.dynamics = Dynamics(structure)
        self.step = STEPPERS[integrator]
        self.dt_s = dt_s
        self.state = self.preset.initial_state()
        self.steps = 0
        self.psi_deg = preset.psi_deg
        self.diverged: SimulationDiverged | None = None

    def reset_to_psi(self, psi_deg: float) -> None:
        """At rest as the preset's released prism with the rods tilted ``psi_deg`` from the
        vertical; simulated time back to 0."""
        self._reset(self.preset.initial_state(psi_deg), psi_deg)

    def reset_to_poses(self, centres, quaternions) -> None:
        """At rest at the given rod centres (n_r, 3) m and orientations (n_r, 4) w, x, y, z
        (normalised here)."""
        centres, quats = np.asarray(centres, dtype=float), np.asarray(quaternions, dtype=float)
        n = self.dynamics.structure.n_rods
        if centres.shape != (n, 3) or quats.shape != (n, 4):
            raise StructureError(
                f'rod_poses: expected {n} poses (one per rod), got {len(centres)}'
            )
        norms = np.linalg.norm(quats, axis=-1)
        # NaN fails the bound too; 1e300 m was taken and published energy = inf
        if not (
            np.all(np.abs(centres) <= MAX_EXTENT_M)
            and np.all(np.isfinite(quats))
            and np.all(norms > 1e-9)
        ):
            raise StructureError(
                f'rod_poses: positions must be within ±{MAX_EXTENT_M:g} m and orientations '
                'finite, non-zero quaternions'
            )
        zeros = np.zeros((n, 3))
        self._reset(make_state(centres, zeros, quats / norms[:, None], zeros), math.nan)

    def _reset(self, state: np.ndarray, psi_deg: float) -> None:
        self.state, self.psi_deg, self.steps, self.diverged = state, psi_deg, 0, None

    @property
    def sim_time_s(self) -> float:
        """Simulated time (s) since the last reset."""
        return self.steps * self.dt_s  # counted in steps, so that no rounding accumulates

    def set_rest_lengths(self, rest_lengths_m) -> None:
        """Actuate: new cable rest lengths (n_c,) in m; StructureError on a wrong count or a value
        the Structure rules refuse."""
        rest = np.asarray(rest_lengths_m, dtype=float)
        if rest.shape != (self.dynamics.structure.n_cables,):
            raise StructureError(
                f'rest_lengths: expected {self.dynamics.structure.n_cables} values '
                f'(one per cable), got {rest.size}'
            )
        self.dynamics.set_rest_lengths(rest)

    def advance_to(self, sim_time_s: float, deadline: float = math.inf) -> int:
        """Step until ``sim_time_s`` (at most MAX_STEPS_PER_ADVANCE steps, and none begun after
        ``deadline``, a time.monotonic()); returns the number of steps taken. Raises
        SimulationDiverged, and keeps raising it until a reset, if the state becomes non-finite."""
        if self.diverged:
            raise self.diverged
        steps = max(
            min(int((sim_time_s - self.sim_time_s) / self.dt_s + 1e-9), MAX_STEPS_PER_ADVANCE), 0
        )
        for taken in range(steps):
            if time.monotonic() > deadline:
                return taken
            # overflow is expected on the way to divergence, and reported below
            with np.errstate(all='ignore'):
                state = self.step(self.dynamics, self.state, self.dt_s)
                energy = self.dynamics.energy(state)
            if diverged(state) or not np.isfinite(energy):
                self.diverged = SimulationDiverged(self.sim_time_s + self.dt_s)
                raise self.diverged
            self.state, self.steps = state, self.steps + 1
        return steps

    def trial(self, steps: int) -> None:
        """Raise SimulationDiverged if ``steps`` from the present state blow up (a step too
        coarse for stiff cables grows them ~1e5-fold each); the state is left as it was."""
        state, psi_deg = self.state, self.psi_deg
        try:
            self.advance_to(self.sim_time_s + steps * self.dt_s)
        finally:
            self._reset(state, psi_deg)

    def snapshot(self) -> Snapshot:
        """The present state as the node publishes it."""
        d, y = self.dynamics, self.state
        lengths = d.cable_lengths(y)
        strains = analysis.strains(lengths, d.rest_length)
        return Snapshot(
            sim_time_s=self.sim_time_s,
            psi_deg=self.psi_deg,
            centres=y[:, C],
            quaternions=y[:, Q],
            velocities=y[:, V],
            angular_velocities=y[:, W],
            ends=d.kinematics(y).ends,
            cable_ends=np.column_stack([d.cable_a, d.cable_b]),
            rod_lengths=d.structure.rod_length_m,
            lengths=lengths,
            rest_lengths=d.rest_length.copy(),
            strains=strains,
            tensions=d.tensions(lengths),
            status=analysis.cable_status(strains),
            centre_of_mass=d.centre_of_mass(y),
            energy=float(d.energy(y)),
        )


def cylinder_orientation(quaternions: np.ndarray) -> np.ndarray:
    """Orientation of an rviz CYLINDER marker (axis = its local z) along each rod's body x: q ⊗
    R_y(90°)."""
    return quaternion.multiply(quaternions, quaternion.from_axis_angle([0, 1, 0], np.pi / 2))
