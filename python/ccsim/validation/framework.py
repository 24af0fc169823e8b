"""What a validation suite is and what it returns: cases run in a reference simulator
and in ccsim, compared quantity by quantity against a stated tolerance.

A :class:`Suite` names its reference (``ns-2.35``), the binary it needs and how to
install it, the markers of its block in ``docs/validation.md``, and a function that
runs its cases and returns a :class:`SuiteResult`: the block of markdown (tables and
notes, as the docs show it) and one :class:`Verdict` per compared quantity.

The tolerance of a quantity measured over seeds is :func:`paired_tolerance`: the
larger of a resolution floor (absolute, and relative to the reference's mean) and the
half-width of the confidence interval of the mean per-seed difference; so a
difference counts only where it stands out of the seed-to-seed noise. A count of rare
events (a few drops or timeouts per run) also gets :func:`count_tolerance`, the noise it
would have if it were Poisson, which five seeds that happen to agree cannot show. A difference
outside its tolerance whose cause is known and is not a ccsim defect carries its
explanation (``explained``): it is reported, and does not fail the run.

The simulators of a comparison see one scenario: each pair's start time and access
delay are drawn once, from the case and the seed (:func:`draw_pairs`), and given to all.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ccsim.theory import confidence_interval


def paired_tolerance(
    reference: Sequence[float],
    ccsim: Sequence[float],
    floor: float = 0.0,
    rel_floor: float = 0.0,
    level: float = 0.99,
) -> float:
    """Tolerance of ``mean(ccsim) - mean(reference)`` for runs paired by seed: the
    larger of ``floor``, ``rel_floor`` times the reference's mean, and the ``level``
    confidence half-width of the mean per-seed difference (none with one seed).

    >>> paired_tolerance([10, 12, 11], [10, 12, 11], floor=1)
    1
    >>> round(paired_tolerance([100.0, 100.0], [99.0, 101.0], rel_floor=0.001), 3)
    63.657
    """
    diffs = [b - a for a, b in zip(reference, ccsim)]
    hw = confidence_interval(diffs, level)[1] if len(diffs) > 1 else 0.0
    hw = 0.0 if hw != hw else hw
    return max(floor, rel_floor * abs(statistics.fmean(reference)), hw)


def poisson_upper(k: int, level: float) -> float:
    """The one-sided ``level`` upper confidence limit of a Poisson mean after ``k``
    events: the mean μ at which P(X ≤ k; μ) = 1 − ``level`` (Garwood 1936; χ²(2k+2)/2 at
    ``level``), by bisection.

    >>> round(poisson_upper(0, 0.99), 3)    # -ln 0.01
    4.605
    >>> round(poisson_upper(10, 0.995), 2)  # chi-square(22) at 0.995 is 42.80
    21.4
    """

    def cdf(mu: float) -> float:
        term = total = math.exp(-mu)
        for i in range(1, k + 1):
            term *= mu / i
            total += term
        return total

    lo, hi = float(k), float(k) + 10.0 + 10.0 * math.sqrt(k + 1)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) > 1 - level else (lo, mid)
    return (lo + hi) / 2


def count_tolerance(
    reference: Sequence[float], ccsim: Sequence[float], level: float = 0.99
) -> float:
    """Tolerance of ``mean(ccsim) - mean(reference)`` for event counts per seed (drops,
    marks, timeouts) as if each simulator's count in a run were Poisson with one rate
    for both: z·√U / n over n seeds, z the two-sided ``level`` normal quantile and U the
    upper confidence limit of the pooled count Σ reference + Σ ccsim
    (:func:`poisson_upper`: a small observed count does not shrink its own noise, and
    drops and timeouts come in bursts, so they vary more than Poisson counts). Rare
    events need it: five seeds of 3, 3, 3, 3, 2 against 0, 0, 1, 0, 0 give a paired
    half-width of 1.1 (t with 4 degrees of freedom over differences that happen to
    agree); this gives 2.73. A 14-to-1 split of 15 events has probability 0.001 under
    equal rates (the exact conditional test), which a suite of ~180 checks at 99 % meets
    by chance in one run of a few; the bound accepts it, a 15-to-0 split it does not.

    >>> round(count_tolerance([3, 3, 3, 3, 2], [0, 0, 1, 0, 0]), 2)
    2.73
    >>> count_tolerance([], [])
    0.0
    """
    n = len(reference)
    if n == 0:
        return 0.0
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2)
    pooled = round(sum(reference) + sum(ccsim))
    return z * math.sqrt(poisson_upper(pooled, 0.5 + level / 2)) / n


def draw_pairs(
    key: str, pairs: int, start_max_s: float, access_ms: tuple[float, float]
) -> tuple[list[float], list[float]]:
    """Per-pair start times (s, uniform in [0, ``start_max_s``]) and access delays (ms,
    uniform in ``access_ms``), drawn from the text ``key`` (a case and a seed) and
    rounded to the microsecond and the nanosecond: what every simulator of a comparison
    gets, so that they see one scenario.

    >>> draw_pairs("case/1", 2, 0.0, (1.0, 1.0))
    ([0.0, 0.0], [1.0, 1.0])
    """
    rng = random.Random(key)
    starts = [round(rng.uniform(0, start_max_s), 6) for _ in range(pairs)]
    lo, hi = access_ms
    delays = [round(rng.uniform(lo, hi), 6) for _ in range(pairs)]
    return starts, delays


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One compared quantity of one case: the reference's value and ccsim's (means
    over seeds), and the tolerance on their difference (NaN: shown, not checked)."""

    case: str
    quantity: str
    reference: float
    ccsim: float
    tolerance: float
    #: The known cause of a difference outside the tolerance (empty if none).
    explained: str = ""
    fmt: str = "{:.4g}"
    #: Why runs of the case did not finish (a simulator's crash or time-out): such a
    #: verdict is outside any tolerance, so it fails unless its cause is known.
    error: str = ""

    @property
    def checked(self) -> bool:
        return bool(self.error) or not math.isnan(self.tolerance)

    @property
    def within(self) -> bool:
        """True if the difference is within the tolerance (or not checked); false for
        runs that did not finish."""
        if self.error:
            return False
        if not self.checked:
            return True
        return abs(self.ccsim - self.reference) <= self.tolerance + 1e-12

    @property
    def ok(self) -> bool:
        """Within tolerance, or outside with a known cause."""
        return self.within or bool(self.explained)

    @property
    def status(self) -> str:
        if not self.checked:
            return "not checked"
        if self.within:
            return "pass"
        return "explained" if self.explained else "FAIL"

    def row(self) -> str:
        if self.error:
            return f"| {self.case} | {self.quantity} | {self.error} | | | | {self.status} |"
        f = self.fmt.format
        tol = f"±{f(self.tolerance)}" if self.checked else "—"
        return (
            f"| {self.case} | {self.quantity} | {f(self.reference)} | {f(self.ccsim)} "
            f"| {self.ccsim - self.reference:+.3g} | {tol} | {self.status} |"
        )

    def line(self) -> str:
        if self.error:
            why = f" ({self.explained})" if self.explained else ""
            return f"{self.case}: {self.quantity}: {self.error}{why}"
        f = self.fmt.format
        why = f" ({self.explained})" if self.explained and not self.within else ""
        return (
            f"{self.case}: {self.quantity}: reference {f(self.reference)}, ccsim "
            f"{f(self.ccsim)}, tolerance ±{f(self.tolerance)}{why}"
        )


@dataclasses.dataclass(frozen=True)
class Quantity:
    """A quantity a suite compares over seeds: its key and label, the format of its
    values, how to get it from one run's outcome, and the resolution floor of its
    tolerance (absolute in its unit, and relative to the reference's mean; the larger
    applies). A ``count`` of events also gets its Poisson noise (:func:`count_tolerance`)."""

    key: str
    label: str
    fmt: str
    get: Callable[[Any], float]
    floor: float
    rel_floor: float = 0.0
    count: bool = False


@dataclasses.dataclass
class SeedCheck:
    """One quantity of one case measured over seeds in the reference and in ccsim,
    paired by seed: the mean per-seed difference against :func:`paired_tolerance` at
    99 % (and :func:`count_tolerance` for a count). A suite subclasses it with its own
    ``explained`` table, (case, quantity key) → the known cause."""

    case: str
    quantity: Quantity
    reference: list[float]
    ccsim: list[float]

    explained: ClassVar[Mapping[tuple[str, str], str]] = {}

    @property
    def diff(self) -> float:
        return statistics.fmean(b - a for a, b in zip(self.reference, self.ccsim))

    @property
    def tol(self) -> float:
        q = self.quantity
        tol = paired_tolerance(self.reference, self.ccsim, q.floor, q.rel_floor)
        return max(tol, count_tolerance(self.reference, self.ccsim)) if q.count else tol

    @property
    def ok(self) -> bool:
        return abs(self.diff) <= self.tol + 1e-12

    def verdict(self) -> Verdict:
        """As the framework reports it."""
        q = self.quantity
        why = self.explained.get((self.case, q.key), "")
        a, b = statistics.fmean(self.reference), statistics.fmean(self.ccsim)
        return Verdict(self.case, q.label, a, b, self.tol, why, q.fmt)


VERDICT_HEAD = (
    "| case | quantity | reference | ccsim | difference | tolerance | |\n"
    "|---|---|---|---|---|---|---|"
)


@dataclasses.dataclass
class SuiteResult:
    """What a suite's run returns."""

    #: The markdown between the suite's markers in docs/validation.md.
    block: str
    verdicts: list[Verdict]
    seeds: int
    wall_s: float = 0.0

    @property
    def failures(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.ok]

    @property
    def explained(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.within is False and v.explained]

    @property
    def passed(self) -> int:
        return sum(v.within for v in self.verdicts if v.checked)

    @property
    def checked(self) -> int:
        return sum(v.checked for v in self.verdicts)


@dataclasses.dataclass(frozen=True)
class Suite:
    """A set of validation cases against one reference simulator."""

    name: str
    title: str
    #: The reference simulator, as the report names it.
    reference: str
    #: What it needs (``"`ns`"``), whether that is here, and how to install it.
    needs: str
    available: Callable[[], bool]
    install: str
    #: Markers of its block in docs/validation.md.
    marks: tuple[str, str]
    #: ``run(quick, only, jobs) -> SuiteResult``; ``only`` keeps the cases whose name
    #: contains it.
    run: Callable[[bool, str | None, int], SuiteResult]
    #: Rough wall time on two cores (minutes), quick and full.
    minutes: tuple[float, float] = (2.0, 15.0)


def run_seeded(
    cases: Sequence[Any],
    run: Callable[[list, int, int], dict],
    result: Callable[[list, dict, int, float], SuiteResult],
    quick: bool,
    only: str | None,
    jobs: int,
    seeds: int | None,
) -> SuiteResult:
    """A seed-paired suite for ``ccsim validate``: its cases whose name contains ``only``,
    run over ``seeds`` seeds (5 quick, 10 full) by ``run(cases, seeds, jobs)`` and
    judged by ``result(cases, raw, seeds, wall)``."""
    seeds = seeds or (5 if quick else 10)
    t = time.perf_counter()
    cs = [c for c in cases if not only or only in c.name]
    return result(cs, run(cs, seeds, jobs), seeds, time.perf_counter() - t)


def seeded_main(
    argv: list[str] | None,
    doc: str,
    cases: Callable[[bool], list],
    run: Callable[[list, int, int], dict],
    result: Callable[[list, dict, int, float], SuiteResult],
    reference: tuple[str, Callable[[], bool], str],
    marks: tuple[str, str],
    quick_help: str,
) -> int:
    """The command line of a seed-paired suite's module (``python -m ...``): run (or
    ``--load`` saved results), print the block, ``--write`` it between ``marks`` into a
    Markdown file; exit 1 if a check is outside. ``reference``: (the key of its results
    in the saved JSON, whether it is installed, the line printed when it is not)."""
    from ccsim.validation.mdblock import replace_block

    key, present, skipped = reference
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--seeds", type=int, default=None, help="seeds per case (default 10, quick 5)")
    ap.add_argument("--only", help="run only cases whose name contains this text")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel runs")
    ap.add_argument("--save", type=Path, help="write the per-run results (JSON) here")
    ap.add_argument("--load", type=Path, help="tabulate saved results instead of running")
    ap.add_argument("--write", type=Path, help="replace the block in this markdown file")
    a = ap.parse_args(argv)
    if a.load is None and not present():
        print(skipped)
        return 0
    cs = [c for c in cases(a.quick) if not a.only or a.only in c.name]
    if a.load:
        raw = json.loads(a.load.read_text())
        cs = [c for c in cs if c.name in raw]
        seeds = len(next(iter(raw.values()))[key])
    else:
        seeds = a.seeds or (5 if a.quick else 10)
        raw = run(cs, seeds, a.jobs)
        if a.save:
            a.save.write_text(json.dumps(raw))
    res = result(cs, raw, seeds, 0.0)
    print(res.block)
    for v in res.failures:
        print("outside: " + v.line(), file=sys.stderr)
    if a.write:
        replace_block(a.write, res.block, *marks)
    return 1 if res.failures else 0
