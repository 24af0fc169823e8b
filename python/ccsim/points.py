"""The points of a sweep: what a point is, its id, and how a base scenario and axes
expand into points.

A sweep expands a base scenario with *axes* (dotted key path -> list of values;
cartesian product, optionally with *zip* groups whose keys vary together) and
*replications* (seeds ``base_seed + i``). Each resulting :class:`Point` is identified by

    ``point_id = sha256(canonical_json(ccsim.resolve(scenario)) + ccsim.fingerprint())[:16]``

so the same fully resolved scenario always gets the same id, whatever way it was
written, and another engine (any change to the Rust or Python sources, see
:mod:`ccsim.engine`) gives other ids: its points are computed again, never reused.

:mod:`ccsim.sweep` runs points (and re-exports everything here); :mod:`ccsim.pool` and
:mod:`ccsim.recorder` take them from there.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .api import resolve
from .engine import fingerprint
from .errors import SweepError
from .scenario import load_scenario, set_path
from .store import dumps

__all__ = [
    "DEFAULT_EXPERIMENT",
    "Point",
    "canonical_json",
    "dimensions",
    "expand",
    "make_point",
    "point_id",
]

DEFAULT_EXPERIMENT = "default"


def canonical_json(obj: Any) -> str:
    """Canonical JSON text used for hashing: sorted keys, no whitespace, no NaN.

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [1.5, "x"]})
    '{"a":[1.5,"x"],"b":1}'
    """
    return dumps(obj)


def point_id(resolved: Mapping[str, Any], engine: str | None = None) -> str:
    """Id of a fully resolved scenario: 16 hex digits of a SHA-256.

    Parameters
    ----------
    resolved : dict
        The output of :func:`ccsim.resolve`.
    engine : str, optional
        The engine fingerprint to mix in (default: :func:`ccsim.fingerprint`), so that
        results of another engine are never taken for these.

    Returns
    -------
    str

    Examples
    --------
    >>> point_id({"seed": 1}, engine="0.1.0")
    'bcb430a1a5876c89'
    """
    if engine is None:
        engine = fingerprint()
    text = canonical_json(resolved) + engine
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Point:
    """One point of a sweep.

    Attributes
    ----------
    experiment : str
        Label shared by the points of one experiment in a store.
    point_id : str
        Hash of the resolved scenario and the engine fingerprint (see :func:`point_id`).
    params : dict
        The axis values of this point, by dotted key path.
    scenario : dict
        The scenario given to :func:`ccsim.run` (base with the axis values set).
    resolved : dict or None
        ``ccsim.resolve(scenario)``; ``None`` if the scenario is invalid.
    seed : int or None
        The point's random seed.
    error : str or None
        Why the scenario is invalid; such a point is recorded in ``failures`` without
        being run.
    """

    experiment: str
    point_id: str
    params: dict = field(compare=False)
    scenario: dict = field(compare=False, repr=False)
    resolved: dict | None = field(compare=False, repr=False)
    seed: int | None = None
    error: str | None = field(default=None, compare=False)


def _set_path(dct: dict, dotted: str, value: Any) -> None:
    try:
        set_path(dct, dotted, value)
    except Exception as exc:
        raise SweepError(f"axis {dotted!r}: {exc}") from exc


def make_point(
    scenario: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    experiment: str = DEFAULT_EXPERIMENT,
    engine: str | None = None,
) -> Point:
    """Resolve one scenario and make a :class:`Point` of it.

    Parameters
    ----------
    scenario : dict
        The scenario (as given to :func:`ccsim.run`).
    params : dict, optional
        The values that identify the point in result tables (axis values).
    experiment : str
        Experiment label.
    engine : str, optional
        Engine fingerprint for the id (default :func:`ccsim.fingerprint`).

    Returns
    -------
    Point
        If :func:`ccsim.resolve` rejects the scenario, ``point.error`` holds the message
        and the id is a hash of the unresolved scenario (so the point still has a
        stable identity in ``failures``).
    """
    scenario = copy.deepcopy(dict(scenario))
    if engine is None:
        engine = fingerprint()
    try:
        resolved = resolve(scenario)
        error = None
        pid = point_id(resolved, engine)
    except Exception as exc:  # noqa: BLE001 - any rejection makes an invalid point
        resolved = None
        error = f"{type(exc).__name__}: {exc}"
        pid = point_id({"unresolved": scenario}, engine)
    seed = (resolved or scenario).get("seed")
    return Point(
        experiment=experiment,
        point_id=pid,
        params=dict(params or {}),
        scenario=scenario,
        resolved=resolved,
        seed=seed if isinstance(seed, int) else None,
        error=error,
    )


def dimensions(
    axes: Mapping[str, Sequence[Any]], zip_groups: Sequence[Sequence[str]]
) -> list[list[dict]]:
    """The dimensions of the cartesian product of ``axes`` (a zip group is one): each a
    list of ``{key: value}`` assignments."""
    group_of: dict[str, int] = {}
    for gi, group in enumerate(zip_groups):
        for key in group:
            if key not in axes:
                raise SweepError(f"zip group {list(group)} names {key!r}, which is not an axis")
            if key in group_of:
                raise SweepError(f"axis {key!r} is in more than one zip group")
            group_of[key] = gi
    dims: list[list[dict]] = []
    seen_groups: set[int] = set()
    for key, values in axes.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise SweepError(f"axis {key!r} must be a list of values, got {values!r}")
        if key not in group_of:
            dims.append([{key: v} for v in values])
            continue
        gi = group_of[key]
        if gi in seen_groups:
            continue
        seen_groups.add(gi)
        keys = list(zip_groups[gi])
        lists = [list(axes[k]) for k in keys]
        if len({len(v) for v in lists}) != 1:
            sizes = ", ".join(f"{k}: {len(v)}" for k, v in zip(keys, lists))
            raise SweepError(f"zipped axes must have equal lengths ({sizes})")
        dims.append([dict(zip(keys, vals)) for vals in zip(*lists)])
    return dims


def expand(
    base: Mapping[str, Any] | str | os.PathLike,
    axes: Mapping[str, Sequence[Any]] | None = None,
    *,
    zip: Sequence[Sequence[str]] = (),
    replications: int = 1,
    experiment: str = DEFAULT_EXPERIMENT,
) -> list[Point]:
    """Expand a base scenario into sweep points.

    Parameters
    ----------
    base : dict, path or ccsim.Scenario
        The base scenario, as a dict, a TOML file or a builder.
    axes : dict, optional
        Dotted key path -> list of values, e.g.
        ``{"topology.bottleneck.queue.limit": ["20pkt", "50pkt"]}``; list elements are
        addressed by index (``"flows.0.cc"`` or ``"flows[0].cc"``). Axes are combined
        as a cartesian product, in the order given (the last axis varies fastest).
    zip : list of list of str, optional
        Groups of axis keys that vary together instead of being crossed (their lists
        must have equal lengths), e.g. ``[["topology.bottleneck.rate",
        "topology.bottleneck.queue.limit"]]``.
    replications : int
        Number of independent runs per combination: replication ``i`` uses seed
        ``base_seed + i`` (``base_seed`` is the base scenario's ``seed``, or the default
        seed from :func:`ccsim.resolve`). Replications vary fastest.
    experiment : str
        Label stored with every point.

    Returns
    -------
    list of Point
    """
    base_dict = load_scenario(base)
    axes = dict(axes or {})
    if replications < 1:
        raise SweepError(f"replications must be >= 1, got {replications}")
    if "seed" in axes and replications > 1:
        raise SweepError("use either a 'seed' axis or replications > 1, not both")
    dims = dimensions(axes, [list(g) for g in zip])
    engine = fingerprint()
    base_seed = base_dict.get("seed")
    if base_seed is None and replications > 1:
        try:
            base_seed = resolve(base_dict).get("seed")
        except Exception:  # noqa: BLE001 - fall back to 0 if the base alone is incomplete
            base_seed = None
        if not isinstance(base_seed, int):
            base_seed = 0
    points = []
    for combo in itertools.product(*dims):
        params: dict[str, Any] = {}
        for assignment in combo:
            params.update(assignment)
        for rep in range(replications):
            scenario = copy.deepcopy(base_dict)
            for key, value in params.items():
                _set_path(scenario, key, copy.deepcopy(value))
            if replications > 1:
                scenario["seed"] = base_seed + rep
            points.append(make_point(scenario, params, experiment=experiment, engine=engine))
    return points
