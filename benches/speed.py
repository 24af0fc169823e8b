"""ccsim against reference simulators (ns-2.35, htsim) for speed, on the same scenarios.

    python benches/speed.py                          # every reference available, best of 3
    python benches/speed.py --against htsim --htsim PATH --quick
    python benches/speed.py --against ns2 --only 200 --repeat 1
    python benches/speed.py --write docs/performance.md
    python benches/speed.py --scenario my.toml --bottleneck 'R1->R2'
    python benches/speed.py --python-cc ccsim.examples.newreno:NewReno --only NewReno

One table per reference simulator (``--against ns2,htsim``; by default every one
available, or all of them where none is). Each scenario is run in ccsim and in the
references whose table lists it; a scenario in both tables is run in ccsim once.

ns-2 (``ns``, Debian package ``ns2``): the ns-2 script and the ccsim scenario come
from the same description (the dumbbells from ``ccsim.validation.ns2.tcp_scenario``, with
ns-2's TCP conventions on both sides; the parking lot written here), so both
simulators carry the same traffic.

htsim (Broadcom/csg-htsim): a program of the user's, given with ``--htsim PATH`` or
the environment variable ``CCSIM_HTSIM``, that builds a dumbbell for htsim's own TCP
(``TcpSrc``/``TcpSink``, ``TcpRtxTimerScanner`` scanning every 10 ms) from these flags::

    -flows N -rate_mbps C -delay_ms D -access_mbps A -buffer_pkts B -mss M
    -duration_s T -pairs_file PATH

Pair i: its sender's access ``Queue`` (rate A, 1 000 packets) and ``Pipe`` (the
pair's access delay), the shared bottleneck ``Queue`` (rate C, drop-tail, B waiting
packets) and ``Pipe`` (D), the receiver's access ``Queue`` and ``Pipe``, the
``TcpSink``; the ACKs return through the receiver's access queue and pipe, a shared
reverse bottleneck queue and pipe (C, B, D) and the sender's access queue and pipe.
The pairs file has one line per pair, ``start_s access_delay_ms`` (the same draws
as ccsim's scenario; the delay is on both sides of the pair). Data packets are
``M + 40`` bytes on the wire (``Packet::set_packet_size``), ACKs 40. It runs T
simulated seconds, writes no log file, and prints on stdout the lines
``departures N`` (packets that left the forward bottleneck queue) and ``drops N``
(its drops), and optionally ``events N``, ``fast_rtx N`` and ``delivered_bytes N``;
htsim's TCP prints a line beginning ``At `` for each retransmission timeout, which
the harness counts. htsim's TCP starts with a 10-packet window and a 100-packet
ssthresh and has neither SACK nor delayed ACKs; its traffic is the same dumbbell,
not the same packets, so each row reports both simulators' departures.

Measured per simulator:

* whole process: ``ns script.tcl``, the htsim program, and ``ccsim run SCENARIO
  --out DIR --quiet`` (interpreter start-up, imports, scenario, run, Parquet tables
  and JSON written), the commands a user runs;
* engine only (ccsim): the run's own CPU and wall time, as the process measured
  them (``summary.json``'s ``cpu_s`` and ``wall_s``: build, simulation, result
  columns), and the rest of the process's wall time ("start-up and output");
* CPU time (user + system, the process's resource usage, run under
  ``/usr/bin/time``): unlike wall time it hardly
  changes when other work shares the machine, so the ratios use it;
* bottleneck departures per CPU second (whole process, and engine only for
  ccsim), events per second (ccsim), peak memory (maximum resident set size of
  the process, from ``/usr/bin/time``);
* memory per flow (htsim table): the peak RSS of the row's run minus that of the
  same dumbbell with half the flows, divided by the flows removed, for each
  simulator (one run each; both runs fill the same bottleneck, so the packets in
  flight cancel out, which a one-flow run would not: htsim's single flow starts in
  congestion avoidance at 100 packets and never fills a 1 Gbps pipe); not
  measured below 100 flows, where the difference is within the noise of the
  peak RSS.

The simulators run alternately (ns-2, htsim, ccsim, ns-2, ...; best of each by CPU
time), so that the machine's drift in speed affects all alike. The ratio is the
reference's whole-process CPU time over ccsim's whole-process and engine-only CPU
times. Where a reference is missing, where ns-2 does not complete a scenario, or
for a scenario file given with ``--scenario`` (which has no translation for the
references), one line says so and ccsim's own figures are still reported.
``--write FILE`` replaces each table between its markers in FILE, with the date
and the ccsim commit it was measured at.

``--python-cc CLASS`` measures a congestion control written in Python (issue 43):
on the ns-2 dumbbells, every flow's ``cc`` becomes ``{kind = "python", class =
CLASS}`` in a third run, alternating with ns-2's own C++ NewReno and ccsim's Rust
one, and one table gives the three CPU times, the ratios, and the engine CPU the
Python module adds per bottleneck departure (one ACK, one hook call, per
departure on these dumbbells: ns-2's conventions have no delayed ACKs).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ccsim.validation.mdblock import replace_block
from ccsim.validation.ns2.tcp_scenario import Case, ccsim_scenario, tcl

ROOT = Path(__file__).resolve().parents[1]

#: The reference simulators, in the order they run and their tables are printed.
REFERENCES = ("ns2", "htsim")
LABEL = {"ns2": "ns-2", "htsim": "htsim"}
#: Each table's markers in the markdown file ``--write`` rewrites.
MARKS = {
    "python": ("<!-- python-cc-speed:begin -->", "<!-- python-cc-speed:end -->"),
    "ns2": ("<!-- ns2-speed:begin -->", "<!-- ns2-speed:end -->"),
    "htsim": ("<!-- htsim-speed:begin -->", "<!-- htsim-speed:end -->"),
}


@dataclasses.dataclass
class Bench:
    """A named scenario: its ccsim scenario, and what the references need to run it."""

    name: str
    #: The ns-2 script; None where there is none (a scenario file of the user's).
    tcl: str | None
    scenario: dict
    #: The link whose departures are counted ("R1->R2" on a dumbbell).
    bottleneck: str = "R1->R2"
    #: The dumbbell's description (the htsim program's input); None for others.
    case: Case | None = None
    #: The tables the scenario belongs to.
    tables: tuple[str, ...] = REFERENCES


def dumbbell(name: str, case: Case, tables: tuple[str, ...]) -> Bench:
    return Bench(name, tcl(case, 1), compact(ccsim_scenario(case, 1)), case=case, tables=tables)


def compact(scenario: dict) -> dict:
    """The validation harness's scenario (one flow entry per pair, each with its own
    start time) written as a user would write it: one entry for all pairs, with the
    start times as a list. The same run, to the last bit, in a tenth of the text (and of
    the memory it takes to read it)."""
    flows = scenario["flows"]
    per_pair = ("name", "pairs", "start")
    common = {k: v for k, v in flows[0].items() if k not in per_pair}
    if not all(
        f["pairs"] == [i] and {k: v for k, v in f.items() if k not in per_pair} == common
        for i, f in enumerate(flows)
    ):
        return scenario
    return {**scenario, "flows": [{**common, "pairs": "all", "start": [f["start"] for f in flows]}]}


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
        "parking lot: 3 × 100 Mbps hops, 80 NewReno flows",
        "\n".join(tl),
        scenario,
        "r0->r1",
        tables=("ns2",),
    )


def _ns2_tcp_defaults() -> list[str]:
    """ns-2 agent settings matching ccsim's ``conventions = "ns2"`` (see tcp_scenario.py)."""
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


def benches(length: float = 1.0) -> list[Bench]:
    """The scenarios of issue 12 and the htsim comparison, their simulated lengths
    multiplied by ``length`` (``--quick``: a fifth). The 8- and 200-flow dumbbells
    are in both tables, so one ccsim run serves both."""
    both, ns2, htsim = ("ns2", "htsim"), ("ns2",), ("htsim",)

    def rtt100(name: str, flows: int, rate_mbps: float, buffer_pkts: int, duration_s: float):
        """A dumbbell with RTT ≈ 100 ms: 48 ms bottleneck, 0–2 ms access links at
        10× the bottleneck's rate, starts in the first second, 1448-B segments."""
        return Case(
            name,
            pairs=flows,
            rate_mbps=rate_mbps,
            delay_ms=48,
            access_mbps=10 * rate_mbps,
            access_ms=(0.0, 2.0),
            start_max_s=1.0,
            buffer_pkts=buffer_pkts,
            mss=1448,
            duration_s=duration_s * length,
            warmup_s=0.0,
        )

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
                duration_s=300.0 * length,
                warmup_s=0.0,
            ),
            both,
        ),
        dumbbell(
            "200 NewReno flows, 200 Mbps, RTT ≈ 100 ms, 250-pkt drop-tail",
            rtt100("speed-200", 200, 200, 250, 60.0),
            both,
        ),
        dumbbell(
            "1 000 NewReno flows, 1 Gbps, RTT ≈ 100 ms, 1 250-pkt drop-tail",
            rtt100("speed-1k", 1000, 1000, 1250, 20.0),
            htsim,
        ),
        dumbbell(
            "5 000 NewReno flows, 5 Gbps, RTT ≈ 100 ms, 6 250-pkt drop-tail",
            rtt100("speed-5k", 5000, 5000, 6250, 6.0),
            htsim,
        ),
        dumbbell(
            "10 000 NewReno flows, 10 Gbps, RTT ≈ 100 ms, 0.1 BDP drop-tail",
            rtt100("speed-10k", 10_000, 10_000, 8333, 10.0),
            ns2,
        ),
        parking_lot(60.0 * length),
    ]


def half(b: Bench) -> Bench:
    """The dumbbell `b` with half its flows (the same draws for the pairs it keeps
    where the draws allow, the same links), for the memory-per-flow difference."""
    assert b.case is not None
    case = dataclasses.replace(
        b.case, pairs=b.case.pairs // 2, draw_key=b.case.draw_key or b.case.name
    )
    return dumbbell(f"{b.name} (half the flows)", case, b.tables)


def not_expressed(ref: str) -> str:
    """Why a scenario file is measured with ccsim alone."""
    return (
        f"not compared: a scenario file has no {LABEL[ref]} translation (the harness's own "
        "scenarios are generated for both simulators from one description)"
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
    drops: int = -1
    timeouts: int = -1

    @property
    def overhead_s(self) -> float:
        """Wall time of the process beyond its run: interpreter start-up, imports,
        reading the scenario, writing the results."""
        return self.wall_s - self.engine_wall_s


#: Limits for one ns-2 run: its static routing keeps a table per node, so a
#: 20 000-node dumbbell grows past 20 GB; it must fail alone, not take the machine.
NS2_MEMORY = 8 << 30
NS2_CPU_S = 1800


class RefFailed(Exception):
    """A reference simulator did not complete a scenario (killed by its limits, or
    an error)."""


def _limits(memory: int, cpu_s: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))

    return apply


def _timed(cmd: list[str], limit=None) -> tuple[str, float, float, float]:
    """Runs `cmd` under ``/usr/bin/time``; returns its stdout, wall seconds, CPU
    seconds (user + system) and peak RSS in MB. The CPU time is the resource usage
    ``wait4`` collects (to the microsecond; ``/usr/bin/time`` prints hundredths),
    the peak RSS ``/usr/bin/time``'s: a process forked from this one and exec'd
    would report this interpreter's own peak as its own. A run that exits non-zero
    raises CalledProcessError."""
    with (
        tempfile.NamedTemporaryFile("r", suffix=".time") as tf,
        tempfile.TemporaryFile("w+") as out,
        tempfile.TemporaryFile("w+") as err,
    ):
        t0 = time.perf_counter()
        p = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", tf.name, *cmd],
            stdout=out,
            stderr=err,
            text=True,
            preexec_fn=limit,
        )
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
        if p.returncode:
            raise subprocess.CalledProcessError(p.returncode, cmd, stdout, stderr)
        rss_kb = float(Path(tf.name).read_text().split()[-1])
    return stdout, wall, usage.ru_utime + usage.ru_stime, rss_kb / 1024


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
            raise RefFailed(
                f"did not complete within {NS2_MEMORY >> 30} GB and {cpu_s} CPU s ({_last_line(e)[:80]})"
            ) from None
    q = next(line.split() for line in out.splitlines() if line.startswith("Q "))
    return Measure(wall, cpu, int(q[2]), rss, drops=int(q[3]))


def htsim_command(binary: str, case: Case, pairs_file: Path) -> list[str]:
    """The htsim program's command line for `case` (its pairs written to `pairs_file`)."""
    starts, delays = case.draw(1)
    pairs_file.write_text("".join(f"{s} {d}\n" for s, d in zip(starts, delays)))
    return [
        binary,
        *("-flows", str(case.pairs)),
        *("-rate_mbps", f"{case.rate_mbps:g}"),
        *("-delay_ms", f"{case.delay_ms:g}"),
        *("-access_mbps", f"{case.access_mbps:g}"),
        *("-buffer_pkts", str(case.buffer_pkts)),
        *("-mss", str(case.mss)),
        *("-duration_s", f"{case.duration_s:g}"),
        *("-pairs_file", str(pairs_file)),
    ]


def htsim_mismatch(case: Case | None) -> str | None:
    """Why the htsim program cannot run `case` (None: it can)."""
    if case is None:
        return not_expressed("htsim")
    if (case.cc, case.sack, case.delayed_ack, case.queue, case.cross, case.ecn) != (
        "newreno",
        False,
        False,
        "droptail",
        None,
        False,
    ):
        return "not compared: the htsim program runs NewReno bulk flows over drop-tail only"
    return None


def run_htsim(b: Bench, binary: str) -> Measure:
    """One run of the htsim program on the dumbbell of `b`."""
    with tempfile.TemporaryDirectory() as d:
        cmd = htsim_command(binary, b.case, Path(d) / "pairs.txt")
        try:
            out, wall, cpu, rss = _timed(cmd)
        except subprocess.CalledProcessError as e:
            raise RefFailed(f"failed ({_last_line(e)[:80]})") from None
    said: dict[str, int] = {}
    timeouts = 0
    for line in out.splitlines():
        w = line.split()
        if len(w) == 2 and w[1].isdigit():
            said[w[0]] = int(w[1])
        elif line.startswith("At ") and " RTO " in line:
            timeouts += 1
    if "departures" not in said or "drops" not in said:
        raise RefFailed(
            "failed (its output has no 'departures N' and 'drops N' lines: "
            f"{out.strip().splitlines()[-1:]!r})"
        )
    return Measure(
        wall,
        cpu,
        said["departures"],
        rss,
        events=said.get("events", 0),
        drops=said["drops"],
        timeouts=timeouts,
    )


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
        q = pq.read_table(
            out_dir / "queues.parquet", columns=["queue", "departures", "drops"]
        ).to_pydict()
        flows = pq.ParquetFile(out_dir / "flows.parquet")
        timeouts = (
            sum(flows.read(columns=["timeouts"]).column(0).to_pylist())
            if "timeouts" in flows.schema_arrow.names
            else -1
        )
    if b.bottleneck not in q["queue"]:
        shown = ", ".join(q["queue"][:10])
        raise SystemExit(f"{b.name}: ccsim failed: no queue {b.bottleneck!r}; queues: {shown}")
    k = q["queue"].index(b.bottleneck)
    return Measure(
        wall,
        cpu,
        q["departures"][k],
        rss,
        summary["cpu_s"],
        summary["events"],
        summary["wall_s"],
        drops=q["drops"][k],
        timeouts=timeouts,
    )


@dataclasses.dataclass
class Row:
    bench: Bench
    ccsim: Measure
    #: Per reference: its best run, or why there is none.
    refs: dict[str, Measure | str]
    #: Memory per flow in KB, per simulator ("ccsim", "htsim"), where measured.
    per_flow_kb: dict[str, float] = dataclasses.field(default_factory=dict)


def with_python_cc(b: Bench, cls: str) -> Bench:
    """``b`` with every flow's congestion control the Python class ``cls``."""
    sc = json.loads(json.dumps(b.scenario))
    for f in sc.get("flows", []):
        f["cc"] = {"kind": "python", "class": cls}
    return dataclasses.replace(b, scenario=sc)


def python_table(rows: list[tuple[Row, Measure]], cls: str) -> str:
    lines = [
        f"| scenario | ns-2 CPU (C++ NewReno) | ccsim CPU, Rust NewReno (process / engine) "
        f"| ccsim CPU, `{cls}` (process / engine) | ns-2 / ccsim-Python (process) "
        "| ccsim-Python / ccsim-Rust (process / engine) | Python's engine CPU per departure |",
        "|---|---|---|---|---|---|---|",
    ]
    for row, pyc in rows:
        cc, ns = row.ccsim, row.refs.get("ns2")
        ns_cpu = f"{ns.cpu_s:.2f} s" if isinstance(ns, Measure) else _no_ref("ns2", ns)
        vs_ns = f"{ns.cpu_s / pyc.cpu_s:.2f}×" if isinstance(ns, Measure) else "—"
        per = (pyc.engine_cpu_s - cc.engine_cpu_s) / max(pyc.departures, 1) * 1e6
        lines.append(
            f"| {row.bench.name} | {ns_cpu} | {cc.cpu_s:.2f} s / {cc.engine_cpu_s:.2f} s "
            f"| {pyc.cpu_s:.2f} s / {pyc.engine_cpu_s:.2f} s | {vs_ns} "
            f"| {pyc.cpu_s / cc.cpu_s:.2f}× / {pyc.engine_cpu_s / cc.engine_cpu_s:.2f}× "
            f"| {per:.2f} µs |"
        )
    return "\n".join(lines)


def measure_python(
    b: Bench, cls: str, refs: dict[str, str | None], repeat: int, ns2_cpu: int
) -> tuple[Row, Measure]:
    """ns-2, ccsim with its Rust module, ccsim with the Python class, alternately; the
    best of each by CPU time. The Python run must carry the same traffic (same
    departures and drops) when the class is a faithful port."""
    pb = with_python_cc(b, cls)
    py_runs: list[Measure] = []
    rows: list[Row] = []
    for _ in range(repeat):
        rows.append(measure(b, refs, 1, ns2_cpu, None))
        py_runs.append(run_ccsim(pb))
    best_cc = min((r.ccsim for r in rows), key=lambda m: m.cpu_s)
    ns = [r.refs["ns2"] for r in rows if isinstance(r.refs.get("ns2"), Measure)]
    ref = min(ns, key=lambda m: m.cpu_s) if ns else next(iter(rows[0].refs.values()), None)
    py = min(py_runs, key=lambda m: m.cpu_s)
    if (py.departures, py.drops) != (best_cc.departures, best_cc.drops):
        print(
            f"{b.name}: the Python module's run differs from the Rust module's "
            f"(departures {py.departures} vs {best_cc.departures}, drops {py.drops} vs "
            f"{best_cc.drops}): not a faithful port",
            file=sys.stderr,
            flush=True,
        )
    return Row(b, best_cc, {"ns2": ref}), py


def _say(b: Bench, ref: str, why: str) -> None:
    print(f"{b.name}: {LABEL[ref]} {why}; ccsim's figures only", file=sys.stderr, flush=True)


def measure(
    b: Bench, refs: dict[str, str | None], repeat: int, ns2_cpu: int, htsim: str | None
) -> Row:
    """ccsim and the references in `refs` (name → None if it can run, else why
    not), run alternately ``repeat`` times each, the best of each kept by CPU time.
    Alternating matters: this machine's speed drifts by tens of percent over
    minutes, and runs taken one simulator after the other would put that drift
    into the ratio. A reference run that fails is not retried; its reason takes
    the place of its figures."""
    why: dict[str, str] = {}
    for r, missing in refs.items():
        # A scenario the reference cannot express says so first: that holds
        # whether or not the reference is installed.
        untranslated = htsim_mismatch(b.case) if r == "htsim" else None
        if r == "ns2" and b.tcl is None:
            untranslated = not_expressed("ns2")
        if untranslated:
            why[r] = untranslated
            _say(b, r, untranslated)
        elif missing:
            why[r] = missing
    runs: dict[str, list[Measure]] = {r: [] for r in refs}
    cc_runs: list[Measure] = []
    for _ in range(repeat):
        for r in refs:
            if r in why:
                continue
            try:
                runs[r].append(run_ns2(b, ns2_cpu) if r == "ns2" else run_htsim(b, htsim))
            except RefFailed as e:
                why[r] = f"{LABEL[r]} {e}"
                _say(b, r, str(e))
        cc_runs.append(run_ccsim(b))
    best = {r: why.get(r) or min(runs[r], key=lambda m: m.cpu_s) for r in refs}
    return Row(b, min(cc_runs, key=lambda m: m.cpu_s), best)


#: Fewer flows than this and the difference in peak RSS is within its noise (the
#: allocators take memory from the kernel in steps of up to 2 MB).
MEMORY_MIN_FLOWS = 100


def memory_per_flow(row: Row, htsim: str | None) -> None:
    """Peak RSS of the row's dumbbell minus that of the same dumbbell with half the
    flows, per flow removed, in KB; one run of each simulator that ran the row."""
    b = row.bench
    if b.case is None or b.case.pairs < MEMORY_MIN_FLOWS:
        return
    h = half(b)
    removed = b.case.pairs - h.case.pairs
    row.per_flow_kb["ccsim"] = (row.ccsim.max_rss_mb - run_ccsim(h).max_rss_mb) * 1024 / removed
    ht = row.refs.get("htsim")
    if isinstance(ht, Measure):
        try:
            row.per_flow_kb["htsim"] = (
                (ht.max_rss_mb - run_htsim(h, htsim).max_rss_mb) * 1024 / removed
            )
        except RefFailed:
            pass


def _k(x: float) -> str:
    return f"{x / 1e3:.0f} k"


def _cc_cells(cc: Measure) -> tuple[str, str]:
    return (
        f"{cc.cpu_s:.2f} s / {cc.engine_cpu_s:.2f} s",
        f"{_k(cc.departures / cc.cpu_s)} / {_k(cc.departures / cc.engine_cpu_s)}",
    )


def _no_ref(ref: str, why: Measure | str | None) -> str:
    return f"— ({why})" if isinstance(why, str) else f"— (no {LABEL[ref]})"


def ns2_table(rows: list[Row]) -> str:
    lines = [
        "| scenario | ns-2 CPU | ns-2 departures/s | ns-2 peak RSS | ccsim CPU (process / engine) "
        "| ccsim departures/s (process / engine) | ccsim events/s | ccsim peak RSS "
        "| ratio (process / engine) | ccsim start-up and output (wall) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        cc, ns = row.ccsim, row.refs["ns2"]
        cc_cpu, cc_dep = _cc_cells(cc)
        ev = f"{cc.events / cc.engine_cpu_s / 1e6:.1f} M"
        if isinstance(ns, Measure):
            ns_cols = f"{ns.cpu_s:.2f} s | {_k(ns.departures / ns.cpu_s)} | {ns.max_rss_mb:.0f} MB"
            ratio = f"{ns.cpu_s / cc.cpu_s:.1f}× / {ns.cpu_s / cc.engine_cpu_s:.1f}×"
        else:
            ns_cols = "— | — | —"
            ratio = _no_ref("ns2", ns)
        lines.append(
            f"| {row.bench.name} | {ns_cols} | {cc_cpu} | {cc_dep} | {ev} | {cc.max_rss_mb:.0f} MB "
            f"| {ratio} | {cc.overhead_s:.2f} s |"
        )
    return "\n".join(lines)


def _per_flow(row: Row, sim: str) -> str:
    kb = row.per_flow_kb.get(sim)
    if kb is not None:
        return f"{kb:.1f} KB"
    few = row.bench.case is not None and row.bench.case.pairs < MEMORY_MIN_FLOWS
    return "— (too few flows)" if few else "—"


def htsim_table(rows: list[Row]) -> str:
    lines = [
        "| scenario | htsim CPU | htsim departures/s | htsim peak RSS | htsim memory/flow "
        "| ccsim CPU (process / engine) | ccsim departures/s (process / engine) "
        "| ccsim peak RSS | ccsim memory/flow | ratio htsim / ccsim CPU (process / engine) "
        "| bottleneck departures (htsim / ccsim) | bottleneck drops (htsim / ccsim) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        cc, ht = row.ccsim, row.refs["htsim"]
        cc_cpu, cc_dep = _cc_cells(cc)
        if isinstance(ht, Measure):
            ht_cols = (
                f"{ht.cpu_s:.2f} s | {_k(ht.departures / ht.cpu_s)} | {ht.max_rss_mb:.0f} MB "
                f"| {_per_flow(row, 'htsim')}"
            )
            ratio = f"{ht.cpu_s / cc.cpu_s:.2f}× / {ht.cpu_s / cc.engine_cpu_s:.2f}×"
            deps = f"{ht.departures:,} / {cc.departures:,}".replace(",", " ")
            drops = f"{ht.drops:,} / {cc.drops:,}".replace(",", " ")
        else:
            ht_cols = "— | — | — | —"
            ratio = _no_ref("htsim", ht)
            deps = f"— / {cc.departures:,}".replace(",", " ")
            drops = f"— / {cc.drops:,}".replace(",", " ")
        lines.append(
            f"| {row.bench.name} | {ht_cols} | {cc_cpu} | {cc_dep} | {cc.max_rss_mb:.0f} MB "
            f"| {_per_flow(row, 'ccsim')} | {ratio} | {deps} | {drops} |"
        )
    return "\n".join(lines)


TABLES = {"ns2": ns2_table, "htsim": htsim_table}


def commit() -> str:
    """ccsim's commit (short), with "+dirty" where the working tree has changes."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + ("+dirty" if status.strip() else "")


def _relative(arg: str) -> str:
    """A path inside the repository as the repository names it (the command shown
    works from its root on any machine)."""
    p = Path(arg)
    if p.is_absolute():
        try:
            return str(p.resolve().relative_to(ROOT))
        except ValueError:
            return arg
    return arg


def stamp(argv: list[str]) -> str:
    """The line above a written table: when, at which commit, with which command
    (the htsim program's path left out: it is the user's)."""
    shown: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--htsim":
            skip = True
        elif not a.startswith("--htsim="):
            shown.append(_relative(a))
    cmd = shlex.join(["python", "benches/speed.py", *shown])
    return f"Measured on {datetime.date.today().isoformat()} at ccsim commit `{commit()}` with `{cmd}`."


def _htsim_binary(given: str | None) -> str | None:
    path = given or os.environ.get("CCSIM_HTSIM") or None
    if path is None:
        return None
    if not (Path(path).is_file() and os.access(path, os.X_OK)):
        raise SystemExit(
            f"htsim program {path!r} (--htsim / CCSIM_HTSIM) is not an executable file"
        )
    return path


NO_HTSIM = "not measured: no htsim binary (--htsim)"
NO_NS2 = "not measured: ns-2 (`ns`) is not installed (apt-get install ns2)"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--against",
        help="reference simulators, comma-separated: ns2, htsim (default: those available; "
        "all of them where none is)",
    )
    ap.add_argument("--htsim", help="the htsim dumbbell program (default: $CCSIM_HTSIM)")
    ap.add_argument("--quick", action="store_true", help="shorter runs (a fifth)")
    ap.add_argument(
        "--length", type=float, help="multiply the simulated lengths by this (--quick: 0.2)"
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per simulator (best kept)")
    ap.add_argument("--only", help="scenarios whose name contains this text")
    ap.add_argument("--write", type=Path, help="replace the tables in this markdown file")
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
        "--python-cc",
        metavar="CLASS",
        help="measure a Python congestion control (module:Class) against ns-2's C++ "
        "NewReno and ccsim's Rust one on the ns-2 dumbbells",
    )
    ap.add_argument(
        "--ns2-cpu",
        type=int,
        default=NS2_CPU_S,
        help=f"CPU seconds an ns-2 run may take before it is stopped (default {NS2_CPU_S})",
    )
    a = ap.parse_args(argv)
    htsim = _htsim_binary(a.htsim)
    missing = {
        "ns2": None if shutil.which("ns") else NO_NS2,
        "htsim": None if htsim else NO_HTSIM,
    }
    if a.against:
        against = [r.strip() for r in a.against.split(",") if r.strip()]
        bad = [r for r in against if r not in REFERENCES]
        if bad or not against:
            ap.error(f"--against: unknown {', '.join(bad) or 'empty list'} (known: ns2, htsim)")
        against = [r for r in REFERENCES if r in against]
    else:
        against = [r for r in REFERENCES if missing[r] is None] or list(REFERENCES)
    for r in against:
        if missing[r]:
            print(f"{LABEL[r]}: {missing[r]}; ccsim's figures only", file=sys.stderr, flush=True)
    length = a.length if a.length is not None else (0.2 if a.quick else 1.0)
    if a.python_cc:
        py_rows = []
        for b in benches(length):
            if b.case is None or "ns2" not in b.tables or (a.only and a.only not in b.name):
                continue
            if b.case.pairs > 1000:
                continue  # (ns-2 does not complete these)
            py_rows.append(
                measure_python(b, a.python_cc, {"ns2": missing["ns2"]}, a.repeat, a.ns2_cpu)
            )
            print(f"done: {b.name}", file=sys.stderr, flush=True)
        text = f"{stamp(argv)}\n\n{python_table(py_rows, a.python_cc)}"
        print(f"\nPython congestion control:\n\n{text}")
        if a.write:
            replace_block(a.write, text, *MARKS["python"])
        return 0
    if a.scenario:
        todo = [from_file(p, a.bottleneck) for p in a.scenario]
    else:
        todo = [b for b in benches(length) if set(b.tables) & set(against)]
    rows: list[Row] = []
    for b in todo:
        if a.only and a.only not in b.name:
            continue
        refs = {r: missing[r] for r in against if r in b.tables}
        row = measure(b, refs, a.repeat, a.ns2_cpu, htsim)
        if "htsim" in refs:
            memory_per_flow(row, htsim)
        rows.append(row)
        _report(row)
    texts = {}
    for r in against:
        mine = [row for row in rows if r in row.refs]
        texts[r] = f"{stamp(argv)}\n\n{TABLES[r](mine)}"
        print(f"\n{LABEL[r]}:\n\n{texts[r]}")
    if a.write:
        for r, text in texts.items():
            replace_block(a.write, text, *MARKS[r])
    return 0


def _report(row: Row) -> None:
    """One line per simulator on stderr: departures, drops and timeouts."""
    print(f"done: {row.bench.name}", file=sys.stderr, flush=True)
    for sim, m in [("ccsim", row.ccsim), *row.refs.items()]:
        if isinstance(m, Measure):
            print(
                f"  {LABEL.get(sim, sim)}: CPU {m.cpu_s:.2f} s, departures {m.departures}, "
                f"drops {m.drops}, timeouts {m.timeouts}, events {m.events}, "
                f"peak RSS {m.max_rss_mb:.0f} MB"
                + (f", {row.per_flow_kb[sim]:.1f} KB/flow" if sim in row.per_flow_kb else ""),
                file=sys.stderr,
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
