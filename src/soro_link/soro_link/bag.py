"""rosbag2 (MCAP) files through rosbags, with the workspace's own message types registered.

Machines without ``ros2 bag`` write and read bags here; what is written is a standard rosbag2 directory
(``metadata.yaml`` plus an ``.mcap`` file) that ``ros2 bag info`` and the MCAP tools read.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from rosbags.rosbag2 import Reader, StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import Typestore

INTERFACE_PACKAGES = ('soro_interfaces',)


def message_definitions(package: str) -> dict[str, str]:
    """Map ``pkg/msg/Name`` to the .msg text installed in ``package``'s share directory."""
    msg_dir = Path(get_package_share_directory(package)) / 'msg'
    return {f'{package}/msg/{p.stem}': p.read_text() for p in sorted(msg_dir.glob('*.msg'))}


def workspace_typestore(packages: Iterable[str] = INTERFACE_PACKAGES) -> Typestore:
    """The Jazzy typestore plus every message of ``packages``, parsed from their installed .msg files."""
    store = get_typestore(Stores.ROS2_JAZZY)
    for package in packages:
        types = {}
        for name, text in message_definitions(package).items():
            types.update(get_types_from_msg(text, name))
        store.register(types)
    return store


class BagWriter:
    """A rosbag2 MCAP writer that accepts serialized CDR (as rclpy raw subscriptions deliver it) or messages.

    Each ``write`` goes straight to the MCAP file, so a process stopped by a signal loses nothing already written
    once ``close`` runs (the recorder closes on SIGINT).
    """

    def __init__(self, path: str | Path, typestore: Typestore | None = None):
        self.typestore = typestore or workspace_typestore()
        self._writer = Writer(Path(path), version=9, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        self._connections = {}

    def add_topic(self, topic: str, msgtype: str) -> None:
        """Declare ``topic`` of ROS type ``msgtype`` (``pkg/msg/Name``); idempotent."""
        if topic not in self._connections:
            self._connections[topic] = self._writer.add_connection(topic, msgtype, typestore=self.typestore)

    def write_cdr(self, topic: str, stamp_ns: int, data: bytes) -> None:
        """Append one serialized message received at ``stamp_ns`` (ns since the epoch)."""
        self._writer.write(self._connections[topic], stamp_ns, data)

    def write(self, topic: str, stamp_ns: int, message: object) -> None:
        """Append one rosbags message object."""
        msgtype = self._connections[topic].msgtype
        self.write_cdr(topic, stamp_ns, self.typestore.serialize_cdr(message, msgtype))

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> BagWriter:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def read_messages(path: str | Path, topics: Iterable[str] | None = None,
                  typestore: Typestore | None = None) -> Iterator[tuple[str, int, object]]:
    """Yield ``(topic, stamp_ns, message)`` from a rosbag2 directory, in time order."""
    store = typestore or workspace_typestore()
    wanted = set(topics) if topics is not None else None
    with Reader(Path(path)) as reader:
        connections = [c for c in reader.connections if wanted is None or c.topic in wanted]
        for connection, stamp_ns, data in reader.messages(connections=connections):
            yield connection.topic, stamp_ns, store.deserialize_cdr(data, connection.msgtype)
