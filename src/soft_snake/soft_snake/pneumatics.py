"""The chambers' pneumatics per the thesis's own simulator (§2.3.2, Eqs. 2.6-2.8; spec A5, D-S16),
fed by one shared, tethered supply; used by the simulated valve board and the simulator. No ROS.

Eq. 2.7-2.8 with D-S16's reading Δp = (p_target − p)/p_s, taken per second (our h → 0):
- inflating, the valve's orifice limits the flow: dp/dt = p_s k_i Δp², so the deficit falls as
  Δp(t) = Δp0 / (1 + k_i Δp0 t) (the thesis's "v² = (2/ρ)(p − p_s)" flow limit);
- venting, the rate is capped: dp/dt = −min(k_d p, T_p): isobaric (a constant rate, T_p) while the
  chamber's volume shrinks, then an exponential leak to the target (§2.3.2: "air is released slowly
  to atmospheric pressure").
A PWM duty d between 0 and 1 targets d·p_s (the duty "mapped from the target pressure", D-S1).

The thesis gives neither k_i, k_d nor T_p; it measured the step response's time constants,
0.23-0.44 s over 30 trials (§2.2.1, Fig. 2.2; spec A1.3), and the defaults put both (time to 63 %
of the step) inside that range (``step_time_constants``). The supply is 17 psi (Fig. 2.2) through a
tether (Table 4.1, "Tethered Power Supply"); the thesis gives no figure for its sag, so ours is a
reading: the tether and the filling chambers' orifices divide p_s, the manifold at p_s / (1 + s Σ
Δp²) over the filling chambers (Δp² their flow term), s = ``supply_drop_per_chamber``, set with
the body on the training half of the speed tables (``calibration``) and the fit's to tune.

The modules do not follow their valves at once (``ModuleDelay``): the tail's chambers do, and
every module nearer the head ``module_delay_s`` later than the one behind it. The robot keeps its
undulation speed from β = 2π/3 to 11π/12 and is slow below π/2 (§5.1.1, Tables 5.2-5.4), where a
snake whose modules all follow at once is pushed only by the travelling curvature wave, whose
thrust vanishes at β = π. The delay turns the bends' phase difference from β into β − 2πfd, and
with d fitted on half the tables (0.034 s, ``calibration``) the simulated snake has the robot's
shape: slow below π/2, fastest near 2π/3, still moving at 11π/12 (docs/soft_snake.md's figures).
Where the delay comes from the thesis does not say; our reading is the tether (Table 4.1:
"Tethered Power Supply"), which trails the snake and so feeds it from the tail, its line running
forward through the gaps between the modules (§2.1.5), so that a valve nearer the head fills its
chamber later. It is a model to be judged on held-out cells, not a measured figure.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from dataclasses import dataclass

import numpy as np

PSI_PA = 6894.757
SUPPLY_PA = 17 * PSI_PA  # 17 psi, gauge (Fig. 2.2)
TAU_RANGE_S = (0.23, 0.44)  # inflation and deflation time constants measured (§2.2.1)
STEP_LIMIT_S = 60.0  # a step response slower than this is no chamber's


@dataclass(frozen=True)
class ChamberParameters:
    """Eqs. 2.7-2.8's constants per second, and the shared supply: ``k_i_per_s`` (orifice-limited
    inflation), ``k_d_per_s`` and ``t_p_pa_per_s`` (venting, rate-capped at T_p), ``supply_pa``
    (p_s, nominal) and ``supply_drop_per_chamber`` (s: the tether's sag, p_s / (1 + s) with one
    chamber filling from empty)."""

    # the calibrated chambers (calibration.py, fitted on the training half of the speed tables
    # with the body): 63 % of a step in 0.244 s with the sag below, of a vent in 0.307 s, within
    # the 0.23-0.44 s the thesis measured (the fit sets the time constants, these rates follow)
    k_i_per_s: float = 7.688
    k_d_per_s: float = 4.065
    t_p_pa_per_s: float = 254.1e3
    supply_pa: float = SUPPLY_PA
    supply_drop_per_chamber: float = 0.07396
    # how much later each module's chambers follow their valves than the next module toward the
    # tail does (``ModuleDelay``)
    module_delay_s: float = 0.03421

    def __post_init__(self):
        for name, value in vars(self).items():
            bound = '>= 0' if name in ('supply_drop_per_chamber', 'module_delay_s') else '> 0'
            if not (math.isfinite(value) and (value >= 0 if bound == '>= 0' else value > 0)):
                raise ValueError(f'{name} = {value}: must be finite and {bound}')

    def with_time_constants(self, tau_inflate_s: float, tau_vent_s: float) -> ChamberParameters:
        """These chambers run faster or slower so that their step response's time constants
        (``step_time_constants``) are ``tau_inflate_s`` and ``tau_vent_s``: every rate scales,
        the responses' shapes stay."""
        for name, value in (('tau_inflate_s', tau_inflate_s), ('tau_vent_s', tau_vent_s)):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'{name} = {value}: must be finite and > 0')
        inflating, venting = step_time_constants(self)
        return dataclasses.replace(
            self,
            k_i_per_s=self.k_i_per_s * inflating / tau_inflate_s,
            k_d_per_s=self.k_d_per_s * venting / tau_vent_s,
            t_p_pa_per_s=self.t_p_pa_per_s * venting / tau_vent_s,
        )


DEFAULT_CHAMBERS = ChamberParameters()


class Chambers:
    """Gauge pressures (Pa) of N × 3 chambers on one supply, driven by valve duties."""

    def __init__(self, segments: int, params: ChamberParameters = DEFAULT_CHAMBERS):
        self.params = params
        self.supply_pa = params.supply_pa  # nominal p_s: what a full duty asks for
        self.pressure_pa = np.zeros((segments, 3))
        self.delay = ModuleDelay(segments, params.module_delay_s)

    def supply_now_pa(self, target_pa: np.ndarray) -> float:
        """The supply pressure at the manifold while the chambers fill toward ``target_pa``: p_s
        divided between the tether and the chambers' orifices, p_s / (1 + s Σ Δp²), with s
        ``supply_drop_per_chamber`` and Δp² each filling chamber's flow term (Eq. 2.7)."""
        deficit = np.clip((target_pa - self.pressure_pa) / self.supply_pa, 0.0, 1.0)
        # the tether and the filling orifices divide p_s: never below zero however many fill
        return self.supply_pa / (1.0 + self.params.supply_drop_per_chamber * np.sum(deficit**2))

    def step(self, duty: np.ndarray, dt_s: float) -> np.ndarray:
        """Advance ``dt_s`` with valve ``duty`` (N, 3) in [0, 1]; the new pressures (N, 3) in Pa.
        Exact for a duty and a supply held over the step (the supply is taken at its start)."""
        p, k = self.params, self.delay.step(np.clip(duty, 0.0, 1.0), dt_s)
        supply = self.supply_now_pa(k * self.supply_pa)
        target = k * supply
        # inflating: Δp(t) = Δp0 / (1 + k_i Δp0 t), in units of the nominal p_s (Eq. 2.7)
        deficit = np.maximum(target - self.pressure_pa, 0.0) / self.supply_pa
        filled = target - self.supply_pa * deficit / (1.0 + p.k_i_per_s * deficit * dt_s)
        vented = np.maximum(_vent(self.pressure_pa, dt_s, p), target)
        self.pressure_pa = np.where(target > self.pressure_pa, filled, vented)
        return self.pressure_pa.copy()


class ModuleDelay:
    """Valve duties (N, 3) as each module's chambers feel them: the tail's at once, every module
    nearer the head ``module_delay_s`` later than the one behind it (the head (N − 1) times that).
    Before a module's first duty arrives its chambers are vented (duty 0)."""

    def __init__(self, segments: int, module_delay_s: float):
        # head first, as the duties' rows
        self.lag_s = module_delay_s * np.arange(segments - 1, -1, -1)
        self.t_s = 0.0
        self._times: list[float] = []  # when each duty in _sent was sent, oldest first
        self._sent: list[np.ndarray] = []

    def step(self, duty: np.ndarray, dt_s: float) -> np.ndarray:
        """The duties felt over the next ``dt_s``, ``duty`` being sent now."""
        if not self.lag_s.any():
            return duty
        self._times.append(self.t_s)
        self._sent.append(duty)
        felt = np.zeros_like(duty)
        for i, lag in enumerate(self.lag_s):
            # the newest duty sent at least ``lag`` ago (1 ns: ticks summed in floating point)
            k = bisect.bisect_right(self._times, self.t_s - lag + 1e-9) - 1
            if k >= 0:
                felt[i] = self._sent[k][i]
        # drop what every module has moved past: all before the newest the head has reached
        k = bisect.bisect_right(self._times, self.t_s - self.lag_s.max() + 1e-9) - 1
        if k > 0:
            del self._times[:k], self._sent[:k]
        self.t_s += dt_s
        return felt


def _vent(pressure_pa: np.ndarray, dt_s: float, p: ChamberParameters) -> np.ndarray:
    """Eq. 2.8 over ``dt_s``, exactly: at T_p down to the knee T_p/k_d, then e^(−k_d t)."""
    knee = p.t_p_pa_per_s / p.k_d_per_s
    linear_s = np.clip((pressure_pa - knee) / p.t_p_pa_per_s, 0.0, dt_s)
    after = np.maximum(pressure_pa - p.t_p_pa_per_s * linear_s, 0.0)
    return after * np.exp(-p.k_d_per_s * (dt_s - linear_s))


def step_time_constants(
    params: ChamberParameters = DEFAULT_CHAMBERS, dt_s: float = 0.001
) -> tuple[float, float]:
    """(inflating, venting) time constants in s of one chamber's full step, as Fig. 2.2 measured
    them: the time to cover 63 % (1 − 1/e) of the step. ValueError when the chamber never gets
    there (a supply that sags below 63 % with one chamber filling, s above about 4.3)."""
    bank, t = Chambers(1, params), 0.0
    duty = np.array([[1.0, 0.0, 0.0]])
    while bank.pressure_pa[0, 0] < (1 - math.exp(-1)) * params.supply_pa:
        bank.step(duty, dt_s)
        t += dt_s
        if t > STEP_LIMIT_S:
            raise ValueError(
                f'a chamber never fills to 63 % of the supply (supply_drop_per_chamber = '
                f'{params.supply_drop_per_chamber}, k_i_per_s = {params.k_i_per_s})'
            )
    inflating, t = t, 0.0
    bank.pressure_pa[0, 0] = params.supply_pa
    while bank.pressure_pa[0, 0] > math.exp(-1) * params.supply_pa:
        bank.step(np.zeros((1, 3)), dt_s)
        t += dt_s
    return inflating, t
