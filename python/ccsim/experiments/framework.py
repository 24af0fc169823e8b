"""The experiment framework: what an experiment is (its runs, checks, figures and
report) and how a list of them is reproduced. The paper packages build on it;
:mod:`ccsim.experiments` lists them and reproduces them by name."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim._ccsim import __version__
from ccsim.engine import fingerprint

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd

__all__ = ["Check", "Data", "Experiment", "Outcome", "Run", "reproduce_each", "save_figure"]


@dataclass
class Run:
    """One simulation of an experiment: a scenario and the labels that identify it."""

    params: dict
    scenario: dict


@dataclass
class Check:
    """A number the paper reports (or a claim it makes) and how ccsim must match it.

    ``value(data)`` computes the ccsim number; it passes when ``lo <= value <= hi``.
    ``paper`` is the paper's value as text, ``tolerance`` describes the band. A
    ``demo`` check is not a claim of the paper but the demonstration of a known failure
    mode (e.g. a rule outside its assumptions): the report says ``shown`` / ``NOT
    SHOWN (demonstration)`` for it, never PASS. ``why(data)``, if given, explains a
    failure with numbers measured in the same runs; the report prints it under the
    table for every check that fails (and says so where a failing check has none). A
    paragraph (text between blank lines) already printed for another check is referred
    to rather than repeated, so a shared cause can be one paragraph of several ``why``.
    """

    what: str
    paper: str
    value: Callable[[Data], float]
    lo: float = -math.inf
    hi: float = math.inf
    tolerance: str = ""
    fmt: str = "{:.4g}"
    demo: bool = False
    why: Callable[[Data], str] | None = None

    def result(self, passed: bool) -> str:
        """The report's result cell."""
        if self.demo:
            return "shown (demonstration)" if passed else "NOT SHOWN (demonstration)"
        return "PASS" if passed else "FAIL"

    def evaluate(self, data: Data) -> tuple[float, bool]:
        try:
            v = float(self.value(data))
        except Exception as e:  # a check that cannot be computed fails, with the reason
            data.notes.append(f"{self.what}: could not compute ({type(e).__name__}: {e})")
            return math.nan, False
        return v, (self.lo <= v <= self.hi)


@dataclass
class Data:
    """What checks and plots see: one row per run (params + metrics), and time series."""

    experiment: str
    table: pd.DataFrame
    results_dir: Path
    quick: bool
    notes: list[str] = field(default_factory=list)

    def rows(self, **params: Any) -> pd.DataFrame:
        """Rows whose params equal the given values."""
        df = self.table
        for k, v in params.items():
            df = df[df[k] == v]
        return df

    def one(self, metric: str, **params: Any) -> float:
        """Mean of ``metric`` over the rows matching ``params`` (replications)."""
        df = self.rows(**params)
        if df.empty:
            raise KeyError(f"no run with {params}")
        return float(df[metric].mean())

    def timeseries(self, name: str, **params: Any) -> pd.DataFrame:
        """A stored time series of the (first) run matching ``params``."""
        from ccsim.store import open_results

        df = self.rows(**params)
        if df.empty:
            raise KeyError(f"no run with {params}")
        return open_results(self.results_dir).timeseries(df.iloc[0]["point_id"], name)


@dataclass
class Experiment:
    """A paper reproduction.

    Attributes
    ----------
    name, title, paper
        Identifier (``ccsim reproduce NAME``), one-line title, and the source.
    runs
        ``runs(quick) -> list[Run]``: the scenarios (``quick`` = shorter and coarser).
    metrics
        Module-level ``metrics(results) -> dict`` run in the workers.
    checks
        The paper's numbers with tolerances (``report.md``).
    plot
        ``plot(data, outdir) -> list[Path]`` drawing the paper's figures.
    timeseries
        Which time series to keep for the plots.
    notes
        Deviations and resolved ambiguities, copied into the report.
    findings
        ``findings(data) -> list[str]``: facts measured in this run that are not
        the paper's claims (extra series, explanations with numbers), written to
        the report's "Findings" section; they pass or fail nothing.
    tables
        ``tables(data) -> list[str]``: Markdown lines (e.g. the paper's result tables
        reconstructed from the runs) written to the report's "Tables" section.
    """

    name: str
    title: str
    paper: str
    runs: Callable[[bool], list[Run]]
    metrics: Callable[[Any], dict]
    checks: list[Check]
    plot: Callable[[Data, Path], list[Path]] | None = None
    timeseries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    findings: Callable[[Data], list[str]] | None = None
    tables: Callable[[Data], list[str]] | None = None

    def run(
        self,
        quick: bool = False,
        jobs: int | None = None,
        results_dir: str | os.PathLike = "ccsim-results",
        progress: bool = True,
    ) -> Data:
        """Run (or reuse) every point and return the data for checks and plots."""
        from ccsim.sweep import make_point, run_sweep

        runs = self.runs(quick)
        points = [make_point(r.scenario, r.params, experiment=self.name) for r in runs]
        df = run_sweep(
            points,
            results_dir,
            jobs=jobs,
            metrics=self.metrics,
            keep_timeseries=self.timeseries or False,
            progress=progress,
        )
        return Data(self.name, df, Path(results_dir), quick)

    def report(
        self,
        data: Data,
        outdir: Path,
        figures: list[Path],
        failed: list[str] | None = None,
        unexplained: list[str] | None = None,
    ) -> tuple[str, bool]:
        """Write ``report.md``; returns its text and whether every check passed (the
        checks that did not are appended to ``failed``, and those of them without an
        explanation, ``why``, to ``unexplained``, if given)."""
        lines = [
            f"# {self.title}",
            "",
            f"Paper: {self.paper}",
            f"Mode: {'quick (shorter runs, coarser grid)' if data.quick else 'full (paper settings)'}; "
            f"runs: {len(data.table)}; ccsim {__version__}",
            f"Engine: {_engines(data.table)}",
            "",
            "| what | paper | ccsim | tolerance | result |",
            "|---|---|---|---|---|",
        ]
        ok = True
        whys: list[str] = []
        said: dict[str, str] = {}  # an explanation's paragraph -> the check it was given for
        for c in self.checks:
            v, passed = c.evaluate(data)
            ok &= passed
            if not passed and failed is not None:
                failed.append(c.what)
            if not passed and c.why is None and unexplained is not None:
                unexplained.append(c.what)
            if not passed:
                whys.append(_explain(c, data, said))
            shown = "n/a" if math.isnan(v) else c.fmt.format(v)
            lines.append(f"| {c.what} | {c.paper} | {shown} | {c.tolerance} | {c.result(passed)} |")
        if whys:
            lines += ["", "## Why the failing checks fail", "", *whys]
        if self.tables:
            lines += ["", "## Tables", "", *_or_why("tables", self.tables, data)]
        if self.findings:
            lines += ["", "## Findings (measured in this run; not checks)", ""]
            lines += [f"- {f}" for f in _or_why("findings", self.findings, data)]
        if figures:
            lines += ["", "## Figures", ""]
            lines += [f"![{p.stem}]({p.name})" for p in figures if p.suffix == ".png"]
        if self.notes or data.notes:
            lines += ["", "## Notes", ""]
            lines += [f"- {n}" for n in [*self.notes, *data.notes]]
        lines += ["", *_points_table(data.table)]
        text = "\n".join(lines) + "\n"
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "report.md").write_text(text)
        return text, ok


def _explain(check: Check, data: Data, said: dict[str, str]) -> str:
    """A failing check's explanation as a report line, or why there is none. Paragraphs
    (separated by a blank line) already given for an earlier check are referred to, not
    repeated: several checks often fail for one cause."""
    if check.why is None:
        text = "no explanation yet (not investigated)."
    else:
        text = _or_why("the explanation", lambda d: [check.why(d)], data)[0]
    parts = []
    for para in (p.strip() for p in text.split("\n\n")):
        if not para:
            continue
        if para in said:
            parts.append(f"(The cause given for **{said[para]}** above.)")
        else:
            said[para] = check.what
            parts.append(para)
    return f"- **{check.what}**: " + " ".join(parts)


def _or_why(what: str, part: Callable[[Data], list[str]], data: Data) -> list[str]:
    """A report section's lines, or one line saying why it could not be computed (a run
    whose points all diverged, say): the rest of the report is still written."""
    try:
        return part(data)
    except Exception as e:
        return [f"({what} could not be computed: {type(e).__name__}: {e})"]


def _engines(table: pd.DataFrame) -> str:
    """Which engines computed the points (``ccsim.fingerprint()``), in one line."""
    if "engine" not in table.columns:
        return "unknown"
    counts = table["engine"].fillna("none (not done)").value_counts()
    parts = [
        f"{eng} ({n} points{', this build' if eng == fingerprint() else ''})"
        for eng, n in counts.items()
    ]
    return "; ".join(parts)


def _points_table(table: pd.DataFrame) -> list[str]:
    """Markdown listing every point: its id, parameters, status and the engine that
    computed it."""
    params = [c for c in table.attrs.get("ccsim_params", []) if c in table.columns]
    lines = [
        "## Points",
        "",
        "Each point's engine is the fingerprint of the code that computed it "
        "(`ccsim.fingerprint()`: version, Rust sources, Python sources).",
        "",
        "| point | seed | " + " | ".join(params) + (" | " if params else "") + "status | engine |",
        "|---|---|" + "---|" * len(params) + "---|---|",
    ]
    for _, r in table.iterrows():
        vals = " | ".join(str(r[c]) for c in params)
        lines.append(
            f"| {r['point_id']} | {r['seed']} | {vals}{' | ' if params else ''}"
            f"{r.get('status', '')} | {r.get('engine') or ''} |"
        )
    return lines


def save_figure(fig, outdir: Path, stem: str) -> list[Path]:
    """Save a matplotlib figure as PNG and SVG; returns both paths."""
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    paths = [outdir / f"{stem}.png", outdir / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


@dataclass
class Outcome:
    """What :func:`reproduce` did: true when every check passed; ``failed`` lists the
    (experiment, check) pairs that did not, ``unexplained`` those of them whose report
    gives no cause (a check without ``why``: a gap nobody has investigated)."""

    failed: list[tuple[str, str]] = field(default_factory=list)
    unexplained: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return not self.failed

    def exit_status(self, strict: bool = False) -> int:
        """``ccsim reproduce``'s exit status: 1 if a check failed without a known cause
        (or, ``strict``, if any failed), else 0."""
        return 1 if (self.failed if strict else self.unexplained) else 0


def reproduce_each(
    experiments: Iterable[Experiment],
    quick: bool = False,
    jobs: int | None = None,
    results_dir: str | os.PathLike = "ccsim-results",
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> Outcome:
    """Reproduce each experiment in turn (:func:`ccsim.experiments.reproduce` does it by
    name); the :class:`Outcome` is true if every check passed and names the checks that
    did not."""
    import matplotlib

    matplotlib.use("Agg")
    out_root = Path(out_dir) if out_dir else Path(results_dir) / "reports"
    outcome = Outcome()
    for exp in experiments:
        print(f"== {exp.name}: {exp.title}", flush=True)
        data = exp.run(quick=quick, jobs=jobs, results_dir=results_dir, progress=progress)
        outdir = out_root / exp.name
        try:
            figures = exp.plot(data, outdir) if exp.plot else []
        except Exception as e:  # the checks and the stored points are still reported
            data.notes.append(f"figures could not be drawn: {type(e).__name__}: {e}")
            figures = []
        failed: list[str] = []
        unexplained: list[str] = []
        text, _ = exp.report(data, outdir, figures, failed, unexplained)
        outcome.failed += [(exp.name, what) for what in failed]
        outcome.unexplained += [(exp.name, what) for what in unexplained]
        passed = len(exp.checks) - len(failed)
        print(
            f"   {passed}/{len(exp.checks)} checks pass; report: {outdir / 'report.md'}", flush=True
        )
    return outcome
