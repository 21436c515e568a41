"""The robots' tf trees (REP-105): what each node stamps and broadcasts, as data, and the
broadcasters themselves.

Every robot's tree is ``map -> odom -> base_link -> URDF links`` (``world`` instead of ``map``
where there is no map). Motion capture is a global, drift-free pose, so ``map -> odom`` is a static
identity and the tracked pose is broadcast as ``odom -> base_link`` (REP-105's continuous odometry;
nothing corrects it). ``tracked_base`` names these two pairs; the node that places the robot
broadcasts them with ``TrackedBase``, and each package's ``FRAMES`` says the same thing as data
(``FrameUse``) so that softbots_bringup can check a launch file's tree without tf2.

tf2_ros is on every ROS machine but not among the pinned wheels (the dev-env notes); without it the
broadcasters send nothing, say so once, and still record the (parent, child) pairs they would send,
rather than stopping a node that has more to do than drawing.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from geometry_msgs.msg import PoseStamped, TransformStamped

from soro_node.params import ParamSpec

try:
    from tf2_ros import StaticTransformBroadcaster, TransformBroadcaster
except ImportError:  # the pinned wheels
    StaticTransformBroadcaster = TransformBroadcaster = None

Pair = tuple[str, str]  # (parent frame, child frame)

# The frame parameters every package shares (the world frame, ``frame_id``, is each package's own:
# map or world). Read once at start-up: tf's static transforms are sent once.
ODOM_FRAME = ParamSpec(
    'odom_frame',
    'odom',
    'odometry frame (REP-105): the world frame -> odom is a static identity, '
    'odom -> base_frame the tracked pose',
    nonempty=True,
    read_only=True,
)
BASE_FRAME = ParamSpec(
    'base_frame',
    'base_link',
    'robot frame (REP-105 base_link): the URDF root',
    nonempty=True,
    read_only=True,
)


@dataclass(frozen=True)
class FrameUse:
    """What one node puts in tf terms: the header.frame_id of what it publishes, and the transforms
    it broadcasts (each package's ``parameters.FRAMES`` gives it per executable;
    softbots_bringup.frame_tree checks the trees)."""

    stamps: frozenset[str] = frozenset()
    broadcasts: tuple[Pair, ...] = ()


def tracked_base(world_frame: str, odom_frame: str, base_frame: str) -> tuple[Pair, Pair]:
    """The pairs that place a tracked robot: world -> odom (static identity), odom -> base (the
    tracked pose)."""
    return (world_frame, odom_frame), (odom_frame, base_frame)


# world (map), odom, base: in tracked_base's order
FRAME_PARAMETERS = ('frame_id', 'odom_frame', 'base_frame')


def tracked_base_of(values: dict) -> tuple[Pair, Pair]:
    """``tracked_base`` of a node's parameter values (``frame_id``, ``odom_frame``,
    ``base_frame``)."""
    return tracked_base(*(values[name] for name in FRAME_PARAMETERS))


_told: weakref.WeakSet = weakref.WeakSet()  # nodes already told that tf2_ros is missing


def _missing_tf2(node) -> None:
    if node not in _told:
        _told.add(node)
        node.get_logger().info('tf2_ros is not installed: no transforms for rviz (recorded only)')


class PoseToTf:
    """Broadcasts each PoseStamped given to ``send`` as the transform ``parent_frame`` (default:
    the message's frame) -> ``child_frame``, translation and rotation as tracked. ``sent`` holds
    the pairs it has sent."""

    def __init__(self, node, child_frame: str, parent_frame: str | None = None):
        self.child_frame, self.parent_frame = child_frame, parent_frame
        self.sent: set[Pair] = set()
        self._tf = TransformBroadcaster(node) if TransformBroadcaster else None
        if self._tf is None:
            _missing_tf2(node)

    def send(self, msg: PoseStamped) -> None:
        """Broadcast ``msg``'s pose as parent -> ``child_frame`` (without tf2_ros, only recorded
        in ``sent``)."""
        parent = self.parent_frame or msg.header.frame_id
        self.sent.add((parent, self.child_frame))
        if self._tf is None:
            return
        transform = TransformStamped(header=msg.header, child_frame_id=self.child_frame)
        transform.header.frame_id = parent
        p = msg.pose.position
        transform.transform.translation.x, transform.transform.translation.y = p.x, p.y
        transform.transform.translation.z = p.z
        transform.transform.rotation = msg.pose.orientation
        self._tf.sendTransform(transform)


class StaticTransforms:
    """Identity transforms latched on /tf_static once, for frames that coincide (e.g. map -> odom
    under motion capture). ``pairs`` holds what was (or, without tf2_ros, would have been) sent."""

    def __init__(self, node, pairs: tuple[Pair, ...]):
        self.pairs = tuple(pairs)
        self._tf = StaticTransformBroadcaster(node) if StaticTransformBroadcaster else None
        if self._tf is None:
            _missing_tf2(node)
            return
        stamp = node.get_clock().now().to_msg()
        transforms = []
        for parent, child in self.pairs:
            transform = TransformStamped(child_frame_id=child)
            transform.header.stamp, transform.header.frame_id = stamp, parent
            transform.transform.rotation.w = 1.0
            transforms.append(transform)
        self._tf.sendTransform(transforms)


class TrackedBase:
    """A robot placed by a tracked pose: ``world -> odom`` static identity, each pose given to
    ``send`` as ``odom -> base``. ``pairs`` is ``tracked_base`` of its frames: the same pairs its
    package's FRAMES declares."""

    def __init__(self, node, world_frame: str, odom_frame: str, base_frame: str):
        self.pairs = tracked_base(world_frame, odom_frame, base_frame)
        self.static = StaticTransforms(node, self.pairs[:1])
        self.odometry = PoseToTf(node, base_frame, parent_frame=odom_frame)

    @classmethod
    def of(cls, node, settings) -> TrackedBase:
        """From the node's ``frame_id``, ``odom_frame`` and ``base_frame`` (its ``Settings``)."""
        return cls(node, *(settings[name] for name in FRAME_PARAMETERS))

    def send(self, msg: PoseStamped) -> None:
        """``msg`` is the pose in the world frame: with world -> odom the identity, it is the pose
        in odom."""
        self.odometry.send(msg)


def stamped_frames(msg) -> set[str]:
    """Every non-empty header.frame_id in a message, nested ones included (a MarkerArray's markers,
    a Path's poses): what a tf listener would be asked to look up."""
    found = set()
    header = getattr(msg, 'header', None)
    if header is not None and getattr(header, 'frame_id', ''):
        found.add(header.frame_id)
    for name in getattr(msg, '__slots__', ()):
        value = getattr(msg, name)
        items = value if isinstance(value, list) else [value]
        if items and hasattr(items[0], 'get_fields_and_field_types'):
            for item in items:
                found |= stamped_frames(item)
    return found
