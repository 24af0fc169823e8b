"""The BUC comparison's FIFO row in ns-2.35 and in ccsim: drop-tail phase locking.

    ccsim validate buc-fifo                            # 4 variants, 10 seeds, 2000-s runs
    ccsim validate buc-fifo --quick                    # 5 seeds, 300-s runs
    python -m ccsim.validation.ns2.buc_fifo --conventions | --causes   # the timeouts' tables
    python -m ccsim.validation.ns2.buc_fifo --trace DIR   # per-packet traces of one run (below)

Experiment 2 of Ziegler & Clausen (IPCCC 1997, §6; the inferred network of
``docs/models/buc-rfcn.md``, "The experiments' settings") with the FIFO drop-tail
gateway, as ``python/ccsim/experiments/buc_rfcn/scenarios.py`` builds
it: eight TCP Tahoe FTPs with access delays 1, 3, 5, 8, 12, 18, 25, 35 ms over
10 Mbps, a 2 Mbps / 30 ms bottleneck with a 300-packet buffer, 10 Mbps / 1 ms to the
receivers, every source started at 0 s, receiver window 300 packets, 1000-byte
packets (960 + 40), one ACK per packet, IW 1, the 1997 ns timers (0.1-s tick, RTO
floor 0.2 s, initial RTO 3 s), no limited transmit. ccsim runs the experiment's own
scenario (``comparison_scenario("droptail", ...)``) with ``send_jitter`` added; ns-2
runs the script :func:`tcl` writes with the matching settings (docs/validation.md's
conventions; ``tcp_scenario.py``'s dumbbell has symmetric access delays and limited
transmit, so this case writes its own script and reuses the runner):

* ns-2 ``Agent/TCP`` (Tahoe, ``bugFix_ true``) with ``window_ 300``, ``windowInit_
  1``, ``syn_ false``, ``delay_growth_ false``, ``tcpTick_ 0.1``, ``minrto_ 0.2``,
  ``rtxcur_init_ 3``, ``singledup_ 0``; sinks ``Agent/TCPSink`` (40-byte ACKs);
* DropTail ``limit_`` 301 on the bottleneck (300 waiting + the one in
  transmission, ccsim ``300pkt``), 101 on the other links (ccsim's default 100);
* the send jitter: ns-2 ``overhead_`` J, ccsim ``send_jitter`` J. Both draw one
  delay uniform in [0, J) when the window opens with no delayed burst pending and
  then send everything the window allows (``send_much`` forced by the delayed-send
  timer). Differences: ns-2 delays every ``send_much`` it makes, so Tahoe's fast
  retransmission and the retransmission after a timeout wait too; ccsim's fast
  retransmit and timeout go through the same jittered path for Tahoe (the go-back-N
  segment is sent by the sending loop); see docs/notes/buc-fifo-phase-locking.md;
* seeds: ns-2 ``$defaultRNG seed`` (the clock phase ``boot_time_`` of each agent and
  the overhead draws), ccsim ``seed`` (the clock phase of each flow and its jitter
  stream). Without jitter the seed changes only the clock phases.

Per simulator and run: the per-flow goodputs (packets delivered in order; ns-2: the
sender's highest cumulative ACK + 1), their mean deviation / mean (the experiment's
``md_norm``) and Jain's index, the bottleneck's utilization (bits sent / capacity)
and drops, retransmitted segments and timeouts summed over the flows.

``--trace DIR`` runs one variant and seed with per-packet traces in ns-2's format
from both simulators (the sources' access links both ways and the bottleneck) and
classifies every timeout (``buc_fifo_timeouts.py``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ccsim.experiments.buc_rfcn import ACCESS_MS, MSS, PKT, PORT2, comparison_scenario
from ccsim.theory import confidence_interval, jain_index, mean_deviation
from ccsim.validation import framework
from ccsim.validation.framework import SuiteResult
from ccsim.validation.ns2.reference import have_ns, ns2_stdout

MARK_BEGIN = "<!-- ns2-buc-fifo:begin -->"
MARK_END = "<!-- ns2-buc-fifo:end -->"

#: Variants: name -> (send jitter in s, access-delay offsets in µs). No jitter is the
#: paper's run; the offsets variant adds to each sender's access delay a draw uniform in
#: [0, 50 µs) (per seed, the same in both simulators), which removes the exact ties
#: between packets of different flows reaching the gateway at the same instant; 1 ms
#: and 4 ms are a quarter of and one bottleneck service time (1000 B at 2 Mbps).
VARIANTS = {
    "no jitter": (0.0, 0.0),
    "no jitter, delays + U[0, 50 µs)": (0.0, 50.0),
    "jitter 1 ms": (0.001, 0.0),
    "jitter 4 ms": (0.004, 0.0),
}
SIMULATORS = ("ns2", "ccsim")

_LT = (("singledup_", "1"),), (("limited_transmit", True),)
_TICK = (("tcpTick_", "0.01"),), (("rtt_tick", "10ms"),)
#: Explanatory settings for the timeouts (``--conventions``): name -> (ns-2
#: ``Agent/TCP`` defaults, ccsim flow keys) applied over the matched case. The
#: experiment (and the matched case) has no limited transmit and a 0.1-s tick;
#: ns-2.35's defaults and ``tcp_scenario.py`` have ``singledup_ 1`` and ``tcp_scenario.py``
#: a 10-ms tick.
SETTINGS = {
    "matched": ((), ()),
    "limited transmit, both": (_LT[0], _LT[1]),
    "10-ms tick, both": (_TICK[0], _TICK[1]),
    "limited transmit and 10-ms tick, both": (_LT[0] + _TICK[0], _LT[1] + _TICK[1]),
    "ns-2 limited transmit, ccsim matched": (_LT[0], ()),
    "ns-2 limited transmit and 10-ms tick, ccsim matched": (_LT[0] + _TICK[0], ()),
}


@dataclasses.dataclass(frozen=True)
class Run:
    """One run of the case: a jitter, a seed, a length, a number of flows."""

    jitter_s: float
    seed: int
    duration_s: float = 2000.0
    flows: int = 8
    #: Access-delay offsets: each sender's delay + U[0, offset_us) µs, drawn per seed.
    offset_us: float = 0.0
    #: Explanatory variants: extra ``Agent/TCP`` defaults for ns-2 (name, value)
    #: and extra flow keys for ccsim (key, value), applied after the matched ones.
    ns2_tcp: tuple[tuple[str, str], ...] = ()
    ccsim_tcp: tuple[tuple[str, object], ...] = ()

    @property
    def variant(self) -> str:
        key = (self.jitter_s, self.offset_us)
        return next((k for k, v in VARIANTS.items() if v == key), f"{key}")

    def access_ms(self) -> list[float]:
        """The senders' access delays (ms), with this seed's offsets."""
        rng = random.Random(f"buc-fifo-offsets/{self.seed}")
        return [
            round(ACCESS_MS[i % len(ACCESS_MS)] + rng.uniform(0, self.offset_us) / 1000, 6)
            for i in range(self.flows)
        ]


@dataclasses.dataclass
class Metrics:
    """What one simulator reported for one run."""

    goodputs: list[float]  # packets delivered in order, per flow
    utilization: float
    drops: int
    retransmits: int
    timeouts: int

    @property
    def md_norm(self) -> float:
        return mean_deviation(self.goodputs, normalized=True)

    @property
    def jain(self) -> float:
        return jain_index(self.goodputs)

    @property
    def sum_tp(self) -> float:
        return float(sum(self.goodputs))


def tcl(run: Run, trace_dir: Path | None = None) -> str:
    """The ns-2.35 script for ``run``; prints Q (bottleneck) and F (per flow) lines."""
    n = run.flows
    delays = run.access_ms()
    lines = [
        "set ns [new Simulator]",
        f"$defaultRNG seed {run.seed}",
        f"Agent/TCP set packetSize_ {MSS}",
        f"Agent/TCP set tcpip_base_hdr_size_ {PKT - MSS}",
        "Agent/TCP set window_ 300",
        "Agent/TCP set windowInit_ 1",
        "Agent/TCP set syn_ false",
        "Agent/TCP set delay_growth_ false",
        "Agent/TCP set tcpTick_ 0.1",
        "Agent/TCP set minrto_ 0.2",
        "Agent/TCP set rtxcur_init_ 3.0",
        "Agent/TCP set singledup_ 0",
        f"Agent/TCP set overhead_ {run.jitter_s}",
        *(f"Agent/TCP set {k} {v}" for k, v in run.ns2_tcp),
        "set g1 [$ns node]",
        "set g2 [$ns node]",
        "$ns duplex-link $g1 $g2 2Mb 30ms DropTail",
        # ns-2's DropTail limit_ N holds N − 1 waiting packets plus the one in
        # transmission; ccsim's limit counts waiting packets only.
        "$ns queue-limit $g1 $g2 301",
        "$ns queue-limit $g2 $g1 301",
    ]
    for i, d in enumerate(delays):
        lines += [
            f"set s({i}) [$ns node]",
            f"set d({i}) [$ns node]",
            f"$ns duplex-link $s({i}) $g1 10Mb {d}ms DropTail",
            f"$ns duplex-link $g2 $d({i}) 10Mb 1ms DropTail",
        ]
        for a, b in ((f"$s({i})", "$g1"), ("$g1", f"$s({i})"), ("$g2", f"$d({i})")):
            lines.append(f"$ns queue-limit {a} {b} 101")
        lines.append(f"$ns queue-limit $d({i}) $g2 101")
    if trace_dir is not None:
        # The sources' access links both ways (transmissions, ACK arrivals) and the
        # bottleneck (drops), in ns-2's trace format.
        lines.append(f'set tf [open "{trace_dir / "ns2.tr"}" w]')
        for i in range(n):
            lines.append(f"$ns trace-queue $s({i}) $g1 $tf")
            lines.append(f"$ns trace-queue $g1 $s({i}) $tf")
        lines.append("$ns trace-queue $g1 $g2 $tf")
        lines.append(f'set af [open "{trace_dir / "ns2_agents.tr"}" w]')
    for i in range(n):
        lines += [
            f"set tcp({i}) [new Agent/TCP]",
            f"$tcp({i}) set fid_ {i}",
            f"$ns attach-agent $s({i}) $tcp({i})",
            f"set sink({i}) [new Agent/TCPSink]",
            f"$ns attach-agent $d({i}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [new Application/FTP]",
            f"$ftp({i}) attach-agent $tcp({i})",
            f'$ns at 0.0 "$ftp({i}) start"',
        ]
        if trace_dir is not None:
            lines.append(f"$tcp({i}) attach $af")
            for v in ("cwnd_", "ssthresh_", "backoff_", "rtt_", "srtt_", "rttvar_", "maxseq_"):
                lines.append(f"$tcp({i}) trace {v}")
    lines += [
        "set qm [$ns monitor-queue $g1 $g2 [open /dev/null w] 0.1]",
        "proc finish {} {",
        "  global qm tcp" + (" tf af" if trace_dir is not None else ""),
        '  puts "Q [$qm set parrivals_] [$qm set pdepartures_] [$qm set pdrops_] '
        '[$qm set bdepartures_]"',
        f"  for {{set i 0}} {{$i < {n}}} {{incr i}} {{",
        '    puts "F $i [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] '
        '[$tcp($i) set nrexmit_] [$tcp($i) set ack_]"',
        "  }",
    ]
    if trace_dir is not None:
        lines += ["  flush $tf", "  close $tf", "  flush $af", "  close $af"]
    lines += ["  exit 0", "}", f'$ns at {run.duration_s} "finish"', "$ns run", ""]
    return "\n".join(lines)


def scenario(run: Run, trace_dir: Path | None = None) -> dict:
    """The experiment's FIFO scenario (every source at 0 s) with ``send_jitter``."""
    sc = comparison_scenario(
        "droptail", run.duration_s, run.seed, run.flows, jitter=f"{run.jitter_s}s"
    )
    sc["name"] = f"buc-fifo-{run.variant.replace(' ', '-')}-seed{run.seed}"
    sc.pop("monitor", None)
    for link, d in zip(sc["topology"]["links"], run.access_ms()):
        assert link["from"].startswith("s") and link["to"] == "G1"
        link["delay"] = f"{d}ms"
    for f in sc["flows"]:
        f.update(dict(run.ccsim_tcp))
    if trace_dir is not None:
        links = [f"s{i + 1}->G1" for i in range(run.flows)]
        links += [f"G1->s{i + 1}" for i in range(run.flows)] + [PORT2]
        sc["trace"] = {"links": links, "ns2": "ccsim.tr"}
    return sc


def run_ns2(run: Run, trace_dir: Path | None = None) -> Metrics:
    out = ns2_stdout(tcl(run, trace_dir))
    q, flows = None, []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "Q":
            q = [float(x) for x in f[1:]]
        elif f and f[0] == "F":
            flows.append([float(x) for x in f[2:]])
    if q is None or len(flows) != run.flows:
        raise RuntimeError(f"ns-2 printed no statistics:\n{out[-2000:]}")
    return Metrics(
        # ack_ is the highest cumulative ACK, packets numbered from 0.
        goodputs=[f[3] + 1 for f in flows],
        utilization=q[3] * 8 / (2e6 * run.duration_s),
        drops=int(q[2]),
        retransmits=int(sum(f[1] for f in flows)),
        timeouts=int(sum(f[2] for f in flows)),
    )


def run_ccsim(run: Run, trace_dir: Path | None = None) -> Metrics:
    import ccsim

    r = ccsim.run(scenario(run, trace_dir))
    if trace_dir is not None:
        (trace_dir / "ccsim.tr").write_bytes(r.files["ccsim.tr"])
    f, q = r.flows, r.queue(PORT2)
    return Metrics(
        goodputs=[float(b) / MSS for b in f["bytes_delivered"]],
        utilization=float(q["utilization"]),
        drops=int(q["drops"]),
        retransmits=int(f["retransmits"].sum()),
        timeouts=int(f["timeouts"].sum()),
    )


def run_both(run: Run, trace_dir: Path | None = None) -> dict[str, Metrics]:
    """Runs one variant and seed in both simulators; metrics per simulator."""
    return {"ns2": run_ns2(run, trace_dir), "ccsim": run_ccsim(run, trace_dir)}


def cases(quick: bool) -> list[Run]:
    """Every variant, over seeds (quick: 5 seeds of 300 s, else 10 of 2000 s).
    Without jitter the seeds move only the agents' clock phases."""
    seeds, duration = (5, 300.0) if quick else (10, 2000.0)
    return [
        Run(j, s, duration, offset_us=o) for j, o in VARIANTS.values() for s in range(1, seeds + 1)
    ]


#: Table columns: (heading, value of a run's metrics, format).
COLUMNS = (
    ("MD / mean", lambda m: m.md_norm, "{:.3f}"),
    ("Jain", lambda m: m.jain, "{:.3f}"),
    ("utilization", lambda m: m.utilization, "{:.5f}"),
    ("SumTP (pkts)", lambda m: m.sum_tp, "{:.0f}"),
    ("drops", lambda m: m.drops, "{:.0f}"),
    ("retransmissions", lambda m: m.retransmits, "{:.0f}"),
    ("timeouts", lambda m: m.timeouts, "{:.1f}"),
)


def _cell(xs: list[float], fmt: str) -> str:
    m, h = confidence_interval(xs, 0.95)
    return fmt.format(m) + ("" if math.isnan(h) else " ± " + fmt.format(h))


def table(results: list[tuple[Run, dict[str, Metrics]]]) -> str:
    """Markdown: one row per variant and simulator, mean ± 95 % half-width over seeds."""
    head = "| variant | simulator | seeds | " + " | ".join(h for h, _, _ in COLUMNS) + " |"
    lines = [head, "|---|---|---|" + "---|" * len(COLUMNS)]
    for v in VARIANTS:
        rows = [m for r, m in results if r.variant == v]
        if not rows:
            continue
        for sim in SIMULATORS:
            ms = [m[sim] for m in rows]
            cells = [_cell([f(m) for m in ms], fmt) for _, f, fmt in COLUMNS]
            lines.append(f"| {v} | {sim} | {len(ms)} | " + " | ".join(cells) + " |")
    durations = sorted({r.duration_s for r, _ in results})
    lines += [
        "",
        "Mean ± the 95 % confidence half-width over seeds (Student t); "
        f"runs of {', '.join(f'{d:g}' for d in durations)} s, every source started at 0 s. "
        "MD / mean: mean deviation of the per-flow goodputs (packets delivered in order) "
        "over their mean; utilization: bits sent on the bottleneck over its capacity; drops "
        "at the bottleneck; retransmitted segments and timeouts summed over the 8 flows.",
    ]
    return "\n".join(lines)


def shares(results: list[tuple[Run, dict[str, Metrics]]]) -> str:
    """Markdown: each flow's goodput over the fair share, mean over seeds."""
    n = max(r.flows for r, _ in results)
    head = "| variant | simulator | " + " | ".join(f"{ACCESS_MS[i]} ms" for i in range(n)) + " |"
    lines = [head, "|---|---|" + "---|" * n]
    for v in VARIANTS:
        rows = [m for r, m in results if r.variant == v]
        if not rows:
            continue
        for sim in SIMULATORS:
            x = [
                statistics.fmean(m[sim].goodputs[i] / m[sim].sum_tp * n for m in rows)
                for i in range(n)
            ]
            lines.append(f"| {v} | {sim} | " + " | ".join(f"{s:.2f}" for s in x) + " |")
    lines += ["", "Per-flow goodput / fair share by access delay, mean over seeds."]
    return "\n".join(lines)


def paired(results: list[tuple[Run, dict[str, Metrics]]]) -> str:
    """Markdown: per-seed differences ccsim − ns-2 (same seed, same scenario)."""
    cols = [c for c in COLUMNS if c[0] in ("MD / mean", "drops", "timeouts")]
    lines = [
        "| variant | " + " | ".join(f"Δ {h}" for h, _, _ in cols) + " | Δ MD / mean ≤ 0.02 |",
        "|---|" + "---|" * (len(cols) + 1),
    ]
    for v in VARIANTS:
        rows = [m for r, m in results if r.variant == v]
        if not rows:
            continue
        cells = [_cell([f(m["ccsim"]) - f(m["ns2"]) for m in rows], fmt) for _, f, fmt in cols]
        close = sum(abs(m["ccsim"].md_norm - m["ns2"].md_norm) <= 0.02 for m in rows)
        lines.append(f"| {v} | " + " | ".join(cells) + f" | {close} of {len(rows)} seeds |")
    lines += [
        "",
        "Mean over seeds of the per-seed difference ccsim − ns-2 ± its 95 % half-width. "
        "Without jitter the seed sets only the TCP clock phases (and the offsets), the same "
        "draw in both simulators for the offsets; the jitter draws differ between them.",
    ]
    return "\n".join(lines)


def run_all(runs: list[Run], jobs: int = 1) -> list[tuple[Run, dict[str, Metrics]]]:
    if jobs <= 1:
        return [(r, run_both(r)) for r in runs]
    with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
        return list(zip(runs, ex.map(run_both, runs)))


#: Checked quantities: (heading of ``COLUMNS``, absolute floor, relative floor) of
#: the tolerance on ccsim − ns-2 (``framework.paired_tolerance``: also at least the
#: 99 % half-width of the per-seed differences; the jitter draws differ between the
#: simulators, so that half-width holds both runs' spread).
CHECKS = (
    ("MD / mean", 0.03, 0.0),
    ("utilization", 1e-4, 0.0),
    ("drops", 0.0, 0.05),
    ("timeouts", 2.0, 0.0),
)

#: Known differences outside tolerance, by variant: without any jitter the shares
#: are decided by which of two simultaneous arrivals takes the buffer's last slot,
#: and the simulators break such ties differently (phase locking).
EXPLAINED = {
    "no jitter": (
        "phase locking: without jitter, arrivals at the same nanosecond decide who takes "
        "the last buffer slot, and ns-2 and ccsim order such ties differently; with "
        "access delays + U[0, 50 µs) or any send jitter they agree "
        "(docs/notes/buc-fifo-phase-locking.md)"
    ),
}


def verdicts(results: list[tuple[Run, dict[str, Metrics]]]) -> list[framework.Verdict]:
    """One verdict per variant and checked quantity (means over seeds)."""
    cols = {h: (f, fmt) for h, f, fmt in COLUMNS}
    out = []
    for v in VARIANTS:
        rows = [m for r, m in results if r.variant == v]
        if not rows:
            continue
        for name, floor, rel in CHECKS:
            f, fmt = cols[name]
            ref = [f(m["ns2"]) for m in rows]
            cc = [f(m["ccsim"]) for m in rows]
            out.append(
                framework.Verdict(
                    f"FIFO, {v}",
                    name,
                    statistics.fmean(ref),
                    statistics.fmean(cc),
                    framework.paired_tolerance(ref, cc, floor, rel),
                    EXPLAINED.get(v, ""),
                    fmt.replace(":.0f", ":.4g").replace(":.1f", ":.3g"),
                )
            )
    return out


def run_suite(
    quick: bool, only: str | None = None, jobs: int = 1, seeds: int | None = None
) -> SuiteResult:
    """The suite for ``ccsim validate``: every variant (``only`` keeps those whose
    name contains it), 5 seeds of 300 s quick, 10 of 2000 s full."""
    runs = [r for r in cases(quick) if not only or only in r.variant]
    if seeds:
        runs = [r for r in runs if r.seed <= seeds]
    t = time.perf_counter()
    results = run_all(runs, jobs)
    text = "\n\n".join([table(results), paired(results), shares(results)])
    n = max((r.seed for r in runs), default=0)
    return SuiteResult(text, verdicts(results), n, time.perf_counter() - t)


def with_setting(run: Run, name: str) -> Run:
    ns2, cc = SETTINGS[name]
    return dataclasses.replace(run, ns2_tcp=ns2, ccsim_tcp=cc)


def conventions_table(seeds: int, duration: float, jitter: float, jobs: int) -> str:
    """Markdown: the explanatory settings (``SETTINGS``), both simulators."""
    runs = [
        with_setting(Run(jitter, s, duration), n) for n in SETTINGS for s in range(1, seeds + 1)
    ]
    results = run_all(runs, jobs)
    cols = [c for c in COLUMNS if c[0] in ("MD / mean", "drops", "retransmissions", "timeouts")]
    lines = [
        "| setting | simulator | " + " | ".join(h for h, _, _ in cols) + " |",
        "|---|---|" + "---|" * len(cols),
    ]
    for name, (ns2, cc) in SETTINGS.items():
        rows = [m for r, m in results if (r.ns2_tcp, r.ccsim_tcp) == (ns2, cc)]
        for sim in SIMULATORS:
            cells = [_cell([f(m[sim]) for m in rows], fmt) for _, f, fmt in cols]
            lines.append(f"| {name} | {sim} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Jitter {jitter * 1000:g} ms, {seeds} seeds of {duration:g} s, mean ± 95 % "
        "half-width. Limited transmit: ns-2 `singledup_ 1`, ccsim `limited_transmit = "
        'true`; 10-ms tick: ns-2 `tcpTick_ 0.01`, ccsim `rtt_tick = "10ms"`.',
    ]
    return "\n".join(lines)


#: (setting, jitter) pairs whose timeouts ``--causes`` classifies.
CAUSE_RUNS = (
    ("matched", 0.0),
    ("matched", 0.001),
    ("limited transmit, both", 0.001),
    ("10-ms tick, both", 0.001),
)


def _causes_one(args: tuple[str, float, int, float]) -> tuple[str, float, dict[str, dict]]:
    from ccsim.validation.ns2.buc_fifo_timeouts import analyse, parse

    name, jitter, seed, duration = args
    run = with_setting(Run(jitter, seed, duration), name)
    with tempfile.TemporaryDirectory() as d:
        m = run_both(run, Path(d))
        out = {}
        for sim in SIMULATORS:
            a = analyse(parse(Path(d) / f"{sim}.tr"), jitter)
            out[sim] = {
                "counted": m[sim].timeouts,
                "fast": a.fast_retransmits,
                "blocked": a.blocked_fast_retransmits,
                "causes": [(to.cause, to.time) for to in a.timeouts],
            }
    return name, jitter, out


def causes_table(seeds: int, duration: float, jobs: int) -> str:
    """Markdown: timeouts by cause per run (mean over seeds), from traces of both."""
    from ccsim.validation.ns2.buc_fifo_timeouts import TIE

    jobs_ = [(n, j, s, duration) for n, j in CAUSE_RUNS for s in range(1, seeds + 1)]
    if jobs <= 1:
        res = [_causes_one(x) for x in jobs_]
    else:
        with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
            res = list(ex.map(_causes_one, jobs_))
    kinds = [
        ("start-up (first 10 s), spurious", lambda c, t: t < 10 and c.startswith("spurious")),
        ("start-up, tie with an ACK", lambda c, t: t < 10 and c == TIE),
        ("start-up, other", lambda c, t: t < 10 and not c.startswith("spurious") and c != TIE),
        ("later: fast retransmission lost", lambda c, t: t >= 10 and "retransmission lost" in c),
        ("later: tie with an ACK", lambda c, t: t >= 10 and c == TIE),
        (
            "later: other",
            lambda c, t: t >= 10 and "retransmission lost" not in c and c != TIE,
        ),
    ]
    head = "| setting | jitter | simulator | timeouts (counted) | " + " | ".join(
        k for k, _ in kinds
    )
    lines = [
        head + " | fast retransmits | 3rd dupack, no fast retransmit |",
        "|---|---|---|---|" + "---|" * (len(kinds) + 2),
    ]
    for n, j in CAUSE_RUNS:
        rows = [o for name, jit, o in res if (name, jit) == (n, j)]
        for sim in SIMULATORS:
            x = [r[sim] for r in rows]
            cells = [_cell([r["counted"] for r in x], "{:.1f}")]
            for _, f in kinds:
                cells.append(_cell([sum(f(c, t) for c, t in r["causes"]) for r in x], "{:.1f}"))
            cells += [
                _cell([r["fast"] for r in x], "{:.0f}"),
                _cell([r["blocked"] for r in x], "{:.0f}"),
            ]
            lines.append(f"| {n} | {j * 1000:g} ms | {sim} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"{seeds} seeds of {duration:g} s per row, mean ± 95 % half-width per run. Timeouts "
        "classified from per-packet traces of both simulators (buc_fifo_timeouts.py); "
        "'counted' is the simulator's own counter (ns-2 `nrexmit_`, ccsim `timeouts`).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 seeds, 300-s runs")
    ap.add_argument("--seeds", type=int, help="seeds per variant")
    ap.add_argument("--duration", type=float, help="run length (s)")
    ap.add_argument("--jobs", type=int, default=1, help="runs in parallel")
    ap.add_argument(
        "--conventions", action="store_true", help="the timeouts' settings table (jitter 1 ms)"
    )
    ap.add_argument(
        "--causes", action="store_true", help="timeouts by cause over seeds (traces both)"
    )
    ap.add_argument("--trace", type=Path, help="trace one run into this directory")
    ap.add_argument("--setting", default="matched", choices=list(SETTINGS), help="with --trace")
    ap.add_argument("--jitter", type=float, default=0.001, help="with --trace: jitter (s)")
    ap.add_argument("--seed", type=int, default=1, help="with --trace: seed")
    a = ap.parse_args(argv)
    if not have_ns():
        print("ns-2 validation skipped: the `ns` binary is not installed (apt-get install ns2)")
        return 0
    if a.trace:
        from ccsim.validation.ns2.buc_fifo_timeouts import report

        a.trace.mkdir(parents=True, exist_ok=True)
        run = with_setting(Run(a.jitter, a.seed, a.duration or 300.0), a.setting)
        m = run_both(run, a.trace)
        print(table([(run, m)]))
        print()
        print(report(a.trace, run.jitter_s))
        return 0
    if a.causes:
        seeds, dur = (3, 300.0) if a.quick else (5, 2000.0)
        print(causes_table(a.seeds or seeds, a.duration or dur, a.jobs))
        return 0
    if a.conventions:
        seeds, dur = (5, 300.0) if a.quick else (10, 2000.0)
        print(conventions_table(a.seeds or seeds, a.duration or dur, 0.001, a.jobs))
        return 0
    runs = cases(a.quick)
    if a.seeds or a.duration:
        seeds = a.seeds or max(r.seed for r in runs)
        dur = a.duration or runs[0].duration_s
        runs = [
            Run(j, s, dur, offset_us=o) for j, o in VARIANTS.values() for s in range(1, seeds + 1)
        ]
    results = run_all(runs, a.jobs)
    print(table(results))
    print()
    print(paired(results))
    print()
    print(shares(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
