"""Open-loop pose prediction while a gait runs (spec 8): compose the learned mean motion of every
executed primitive, propagating its covariance to first order (kinematics.odometry). Renders ROS
messages; no rclpy."""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import PoseWithCovarianceStamped
from nav_msgs.msg import Path
from std_msgs.msg import Header

from terresoro_gait import messages
from terresoro_gait.execution import Primitive
from terresoro_gait.kinematics import odometry
from terresoro_gait.weights import EdgeWeights, WeightsError, read_for_robot


class Prediction:
    """Predicted pose (x mm, y mm, φ deg) and covariance (3, 3) after the primitives stepped so
    far, and the path."""

    def __init__(self, weights: EdgeWeights | None, start_pose=None, problem: str | None = None):
        self.weights, self.problem = weights, problem
        self.pose = np.zeros(3) if start_pose is None else np.asarray(start_pose, dtype=float)
        self.cov = np.zeros((3, 3))
        self.poses = [self.pose]

    @classmethod
    def from_file(cls, weights_file: str, n_limbs: int, start_pose=None) -> Prediction:
        """On the weights in ``weights_file``; without weights (no file, a bad one, another
        robot's) it predicts nothing and ``problem`` says why."""
        try:
            return cls(read_for_robot(weights_file, n_limbs), start_pose)
        except WeightsError as error:
            return cls(None, start_pose, str(error))

    def step(self, primitive: Primitive) -> None:
        """Compose the learned mean motion of ``primitive`` onto the pose and propagate the
        covariance to first order; nothing without weights."""
        if self.weights is None:
            return
        poses, covs = odometry(
            self.weights, [(primitive.initial, primitive.terminal)], self.pose, self.cov
        )
        self.pose, self.cov = poses[-1], covs[-1]
        self.poses.append(self.pose)

    def message(self, header: Header) -> PoseWithCovarianceStamped | None:
        """The pose and covariance as a PoseWithCovarianceStamped in SI; None without weights."""
        return (
            None if self.weights is None else messages.with_covariance(self.pose, self.cov, header)
        )

    def path(self, header: Header) -> Path:
        """The predicted poses so far, from the start pose, as a nav_msgs/Path in SI."""
        return Path(header=header, poses=[messages.stamped(p, header) for p in self.poses])
