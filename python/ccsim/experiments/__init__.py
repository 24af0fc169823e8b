"""Paper reproductions as data: scenarios, sweep axes, metrics, the papers' reported
numbers with tolerances, and plot functions. One module (or package) per paper, built on
:mod:`ccsim.experiments.framework`; this module lists them and reproduces them by name.

``ccsim reproduce NAME`` (or :func:`reproduce`) runs an experiment's points through the
sweep machinery (finished points are reused from the result store), draws its figures
(PNG and SVG) and writes ``report.md``: every reported number, the ccsim value, the
tolerance and pass/fail.
"""

from __future__ import annotations

import os

from ccsim.experiments.framework import Check, Experiment, Outcome, reproduce_each

__all__ = ["Check", "Experiment", "all_experiments", "get", "reproduce"]


def all_experiments() -> list[Experiment]:
    """Every registered experiment, in paper order."""
    from ccsim.experiments import blt, bmcc, buc_rfcn, classics, datacenter, token_ftcp, westwood

    return [
        *westwood.EXPERIMENTS,
        *token_ftcp.EXPERIMENTS,
        *buc_rfcn.EXPERIMENTS,
        *bmcc.EXPERIMENTS,
        *blt.EXPERIMENTS,
        *classics.EXPERIMENTS,
        *datacenter.EXPERIMENTS,
    ]


def get(name: str) -> Experiment:
    """The experiment called ``name``."""
    for e in all_experiments():
        if e.name == name:
            return e
    names = ", ".join(e.name for e in all_experiments())
    raise KeyError(f"no experiment {name!r}; experiments: {names}")


def reproduce(
    names: list[str],
    quick: bool = False,
    jobs: int | None = None,
    results_dir: str | os.PathLike = "ccsim-results",
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> Outcome:
    """Reproduce the named experiments; the :class:`Outcome` is true if every check
    passed and names the checks that did not."""
    return reproduce_each(
        (get(name) for name in names),  # looked up one by one, as each is reached
        quick=quick,
        jobs=jobs,
        results_dir=results_dir,
        out_dir=out_dir,
        progress=progress,
    )
