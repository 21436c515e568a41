"""Meeting a server's node before the first request to it.

A client sees a server before the server sees the client: a request sent in between is answered
into the void (Fast DDS), and a goal accepted that way runs with nobody told. A parameter request
that comes back proves the way both ways. Commanders meet each server's node once; a node whose
server can restart (the learner's executor) meets it before each goal.
"""

from __future__ import annotations

from rcl_interfaces.srv import GetParameters
from rclpy.node import Node

from soro_node.waiting import WaitTimeout, wait_for

MEET_TRY_S = 1.0  # one try of the round trip


def meet(node: Node, endpoint: str, timeout_s: float, callback_group=None) -> bool:
    """Whether the node serving ``endpoint`` (an action or service name, its node being the part
    before the last '/') answered a parameter request of ``node``'s within ``timeout_s`` (tries of
    ``MEET_TRY_S``). A fully qualified name that is no node in the graph gets one try: the server
    may be a node of another name. ``callback_group``: the request's, for a caller that waits on an
    executor thread of ``node``."""
    server = endpoint.rsplit('/', 1)[0] or '/'
    if server.startswith('/') and server not in _graph_nodes(node):
        timeout_s = MEET_TRY_S
    client = node.create_client(
        GetParameters, f'{server}/get_parameters', callback_group=callback_group
    )
    try:
        for _ in range(max(1, round(timeout_s / MEET_TRY_S))):
            if not client.wait_for_service(timeout_sec=MEET_TRY_S):
                continue
            future = client.call_async(GetParameters.Request(names=['use_sim_time']))
            try:
                wait_for(future, MEET_TRY_S)
            except WaitTimeout:
                client.remove_pending_request(future)
                continue
            return True
        return False
    finally:
        node.destroy_client(client)


def _graph_nodes(node: Node) -> set[str]:
    return {f'{ns.rstrip("/")}/{name}' for name, ns in node.get_node_names_and_namespaces()}
