"""Where sweep points run: a pool of local worker processes, or a Dask cluster.

Both hand every outcome to a :class:`ccsim.recorder.Recorder` in this (the parent)
process, the only one that writes to the store.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from .worker import run_point

if TYPE_CHECKING:
    from .recorder import Recorder
    from .sweep import Point

__all__ = ["WORKER_DIED", "check_importable", "run_dask", "run_local"]


def _sweep_error(msg: str) -> Exception:
    from .sweep import SweepError  # sweep imports this module

    return SweepError(msg)


WORKER_DIED = "worker process died while running this point (crash, out-of-memory kill or signal)"


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent_pid:
            os._exit(70)


def _worker_init(parent_pid: int) -> None:
    # Ctrl-C is the parent's business: it stops the pool and terminates workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Exit if the parent dies (e.g. SIGKILL), rather than wait forever for work.
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()


def _outcome(future) -> dict:
    try:
        return future.result()
    except BrokenProcessPool:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. the metrics function does not pickle
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": None}


def _terminate_pool(executor: ProcessPoolExecutor) -> None:
    procs = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()


def run_local(todo: list[Point], jobs: int, metrics, keep_ts, rec: Recorder) -> None:
    """Run ``todo`` in a process pool, recreating the pool if a worker dies.

    Up to ``2 * jobs`` points are submitted at a time (enough to keep the workers busy
    while the parent writes results), so the unfinished futures are the points in
    flight. When a worker dies the pool is broken and every point in flight is lost:
    if only one was in flight it is the culprit and is recorded as failed; otherwise
    each is retried alone, so that a second crash is attributed to the right point.
    """
    ctx = multiprocessing.get_context("spawn")
    queue = deque(todo)
    alone: deque[Point] = deque()
    executor: ProcessPoolExecutor | None = None
    inflight: dict = {}
    running_alone = False
    depth = 2 * jobs

    def fill() -> bool:
        """Submit work; return True if the pool turned out to be broken."""
        nonlocal executor, running_alone
        if executor is None:
            executor = ProcessPoolExecutor(
                max_workers=max(1, min(jobs, len(queue) + len(alone))),
                mp_context=ctx,
                initializer=_worker_init,
                initargs=(os.getpid(),),
            )
        try:
            if alone and not inflight:
                p = alone[0]
                inflight[executor.submit(run_point, p.scenario, metrics, keep_ts)] = p
                alone.popleft()
                running_alone = True
            elif not alone and not running_alone:
                while queue and len(inflight) < depth:
                    p = queue[0]
                    inflight[executor.submit(run_point, p.scenario, metrics, keep_ts)] = p
                    queue.popleft()
        except BrokenProcessPool:  # a worker died since the last wait()
            return True
        return False

    try:
        while queue or alone or inflight:
            broken = fill()
            if broken:
                finished, _ = wait(list(inflight), timeout=30)
            else:
                finished, _ = wait(list(inflight), timeout=1.0, return_when=FIRST_COMPLETED)
            batch, crashed = [], []
            for fut in finished:
                p = inflight.pop(fut)
                try:
                    batch.append((p, _outcome(fut)))
                except BrokenProcessPool:
                    crashed.append(p)
            if crashed or broken:
                # every other future of the broken pool fails too (or has its result)
                finished, _ = wait(list(inflight), timeout=30)
                for fut, p in list(inflight.items()):
                    if fut not in finished:
                        crashed.append(p)
                        continue
                    try:
                        batch.append((p, _outcome(fut)))
                    except BrokenProcessPool:
                        crashed.append(p)
                inflight.clear()
                _terminate_pool(executor)
                executor = None
            if not inflight:
                running_alone = False
            if batch and executor is not None:
                fill()  # keep the workers busy while the results are written
            rec.record(batch)
            if len(crashed) == 1:
                rec.fail([(crashed[0], WORKER_DIED, None)])
            elif crashed:
                rec.progress.message(
                    f"a worker died with {len(crashed)} points in flight; "
                    "retrying each of them alone"
                )
                alone.extend(p for p in crashed if p not in alone)
    finally:
        if executor is not None:
            _terminate_pool(executor)


def run_dask(todo: list[Point], scheduler, metrics, keep_ts, rec: Recorder) -> None:
    """Run ``todo`` on a Dask cluster; results travel back to this process to be stored."""
    try:
        import distributed
    except ImportError as exc:
        raise _sweep_error(
            "scheduler=... needs dask.distributed: pip install 'dask[distributed]'"
        ) from exc
    own = not isinstance(scheduler, distributed.Client)
    client = distributed.Client(scheduler) if own else scheduler
    futures = {}
    try:
        for p in todo:
            fut = client.submit(
                run_point,
                p.scenario,
                metrics,
                keep_ts,
                key=f"ccsim-{p.point_id}-{os.urandom(4).hex()}",
                pure=False,
            )
            futures[fut] = p
        for fut in distributed.as_completed(list(futures)):
            p = futures.pop(fut)
            try:
                out = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker
                out = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": None}
            fut.release()
            rec.record([(p, out)])
    finally:
        if futures:
            client.cancel(list(futures))
        if own:
            client.close()


def check_importable(fn: Any) -> None:
    """Fail early if worker processes could not load the metrics function."""
    module = getattr(fn, "__module__", None)
    if module == "__main__" and not getattr(sys.modules.get("__main__"), "__file__", None):
        raise _sweep_error(
            f"metrics function {getattr(fn, '__qualname__', fn)!r} is defined in an "
            "interactive session (or python -c), which worker processes cannot import; "
            "define it in a module or script file"
        )
    try:
        pickle.dumps(fn)
    except Exception as exc:
        raise _sweep_error(
            f"the metrics function must be picklable (a module-level function, not a "
            f"lambda or a nested function): {exc}"
        ) from exc
