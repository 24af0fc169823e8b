"""Speed guard: the engine's instruction counts and peak memory on fixed runs, against a
baseline kept in the repository (``benches/guard.json``). CI runs ``check`` through
``tests/test_speed_guard.py``.

    python benches/guard.py check [--bin PATH] [--only NAME]
    python benches/guard.py update --reason "why the numbers moved" [--only NAME] [--bin PATH]

Each run is a scenario file in ``benches/guard/`` given to the engine binary
``target/release/examples/run`` (built first with ``cargo build --release -p ccsim-core
--example run`` unless ``--bin`` or ``--no-build`` is given). The speed runs go under
valgrind's cachegrind (``--cache-sim=no``): the count of instructions executed does not
move with machine load (a few thousand in 10^8 between runs). The memory run goes
natively; its peak resident set (max RSS, from ``wait4``) is the median of three.

``check`` prints one row per run (baseline, now, change) and exits 1 naming each run more
than its tolerance above the baseline (instructions 3 %, peak RSS 5 %), or missing from
either side; a run that shrank by more than its tolerance passes with a note that its
baseline can be lowered. ``update`` measures and rewrites the baseline with the date, the
short commit and the reason (required); the previous baselines stay in a history list,
newest first (at most 20). Commit the new ``benches/guard.json`` with the change.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUARD_DIR = ROOT / "benches" / "guard"
BASELINE = ROOT / "benches" / "guard.json"
DEFAULT_BIN = ROOT / "target" / "release" / "examples" / "run"
BUILD = ["cargo", "build", "--release", "-p", "ccsim-core", "--example", "run"]
HISTORY_CAP = 20
MEMORY_REPEAT = 3

INSTRUCTIONS = "instructions"
PEAK_RSS = "peak_rss_kb"
#: Largest growth over the baseline that passes, per measure (a fraction).
TOLERANCE = {INSTRUCTIONS: 0.03, PEAK_RSS: 0.05}
LABEL = {INSTRUCTIONS: "instructions", PEAK_RSS: "peak RSS (KB)"}


@dataclass(frozen=True)
class Run:
    name: str
    measure: str
    what: str

    @property
    def scenario(self) -> Path:
        return GUARD_DIR / f"{self.name}.toml"


#: The fixed runs, longest first (they are measured two at a time on a 2-core machine).
RUNS = (
    Run("workload", INSTRUCTIONS, "5 000 short TCP connections (open loop), 1 Gbps"),
    Run("bbr", INSTRUCTIONS, "4 BBR flows, 100 Mbps, 10 s"),
    Run("aqm-codel", INSTRUCTIONS, "8 CUBIC flows with ECN over CoDel, 100 Mbps, 10 s"),
    Run("dumbbell-200", INSTRUCTIONS, "200 NewReno flows, 200 Mbps, RTT 100 ms, 5 s"),
    Run("dumbbell-8", INSTRUCTIONS, "8 NewReno flows, 100 Mbps, 10 s (bench dumbbell)"),
    Run("memory-1000", PEAK_RSS, "1 000 NewReno flows, 1 Gbps, 2 s (native)"),
)


class GuardError(Exception):
    """A run that could not be measured, or a baseline that cannot be used."""


# ---------------------------------------------------------------------------------------
# Comparison (no processes: unit-tested in tests/test_speed_guard.py)


@dataclass
class Row:
    name: str
    measure: str
    baseline: int | None
    now: int | None
    change: float | None  # now / baseline - 1

    def cells(self) -> list[str]:
        pct = "-" if self.change is None else f"{100 * self.change:+.2f} %"
        return [self.name, LABEL[self.measure], _num(self.baseline), _num(self.now), pct]


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


@dataclass
class Verdict:
    rows: list[Row] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # one line per failing run
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def compare(
    baseline_runs: dict,
    measured: dict[str, int],
    errors: dict[str, str] | None = None,
    runs=None,
    tolerance=TOLERANCE,
) -> Verdict:
    """`baseline_runs` (name -> {measure: value}, as in guard.json) against `measured`
    (name -> value) for `runs` (default: RUNS); `errors`: name -> why a run has no
    measurement."""
    runs = RUNS if runs is None else runs
    errors = errors or {}
    verdict = Verdict()
    for run in runs:
        base = baseline_runs.get(run.name, {}).get(run.measure)
        now = measured.get(run.name)
        change = None if base is None or now is None else now / base - 1
        verdict.rows.append(Row(run.name, run.measure, base, now, change))
        tol = tolerance[run.measure]
        if now is None:
            why = errors.get(run.name, "no measurement")
            verdict.failures.append(f"{run.name}: not measured: {why}")
        elif base is None:
            verdict.failures.append(
                f"{run.name}: no baseline for it in {BASELINE.name}: record one with "
                f'python benches/guard.py update --only {run.name} --reason "new run"'
            )
        elif change > tol:
            verdict.failures.append(
                f"{run.name}: {LABEL[run.measure]} {base:,} -> {now:,} "
                f"({100 * change:+.2f} %, tolerance +{100 * tol:g} %)"
            )
        elif change < -tol:
            verdict.notes.append(
                f"{run.name}: {LABEL[run.measure]} {100 * -change:.2f} % below the baseline "
                f"(more than {100 * tol:g} %): the baseline can be lowered with "
                f'python benches/guard.py update --only {run.name} --reason "..."'
            )
    names = {run.name for run in runs}
    for name in sorted(set(baseline_runs) - names):
        verdict.notes.append(f"{name}: in the baseline but no longer a run (dropped at update)")
    return verdict


def updated_baseline(
    old: dict | None,
    measured: dict[str, int],
    reason: str,
    date: str,
    commit: str,
    tools: dict | None = None,
    only: list[str] | None = None,
    runs=None,
) -> dict:
    """The new baseline: `measured` (every run, or the runs in `only` over the old
    baseline's others), stamped with `reason`, `date` and `commit`; the old one's stamp
    and numbers go first in the history. Raises GuardError without a reason."""
    runs = RUNS if runs is None else runs
    reason = (reason or "").strip()
    if not reason:
        raise GuardError('a baseline update needs a reason: --reason "why the numbers moved"')
    by_name = {run.name: run for run in runs}
    names = only or list(by_name)
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise GuardError(f"unknown run {', '.join(unknown)} (runs: {', '.join(by_name)})")
    missing = [n for n in names if n not in measured]
    if missing:
        raise GuardError(f"not measured: {', '.join(missing)}")
    # With `only`, the other runs keep their old numbers.
    new_runs = dict((old or {}).get("runs", {})) if only else {}
    for n in names:
        new_runs[n] = {by_name[n].measure: measured[n]}
    history = list((old or {}).get("history", []))
    if old:
        previous = {k: old[k] for k in ("date", "commit", "reason", "runs") if k in old}
        history.insert(0, previous)
    return {
        "about": "speed guard baseline (benches/guard.py): instructions under cachegrind, "
        "peak RSS in KB; rewrite it with: python benches/guard.py update --reason TEXT",
        "date": date,
        "commit": commit,
        "reason": reason,
        "tools": tools or {},
        "runs": {run.name: new_runs[run.name] for run in runs if run.name in new_runs},
        "history": history[:HISTORY_CAP],
    }


def table(rows: list[Row]) -> str:
    lines = [["run", "measure", "baseline", "now", "change"]] + [r.cells() for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(5)]
    out = []
    for line in lines:
        left = [c.ljust(w) for c, w in zip(line[:2], widths)]
        right = [c.rjust(w) for c, w in zip(line[2:], widths[2:])]
        out.append("  ".join(left + right))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# Measuring


def instructions(binary: Path, scenario: Path, tmp: Path) -> int:
    """Instructions executed by `binary scenario` under cachegrind."""
    out, log = tmp / f"{scenario.stem}.cg", tmp / f"{scenario.stem}.log"
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        f"--cachegrind-out-file={out}",
        f"--log-file={log}",
        str(binary),
        str(scenario),
    ]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        text = p.stderr.strip() or (log.read_text().strip() if log.exists() else "")
        raise GuardError(f"exit status {p.returncode}: {text[-500:]}")
    m = re.search(r"^summary:\s*(\d+)", out.read_text() if out.exists() else "", re.M)
    if not m:
        raise GuardError(f"no instruction count in cachegrind's output ({log})")
    return int(m.group(1))


def peak_rss_kb(binary: Path, scenario: Path, repeat: int = MEMORY_REPEAT) -> int:
    """Median over `repeat` native runs of the process's max RSS (KB)."""
    values = []
    for _ in range(repeat):
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(
                [str(binary), str(scenario)], stdout=subprocess.DEVNULL, stderr=err
            )
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                err.seek(0)
                text = err.read().decode(errors="replace").strip()
                raise GuardError(f"exit status {proc.returncode}: {text[-500:]}")
            values.append(usage.ru_maxrss)  # KB on Linux
    return int(statistics.median(values))


def measure(binary: Path, runs, jobs: int) -> tuple[dict[str, int], dict[str, str]]:
    """Every run's number (name -> value) and the errors of those that failed."""
    if not binary.is_file():
        raise GuardError(f"no engine binary at {binary} (build it: {' '.join(BUILD)})")
    if any(r.measure == INSTRUCTIONS for r in runs) and shutil.which("valgrind") is None:
        raise GuardError("valgrind is not installed (Debian package valgrind)")
    values: dict[str, int] = {}
    errors: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="ccsim-guard-") as tmp:

        def one(run: Run):
            try:
                if run.measure == INSTRUCTIONS:
                    values[run.name] = instructions(binary, run.scenario, Path(tmp))
                else:
                    values[run.name] = peak_rss_kb(binary, run.scenario)
            except (GuardError, OSError) as e:
                errors[run.name] = str(e)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(one, runs))
    return values, errors


def build() -> None:
    if shutil.which("cargo") is None:
        print("cargo not found: measuring the engine binary as it is", file=sys.stderr)
        return
    p = subprocess.run(BUILD, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise GuardError(f"{' '.join(BUILD)} failed:\n{p.stderr[-3000:]}")


def _output(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def commit() -> str:
    """Short commit of HEAD, "-dirty" where the engine (crates/) has uncommitted changes."""
    head = _output(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    dirty = _output(["git", "status", "--porcelain", "--", "crates"])
    return f"{head}-dirty" if dirty else head


def tools() -> dict:
    return {
        "rustc": _output(["rustc", "--version"]),
        "valgrind": _output(["valgrind", "--version"]),
    }


def load_baseline(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise GuardError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(data.get("runs"), dict):
        raise GuardError(f"{path}: no 'runs' table")
    return data


# ---------------------------------------------------------------------------------------
# Command line


def _select(only: list[str] | None) -> list[Run]:
    if not only:
        return list(RUNS)
    by_name = {run.name: run for run in RUNS}
    unknown = [n for n in only if n not in by_name]
    if unknown:
        raise GuardError(f"unknown run {', '.join(unknown)} (runs: {', '.join(by_name)})")
    return [by_name[n] for n in only]


def _binary(args) -> Path:
    if args.bin:
        return Path(args.bin).resolve()
    if not args.no_build:
        build()
    return DEFAULT_BIN


def cmd_check(args) -> int:
    runs = _select(args.only)
    baseline = load_baseline(args.baseline)
    if baseline is None:
        print(
            f"no baseline ({args.baseline}): record one with\n"
            '    python benches/guard.py update --reason "initial baseline"'
        )
        return 1
    binary = _binary(args)
    t0 = time.monotonic()
    values, errors = measure(binary, runs, args.jobs)
    verdict = compare(baseline["runs"], values, errors, runs=runs)
    print(f"speed guard: {binary}")
    print(table(verdict.rows))
    print(
        f"baseline {baseline.get('date', '?')}, commit {baseline.get('commit', '?')}: "
        f"{baseline.get('reason', '')}"
    )
    print(
        f"tolerance: instructions +{100 * TOLERANCE[INSTRUCTIONS]:g} %, "
        f"peak RSS +{100 * TOLERANCE[PEAK_RSS]:g} %; measured in {time.monotonic() - t0:.1f} s"
    )
    for note in verdict.notes:
        print(f"note: {note}")
    if verdict.ok:
        print("speed guard: OK")
        return 0
    names = ", ".join(f.split(":")[0] for f in verdict.failures)
    print(f"speed guard: FAILED ({names})")
    for failure in verdict.failures:
        print(f"  {failure}")
    was = baseline.get("tools", {}).get("rustc")
    now = tools()["rustc"]
    if was and now and was != now:
        print(f"note: the baseline was recorded with {was}, this is {now}")
    print(
        "If the cost is intended, record the new numbers with the reason and commit "
        f"{BASELINE.relative_to(ROOT)}:\n"
        '    python benches/guard.py update --reason "what costs more and why" [--only NAME]'
    )
    return 1


def cmd_update(args) -> int:
    if not (args.reason or "").strip():
        print('error: a baseline update needs a reason: --reason "why the numbers moved"')
        return 2
    runs = _select(args.only)
    old = load_baseline(args.baseline)
    binary = _binary(args)
    t0 = time.monotonic()
    values, errors = measure(binary, runs, args.jobs)
    if errors:
        for name, why in errors.items():
            print(f"{name}: not measured: {why}")
        print("baseline not updated")
        return 1
    new = updated_baseline(
        old,
        values,
        args.reason,
        date=datetime.date.today().isoformat(),
        commit=commit(),
        tools=tools(),
        only=args.only,
    )
    verdict = compare((old or {}).get("runs", {}), values, runs=runs)
    print(table(verdict.rows))
    args.baseline.write_text(json.dumps(new, indent=2) + "\n")
    print(
        f"wrote {args.baseline} ({new['date']}, commit {new['commit']}: {new['reason']}) "
        f"in {time.monotonic() - t0:.1f} s; commit it with the change"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (
        ("check", "measure and compare with the baseline (exit 1 over tolerance)"),
        ("update", "measure and rewrite the baseline (needs --reason)"),
    ):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--bin", help=f"engine binary (default: build and use {DEFAULT_BIN})")
        p.add_argument("--no-build", action="store_true", help="do not run cargo build first")
        p.add_argument("--only", action="append", metavar="NAME", help="this run only")
        p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at once")
        p.add_argument("--baseline", type=Path, default=BASELINE, help=argparse.SUPPRESS)
        if name == "update":
            p.add_argument("--reason", required=True, help="why the numbers moved (recorded)")
    args = parser.parse_args(argv)
    try:
        return cmd_check(args) if args.command == "check" else cmd_update(args)
    except GuardError as e:
        print(f"error: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
