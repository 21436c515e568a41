"""A tracked pose's recent frames, and the settled pose at an instant: the mean of the frames just
before it (what a quasi-static robot's learner needs; TerreSoRo spec 2.2). Poses are (x, y, θ): x
and y in the caller's length unit, θ in radians, not wrapped."""

from __future__ import annotations

import threading
from collections import deque

import numpy as np

from soro_geometry import se2


class TrackingLost(LookupError):
    """No tracked frame in the window before an instant: the tracker stopped or the robot left its
    view."""


class PoseHistory:
    """The last ``max_frames`` tracked poses with their times (s, any monotonic clock shared with
    the queries). Safe to add from one thread (a subscription) while another queries (an action):
    queries read a snapshot."""

    def __init__(self, max_frames: int = 100_000):
        """An empty history keeping at most ``max_frames`` frames (the oldest dropped)."""
        self._frames: deque = deque(maxlen=max_frames)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """The number of frames held."""
        return len(self._frames)

    def add(self, t_s: float, pose) -> bool:
        """Record the pose (x, y, θ) tracked at ``t_s`` (s) as the newest frame. Whether it was
        kept: a frame not newer than the newest (reordered, replayed, or unstamped, t = 0, after a
        stamped one) or not finite is dropped, as it would stand in for the robot's latest pose. A
        first frame at t = 0 is kept: t is any clock the queries share."""
        t_s, pose = float(t_s), np.asarray(pose, dtype=float)
        if not (np.isfinite(t_s) and np.all(np.isfinite(pose))):
            return False
        with self._lock:
            if self._frames and t_s <= self._frames[-1][0]:
                return False
            self._frames.append((t_s, pose))
        return True

    def _snapshot(self) -> list:
        with self._lock:
            return list(self._frames)

    def latest(self) -> tuple[float, np.ndarray] | None:
        """The newest frame as (t s, pose (3,)), or None before the first."""
        with self._lock:
            return self._frames[-1] if self._frames else None

    def frames(self) -> tuple[np.ndarray, np.ndarray]:
        """Every frame held: times (T,) in s and poses (T, 3), oldest first."""
        frames = self._snapshot()
        return (
            np.array([t for t, _ in frames], dtype=float),
            np.array([p for _, p in frames], dtype=float).reshape(-1, 3),
        )

    def between(self, t0_s: float, t1_s: float) -> np.ndarray:
        """The poses (N, 3) tracked in [t0_s, t1_s], in order."""
        return np.array([p for t, p in self._snapshot() if t0_s <= t <= t1_s]).reshape(-1, 3)

    def at(self, t_s: float, window_s: float, max_age_s: float) -> np.ndarray:
        """Mean pose (3,) of the frames in [t_s - window_s, t_s], θ by circular mean kept near the
        last frame's turn count; when the window is empty (camera jitter), the last frame before
        t_s if it is under ``max_age_s`` old. Raises TrackingLost otherwise."""
        before = [(t, p) for t, p in self._snapshot() if t <= t_s]
        poses = [p for t, p in before if t >= t_s - window_s]
        if not poses and before and before[-1][0] >= t_s - max_age_s:
            poses = [before[-1][1]]
        if not poses:
            raise TrackingLost(
                f'no tracked pose in the {max(window_s, max_age_s) * 1e3:.0f} ms before '
                f't = {t_s:.3f} s: is the tracker running and the robot in view?'
            )
        poses = np.array(poses)
        return np.array(
            [*poses[:, :2].mean(0), se2.near(se2.circular_mean(poses[:, 2]), poses[-1, 2])]
        )
