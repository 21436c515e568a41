"""The process around a hardware bridge: every bridge's main() is ``run_bridge``.

rclpy is started with a flag for SIGINT and SIGTERM instead of its own handlers, so the context
stays alive until the device is safe and the running goals have answered their clients; with
``autostart`` the bridge configures and activates itself; a start-up refusal is the process's last
line and exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable

import rclpy
from rclpy.lifecycle import TransitionCallbackReturn

from soro_link.bridge_node import BridgeNode
from soro_node.answering_node import spin_until_answered
from soro_node.base_node import (
    EXIT_REFUSED,
    StartRefused,
    init_ros,
    refuse_start,
    shut_down,
    spin_once,
)
from soro_node.stop import StopRequest

GOALS_END_S = 3.0  # on SIGINT, how long running goals get to abort and answer their clients


def run_bridge(
    make_node: Callable[[], BridgeNode], name: str, make_executor=None, args=None
) -> int:
    """A bridge's whole main(): init with a flag for SIGINT/SIGTERM instead of rclpy's handlers (so
    the context stays alive until the device is safe and the goals have answered), build the node,
    spin it. Returns the exit code; a start-up refusal is its last line."""
    stop = StopRequest()
    try:
        init_ros(args, stop)
    except StartRefused as error:
        return refuse_start(name, error)
    node = make_node()
    return spin_bridge(
        node, make_executor() if make_executor else rclpy.executors.SingleThreadedExecutor(), stop
    )


def spin_bridge(node: BridgeNode, executor: rclpy.executors.Executor, stop: StopRequest) -> int:
    """Spin ``node`` on ``executor`` until ``stop`` is requested; with ``autostart`` configure and
    activate it first. Always ends safe: commands off, the device's safe state, running goals left
    to end (they abort, their clients get the result), then the node destroyed. Returns the exit
    code: 0, or EXIT_REFUSED when autostart was refused (the refusal, logged by the transition, is
    the last line)."""
    executor.add_node(node)
    try:
        if node.settings.autostart and not _autostart(node):
            return EXIT_REFUSED
        while rclpy.ok() and not stop.requested:
            # a callback that raises is logged; the bridge goes on
            spin_once(executor, node.get_logger(), 0.1)
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        node.commands_enabled = False
        if node.link:
            node.force_safe_state('bridge stopping')
        _let_goals_end(node, executor, stop)
        node.destroy_node()  # stops the link
        shut_down()
    return 0


def _autostart(node: BridgeNode) -> bool:
    """configure, then activate; False (each failure already logged with its reason) when either is
    refused."""
    return (
        node.trigger_configure() == TransitionCallbackReturn.SUCCESS
        and node.trigger_activate() == TransitionCallbackReturn.SUCCESS
    )


def _let_goals_end(
    node: BridgeNode, executor: rclpy.executors.Executor, stop: StopRequest
) -> None:
    """Spin until the node's goals have ended (with commands off they abort at their next command)
    and their results have gone out to the clients, at most GOALS_END_S; a second Ctrl-C cuts it
    short."""
    spin_until_answered(
        node,
        lambda timeout_s: spin_once(executor, node.get_logger(), timeout_s),
        GOALS_END_S,
        lambda: stop.count >= 2,
    )
