"""The simulator's parameters in one value, as a fit tunes them and a parameter file stores them:
the body (``body.BodyParameters``) and its chambers on their supply
(``pneumatics.ChamberParameters``). No ROS.

Every field of either dataclass is set by its own name (the two share none). The chambers can also
be set by what the thesis measured of them, their step response's time constants
``tau_inflate_s`` and ``tau_vent_s`` (§2.2.1, Fig. 2.2: 0.23-0.44 s), which rescale Eqs. 2.7-2.8's
rates (``ChamberParameters.with_time_constants``) after the supply's sag is set.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from soft_snake import calibration, pneumatics
from soft_snake.body import BodyParameters

TIME_CONSTANTS = ('tau_inflate_s', 'tau_vent_s')


def _fields(kind) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


BODY_FIELDS = _fields(BodyParameters)
CHAMBER_FIELDS = _fields(pneumatics.ChamberParameters)


@dataclass(frozen=True)
class SnakeModel:
    """The body and the chambers a ``simulator.SnakeSim`` is built from (default: the calibrated
    ones)."""

    body: BodyParameters = calibration.CALIBRATED
    chambers: pneumatics.ChamberParameters = pneumatics.DEFAULT_CHAMBERS

    def replaced(self, values: dict[str, float]) -> SnakeModel:
        """This model with ``values`` set by name (a field of either dataclass, or one of
        ``TIME_CONSTANTS``); ValueError naming an unknown name or a value its dataclass refuses."""
        check_names(values)
        pick = lambda names: {n: v for n, v in values.items() if n in names}  # noqa: E731
        chambers = dataclasses.replace(self.chambers, **pick(CHAMBER_FIELDS))
        taus = pick(TIME_CONSTANTS)
        if taus:
            now = dict(zip(TIME_CONSTANTS, pneumatics.step_time_constants(chambers)))
            chambers = chambers.with_time_constants(**{**now, **taus})
        return SnakeModel(dataclasses.replace(self.body, **pick(BODY_FIELDS)), chambers)

    def values(self) -> dict[str, float]:
        """Every field of the body and the chambers by name."""
        return {**dataclasses.asdict(self.body), **dataclasses.asdict(self.chambers)}


def known_names() -> tuple[str, ...]:
    """Every name ``SnakeModel.replaced`` takes."""
    return BODY_FIELDS + CHAMBER_FIELDS + TIME_CONSTANTS


def check_names(names) -> None:
    """ValueError naming the first of ``names`` that ``SnakeModel.replaced`` does not take."""
    for name in names:
        if name not in known_names():
            known = ', '.join(sorted(known_names()))
            raise ValueError(f'unknown parameter {str(name)!r}; known: {known}')


CALIBRATED = SnakeModel()
