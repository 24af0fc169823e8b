"""Parent-side bookkeeping of a sweep: the only code that writes points to the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .progress import ProgressBar
from .store import Store

if TYPE_CHECKING:
    from .points import Point

__all__ = ["Recorder"]


class Recorder:
    """Parent-side bookkeeping: the only code that writes to the store.

    ``engine`` is the fingerprint in the point ids (:func:`ccsim.fingerprint` of this
    process); an outcome computed by a worker running another engine (a Dask worker
    with another ccsim installed, or sources edited during the sweep) is recorded as a
    failure instead of under an id that does not describe it.
    """

    def __init__(self, store: Store, version: str, engine: str, progress: ProgressBar):
        self.store = store
        self.version = version
        self.engine = engine
        self.progress = progress
        self.done = 0
        self.failed: list[tuple[Point, str]] = []

    def _failure(self, point: Point, error: str, tb: str | None = None) -> dict:
        return {
            "experiment": point.experiment,
            "point_id": point.point_id,
            "params": point.params,
            "scenario": point.resolved or point.scenario,
            "ccsim_version": self.version,
            "engine": self.engine,
            "seed": point.seed,
            "error": error,
            "traceback": tb,
        }

    def fail(self, items: list[tuple[Point, str, str | None]]) -> None:
        self.store.record_failures([self._failure(p, e, tb) for p, e, tb in items])
        self.failed.extend((p, e) for p, e, _ in items)
        self.progress.update(self.done, failed=len(self.failed))

    def record(self, items: list[tuple[Point, dict]]) -> None:
        """Store a batch of worker outputs (one transaction per point)."""
        failures = [(p, out["error"], out.get("traceback")) for p, out in items if not out["ok"]]
        good = []
        for p, out in items:
            if not out["ok"]:
                continue
            if out.get("engine") != self.engine:
                failures.append(
                    (
                        p,
                        f"computed by engine {out.get('engine')} but this sweep runs "
                        f"{self.engine}: install the same ccsim build everywhere (and do not "
                        "edit its sources while a sweep runs)",
                        None,
                    )
                )
                continue
            good.append((p, out))
        self.store.begin_files(
            [
                (p.experiment, p.point_id, name)
                for p, out in good
                for name in out.get("timeseries") or {}
            ]
        )
        records = []
        for p, out in good:
            try:
                files = self.store.write_timeseries(p.point_id, out.get("timeseries") or {})
            except Exception as exc:  # noqa: BLE001
                failures.append((p, f"could not write time series: {exc}", None))
                continue
            records.append(
                {
                    "experiment": p.experiment,
                    "point_id": p.point_id,
                    "params": p.params,
                    "scenario": p.resolved,
                    "summary": out.get("summary"),
                    "ccsim_version": self.version,
                    "engine": out["engine"],
                    "seed": p.seed,
                    "wall_s": out.get("wall_s"),
                    "metrics": out.get("metrics"),
                    "flows": out.get("flows"),
                    "queues": out.get("queues"),
                    "files": files,
                    "_point": p,
                }
            )
        errors = self.store.record_points(records)
        bad = {id(r) for r, _ in errors}
        for rec, exc in errors:
            failures.append((rec["_point"], f"could not store the results: {exc}", None))
        self.done += sum(1 for r in records if id(r) not in bad)
        if failures:
            self.fail(failures)
        else:
            self.progress.update(self.done, failed=len(self.failed))
