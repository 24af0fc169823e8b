"""Where sweep points run: a pool of local worker processes, or a Dask cluster.

Both hand every outcome to a :class:`ccsim.recorder.Recorder` in this (the parent)
process, the only one that writes to the store.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from multiprocessing import connection as mp_connection
from typing import TYPE_CHECKING, Any

from .errors import SweepError
from .worker import failure, run_point

if TYPE_CHECKING:
    from .points import Point
    from .recorder import Recorder

__all__ = ["WORKER_DIED", "WORKER_FAILED_TO_START", "check_importable", "run_dask", "run_local"]


WORKER_DIED = "worker process died while running this point (crash, out-of-memory kill or signal)"

#: What a worker sends once it has started, before its first point.
_READY = "ready"

WORKER_FAILED_TO_START = (
    "worker processes exit while starting: a script that runs a sweep must do so under "
    '`if __name__ == "__main__":` (each worker process imports the script first)'
)


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


class _Worker:
    """One worker process and the pipe the parent talks to it on.

    Each worker runs one point at a time, so a worker that dies names the point that
    killed it, and nothing but this pipe connects it to the parent: no feeder or
    manager threads that a terminated worker could leave waiting for the rest of a
    message.
    """

    def __init__(self, ctx) -> None:
        here, there = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(there, os.getpid()), daemon=True)
        self.proc.start()
        there.close()  # the parent keeps only its end: the worker's death reads as EOF
        self.conn = here
        self.point: Point | None = None
        self.started = False

    def wait_started(self) -> None:
        """Wait for the worker's first message; a worker that dies before it cannot
        start at all (most often: a script without the ``__main__`` guard), which
        stops the sweep with :data:`WORKER_FAILED_TO_START`."""
        if self.started:
            return
        while True:
            ready = mp_connection.wait([self.conn, self.proc.sentinel], timeout=1.0)
            if self.conn in ready:
                try:
                    msg = self.conn.recv()
                except (EOFError, OSError):
                    msg = None
                if msg == _READY:
                    self.started = True
                    return
                break
            if ready:  # the sentinel: it exited without a word
                break
        self.stop(now=True)
        raise SweepError(WORKER_FAILED_TO_START)

    def give(self, p: Point, metrics, keep_ts) -> bool:
        """Hand ``p`` to the worker; False if it is already gone."""
        try:
            self.conn.send((p.scenario, metrics, keep_ts))
        except (BrokenPipeError, EOFError, OSError):
            return False
        self.point = p
        return True

    def take(self) -> dict | None:
        """The outcome of the running point, or None if the worker died without one."""
        try:
            if self.conn.poll():
                return self.conn.recv()
        except (EOFError, OSError):
            pass
        return None

    def stop(self, *, now: bool) -> None:
        if not now:
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5)
        self.conn.close()


def _worker_main(conn, parent_pid: int) -> None:
    """A worker's loop: run the points the parent sends until it sends None or goes."""
    _worker_init(parent_pid)
    conn.send(_READY)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        except Exception as exc:  # noqa: BLE001 - e.g. the metrics function does not unpickle
            conn.send(failure(exc))
            continue
        if task is None:
            return
        out = run_point(*task)
        try:
            conn.send(out)
        except Exception as exc:  # noqa: BLE001 - e.g. a metric value that does not pickle
            conn.send(failure(exc))


def run_local(todo: list[Point], jobs: int, metrics, keep_ts, rec: Recorder) -> None:
    """Run ``todo`` on ``jobs`` worker processes, one point per worker at a time.

    A worker that finishes gets its next point before the parent writes the result, so
    the workers stay busy while the store is written. A worker that dies (crash,
    out-of-memory kill, signal) has its point recorded as failed and is replaced. On
    any exception in the parent, Ctrl-C included, every worker is terminated before the
    exception goes on.
    """
    ctx = multiprocessing.get_context("spawn")
    queue = deque(todo)
    workers: list[_Worker] = []
    done_cleanly = False

    def feed(w: _Worker) -> _Worker:
        """Give ``w`` the next point; a worker that has gone is replaced."""
        while queue:
            w.wait_started()
            p = queue.popleft()
            if w.give(p, metrics, keep_ts):
                return w
            queue.appendleft(p)
            w.stop(now=True)
            w = _Worker(ctx)
        return w

    try:
        workers = [_Worker(ctx) for _ in range(max(1, min(jobs, len(queue))))]
        workers = [feed(w) for w in workers]
        while any(w.point is not None for w in workers):
            busy = [w for w in workers if w.point is not None]
            waitables = {}
            for w in busy:
                waitables[w.conn] = w
                waitables[w.proc.sentinel] = w
            ready = {waitables[o] for o in mp_connection.wait(list(waitables), timeout=1.0)}
            batch, crashed = [], []
            for i, w in enumerate(workers):
                if w not in ready:
                    continue
                p, out = w.point, w.take()
                w.point = None
                if out is None:
                    crashed.append(p)
                    w.stop(now=True)
                    w = _Worker(ctx)
                else:
                    batch.append((p, out))
                workers[i] = feed(w)  # before the results are written: keep it busy
            rec.record(batch)
            if crashed:
                rec.fail([(p, WORKER_DIED, None) for p in crashed])
        done_cleanly = True
    finally:
        for w in workers:
            w.stop(now=not done_cleanly)


def run_dask(todo: list[Point], scheduler, metrics, keep_ts, rec: Recorder) -> None:
    """Run ``todo`` on a Dask cluster; results travel back to this process to be stored."""
    try:
        import distributed
    except ImportError as exc:
        raise SweepError(
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
                out = failure(exc)
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
        raise SweepError(
            f"metrics function {getattr(fn, '__qualname__', fn)!r} is defined in an "
            "interactive session (or python -c), which worker processes cannot import; "
            "define it in a module or script file"
        )
    try:
        pickle.dumps(fn)
    except Exception as exc:
        raise SweepError(
            f"the metrics function must be picklable (a module-level function, not a "
            f"lambda or a nested function): {exc}"
        ) from exc
