"""What :func:`validate` (``ccsim validate``) does: runs the suites selected
(:mod:`.suites`) against the references installed here, writes the report
(:class:`Report`: the summary table, then every suite's tables and checks) and, with
``write``, regenerates the suites' blocks and the summary of ``docs/validation.md``."""

from __future__ import annotations

import dataclasses
import datetime
import os
import re
import sys
import time
from pathlib import Path

from ccsim.engine import fingerprint
from ccsim.validation.framework import VERDICT_HEAD, SuiteResult, Verdict
from ccsim.validation.mdblock import read_block, replace_block
from ccsim.validation.suites import SUITES, reference_version, select

#: Markers of the summary at the top of docs/validation.md.
MARK_BEGIN = "<!-- validate:begin -->"
MARK_END = "<!-- validate:end -->"


@dataclasses.dataclass
class Report:
    """What :func:`validate` ran and found; true if nothing failed."""

    quick: bool
    results: dict[str, SuiteResult]
    #: Suites not run, with the reason (reference not installed).
    skipped: dict[str, str]
    fingerprint: str
    versions: dict[str, str]
    date: str

    def __bool__(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> list[tuple[str, Verdict]]:
        return [(n, v) for n, r in self.results.items() for v in r.failures]

    def stamp(self) -> str:
        refs = ", ".join(f"{k} {v}" for k, v in sorted(set(self.versions.items())))
        mode = "quick" if self.quick else "full"
        return (
            f"Measured with ccsim {self.fingerprint} against {refs or 'no reference'}, "
            f"{self.date}, {mode} mode (`ccsim validate{' --quick' if self.quick else ''}`)."
        )

    def summary(self, previous: str = "") -> str:
        """The table of suites: checks within tolerance, explained, failing, time, and
        when and with what each row was measured. Rows of suites this run did not run
        are kept from ``previous`` (an earlier summary), so that runs of some suites
        update their rows and leave the others'."""
        kept = summary_rows(previous)
        mode = "quick" if self.quick else "full"
        refs = {k: f"{k} {v}".strip() for k, v in self.versions.items()}
        lines = [
            self.stamp(),
            "",
            "| suite | reference | seeds | checks within tolerance | outside, explained "
            "| outside, failing | wall time | measured |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for s in SUITES:
            if s.name in self.results:
                r = self.results[s.name]
                lines.append(
                    f"| [{s.name}](#{s.name}) | {refs.get(s.reference, s.reference)} | "
                    f"{r.seeds} | {r.passed} of {r.checked} | {len(r.explained)} | "
                    f"{len(r.failures)} | {r.wall_s / 60:.1f} min | {self.date}, {mode}, "
                    f"ccsim {self.fingerprint} |"
                )
            elif s.name in kept:
                lines.append(kept[s.name])
            elif s.name in self.skipped:
                lines.append(
                    f"| {s.name} | {s.reference} | — | skipped: {self.skipped[s.name]} | | | | |"
                )
        # Rows of suites this code does not know (written by a newer version): kept.
        known = {s.name for s in SUITES}
        lines += [row for name, row in kept.items() if name not in known]
        return "\n".join(lines)

    def markdown(self) -> str:
        """The whole report: the summary, then per suite its tables and every check."""
        out = ["# ccsim validation report", "", self.summary()]
        for s in SUITES:
            if s.name not in self.results:
                continue
            r = self.results[s.name]
            out += [
                "",
                f"## {s.name}",
                "",
                s.title,
                "",
                r.block,
                "",
                "### Checks",
                "",
                VERDICT_HEAD,
            ]
            out += [v.row() for v in r.verdicts]
            if r.explained:
                out += ["", "Outside tolerance with a known cause:"]
                out += [f"- {v.line()}" for v in r.explained]
        return "\n".join(out) + "\n"


def summary_rows(text: str) -> dict[str, str]:
    """The measured rows of a summary table, by suite name (skipped rows are not kept).

    >>> summary_rows("| [tcp](#tcp) | ns-2.35 | 10 | 1 of 1 | 0 | 0 | 1 min | x |")
    {'tcp': '| [tcp](#tcp) | ns-2.35 | 10 | 1 of 1 | 0 | 0 | 1 min | x |'}
    """
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| \[([a-z0-9-]+)\]\(#", line)
        if m:
            rows[m.group(1)] = line
    return rows


def validate(
    names: list[str] | None = None,
    *,
    quick: bool = False,
    only: str | None = None,
    jobs: int | None = None,
    out: str | os.PathLike | None = "ccsim-validation",
    write: str | os.PathLike | None = None,
    progress: bool = True,
) -> Report:
    """Run the validation suites ``names`` (all by default) against the references
    installed here.

    ``quick``: fewer seeds and shorter runs (minutes); ``only``: keep the cases whose
    name contains this text; ``jobs``: runs at a time (default: all cores); ``out``:
    directory of ``report.md``; ``write``: a markdown file (``docs/validation.md``)
    whose suite blocks and summary are replaced by this run's.
    """
    jobs = jobs or os.cpu_count() or 1
    suites = select(names)
    results: dict[str, SuiteResult] = {}
    skipped: dict[str, str] = {}
    versions: dict[str, str] = {}
    for s in suites:
        if not s.available():
            skipped[s.name] = f"{s.reference} not installed ({s.needs}; {s.install})"
            if progress:
                print(f"{s.name}: skipped: {skipped[s.name]}", file=sys.stderr)
            continue
        versions[s.reference] = reference_version(s)
        if progress:
            m = s.minutes[0 if quick else 1]
            print(f"== {s.name}: {s.title} (about {m:g} min on two cores)", file=sys.stderr)
        t = time.perf_counter()
        r = s.run(quick, only, jobs)
        r.wall_s = r.wall_s or time.perf_counter() - t
        results[s.name] = r
        if progress:
            print(
                f"   {r.passed} of {r.checked} checks within tolerance, {len(r.explained)} "
                f"explained, {len(r.failures)} failing ({r.wall_s:.0f} s)",
                file=sys.stderr,
            )
            for v in r.failures:
                print(f"   FAIL {v.line()}", file=sys.stderr)
    report = Report(
        quick,
        results,
        skipped,
        fingerprint(),
        versions,
        datetime.date.today().isoformat(),
    )
    if out is not None:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "report.md").write_text(report.markdown())
        if progress:
            print(f"report: {d / 'report.md'}", file=sys.stderr)
    if write is not None and results:
        path = Path(write)
        for s in suites:
            if s.name in results:
                stamp = report.stamp()
                replace_block(path, f"{stamp}\n\n{results[s.name].block}", *s.marks)
        replace_block(
            path, report.summary(read_block(path, MARK_BEGIN, MARK_END)), MARK_BEGIN, MARK_END
        )
    return report
