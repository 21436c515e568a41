"""Recording without rclpy: which topics to record, as which type, and the start-up values the
recorder accepts.

The recorder node (``recorder_node.py``) turns these decisions into raw subscriptions and bag
writes.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ament_index_python import get_resource
from rosbags.interfaces import (
    Qos,
    QosDurability,
    QosHistory,
    QosLiveliness,
    QosReliability,
    QosTime,
)

from soro_node.params import ParamSpec

RECORDER = (  # read once at start-up
    ParamSpec(
        'output', '', 'bag directory to create (rosbag2, MCAP); must not exist yet', read_only=True
    ),
    ParamSpec(
        'topics',
        [],
        'topics to record, e.g. [/a,/b]; empty records every visible topic',
        read_only=True,
    ),
    ParamSpec(
        'discovery_period_s',
        0.5,
        'how often to look for new topics (s)',
        0.05,
        10.0,
        read_only=True,
    ),
    ParamSpec(
        'flush_period_s',
        0.5,
        'put what was recorded on disk this often (s): the most a kill or a power cut can take',
        0.05,
        10.0,
        read_only=True,
    ),
)


class ParameterRefused(ValueError):
    """A start-up parameter value the recorder cannot work with; the message says what is allowed
    instead."""

    def __init__(self, name: str, value: object, allowed: str, why: str = ''):
        because = f' ({why})' if why else ''
        super().__init__(f"parameter '{name}' = {value!r} refused{because}; allowed: {allowed}")
        self.name = name


def check_output(value: str) -> Path:
    """The bag directory to create; refused when empty or already there (a bag is never appended
    to)."""
    allowed = 'the path of a bag directory that does not exist yet (the recorder creates it)'
    if not value:
        raise ParameterRefused('output', value, allowed, 'no path given')
    path = Path(value).expanduser()
    if path.exists():
        raise ParameterRefused('output', value, allowed, 'it exists already')
    return path


# What a ROS interface type name looks like (rosidl: a package name, the kind, a CamelCase type). A
# bag's schema names are data: nothing else is ever handed to importlib.
TYPE_NAME = re.compile(r'[a-z][a-z0-9_]*/(msg|srv|action)/[A-Z][A-Za-z0-9]*')


def import_message_class(msgtype: str) -> type:
    """The rclpy message class of a ROS type string ``pkg/msg/Name`` (also ``pkg/srv/...``,
    ``pkg/action/...``).

    Only names of that form whose package is an installed ROS interface package (registered in the
    ament index under ``rosidl_interfaces``) are imported, so a bag's type names cannot run
    arbitrary modules. Raises ValueError when the string is not a ROS type name or names no
    installed interface package, ImportError when the package lacks the type.
    """
    if not TYPE_NAME.fullmatch(msgtype):
        raise ValueError(f'{msgtype!r} is not a ROS type name of the form pkg/msg/Name')
    package, kind, name = msgtype.split('/')
    if not _is_interface_package(package):
        raise ValueError(f'{msgtype!r}: {package!r} is not an installed ROS interface package')
    module = importlib.import_module(f'{package}.{kind}')
    try:
        return getattr(module, name)
    except AttributeError:
        raise ImportError(f'module {package}.{kind} has no {name}') from None


def _is_interface_package(package: str) -> bool:
    try:
        get_resource('rosidl_interfaces', package)
    except LookupError:
        return False
    return True


def is_hidden(topic: str) -> bool:
    """ROS hides names with a component starting with '_' (e.g. action internals); `ros2 bag -a`
    skips them too."""
    return any(part.startswith('_') for part in topic.split('/'))


def select_topics(
    discovered: Iterable[tuple[str, Sequence[str]]], wanted: Iterable[str], handled: Iterable[str]
) -> list[tuple[str, list[str]]]:
    """The discovered ``(topic, types)`` to consider now: wanted ones (every visible one when none
    are wanted), minus those already ``handled`` (recorded or skipped), so each topic is decided
    once."""
    wanted, handled = set(wanted), set(handled)
    return [
        (topic, list(types))
        for topic, types in discovered
        if topic not in handled and (topic in wanted if wanted else not is_hidden(topic))
    ]


class SeveralTypes(ValueError):
    """A topic published as more than one type at once: a bag topic has one, so it waits until
    one is left."""


def recordable_type(types: Sequence[str], known: Iterable[str]) -> str:
    """The one type a topic can be recorded as; SeveralTypes, or ValueError saying why not."""
    if len(types) != 1:
        raise SeveralTypes(
            f'it carries {len(types)} types ({", ".join(types)}); a bag topic has exactly one'
        )
    if types[0] not in known:
        raise ValueError(f'its type {types[0]} is not in the bag typestore')
    return types[0]


def offered_profile(qos) -> Qos:
    """A publisher's offered QoS, as the graph reports it (rclpy's QoSProfile: policy enums and
    Durations), in the form rosbag2 stores in a bag's ``offered_qos_profiles``."""

    def policy(kind, value):
        return kind.__members__.get(getattr(value, 'name', ''), kind.UNKNOWN)

    # rmw's infinite duration splits into rosbag2's {9223372036, 854775807}
    def span(duration) -> QosTime:
        return QosTime(*divmod(duration.nanoseconds, 1_000_000_000))

    return Qos(
        policy(QosHistory, qos.history),
        qos.depth,
        policy(QosReliability, qos.reliability),
        policy(QosDurability, qos.durability),
        span(qos.deadline),
        span(qos.lifespan),
        policy(QosLiveliness, qos.liveliness),
        span(qos.liveliness_lease_duration),
        bool(qos.avoid_ros_namespace_conventions),
    )


def recording_policies(offered: Sequence[Qos]) -> tuple[bool, bool]:
    """(reliable, transient_local) for the recorder's subscription, as rosbag2 adapts it: reliable
    when every publisher offers reliable, else best effort (which matches both); transient local
    when every publisher offers transient local, so what a latched topic published before the
    recorder came is delivered to it, else volatile (a transient-local subscription never connects
    to a volatile publisher)."""
    reliable = bool(offered) and all(q.reliability == QosReliability.RELIABLE for q in offered)
    latched = bool(offered) and all(q.durability == QosDurability.TRANSIENT_LOCAL for q in offered)
    return reliable, latched
