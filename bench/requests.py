"""Request bursts against the simulated robots (issue 26, item 4), with the issue's probes: clients
as rclpy makes them by default (queues 10 deep), so what is lost is lost as a user's script would
lose it.

``pom``: pom.launch.py sim:=true, 100 ExecuteVoxelGait goals a second for 5 s (one tripod cycle
each), then a result request for every accepted goal: goals answered of those sent, accepted and
rejected, result requests answered, and the time from sending to a rejection (p50, max). ``snake``:
soft_snake.launch.py sim:=true, 1,000 ``~/step_climb_advance`` calls sent at once, from a default
client and from a commander's (queues as deep as the server's): calls answered and the time until
the last answer. Target: every request answered (the snake's with the commander's client: a default
client's own keep-last-10 writer drops a burst before it leaves the process).
"""

import json
import statistics
import tempfile
import time
from pathlib import Path

import rclpy
from rclpy.qos import qos_profile_services_default
from soro_interfaces.action import ExecuteVoxelGait
from soro_interfaces.msg import LinkStatus
from std_srvs.srv import Trigger

from softbots_bringup import runner
from soro_node.base_node import ActionClient, request_qos
from soro_node.probe_node import Probe
from soro_node.waiting import poll

GOAL_RATE_HZ, GOAL_SECONDS, CALLS, ANSWER_S = 100, 5, 1000, 30.0
LINK = '/pom_controller/link_status'


def pom(log_dir: Path) -> dict:
    processes = runner.start('pom.launch.py', log_dir, {'sim': 'true'})
    probe = Probe('pom_burst', {LINK: LinkStatus})
    try:
        # rclpy's default queues; soro_node's ActionClient only so that no reply is lost to
        # ros2/rclpy#1123
        default = qos_profile_services_default
        client = ActionClient(
            probe.node,
            ExecuteVoxelGait,
            '/pom_controller/execute_gait',
            goal_service_qos_profile=default,
            result_service_qos_profile=default,
            cancel_service_qos_profile=default,
        )
        assert client.wait_for_server(timeout_sec=10.0)
        assert probe.wait(LINK, lambda m: m.state == LinkStatus.CONNECTED, 10.0)
        sent, answered_at = [], {}
        for index in range(GOAL_RATE_HZ * GOAL_SECONDS):
            future = client.send_goal_async(
                ExecuteVoxelGait.Goal(gait='tripod', cycles=1, step_period_s=0.25)
            )
            sent.append((time.monotonic(), future))
            future.add_done_callback(
                lambda _f, i=index: answered_at.setdefault(i, time.monotonic())
            )
            time.sleep(1.0 / GOAL_RATE_HZ)
        poll(lambda: all(f.done() for _s, f in sent), ANSWER_S)
        handles = [f.result() for _s, f in sent if f.done()]
        results = [h.get_result_async() for h in handles if h.accepted]
        poll(lambda: all(r.done() for r in results), ANSWER_S)
        refusals = [
            answered_at[i] - s
            for i, (s, f) in enumerate(sent)
            if f.done() and not f.result().accepted
        ]
        return {
            'goals_sent': len(sent),
            'goals_answered': len(handles),
            'accepted': len(results),
            'rejected': len(refusals),
            'result_requests': len(results),
            'results_answered': sum(r.done() for r in results),
            'refuse_p50_ms': 1e3 * statistics.median(refusals) if refusals else None,
            'refuse_max_ms': 1e3 * max(refusals) if refusals else None,
        }
    finally:
        probe.close()
        runner.stop_all(processes)


def snake(log_dir: Path) -> dict:
    """Per client: one as rclpy makes it (a keep-last 10 request writer, which itself overwrites a
    burst's requests before they go out) and one as soro_node's commanders make it
    (``request_qos``)."""
    processes = runner.start('soft_snake.launch.py', log_dir, {'sim': 'true'})
    probe = Probe('snake_burst', {})
    try:
        return {
            kind: _calls(
                probe.node.create_client(
                    Trigger, '/soft_snake_driver/step_climb_advance', qos_profile=qos
                )
            )
            for kind, qos in (
                ('default_client', qos_profile_services_default),
                ('deep_client', request_qos()),
            )
        }
    finally:
        probe.close()
        runner.stop_all(processes)


def _calls(client) -> dict:
    assert client.wait_for_service(timeout_sec=10.0)
    start = time.monotonic()
    futures = [client.call_async(Trigger.Request()) for _ in range(CALLS)]
    everyone = poll(lambda: all(f.done() for f in futures), ANSWER_S)
    return {
        'calls_sent': CALLS,
        'calls_answered': sum(f.done() for f in futures),
        'all_answered_s': time.monotonic() - start if everyone else None,
    }


def main() -> None:
    rclpy.init()
    try:
        with tempfile.TemporaryDirectory() as pom_dir, tempfile.TemporaryDirectory() as snake_dir:
            figures = {'pom': pom(Path(pom_dir)), 'snake': snake(Path(snake_dir))}
    finally:
        rclpy.try_shutdown()
    figures['target_every_request_answered'] = (
        figures['pom']['goals_answered'] == figures['pom']['goals_sent']
        and figures['pom']['results_answered'] == figures['pom']['result_requests']
        and figures['snake']['deep_client']['calls_answered'] == CALLS
    )
    print(json.dumps(figures))


if __name__ == '__main__':
    main()
