"""Paper reproductions as data: scenarios, sweep axes, metrics, the papers' reported
numbers with tolerances, and plot functions. One module per paper.

``ccsim reproduce NAME`` (or :func:`reproduce`) runs an experiment's points through the
sweep machinery (finished points are reused from the result store), draws its figures
(PNG and SVG) and writes ``report.md``: every reported number, the ccsim value, the
tolerance and pass/fail.
"""

from __future__ import annotations

from ccsim.experiments.base import Check, Experiment, reproduce

__all__ = ["Check", "Experiment", "all_experiments", "get", "reproduce"]


def all_experiments() -> list[Experiment]:
    """Every registered experiment, in paper order."""
    from ccsim.experiments import blt, bmcc, buc_rfcn, token_ftcp, westwood

    return [
        *westwood.EXPERIMENTS,
        *token_ftcp.EXPERIMENTS,
        *buc_rfcn.EXPERIMENTS,
        *bmcc.EXPERIMENTS,
        *blt.EXPERIMENTS,
    ]


def get(name: str) -> Experiment:
    """The experiment called ``name``."""
    for e in all_experiments():
        if e.name == name:
            return e
    names = ", ".join(e.name for e in all_experiments())
    raise KeyError(f"no experiment {name!r}; experiments: {names}")
