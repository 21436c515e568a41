"""The soft snake's table sweep on Ray (soft_snake.sweep), what a fit repeats hundreds of times.

``sweep_wall_s``: every cell of Tables 5.2-5.7 (288 simulator runs, the calibrated model) on an
embedded local Ray with 1 and with 2 workers, timed from the first task submitted to the last
result (Ray started and its workers warmed up before); their ratio (target at most 0.6). Beside
them ``task_overhead_ms``: a task that does nothing, 1000 of them timed the same way on one
worker, per task: what Ray itself costs each cell. Prints JSON.
"""

import json
import time

from soft_snake import model, sweep, tables

EMPTY_TASKS = 1000


def _warm(ray, workers: int) -> None:
    """Every worker process started (a worker's first task imports the simulator)."""
    ray.get([ray.remote(sweep.nothing).remote() for _ in range(4 * workers)])


def sweep_wall_s(workers: int) -> float:
    """Wall seconds of one 288-cell sweep on ``workers`` local Ray workers."""
    import ray

    cells = tables.speeds()
    with sweep.RaySweep(workers=workers) as pool:
        _warm(ray, workers)
        pool.sweep(cells[:workers], model.CALIBRATED)  # the simulator imported everywhere
        began = time.perf_counter()
        pool.sweep(cells, model.CALIBRATED)
        return time.perf_counter() - began


def task_overhead_ms() -> float:
    """Milliseconds per task of a task that does nothing, on one worker."""
    import ray

    with sweep.RaySweep(workers=1):
        _warm(ray, 1)
        task = ray.remote(num_cpus=1)(sweep.nothing)
        began = time.perf_counter()
        ray.get([task.remote() for _ in range(EMPTY_TASKS)])
        return 1e3 * (time.perf_counter() - began) / EMPTY_TASKS


def main() -> None:
    """Print the figures as JSON."""
    one, two = sweep_wall_s(1), sweep_wall_s(2)
    print(
        json.dumps(
            {
                'cells': len(tables.speeds()),
                'sweep_wall_s': {'1_worker': round(one, 2), '2_workers': round(two, 2)},
                'ratio_2_to_1': round(two / one, 3),
                'ratio_target': 0.6,
                'task_overhead_ms': round(task_overhead_ms(), 3),
            }
        )
    )


if __name__ == '__main__':
    main()
