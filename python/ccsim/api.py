"""The one entry point: :func:`run` a scenario, get :class:`~ccsim.Results`."""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

from ccsim import _ccsim
from ccsim.results import Results
from ccsim.scenario import load_scenario, scenario_error

__all__ = ["memory_limit", "resolve", "run"]

#: Environment variable with the default memory budget of a run, e.g. ``"16GB"``.
MEMORY_ENV = "CCSIM_MEMORY_LIMIT"


def memory_limit(value: int | str | None = None) -> int:
    """The memory budget of a run, in bytes.

    ``value`` (bytes, or a size such as ``"8GB"``), else the ``CCSIM_MEMORY_LIMIT``
    environment variable, else half of the machine's physical memory. The engine
    refuses a scenario whose estimated memory exceeds it (before building anything)
    and stops a run that outgrows it, instead of letting an allocation failure or
    the out-of-memory killer take the process down.

    >>> memory_limit("8GB")
    8000000000
    """
    where = "memory_limit"
    if value is None and os.environ.get(MEMORY_ENV):
        value, where = os.environ[MEMORY_ENV], MEMORY_ENV
    if value is None:
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
        except (AttributeError, OSError, ValueError):  # not POSIX
            return 8 << 30
    try:
        n = _ccsim.parse_size(value) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        n = 0
    if n <= 0:
        raise scenario_error(where, repr(value), 'a positive size such as "8GB" or "512MiB"')
    return min(n, 2**64 - 1)


def resolve(
    scenario: Any, overrides: list[str] | dict | None = None, memory_limit: int | str | None = None
) -> dict:
    """Validate a scenario and return its fully resolved form.

    Every default is filled in and units are canonical (times in seconds,
    rates in bit/s, sizes in bytes), so two spellings of the same scenario
    resolve to the same dict. A scenario estimated to need more than
    ``memory_limit`` (see :func:`memory_limit`) is invalid. Raises
    :class:`ccsim.ScenarioError`.
    """
    d = load_scenario(scenario, overrides)
    return json.loads(_ccsim.resolve(_to_json(d), _memory(memory_limit)))


def _memory(value: int | str | None) -> int:
    return memory_limit(value)


def _to_json(d: dict) -> str:
    # load_scenario returned JSON types only (anything else is a ScenarioError there)
    return json.dumps(d, allow_nan=False)


def run(
    scenario: Any,
    overrides: list[str] | dict | None = None,
    progress: Callable[[float, float], None] | None = None,
    slice_s: float | None = None,
    memory_limit: int | str | None = None,
) -> Results:
    """Run a scenario and return its results.

    Parameters
    ----------
    scenario
        A dict, a path to a TOML file, or a :class:`ccsim.Scenario`.
    overrides
        ``["key.path=value", ...]`` or ``{"key.path": value}`` applied first.
    progress
        Called as ``progress(now_s, end_s)`` between steps of the run: every
        ``slice_s`` simulated seconds if given, else about five times per wall-clock
        second.
    slice_s
        Simulated seconds between two ``progress`` calls.
    memory_limit
        Bytes (or a size such as ``"8GB"``) the run may use; default: the
        ``CCSIM_MEMORY_LIMIT`` environment variable, else half of physical memory.

    Ctrl-C stops the run within a few milliseconds, whatever its length, with
    :class:`KeyboardInterrupt`.

    Raises
    ------
    ccsim.ScenarioError
        The scenario is invalid (or would not fit in ``memory_limit``); the message
        names the key path, the value and what is accepted.
    ccsim.SimulationError
        A model invariant was violated (e.g. packet conservation), simulated time
        stopped advancing, or the run outgrew ``memory_limit``.
    """
    text = _to_json(load_scenario(scenario, overrides))  # (only the text lives through the run)
    limit = _memory(memory_limit)
    t0, c0 = time.perf_counter(), time.process_time()
    raw = _ccsim.run(text, progress, slice_s, limit)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    r = Results._from_native(raw, wall, cpu)
    for msg in ecn_without_marking(r.scenario):
        warnings.warn(msg, EcnWarning, stacklevel=2)
    return r


class EcnWarning(UserWarning):
    """A flow asks for ECN where no queue can mark (it will only ever see drops)."""


def ecn_without_marking(resolved: dict) -> list[str]:
    """One message per flow of the resolved scenario with ``ecn = true``, or a ``roce``
    flow whose rate control is DCQCN (its only signal is a CNP, sent for a CE mark), when
    no queue of the topology marks (``ecn = true`` on a ``red``, ``ared``, ``codel``,
    ``fq_codel`` or ``pie`` queue, a ``step``, ``kmin_kmax``, ``bmcc``, ``vcp`` or
    ``python`` queue: one of the user's, which may mark). BMCC and VCP flows are left out: their ECN bits carry the
    routers' load, and such a sender over routers that mark nothing is a valid experiment
    (the BMCC paper's Fig. 4; VCP over drop-tail is MI until a loss). A DCTCP flow there
    is a valid run without meaning: it is NewReno."""

    def marks(v) -> bool:
        if isinstance(v, dict):
            return (
                v.get("ecn") is True
                or v.get("kind") in ("bmcc", "vcp", "step", "kmin_kmax", "python")
                or any(marks(x) for x in v.values())
            )
        return isinstance(v, list) and any(marks(x) for x in v)

    def cc_is(f: dict, name: str) -> bool:
        cc = f.get("cc")
        return cc == name or (isinstance(cc, dict) and cc.get("kind") == name)

    def load_factor(f: dict) -> bool:
        return cc_is(f, "bmcc") or cc_is(f, "vcp")

    def dcqcn(f: dict) -> bool:
        return f.get("kind") == "roce" and f.get("rate_control", "dcqcn") == "dcqcn"

    flows = [
        i
        for i, f in enumerate(resolved.get("flows", []))
        if (f.get("ecn") is True and not load_factor(f)) or dcqcn(f)
    ]
    if not flows or marks(resolved.get("topology")):
        return []
    flows_ = resolved.get("flows", [])
    return [
        f"flows[{i}].cc: DCTCP, but no queue of the topology marks CE (a step queue, or "
        "ecn = true on a red, ared, codel, fq_codel or pie queue): without marks DCTCP is "
        "NewReno (RFC 8257 §3.4)"
        if cc_is(flows_[i], "dctcp")
        else f"flows[{i}].rate_control: DCQCN, but no queue of the topology marks CE (a "
        "kmin_kmax or step queue, or ecn = true on a red queue): its NIC gets no CNP and "
        "sends at line rate (Zhu et al., SIGCOMM 2015, §3)"
        if dcqcn(flows_[i])
        else f"flows[{i}].ecn: true, but no queue of the topology marks CE (it takes ecn = true "
        "on a red, ared, codel, fq_codel or pie queue): this flow sees only drops"
        for i in flows
    ]
