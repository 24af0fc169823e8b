"""ccsim against ns-2.35 for speed, on the same scenarios, on this machine.

    python benches/ns2_speed.py                  # every scenario, best of 3 each
    python benches/ns2_speed.py --only 200 --repeat 1
    python benches/ns2_speed.py --write docs/performance.md
    python benches/ns2_speed.py --scenario my.toml --bottleneck 'R1->R2'

For each scenario the ns-2 script and the ccsim scenario come from the same
description (the dumbbells from ``ccsim.validation.ns2.ns2tcp``, with ns-2's TCP
conventions on both sides; the parking lot written here), so both simulators
carry the same traffic. Measured per simulator:

* whole process: wall time of ``ns script.tcl`` and of ``ccsim run SCENARIO
  --out DIR --quiet`` (interpreter start-up, imports, scenario, run, Parquet tables
  and JSON written), the commands a user runs;
* engine only (ccsim): the run's own CPU and wall time, as the process measured
  them (``summary.json``'s ``cpu_s`` and ``wall_s``: build, simulation, result
  columns), and the rest of the process's wall time ("start-up and output");
* CPU time (user + system, from ``/usr/bin/time``): unlike wall time it hardly
  changes when other work shares the machine, so the ratios use it;
* bottleneck departures per CPU second (whole process, and engine only for
  ccsim), events per second (ccsim), peak memory (maximum resident set size of
  the process, from ``/usr/bin/time``).

The two simulators run alternately (ns-2, ccsim, ns-2, ...; best of each), so
that the machine's drift in speed affects both alike. The ratio is ns-2's
whole-process CPU time over ccsim's whole-process and engine-only CPU times
(the same number of departures, within the small difference between the two
simulators' runs). Where ``ns`` is missing, where
ns-2 does not complete a scenario, or for a scenario file given with
``--scenario`` (which has no ns-2 translation), one line says so and ccsim's own
figures are still reported.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ccsim.validation.mdblock import replace_block
from ccsim.validation.ns2.ns2tcp import Case, ccsim_scenario, tcl


MARK_BEGIN = "<!-- ns2-speed:begin -->"
MARK_END = "<!-- ns2-speed:end -->"


@dataclasses.dataclass
class Bench:
    """A named scenario: its ns-2 script and ccsim scenario."""

    name: str
    #: The ns-2 script; None for a scenario file of the user's (ccsim alone).
    tcl: str | None
    scenario: dict
    #: The link whose departures are counted ("R1->R2" on a dumbbell).
    bottleneck: str = "R1->R2"


def dumbbell(name: str, case: Case) -> Bench:
    return Bench(name, tcl(case, 1), ccsim_scenario(case, 1))


def parking_lot(duration_s: float) -> Bench:
    """Three 100 Mbps / 10 ms bottlenecks in a row; 20 NewReno flows across all of
    them and 20 over each hop alone; 1 Gbps / 1 ms access links, 200-packet
    drop-tail buffers (ns-2 ``limit_`` 201); 1000-B segments, ns-2's conventions."""
    hops = 3
    n_long, n_cross = 20, 20
    routers = [f"r{k}" for k in range(hops + 1)]
    nodes = list(routers)
    links = []
    flows = []
    tl = ["set ns [new Simulator]", *_ns2_tcp_defaults()]
    for r in routers:
        tl.append(f"set n({r}) [$ns node]")
    for k in range(hops):
        a, b = routers[k], routers[k + 1]
        q = {"kind": "droptail", "limit": "200pkt"}
        links.append({"from": a, "to": b, "rate": "100Mbps", "delay": "10ms", "queue": q})
        tl += [
            f"$ns duplex-link $n({a}) $n({b}) 100Mb 10ms DropTail",
            f"$ns queue-limit $n({a}) $n({b}) 201",
            f"$ns queue-limit $n({b}) $n({a}) 201",
        ]
    idx = 0

    def add_flow(src_router: str, dst_router: str, start: float) -> None:
        nonlocal idx
        s, d = f"s{idx}", f"d{idx}"
        nodes.extend([s, d])
        acc = {"rate": "1Gbps", "delay": "1ms", "queue": {"kind": "droptail", "limit": "1000pkt"}}
        links.append({"from": s, "to": src_router, **acc})
        links.append({"from": dst_router, "to": d, **acc})
        flows.append(
            {
                "name": f"f{idx}",
                "src": s,
                "dst": d,
                "cc": "newreno",
                "conventions": "ns2",
                "mss": 960,
                "header": 40,
                "start": f"{start}s",
            }
        )
        tl.extend(
            [
                f"set n({s}) [$ns node]",
                f"set n({d}) [$ns node]",
                f"$ns duplex-link $n({s}) $n({src_router}) 1Gb 1ms DropTail",
                f"$ns duplex-link $n({dst_router}) $n({d}) 1Gb 1ms DropTail",
                f"$ns queue-limit $n({s}) $n({src_router}) 1001",
                f"$ns queue-limit $n({dst_router}) $n({d}) 1001",
                f"set tcp({idx}) [new Agent/TCP/Newreno]",
                f"$ns attach-agent $n({s}) $tcp({idx})",
                f"set sink({idx}) [new Agent/TCPSink]",
                f"$ns attach-agent $n({d}) $sink({idx})",
                f"$ns connect $tcp({idx}) $sink({idx})",
                f"set ftp({idx}) [new Application/FTP]",
                f"$ftp({idx}) attach-agent $tcp({idx})",
                f'$ns at {start} "$ftp({idx}) start"',
            ]
        )
        idx += 1

    for i in range(n_long):
        add_flow(routers[0], routers[-1], round(i * 0.05, 3))
    for k in range(hops):
        for i in range(n_cross):
            add_flow(routers[k], routers[k + 1], round(1 + i * 0.05, 3))
    tl += [
        "set qm [$ns monitor-queue $n(r0) $n(r1) [open /dev/null w] 0.1]",
        "proc finish {} {",
        "  global qm",
        '  puts "Q [$qm set parrivals_] [$qm set pdepartures_] [$qm set pdrops_] [$qm set bdepartures_]"',
        "  exit 0",
        "}",
        f'$ns at {duration_s} "finish"',
        "$ns run",
        "",
    ]
    scenario = {
        "name": "bench-parking-lot",
        "seed": 1,
        "duration": f"{duration_s}s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "flows": flows,
    }
    return Bench(
        "parking lot: 3 × 100 Mbps hops, 80 NewReno flows", "\n".join(tl), scenario, "r0->r1"
    )


def _ns2_tcp_defaults() -> list[str]:
    """ns-2 agent settings matching ccsim's ``conventions = "ns2"`` (see ns2tcp.py)."""
    return [
        "Agent/TCP set packetSize_ 960",
        "Agent/TCP set tcpip_base_hdr_size_ 40",
        "Agent/TCP set window_ 1000000",
        "Agent/TCP set windowInit_ 2",
        "Agent/TCP set syn_ false",
        "Agent/TCP set delay_growth_ false",
        "Agent/TCP set singledup_ 1",
        "Agent/TCP/Newreno set newreno_changes1_ 1",
    ]


def benches(quick: bool) -> list[Bench]:
    """The scenarios of issue 12 (quick: shorter)."""
    k = 0.2 if quick else 1.0
    return [
        dumbbell(
            "8 NewReno flows, 100 Mbps / 20 ms, 100-pkt drop-tail, 1448 B",
            Case(
                "speed-8",
                pairs=8,
                rate_mbps=100,
                delay_ms=20,
                access_mbps=1000,
                access_ms=(1.0, 1.0),
                start_max_s=0.1,
                buffer_pkts=100,
                mss=1448,
                duration_s=300.0 * k,
                warmup_s=0.0,
            ),
        ),
        dumbbell(
            "200 NewReno flows, 200 Mbps, RTT ≈ 100 ms, 250-pkt drop-tail",
            Case(
                "speed-200",
                pairs=200,
                rate_mbps=200,
                delay_ms=48,
                access_mbps=2000,
                access_ms=(0.0, 2.0),
                start_max_s=1.0,
                buffer_pkts=250,
                mss=1448,
                duration_s=60.0 * k,
                warmup_s=0.0,
            ),
        ),
        dumbbell(
            "10 000 NewReno flows, 10 Gbps, RTT ≈ 100 ms, 0.1 BDP drop-tail",
            Case(
                "speed-10k",
                pairs=10_000,
                rate_mbps=10_000,
                delay_ms=48,
                access_mbps=100_000,
                access_ms=(0.0, 2.0),
                start_max_s=1.0,
                buffer_pkts=8333,
                mss=1448,
                duration_s=10.0 * k,
                warmup_s=0.0,
            ),
        ),
        parking_lot(60.0 * k),
    ]


#: Why a scenario file is measured with ccsim alone.
NOT_EXPRESSED = (
    "not compared: a scenario file has no ns-2 translation (the harness's own scenarios "
    "are generated for both simulators from one description)"
)


def from_file(path: Path, bottleneck: str) -> Bench:
    """A scenario file (TOML or JSON) measured with ccsim alone; departures are
    counted on the link named `bottleneck`."""
    from ccsim.scenario import load_scenario

    scenario = load_scenario(json.loads(path.read_text()) if path.suffix == ".json" else path)
    return Bench(path.name, None, scenario, bottleneck)


@dataclasses.dataclass
class Measure:
    wall_s: float
    cpu_s: float
    departures: int
    max_rss_mb: float
    engine_cpu_s: float = float("nan")
    events: int = 0
    engine_wall_s: float = float("nan")

    @property
    def overhead_s(self) -> float:
        """Wall time of the process beyond its run: interpreter start-up, imports,
        reading the scenario, writing the results."""
        return self.wall_s - self.engine_wall_s


#: Limits for one ns-2 run: its static routing keeps a table per node, so a
#: 20 000-node dumbbell grows past 20 GB; it must fail alone, not take the machine.
NS2_MEMORY = 8 << 30
NS2_CPU_S = 1800


class Ns2Failed(Exception):
    """ns-2 did not complete a scenario (killed by its limits, or an error)."""


def _limits(memory: int, cpu_s: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))

    return apply


def _timed(cmd: list[str], limit=None) -> tuple[str, float, float, float]:
    """Runs `cmd` under /usr/bin/time; returns stdout, wall seconds, CPU seconds
    (user + system) and peak RSS in MB."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        out = subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %S", "-o", tf.name, *cmd],
            capture_output=True,
            text=True,
            check=True,
            preexec_fn=limit,
        ).stdout
        wall = time.perf_counter() - t0
        rss_kb, user, sys_ = (float(x) for x in Path(tf.name).read_text().split()[-3:])
    return out, wall, user + sys_, rss_kb / 1024


def _last_line(e: subprocess.CalledProcessError) -> str:
    """The last line a failed run wrote on stderr (its error), or its exit status."""
    lines = (e.stderr or "").strip().splitlines()
    return lines[-1] if lines else f"exit status {e.returncode}"


def run_ns2(b: Bench, cpu_s: int = NS2_CPU_S) -> Measure:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.tcl"
        path.write_text(b.tcl)
        try:
            out, wall, cpu, rss = _timed(["ns", str(path)], _limits(NS2_MEMORY, cpu_s))
        except subprocess.CalledProcessError as e:
            raise Ns2Failed(
                f"did not complete within {NS2_MEMORY >> 30} GB and {cpu_s} CPU s ({_last_line(e)[:80]})"
            ) from None
    q = next(line.split() for line in out.splitlines() if line.startswith("Q "))
    return Measure(wall, cpu, int(q[2]), rss)


def _ccsim_command() -> list[str]:
    """The ``ccsim`` command of this interpreter's environment."""
    script = Path(sys.executable).with_name("ccsim")
    return (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "import sys, ccsim.cli; sys.exit(ccsim.cli.main())"]
    )


def run_ccsim(b: Bench) -> Measure:
    """A whole ``ccsim run SCENARIO --out DIR --quiet`` process, as a user runs it
    (start-up, imports, scenario, simulation, Parquet tables and JSON written); the
    engine's share is the run's CPU time as the process itself measured it
    (``summary.json``'s ``cpu_s``)."""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.json"
        path.write_text(json.dumps(b.scenario))
        out_dir = Path(d) / "out"
        try:
            _, wall, cpu, rss = _timed(
                [*_ccsim_command(), "run", str(path), "--out", str(out_dir), "--quiet"]
            )
        except subprocess.CalledProcessError as e:
            raise SystemExit(f"{b.name}: ccsim failed: {_last_line(e)}") from None
        summary = json.loads((out_dir / "summary.json").read_text())
        q = pq.read_table(out_dir / "queues.parquet", columns=["queue", "departures"]).to_pydict()
    if b.bottleneck not in q["queue"]:
        shown = ", ".join(q["queue"][:10])
        raise SystemExit(f"{b.name}: ccsim failed: no queue {b.bottleneck!r}; queues: {shown}")
    departures = q["departures"][q["queue"].index(b.bottleneck)]
    return Measure(
        wall, cpu, departures, rss, summary["cpu_s"], summary["events"], summary["wall_s"]
    )


def best_pair(b: Bench, repeat: int, ns2_cpu: int | None) -> tuple[Measure | str | None, Measure]:
    """ns-2 (None: not installed) and ccsim, run alternately ``repeat`` times
    each, the best of each kept. Alternating matters: this machine's speed
    drifts by tens of percent over minutes, and runs taken one simulator after
    the other would put that drift into the ratio. An ns-2 run that fails is
    not retried; its reason takes the place of its figures."""
    ns_runs: list[Measure] = []
    ns: str | None = None
    if b.tcl is None:
        ns = NOT_EXPRESSED
        print(f"{b.name}: ns-2 {ns}; ccsim's figures only", file=sys.stderr, flush=True)
    cc_runs: list[Measure] = []
    for _ in range(repeat):
        if ns2_cpu is not None and ns is None:
            try:
                ns_runs.append(run_ns2(b, ns2_cpu))
            except Ns2Failed as e:
                ns = f"ns-2 {e}"
                print(f"{b.name}: {ns}; ccsim's figures only", file=sys.stderr, flush=True)
        cc_runs.append(run_ccsim(b))
    cc = min(cc_runs, key=lambda m: m.cpu_s)
    if ns is not None or not ns_runs:
        return ns, cc
    return min(ns_runs, key=lambda m: m.cpu_s), cc


def table(rows: list[tuple[Bench, Measure | str | None, Measure]]) -> str:
    lines = [
        "| scenario | ns-2 CPU | ns-2 departures/s | ns-2 peak RSS | ccsim CPU (process / engine) "
        "| ccsim departures/s (process / engine) | ccsim events/s | ccsim peak RSS "
        "| ratio (process / engine) | ccsim start-up and output (wall) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for b, ns, cc in rows:
        cc_dep = f"{cc.departures / cc.cpu_s / 1e3:.0f} k / {cc.departures / cc.engine_cpu_s / 1e3:.0f} k"
        cc_cpu = f"{cc.cpu_s:.2f} s / {cc.engine_cpu_s:.2f} s"
        ev = f"{cc.events / cc.engine_cpu_s / 1e6:.1f} M"
        if ns is None or isinstance(ns, str):
            ns_cols = "— | — | —"
            ratio = f"— ({ns})" if ns else "— (no ns-2)"
        else:
            ns_cols = f"{ns.cpu_s:.2f} s | {ns.departures / ns.cpu_s / 1e3:.0f} k | {ns.max_rss_mb:.0f} MB"
            ratio = f"{ns.cpu_s / cc.cpu_s:.1f}× / {ns.cpu_s / cc.engine_cpu_s:.1f}×"
        lines.append(
            f"| {b.name} | {ns_cols} | {cc_cpu} | {cc_dep} | {ev} | {cc.max_rss_mb:.0f} MB | {ratio} "
            f"| {cc.overhead_s:.2f} s |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs (a fifth)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per simulator (best kept)")
    ap.add_argument("--only", help="scenarios whose name contains this text")
    ap.add_argument("--write", type=Path, help="replace the table in this markdown file")
    ap.add_argument(
        "--scenario",
        type=Path,
        action="append",
        help="a scenario file (TOML or JSON) to measure instead, with ccsim alone (repeatable)",
    )
    ap.add_argument(
        "--bottleneck",
        default="R1->R2",
        help="the link whose departures are counted in --scenario files (default R1->R2)",
    )
    ap.add_argument(
        "--ns2-cpu",
        type=int,
        default=NS2_CPU_S,
        help=f"CPU seconds an ns-2 run may take before it is stopped (default {NS2_CPU_S})",
    )
    a = ap.parse_args(argv)
    have_ns = shutil.which("ns") is not None
    if not have_ns:
        print("ns-2 (`ns`) is not installed (apt-get install ns2): ccsim's figures only")
    rows = []
    todo = [from_file(p, a.bottleneck) for p in a.scenario] if a.scenario else benches(a.quick)
    for b in todo:
        if a.only and a.only not in b.name:
            continue
        ns, cc = best_pair(b, a.repeat, a.ns2_cpu if have_ns else None)
        rows.append((b, ns, cc))
        print(f"done: {b.name}", file=sys.stderr, flush=True)
    text = table(rows)
    print(text)
    if a.write:
        replace_block(a.write, text, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
