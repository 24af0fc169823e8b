"""The one entry point: :func:`run` a scenario, get :class:`~ccsim.Results`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from ccsim import _ccsim
from ccsim.results import Results
from ccsim.scenario import load_scenario

__all__ = ["resolve", "run"]


def resolve(scenario: Any, overrides: list[str] | dict | None = None) -> dict:
    """Validate a scenario and return its fully resolved form.

    Every default is filled in and units are canonical (times in seconds,
    rates in bit/s, sizes in bytes), so two spellings of the same scenario
    resolve to the same dict. Raises :class:`ccsim.ScenarioError`.
    """
    d = load_scenario(scenario, overrides)
    return json.loads(_ccsim.resolve(_to_json(d)))


def _to_json(d: dict) -> str:
    try:
        return json.dumps(d, allow_nan=False, default=_reject)
    except ValueError as e:  # NaN/inf numbers
        raise _ccsim.ScenarioError(f'scenario: {e}; write infinite sizes as "inf"') from None


def _reject(o: Any) -> Any:
    raise _ccsim.ScenarioError(
        f"scenario: a value of type {type(o).__name__} ({o!r}) is not a scenario value; "
        "use strings, numbers, booleans, lists and tables"
    )


def run(
    scenario: Any,
    overrides: list[str] | dict | None = None,
    progress: Callable[[float, float], None] | None = None,
    slice_s: float | None = None,
) -> Results:
    """Run a scenario and return its results.

    Parameters
    ----------
    scenario
        A dict, a path to a TOML file, or a :class:`ccsim.Scenario`.
    overrides
        ``["key.path=value", ...]`` or ``{"key.path": value}`` applied first.
    progress
        Called as ``progress(now_s, end_s)`` between slices of simulated time.
    slice_s
        Simulated seconds per slice (default, chosen by the engine: 1/200 of the
        duration when ``progress`` is given, else the whole run). Ctrl-C is
        honoured between slices.

    Raises
    ------
    ccsim.ScenarioError
        The scenario is invalid; the message names the key path, the value and
        what is accepted.
    ccsim.SimulationError
        A model invariant was violated (e.g. packet conservation).
    """
    d = load_scenario(scenario, overrides)
    text = _to_json(d)
    t0 = time.perf_counter()
    raw = _ccsim.run(text, progress, slice_s)
    wall = time.perf_counter() - t0
    return Results._from_native(raw, wall)
