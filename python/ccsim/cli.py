"""Command line: ``ccsim run | bench | list | reproduce | sweep``.

Exit codes: 0 success, 1 the run failed (a model invariant was violated),
2 bad input (scenario, arguments), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
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


def _print_summary(r: ccsim.Results) -> None:
    s = r.summary
    print(
        f"simulated {s['duration_s']:g} s in {s['wall_s']:.3f} s wall "
        f"({s['events']} events, {s['events_per_s'] / 1e6:.2f} M events/s, "
        f"{s['sim_s_per_wall_s']:.1f} sim-s per wall-s)"
    )
    print(
        f"packets: created {s['packets_created']}, delivered {s['packets_delivered']}, "
        f"dropped {s['packets_dropped']}, in flight at end {s['packets_in_flight']}"
    )
    q = r.queues
    busy = q[q["departures"] > 0].sort_values("utilization", ascending=False).head(4)
    for _, row in busy.iterrows():
        print(
            f"  queue {row['queue']:<12} util {row['utilization'] * 100:6.2f}%  "
            f"drops {row['drops']:>7}  mean {row['mean_len_pkts']:8.2f} pkt  max {row['max_len_pkts']} pkt"
        )
    f = r.flows
    if len(f):
        gp = f["goodput_bps"]
        print(
            f"flows: {len(f)}, goodput total {gp.sum() / 1e6:.3f} Mbps "
            f"(min {gp.min() / 1e6:.3f}, max {gp.max() / 1e6:.3f}), "
            f"retransmits {int(f['retransmits'].sum())}, timeouts {int(f['timeouts'].sum())}"
        )


def _run_with_bar(path, overrides, quiet: bool) -> ccsim.Results:
    bar = ProgressBar("simulating", unit="s", delay=1.0, enabled=not quiet)
    try:
        return ccsim.run(path, overrides=overrides, progress=bar.update)
    finally:
        bar.close()


def cmd_run(a: argparse.Namespace) -> int:
    from ccsim.results import check_output_dir

    if a.out:
        check_output_dir(a.out, a.force)  # refuse before running, not after
    r = _run_with_bar(a.scenario, a.set, a.quiet)
    if not a.quiet:
        _print_summary(r)
    if a.out:
        d = r.save(a.out, force=a.force)
        if not a.quiet:
            print(f"wrote {d}/summary.json and Parquet tables")
    return 0


def cmd_bench(a: argparse.Namespace) -> int:
    """Run a scenario several times and report the best speed."""
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


def cmd_reproduce(a: argparse.Namespace) -> int:
    from ccsim import experiments

    known = [e.name for e in experiments.all_experiments()]
    names = known if a.all else a.names
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
        print(f"{len(ok.failed)} checks did not pass:", file=sys.stderr)
        for exp, what in ok.failed:
            print(f"  FAIL {exp}: {what}", file=sys.stderr)
    return 1 if (a.strict and not ok) else 0


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

    r = sub.add_parser(
        "run",
        help="run one scenario file",
        description="Run one scenario: print a short summary, optionally write DIR/summary.json "
        "and Parquet tables (flows, queues, time series).",
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
    r.set_defaults(fn=cmd_run)

    b = sub.add_parser(
        "bench",
        help="measure engine speed on a scenario",
        description="Run a scenario REPEAT times and report the best wall time, events/s, "
        "delivered data packets per wall second and simulated seconds per wall second.",
    )
    b.add_argument(
        "scenario", type=Path, nargs="?", default=Path("scenarios/bench-dumbbell-8.toml")
    )
    b.add_argument("--repeat", type=_positive, default=3, help="runs (best is reported), default 3")
    b.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(fn=cmd_bench)

    ls = sub.add_parser("list", help="list the paper reproductions")
    ls.set_defaults(fn=cmd_list)

    rp = sub.add_parser(
        "reproduce",
        help="reproduce papers' experiments (figures + report.md)",
        description="Run paper reproductions; results go to the result store (finished points are "
        "reused), figures and report.md to OUT/<experiment>/.",
    )
    rp.add_argument("names", nargs="*", help="experiment names (see `ccsim list`)")
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
    rp.add_argument("--strict", action="store_true", help="exit 1 if any paper check fails")
    rp.set_defaults(fn=cmd_reproduce)
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    if not getattr(a, "fn", None):
        p.print_help()
        return 2
    try:
        return a.fn(a)
    except ccsim.ScenarioError as e:
        return _fail(str(e).replace("\n", " "))
    except ccsim.SimulationError as e:
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
