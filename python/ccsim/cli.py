"""Command line: ``ccsim run | sweep | results | plot | compare | bench | list | reproduce |
validate``.

Exit codes: 0 success, 1 the run failed (a model invariant was violated),
2 bad input (scenario, arguments), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

import ccsim
from ccsim.progress import ProgressBar
from ccsim.errors import StoreError, SweepError

EPILOG = """
scenario keys are documented in docs/user-guide.md; every key can be overridden with
--set key.path=value (e.g. --set duration=200s --set seed=7
--set topology.bottleneck.queue.limit=0.5bdp --set flows[0].cc=reno).
"""


def _fail(msg: str, code: int = 2) -> int:
    print(f"ccsim: error: {msg}", file=sys.stderr)
    return code


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line (``ccsim: error: ...``) and exit 2."""

    def error(self, message: str):
        self.exit(2, f"ccsim: error: {self.prog.removeprefix('ccsim ')}: {message} (see --help)\n")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {n}")
    return n


def _os_error(e: OSError) -> str:
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return str(e)


#: Queues ``ccsim run`` lists: the busiest by utilization.
SHOWN_QUEUES = 4


def _print_summary(r: ccsim.Results) -> None:
    """The run's facts, busiest queues, flows and connections, read from the
    engine's columns (no DataFrame is built: a run with ``--out`` never imports
    pandas)."""
    s = r.summary
    warm = s.get("warmup_s", 0) or 0
    window = f"after the {warm:g} s warm-up" if warm else "whole run"
    print(
        f"simulated {s['duration_s']:g} s in {s['wall_s']:.3f} s wall "
        f"({s['events']} events, {s['events_per_s'] / 1e6:.2f} M events/s, "
        f"{s['sim_s_per_wall_s']:.1f} sim-s per wall-s)"
    )
    print(
        f"packets (whole run): created {s['packets_created']}, delivered "
        f"{s['packets_delivered']}, dropped {s['packets_dropped']}, in flight at end "
        f"{s['packets_in_flight']}"
    )

    def rows(table: str, names: list[str]) -> list[dict]:
        cols = [r.column(table, n) for n in names]
        return [dict(zip(names, vals)) for vals in zip(*cols)]

    names = [
        "queue",
        "departures",
        "utilization",
        "drops",
        "mean_len_pkts",
        "max_len_pkts",
        "limit",
    ]
    q = rows("queues", names)
    used = [row for row in q if row["departures"] > 0]
    busy = sorted(used, key=lambda row: -row["utilization"])[:SHOWN_QUEUES]  # stable, as pandas'
    if busy:
        print(
            f"queues ({window}; the {len(busy)} busiest by utilization of {len(used)} "
            f"with traffic, {len(q)} in all):"
        )
    for row in busy:
        print(
            f"  {row['queue']:<12} util {row['utilization'] * 100:6.2f}%  "
            f"drops {row['drops']:>7}  mean {row['mean_len_pkts']:8.2f} pkt  "
            f"max {row['max_len_pkts']} pkt  limit {row['limit']}"
        )
    gp = r.column("flows", "goodput_bps")
    if gp:
        print(
            f"flows: {len(gp)}, goodput ({window}) total {sum(gp) / 1e6:.3f} Mbps "
            f"(min {min(gp) / 1e6:.3f}, max {max(gp) / 1e6:.3f}), "
            f"retransmits (whole run) {int(sum(r.column('flows', 'retransmits')))}, "
            f"timeouts {int(sum(r.column('flows', 'timeouts')))}"
        )
    rt_all = r.column("connections", "response_time_s")
    rt = [x for x in rt_all if x == x]  # not NaN
    if rt_all:
        mean_rt = sum(rt) / len(rt) if rt else float("nan")
        print(
            f"connections: {s['connections_started']} started, {s['connections_completed']} "
            f"completed (at most {s['connections_peak_alive']} alive), "
            f"mean response time {mean_rt:.4f} s, "
            f"retransmits {int(sum(r.column('connections', 'retransmits')))}, "
            f"timeouts {int(sum(r.column('connections', 'timeouts')))}"
        )
    names = ["workload", "direction", "load_realised_bps", "load_requested_bps"]
    for w in rows("workloads", names):
        print(
            f"  workload {w['workload']} ({w['direction']}): offered load "
            f"{w['load_realised_bps'] / 1e6:.3f} Mbps realised, "
            f"{w['load_requested_bps'] / 1e6:.3f} Mbps requested"
        )


def _run_with_bar(path, overrides, quiet: bool) -> ccsim.Results:
    import warnings

    bar = ProgressBar("simulating", unit="s", delay=1.0, enabled=not quiet)
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = ccsim.run(path, overrides=overrides, progress=bar.update)
    finally:
        bar.close()
    for w in seen:  # one line each, as errors are
        print(f"ccsim: warning: {w.message}", file=sys.stderr)
    return r


def cmd_run(a: argparse.Namespace) -> int:
    from ccsim.results import check_output_dir

    if a.plot and not a.out:
        return _fail("run: --plot needs --out DIR (the plots go to DIR/plots)")
    if a.out:
        check_output_dir(a.out, a.force)  # refuse before running, not after
    r = _run_with_bar(a.scenario, a.set, a.quiet)
    if not a.quiet:
        _print_summary(r)
    if a.out:
        d = r.save(a.out, force=a.force)
        if not a.quiet:
            extra = f", {', '.join(sorted(r.files))}" if r.files else ""
            print(f"wrote {d}/summary.json and Parquet tables{extra}")
        if a.plot:
            _report_plots(r.plot(out=Path(d) / "plots", fmt=a.format))
    return 0


def _report_plots(paths) -> None:
    for p in paths:
        print(f"wrote {p}")


def _not_results(d: Path) -> str | None:
    """Why ``d`` is not a saved run, or None."""
    if not d.is_dir():
        return f"{d}: not a directory (expected a run saved with `ccsim run --out DIR`)"
    if not (d / "manifest.json").exists() and not (d / "summary.json").exists():
        return f"{d}: no saved run here (no manifest.json; save one with `ccsim run --out DIR`)"
    return None


def _is_store(d: Path) -> bool:
    from ccsim.store import DB_NAME

    return (d / DB_NAME).exists()


def _table_text(df) -> str:
    """A DataFrame as an aligned text table (no index)."""
    return df.to_string(index=False, float_format=lambda x: f"{x:.6g}")


def cmd_sweep(a: argparse.Namespace) -> int:
    from ccsim import sweep, sweepfile

    sf = sweepfile.read(a.sweep_file)
    df = sf.sweep.run(
        a.results,
        jobs=a.jobs,
        metrics=sf.metrics,
        progress=not a.quiet,
        scheduler=a.dask,
    )
    failed = df[df["status"] != "done"]
    done = df[df["status"] == "done"]
    if not a.quiet:
        print(
            f"{sf.sweep.experiment}: {len(done)} of {len(df)} points done "
            f"({df.attrs.get('ccsim_ran', 0)} run now, the rest found in {a.results})"
        )
    metrics = [m.name for m in sf.metrics.metrics] if sf.metrics else None
    if len(done):
        agg = sweep.aggregate(done, metrics=metrics)
        print(_table_text(_mean_pm(agg, metrics or list(done.attrs.get("ccsim_metrics", [])))))
    for _, r in failed.iterrows():
        err = str(r.get("error") or "").splitlines()
        print(f"ccsim: point {r['point_id']} failed: {err[-1] if err else '?'}", file=sys.stderr)
    return 1 if len(failed) else 0


def _mean_pm(agg, metrics: list[str]):
    """The aggregate table with one ``mean ± half-width`` column per metric and ``n``."""
    out = agg[[c for c in agg.columns if not any(c.startswith(f"{m}_") for m in metrics)]].copy()
    for m in metrics:
        hw = agg[f"{m}_half_width"]
        out[m] = [
            f"{v:.6g}" + ("" if h != h else f" ± {h:.2g}") for v, h in zip(agg[f"{m}_mean"], hw)
        ]
    if metrics:
        out["n"] = agg[f"{metrics[0]}_n"].astype(int)
    return out


def cmd_results(a: argparse.Namespace) -> int:
    from ccsim.store import open_results

    if not _is_store(a.store):
        return _fail(
            f"{a.store}: no ccsim results store here (no ccsim.duckdb; `ccsim sweep` makes one)"
        )
    res = open_results(a.store, experiment=a.experiment)
    if a.sql:
        df = res.sql(a.sql)
    elif a.csv or a.parquet:
        df = res.metrics
    else:
        where = " WHERE experiment = ?" if a.experiment else ""
        args = [a.experiment] if a.experiment else []
        df = res.sql(
            "SELECT experiment, status, count(*) AS points, min(finished_at) AS first, "
            "max(finished_at) AS last, string_agg(DISTINCT engine, ' ') AS engines "
            f"FROM points{where} GROUP BY experiment, status ORDER BY experiment, status",
            args,
        )
        fails = res.sql(
            f"SELECT experiment, count(*) AS failed FROM failures{where} GROUP BY experiment",
            args,
        )
        if len(fails):
            df = df.merge(fails, on="experiment", how="left")
    if a.csv:
        df.to_csv(a.csv, index=False)
        print(f"wrote {a.csv} ({len(df)} rows)")
    elif a.parquet:
        df.to_parquet(a.parquet, index=False)
        print(f"wrote {a.parquet} ({len(df)} rows)")
    else:
        print(_table_text(df) if len(df) else "(no rows)")
    return 0


def _plot_sweep(a: argparse.Namespace) -> int:
    from ccsim import plots
    from ccsim.store import open_results

    if not (a.x and a.y):
        return _fail(f"plot: {a.result_dir} is a sweep's store: name --x AXIS and --y METRIC")
    res = open_results(a.result_dir, experiment=a.experiment)
    df = res.metrics
    # Points are per engine (their id hashes it): draw the latest engine's, never a mix.
    eng = res.sql(
        "SELECT experiment, point_id, engine, finished_at FROM points WHERE status = 'done'"
        + (" AND experiment = ?" if a.experiment else ""),
        [a.experiment] if a.experiment else [],
    )
    if len(eng):
        latest = eng.sort_values("finished_at")["engine"].iloc[-1]
        ours = eng[eng["engine"] == latest]
        keep = set(zip(ours["experiment"], ours["point_id"]))
        mask = [(e, p) in keep for e, p in zip(df["experiment"], df["point_id"])]
        if not all(mask):
            print(
                f"plot: the points of engine {latest} ({sum(mask)}); "
                f"{len(mask) - sum(mask)} of other engines left out",
                file=sys.stderr,
            )
        attrs = dict(df.attrs)
        df = df[mask]
        df.attrs.update(attrs)
    for opt, col in (("--x", a.x), ("--y", a.y)):
        if col not in df.columns:
            have = ", ".join(c for c in df.columns if c not in ("point_id", "experiment"))
            return _fail(f"plot: {opt} {col!r} is not a column of the store; columns: {have}")
    out = a.out or a.result_dir / "plots"
    _report_plots([plots.sweep_plot(df, a.x, a.y, out, fmt=a.format)])
    return 0


def cmd_plot(a: argparse.Namespace) -> int:
    from ccsim import plots

    if _is_store(a.result_dir):
        return _plot_sweep(a)

    bad = [p for p in a.panels or [] if p not in plots.PANELS]
    if bad:
        return _fail(f"plot: no panel {bad[0]!r}; panels: {', '.join(plots.PANELS)}")
    why = _not_results(a.result_dir)
    if why:
        return _fail(why)
    r = ccsim.Results.load(a.result_dir)
    out = a.out or a.result_dir / "plots"
    _report_plots(r.plot(what=a.panels, out=out, fmt=a.format))
    return 0


def cmd_compare(a: argparse.Namespace) -> int:
    from ccsim import plots, report

    dirs = a.result_dirs
    if len(dirs) < 2:
        return _fail("compare: name at least two result directories")
    for d in dirs:
        why = _not_results(d)
        if why:
            return _fail(why)
    names = [d.name or str(d) for d in dirs]
    if len(set(names)) < len(names):
        names = [str(d) for d in dirs]
    runs = [(n, ccsim.Results.load(d)) for n, d in zip(names, dirs)]
    table = report.compare(runs)
    print(report.compare_text(table, names))
    if a.csv:
        table.to_csv(a.csv, index=False)
        print(f"wrote {a.csv}")
    if a.plot:
        _report_plots(plots.overlay(runs, a.plot, fmt=a.format))
    return 0


def cmd_bench(a: argparse.Namespace) -> int:
    """Run a scenario several times and report the best speed."""
    if a.scenario is None:
        from ccsim.scenarios import path

        a.scenario = path("bench-dumbbell-8")
    best = None
    for _ in range(a.repeat):
        r = ccsim.run(a.scenario, overrides=a.set)
        if best is None or r.summary["wall_s"] < best.summary["wall_s"]:
            best = r
    s = best.summary
    out = {
        "scenario": str(a.scenario),
        "wall_s": s["wall_s"],
        "events": s["events"],
        "events_per_s": s["events_per_s"],
        "data_packets_delivered": s["data_packets_delivered"],
        "delivered_data_packets_per_s": s["data_packets_delivered"] / s["wall_s"],
        "sim_s_per_wall_s": s["sim_s_per_wall_s"],
    }
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        print(
            f"{out['scenario']}: best of {a.repeat}: {out['wall_s']:.3f} s wall, "
            f"{out['events_per_s'] / 1e6:.2f} M events/s, "
            f"{out['delivered_data_packets_per_s'] / 1e3:.0f} k delivered data packets/s, "
            f"{out['sim_s_per_wall_s']:.1f} simulated s per wall s"
        )
    return 0


def cmd_list(a: argparse.Namespace) -> int:
    from ccsim import experiments

    for e in experiments.all_experiments():
        print(f"{e.name:<28} {e.title}")
    return 0


def cmd_schema(a: argparse.Namespace) -> int:
    text = ccsim.scenario_schema(text=True)
    if a.out is None:
        sys.stdout.write(text)
    else:
        Path(a.out).write_text(text, encoding="utf-8")
        print(f"wrote {a.out}", file=sys.stderr)
    return 0


def _expand(names: list[str], known: list[str]) -> list[str]:
    """Experiment names, a paper's prefix (``bmcc``) standing for all of its experiments
    (``bmcc-convergence``, ``bmcc-routers``, ...)."""
    out: list[str] = []
    for n in names:
        group = [k for k in known if k.startswith(f"{n}-")] if n not in known else [n]
        out += [k for k in (group or [n]) if k not in out]
    return out


def cmd_reproduce(a: argparse.Namespace) -> int:
    from ccsim import experiments

    known = [e.name for e in experiments.all_experiments()]
    names = known if a.all else _expand(a.names, known)
    if not names:
        return _fail("name an experiment (see `ccsim list`) or use --all")
    unknown = [n for n in names if n not in known]
    if unknown:
        return _fail(f"no experiment {unknown[0]!r}; experiments: {', '.join(known)}")
    for d in (a.results, a.out):
        if d is not None and d.exists() and not d.is_dir():
            return _fail(f"{d} is a file, not a directory")
    ok = experiments.reproduce(
        names, quick=a.quick, jobs=a.jobs, results_dir=a.results, out_dir=a.out
    )
    if not ok:
        print(
            f"{len(ok.failed)} checks did not pass, {len(ok.unexplained)} of them without a "
            "known cause:",
            file=sys.stderr,
        )
        for exp, what in ok.failed:
            tag = "no known cause" if (exp, what) in ok.unexplained else "explained in the report"
            print(f"  FAIL {exp}: {what} ({tag})", file=sys.stderr)
    return ok.exit_status(a.strict)


def cmd_validate(a: argparse.Namespace) -> int:
    from ccsim import validation

    try:
        suites = validation.select(a.suites)
    except KeyError as e:
        return _fail(e.args[0])
    if a.write is not None and not a.write.is_file():
        return _fail(f"--write {a.write}: no such markdown file")
    report = validation.validate(
        [s.name for s in suites],
        quick=a.quick,
        only=a.only,
        jobs=a.jobs,
        out=a.out,
        write=a.write,
    )
    if not report.results:
        print("ccsim validate: no reference simulator installed; nothing compared", file=sys.stderr)
        return 0
    return 1 if report.failures else 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="ccsim",
        description="ccsim: fast packet-level network simulator for congestion-control research.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--version",
        action="version",
        version=f"ccsim {ccsim.__version__} (engine {ccsim.fingerprint()})",
    )
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)

    _add_run_parser(sub)
    _add_sweep_parsers(sub)
    _add_saved_run_parsers(sub)
    _add_utility_parsers(sub)
    _add_paper_parsers(sub)
    return p


def _add_run_parser(sub) -> None:
    """``ccsim run``: one scenario file."""
    r = sub.add_parser(
        "run",
        help="run one scenario file",
        description="Run one scenario: print a short summary, optionally write DIR/summary.json "
        "and Parquet tables (flows, queues, time series, connections).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("scenario", type=Path, help="scenario TOML file")
    r.add_argument(
        "--out",
        type=Path,
        help="directory for summary.json and Parquet tables (new, empty, or an earlier "
        "run's, which is replaced)",
    )
    r.add_argument(
        "--force",
        action="store_true",
        help="write into --out even if it holds other files (they are left alone)",
    )
    r.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override a scenario key (repeatable)",
    )
    r.add_argument("-q", "--quiet", action="store_true", help="no summary, no progress bar")
    r.add_argument(
        "--plot", action="store_true", help="also plot the run into OUT/plots (see `ccsim plot`)"
    )
    r.add_argument("--format", choices=["png", "svg"], default="png", help="plot format")
    r.set_defaults(fn=cmd_run)


def _add_sweep_parsers(sub) -> None:
    """``ccsim sweep`` and ``ccsim results``: sweeps and their results store."""
    sw = sub.add_parser(
        "sweep",
        help="run a sweep described in a TOML file",
        description="Run a sweep file (base scenario, axes, zip, replications, experiment, "
        "metrics; docs/sweeps.md): the points not yet in the results store, in parallel or "
        "on a Dask cluster; then print mean and confidence half-width per configuration. "
        "A rerun resumes: finished points are kept. Exits 1 if a point failed.",
    )
    sw.add_argument("sweep_file", type=Path, metavar="SWEEP.toml")
    sw.add_argument(
        "--results", type=Path, default=Path("ccsim-results"), help="results store directory"
    )
    sw.add_argument("--jobs", type=_positive, default=None, help="worker processes")
    sw.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler instead")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    sw.set_defaults(fn=cmd_sweep)

    rs = sub.add_parser(
        "results",
        help="list, query or export a results store",
        description="A sweep's results store: list its experiments with their points, "
        "status and engine fingerprints; --sql runs a DuckDB query (tables in "
        "docs/sweeps.md); --csv/--parquet export the query, or the wide metrics table.",
    )
    rs.add_argument("store", type=Path, metavar="DIR")
    rs.add_argument("--experiment", help="only this experiment")
    rs.add_argument("--sql", metavar="QUERY", help="a read-only DuckDB query")
    ex = rs.add_mutually_exclusive_group()
    ex.add_argument("--csv", type=Path, metavar="FILE", help="write the rows to a CSV file")
    ex.add_argument("--parquet", type=Path, metavar="FILE", help="write the rows to Parquet")
    rs.set_defaults(fn=cmd_results)


def _add_saved_run_parsers(sub) -> None:
    """``ccsim plot`` and ``ccsim compare``: saved runs (and a sweep's plot)."""
    pl = sub.add_parser(
        "plot",
        help="plot a saved run, or a sweep",
        description="Plot a run saved with `ccsim run --out DIR`: queue length, cwnd and "
        "ssthresh, per-flow throughput and RTT over time (these need [monitor] interval), "
        "drops and ECN marks; one file per panel. Given a sweep's results store, plot "
        "--y METRIC against --x AXIS (mean and 95 %% interval over replications, a line "
        "per combination of the other parameters).",
    )
    pl.add_argument("result_dir", type=Path, metavar="RESULT_DIR")
    pl.add_argument("--out", type=Path, help="directory for the figures (default RESULT_DIR/plots)")
    pl.add_argument("--format", choices=["png", "svg"], default="png")
    pl.add_argument("--x", metavar="AXIS", help="a sweep: the parameter on the x axis")
    pl.add_argument("--y", metavar="METRIC", help="a sweep: the metric on the y axis")
    pl.add_argument("--experiment", help="a sweep: this experiment of the store")
    pl.add_argument(
        "--panel",
        dest="panels",
        action="append",
        metavar="NAME",
        help="only this panel (repeatable): queue, cwnd, throughput, rtt, drops",
    )
    pl.set_defaults(fn=cmd_plot)

    cp = sub.add_parser(
        "compare",
        help="compare saved runs side by side",
        description="Print the flows' and queues' main metrics of saved runs side by side, "
        "with the difference of the last from the first; optionally overlay their time series.",
    )
    cp.add_argument("result_dirs", type=Path, nargs="+", metavar="RESULT_DIR")
    cp.add_argument("--plot", type=Path, metavar="DIR", help="write overlaid time series here")
    cp.add_argument("--format", choices=["png", "svg"], default="png")
    cp.add_argument("--csv", type=Path, help="also write the table as CSV")
    cp.set_defaults(fn=cmd_compare)


def _add_utility_parsers(sub) -> None:
    """``ccsim bench``, ``ccsim list`` and ``ccsim schema``: engine speed, the
    reproductions, the scenario format."""
    b = sub.add_parser(
        "bench",
        help="measure engine speed on a scenario",
        description="Run a scenario REPEAT times and report the best wall time, events/s, "
        "delivered data packets per wall second and simulated seconds per wall second.",
    )
    b.add_argument(
        "scenario",
        type=Path,
        nargs="?",
        default=None,
        help="scenario TOML file (default: the bundled bench-dumbbell-8, see `ccsim.scenarios`)",
    )
    b.add_argument("--repeat", type=_positive, default=3, help="runs (best is reported), default 3")
    b.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(fn=cmd_bench)

    ls = sub.add_parser("list", help="list the paper reproductions")
    ls.set_defaults(fn=cmd_list)

    sc = sub.add_parser(
        "schema",
        help="print the scenario format as a JSON Schema (for editors; docs/user-guide.md)",
    )
    sc.add_argument("--out", metavar="FILE", help="write it to FILE instead of stdout")
    sc.set_defaults(fn=cmd_schema)


def _add_paper_parsers(sub) -> None:
    """``ccsim reproduce`` and ``ccsim validate``: papers' experiments and the
    reference simulators."""
    rp = sub.add_parser(
        "reproduce",
        help="reproduce papers' experiments (figures + report.md)",
        description="Run paper reproductions; results go to the result store (finished points are "
        "reused), figures and report.md to OUT/<experiment>/.",
    )
    rp.add_argument(
        "names",
        nargs="*",
        help="experiment names (see `ccsim list`), or a paper's prefix for all of its "
        "experiments (`bmcc`)",
    )
    rp.add_argument("--all", action="store_true", help="every experiment")
    rp.add_argument("--quick", action="store_true", help="shorter runs and coarser grids (minutes)")
    rp.add_argument(
        "--jobs", type=_positive, default=None, help="worker processes (default: all cores)"
    )
    rp.add_argument(
        "--results", type=Path, default=Path("ccsim-results"), help="result store directory"
    )
    rp.add_argument(
        "--out", type=Path, default=None, help="figures/report directory (default: RESULTS/reports)"
    )
    rp.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if any paper check fails (default: only if one fails without a known cause)",
    )
    rp.set_defaults(fn=cmd_reproduce)

    va = sub.add_parser(
        "validate",
        help="compare ccsim with the reference simulators installed here (ns-2.35, ns-3, htsim)",
        description="Run validation suites: each case in the reference simulator and in ccsim "
        "over seeds, every quantity against its tolerance; writes OUT/report.md. Exits 1 if "
        "a difference is outside its tolerance without a known cause. Suites whose reference "
        "is not installed are skipped with a one-line note.",
        formatter_class=_WholeNames,
    )
    va.add_argument(
        "suites",
        nargs="*",
        help="suites to run (default: all): tcp, queues, bmcc-mix, blt-tcp, buc-fifo, vcp, westwood, "
        "modern, htsim-fabric, htsim-transports",
    )
    va.add_argument("--quick", action="store_true", help="fewer seeds, shorter runs (minutes)")
    va.add_argument("--only", help="run only the cases whose name contains this text")
    va.add_argument(
        "--jobs", type=_positive, default=None, help="runs at a time (default: all cores)"
    )
    va.add_argument(
        "--out", type=Path, default=Path("ccsim-validation"), help="report directory (report.md)"
    )
    va.add_argument(
        "--write",
        type=Path,
        default=None,
        help="regenerate this file's validation blocks (docs/validation.md)",
    )
    va.set_defaults(fn=cmd_validate)


class _WholeNames(argparse.HelpFormatter):
    """Help wrapped between words only, never at a hyphen (``htsim-transports`` stays
    whole)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _user_modules_importable(a: argparse.Namespace) -> None:
    """The modules a scenario's ``kind = "python"`` classes come from: the working
    directory and the directory of each scenario or sweep file named on the command line
    are importable (appended to ``sys.path``, and to ``PYTHONPATH`` for worker
    processes)."""
    from ccsim.extend import importable

    importable(Path.cwd())
    for key in ("scenario", "sweep_file"):
        v = getattr(a, key, None)
        if isinstance(v, (str, Path)) and Path(v).is_file():
            importable(Path(v).resolve().parent)


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    if not getattr(a, "fn", None):
        p.print_help()
        return 2
    _user_modules_importable(a)
    try:
        return a.fn(a)
    except ccsim.ScenarioError as e:
        return _fail(str(e).replace("\n", " "))
    except ccsim.SimulationError as e:
        if e.__cause__ is not None:  # a hook of the user's raised: its traceback first
            traceback.print_exception(e.__cause__, file=sys.stderr)
        return _fail(f"simulation failed: {e}", 1)
    except (StoreError, SweepError) as e:
        return _fail(str(e).replace("\n", " "))
    except KeyboardInterrupt:
        print("\nccsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        sys.stderr.close()
        return 0
    except OSError as e:  # unreadable or unwritable files and directories
        return _fail(_os_error(e))


if __name__ == "__main__":
    sys.exit(main())
