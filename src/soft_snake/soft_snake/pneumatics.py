"""The chambers' pneumatics: a first-order pressure response per chamber (thesis §2.2.1, Fig. 2.2;
spec A1.3), used by the simulated valve board and the simulator. No ROS.

Inflating, a chamber's gauge pressure approaches the supply, p → p_s − (p_s − p0) e^(−t/τ);
venting, it decays, p → p0 e^(−t/τ). The thesis measured τ of 0.23-0.44 s over 30 trials and
inflates to 17 psi. A PWM duty d between 0 and 1 targets d·p_s (the duty "mapped from the target
pressure", D-S1).
"""

from __future__ import annotations

import math

import numpy as np

PSI_PA = 6894.757
SUPPLY_PA = 17 * PSI_PA  # 17 psi, gauge (Fig. 2.2)
TAU_RANGE_S = (0.23, 0.44)  # inflation and deflation time constants measured (§2.2.1)


class Chambers:
    """Gauge pressures (Pa) of N × 3 chambers, driven by valve duties; ``tau_inflate_s`` and
    ``tau_vent_s`` are the time constants of filling and emptying."""

    def __init__(
        self,
        segments: int,
        tau_inflate_s: float = 0.3,
        tau_vent_s: float = 0.3,
        supply_pa: float = SUPPLY_PA,
    ):
        for name, value in (
            ('tau_inflate_s', tau_inflate_s),
            ('tau_vent_s', tau_vent_s),
            ('supply_pa', supply_pa),
        ):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'{name} = {value}: must be finite and > 0')
        self.tau_inflate_s, self.tau_vent_s, self.supply_pa = tau_inflate_s, tau_vent_s, supply_pa
        self.pressure_pa = np.zeros((segments, 3))

    def step(self, duty: np.ndarray, dt_s: float) -> np.ndarray:
        """Advance ``dt_s`` with valve ``duty`` (N, 3) in [0, 1]; the new pressures (N, 3) in Pa.
        Exact for a duty held over the step."""
        target = np.clip(duty, 0.0, 1.0) * self.supply_pa
        tau = np.where(target > self.pressure_pa, self.tau_inflate_s, self.tau_vent_s)
        self.pressure_pa = target + (self.pressure_pa - target) * np.exp(-dt_s / tau)
        return self.pressure_pa.copy()
