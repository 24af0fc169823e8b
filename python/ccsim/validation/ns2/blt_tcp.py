"""ccsim's TCP in the BLT study against ns-2.35: Poisson arrivals of 100-KB transfers.

    ccsim validate blt-tcp                      # λ = 5, 10, 15 conn/s, 5 seeds, 200 + 2000 conns
    ccsim validate blt-tcp --quick              # 2 seeds, 100 + 500 connections
    python -m ccsim.validation.ns2.blt_tcp --loads 10 --rates 160,32   # diagnostics

The reference network of the BLT reproduction (Kim & Farber, MS-CIS-94-55, 1994, §4.1.1
and §4.2.1; docs/models/blt.md: 150 Mb/s access links, a 30 Mb/s bottleneck with a
75-packet drop-tail buffer, 5 ms per hop, a host pair of its own per connection) carries
Poisson arrivals of 200-packet transfers with the paper's TCP (§4: Reno, fast retransmit
on the first duplicate ACK, IW 1, timestamps; min RTO 2·D on a 1-ms clock, decision L6
of docs/models/blt.md). ccsim runs the experiment's own scenario
(:func:`ccsim.experiments.blt.scenario`: its workload, ``pick = "idle"`` pool and TCP
keys), with a fixed run length instead of its ``complete_first`` stop rule so that
every simulator measures over the same window. ns-2 replays the arrival times of
ccsim's connection table (so both see the same arrivals and sizes) on the same host
pairs (those ccsim's idle-longest pool gave; ns-2 counts any it finds busy), starting a
fresh Agent/TCP/Reno and TCPSink per connection and closing both when it completes.

Per load and seed: mean and 90th-percentile response time of the measured connections
(arrival to the ACK of the last byte), utilization of and drops at the bottleneck over
the measurement window, retransmitted packets and timeouts of the measured connections;
means over seeds with 90 % confidence intervals. Two ccsim variants: the experiment's
TCP keys as they are, and the same with ns-2's conventions where ccsim's differ.
Explanatory runs isolate what remains (docs/validation.md, "TCP in the BLT study").

Exit status 0 when every ccsim mean is within tolerance of ns-2's (the larger of the two
90 % confidence half-widths over seeds: the simulators must agree to within what the
choice of arrival sample moves either mean), 1 otherwise; 0 with one line when ``ns``
is not installed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.resources
import math
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ccsim.theory import confidence_interval
from ccsim.validation import framework
from ccsim.validation.framework import SuiteResult
from ccsim.validation.mdblock import replace_block
from ccsim.validation.ns2.reference import have_ns, ns2_stdout

#: The ns-2 program of the network's host pairs and connections (package data), which
#: :func:`tcl` completes.
CONNECTIONS = importlib.resources.files("ccsim.validation.ns2") / "programs" / "blt_connections.tcl"

MARK_BEGIN = "<!-- ns2-blt-tcp:begin -->"
MARK_END = "<!-- ns2-blt-tcp:end -->"

LOADS = (5.0, 10.0, 15.0)
PKTS = 200  # packets of 500 B per connection (F = 100 KB)

#: ccsim TCP variants: overrides of the experiment's transport keys.
VARIANTS = {
    # blt.transport("tcp", cfg) as the reproduction runs it.
    "experiment": {},
    # The same with ns-2.35's conventions where ccsim's differ: its fixed-point
    # estimator in 1-ms ticks (rtt_tick is already 1 ms) and halving cwnd (keeping its
    # fraction), not FlightSize. init_rto stays at the experiment's 1 s (ns-2 is set to
    # 1 s too), limited transmit is moot with dupthresh 1.
    "ns2": {"conventions": "ns2", "rtt_estimator": "ns2", "loss_window": "cwnd"},
    # Each of the two on its own (explanatory runs).
    "estimator": {"rtt_estimator": "ns2"},
    "loss_window": {"loss_window": "cwnd"},
}

#: ns-2.35 one-way TCP settings matching blt.transport("tcp", cfg): Reno, dupthresh 1
#: (one-way TCP's `numdupacks_`; `tcprexmtthresh_` is FullTcp's), IW 1, no receiver
#: window limit, RTT samples from every ACK's timestamp echo (`timestamps_`: newack()
#: calls rtt_update(now - ts_echo) on every ACK of new data, rounding to whole ticks),
#: 1-ms ticks, min RTO 60 ms = 2·D, max 60 s, initial RTO 1 s (ccsim's RFC 6298 default
#: that the experiment keeps; ns-2's default is 3 s), no SYN and no delayed growth.
#: Wire sizes: output() adds headersize() (tcpip_base_hdr_size_ + ts_option_size_ with
#: timestamps, 40 + 10 B by default) only with `useHeaders_ true`; with it false a data
#: packet is `packetSize_` = 500 B on the wire, as ccsim's mss 500 + header 0. TCPSink
#: ACKs are its `packetSize_` 40 B (ccsim ack_size 40).
NS2_TCP = {
    "packetSize_": 500,
    "useHeaders_": "false",
    "window_": 1000000,
    "windowInit_": 1,
    "syn_": "false",
    "delay_growth_": "false",
    "numdupacks_": 1,
    "timestamps_": "true",
    "tcpTick_": 0.001,
    "minrto_": 0.06,
    "maxrto_": 60,
    "rtxcur_init_": 1.0,
}

METRICS = {
    "r_mean": ("mean R (s)", "{:.4f}"),
    "r_p90": ("90th pct R (s)", "{:.4f}"),
    "util": ("utilization", "{:.4f}"),
    "drops": ("drops", "{:.0f}"),
    "retx": ("retransmits", "{:.0f}"),
    "timeouts": ("timeouts", "{:.1f}"),
}


#: (BW_N, BW_b) in Mb/s replacing the reference network's (150, 30), for diagnostics
#: (``--rates``); None: the reference network.
RATES: tuple[float, float] | None = None


def cfg():
    from ccsim.experiments import blt

    c = blt.config("reference/30")
    if RATES:
        c = dataclasses.replace(c, bw_n=RATES[0], bw_b=RATES[1])
    return c


@dataclasses.dataclass(frozen=True)
class Point:
    """One load and seed: arrivals, the measured set and the measurement window."""

    lam: float
    seed: int
    warmup: int
    measured: int
    #: Per-pair access-delay offsets, uniform in [0, offset_us) µs (0: none; all
    #: pairs equal, as in the paper's network).
    offset_us: float = 0.0

    def window(self) -> tuple[float, float]:
        """[t0, t1]: from the expected arrival of the first measured connection to
        well past the expected last one (arrivals go on until t1, so the measured
        connections see a steady load; every one must have completed by then)."""
        n = self.warmup + self.measured
        return self.warmup / self.lam, (n + 4 * math.sqrt(n)) / self.lam + 10.0

    def delays_ms(self, pairs: int) -> list[float]:
        rng = random.Random(f"blt-offsets/{self.seed}")
        d = cfg().d_ms / 6
        return [round(d + rng.uniform(0, self.offset_us) / 1000, 6) for _ in range(pairs)]


@dataclasses.dataclass
class Run:
    """What one simulator reported for one point."""

    #: Connection table: conn, start_s, last_ack_s, size_bytes, retransmits, timeouts, pair.
    conns: object
    util: float
    drops: int
    busy_picks: int
    wall_s: float


def ccsim_scenario(p: Point, overrides: dict) -> dict:
    """The experiment's scenario for ``p`` (blt.scenario), run for the fixed window."""
    from ccsim.experiments import blt

    sc = blt.scenario("tcp", cfg(), p.lam, seed=p.seed, warmup=p.warmup, measured=p.measured)
    wl = sc["workloads"][0]
    del wl["complete_first"]
    wl["transport"].update(overrides)
    t0, t1 = p.window()
    sc["warmup"] = f"{t0!r}s"
    sc["duration"] = f"{t1!r}s"
    if p.offset_us:
        sc["topology"]["access"]["delay"] = [
            f"{d:.6f}ms" for d in p.delays_ms(sc["topology"]["pairs"])
        ]
    return sc


def run_ccsim(p: Point, overrides: dict) -> tuple[Run, dict]:
    import ccsim

    sc = ccsim_scenario(p, overrides)
    t = time.perf_counter()
    r = ccsim.run(sc)
    wall = time.perf_counter() - t
    c = r.connections.sort_values("conn").reset_index(drop=True)
    c["pair"] = [int(s.lstrip("s")) for s in c["src"]]
    q = r.queue("R1->R2")
    run = Run(
        conns=c[["conn", "start_s", "last_ack_s", "size_bytes", "retransmits", "timeouts", "pair"]],
        util=float(q["utilization"]),
        drops=int(q["drops"]),
        busy_picks=int(r.workloads["busy_picks"].sum()),
        wall_s=wall,
    )
    return run, sc


def tcl(
    p: Point,
    conns: list[tuple[float, int]],
    pairs: int,
    ns_extra: dict | None = None,
    trace: str | None = None,
) -> str:
    """The ns-2.35 script: the reference network with ``pairs`` host pairs; connection
    k starts at ``conns[k][0]`` on pair ``conns[k][1]`` (ccsim's arrival and the pair its
    ``pick = "idle"`` pool gave it; the script counts a pair found busy in ``E``). Prints
    a ``D`` line per completed connection, ``S`` lines (queue-monitor counters of the
    bottleneck) at the window's ends; ``trace``: a file for the bottleneck's event trace
    (both directions; the flow id is the connection)."""
    c = cfg()
    d = c.d_ms / 6
    t0, t1 = p.window()
    delays = p.delays_ms(pairs) if p.offset_us else [d] * pairs
    access_pkts = round(c.bw_n * 1e6 * 2 * d / 1000 / 8 / 500)  # ccsim's BW_N·2·d bytes
    lines = ["set ns [new Simulator]"]
    lines += [f"Agent/TCP set {k} {v}" for k, v in {**NS2_TCP, **(ns_extra or {})}.items()]
    lines += [
        "Agent/TCPSink set packetSize_ 40",
        "set r1 [$ns node]",
        "set r2 [$ns node]",
        f"$ns simplex-link $r1 $r2 {c.bw_b:g}Mb {d}ms DropTail",
        f"$ns simplex-link $r2 $r1 {c.bw_b:g}Mb {d}ms DropTail",
        # DropTail `limit_` N holds N − 1 waiting packets (drop-tail.cc drops when
        # length + 1 >= N) plus the one in transmission; ccsim's byte limit
        # BW_b·D/3 = 37 500 B counts waiting packets: 75 of 500 B.
        f"$ns queue-limit $r1 $r2 {c.buffer_bytes() // 500 + 1}",
        "$ns queue-limit $r2 $r1 1000000",
        f"set npairs {pairs}",
    ]
    lines += [f"set dl({i}) {x}" for i, x in enumerate(delays)]
    lines += [
        f"set bw_n {c.bw_n:g}",
        f"set hop_ms {d}",
        f"set access_limit {access_pkts + 1}",
        f"set pkts {PKTS}",
        CONNECTIONS.read_text().rstrip("\n"),
    ]
    if trace:
        lines += [
            f"set tf [open {trace} w]",
            "$ns trace-queue $r1 $r2 $tf",
            "$ns trace-queue $r2 $r1 $tf",
            "proc flush_trace {} { global tf; flush $tf }",
            f'$ns at {t1!r} "flush_trace"',
        ]
    lines += [f'$ns at {t0!r} "snap"', f'$ns at {t1!r} "snap"', f'$ns at {t1!r} "finish"']
    lines += [f'$ns at {a!r} "arrive {k} {q}"' for k, (a, q) in enumerate(conns) if a < t1]
    lines += ["$ns run", ""]
    return "\n".join(lines)


def run_ns2(
    p: Point,
    conns: list[tuple[float, int]],
    pairs: int,
    ns_extra: dict | None = None,
    trace: str | None = None,
) -> Run:
    import pandas as pd

    t = time.perf_counter()
    out = ns2_stdout(tcl(p, conns, pairs, ns_extra, trace))
    wall = time.perf_counter() - t
    rows, snaps, busy = [], [], None
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "D":
            rows.append((int(f[1]), float(f[2]), float(f[3]), int(f[4]), int(f[5]), int(f[6])))
        elif f[0] == "S":
            snaps.append([float(x) for x in f[1:]])
        elif f[0] == "E":
            busy = int(f[2])
    if len(snaps) != 2 or busy is None:
        raise RuntimeError(f"ns-2 did not reach the end of the window:\n{out[-2000:]}")
    done = pd.DataFrame(
        rows, columns=["conn", "start_s", "last_ack_s", "retransmits", "timeouts", "pair"]
    ).set_index("conn")
    c = pd.DataFrame({"conn": range(len(conns)), "start_s": [a for a, _ in conns]})
    c["last_ack_s"] = done["last_ack_s"].reindex(c["conn"]).to_numpy()
    c["size_bytes"] = PKTS * 500
    for col in ("retransmits", "timeouts"):
        c[col] = done[col].reindex(c["conn"]).to_numpy()
    c["pair"] = [q for _, q in conns]
    (ta, _, da, ba), (tb, _, db, bb) = snaps
    return Run(
        conns=c,
        util=(bb - ba) * 8 / (cfg().bw_b * 1e6 * (tb - ta)),
        drops=int(db - da),
        busy_picks=busy,
        wall_s=wall,
    )


def metrics(run: Run, p: Point) -> dict:
    from ccsim import connmetrics as cm

    m = cm.measured(run.conns, p.warmup, p.measured)
    r = cm.response_times(m)  # refuses a measured set with unfinished connections
    return {
        "r_mean": float(r.mean()),
        "r_p90": float(np.percentile(r, 90)),
        "util": run.util,
        "drops": run.drops,
        "retx": int(m["retransmits"].sum()),
        "timeouts": int(m["timeouts"].sum()),
    }


def same_r(a: Run, b: Run, p: Point, tol_s: float = 1e-6) -> float:
    """Share of the measured connections whose response time is the same in both."""
    from ccsim import connmetrics as cm

    ra = cm.response_times(cm.measured(a.conns, p.warmup, p.measured)).to_numpy()
    rb = cm.response_times(cm.measured(b.conns, p.warmup, p.measured)).to_numpy()
    return float(np.mean(np.abs(ra - rb) < tol_s))


@dataclasses.dataclass
class PointResult:
    point: Point
    runs: dict  # label -> Run


#: The runs of a point: label -> (simulator, ccsim variant or ns-2 extra settings,
#: per-pair offsets). The first four make the main table, the rest explain it.
RUNS = {
    "ns-2": ("ns2", None, 0.0),
    "ccsim": ("ccsim", "experiment", 0.0),
    "ccsim, ns-2 conventions": ("ccsim", "ns2", 0.0),
    # Explanations. Each of ccsim's two convention changes alone:
    "ccsim, rtt_estimator ns2": ("ccsim", "estimator", 0.0),
    "ccsim, loss_window cwnd": ("ccsim", "loss_window", 0.0),
    # Per-pair access-delay offsets of up to 50 µs remove the exact ties between an
    # arrival and a departure at the bottleneck (ns-2 replays the pairs of the ccsim run
    # with the same offsets, so every connection has the same path in both) ...
    "ccsim, ns-2 conventions, offsets": ("ccsim", "ns2", 50.0),
    "ns-2, offsets": ("ns2", None, 50.0),
    # ... and ns-2's ts_resetRTO_ ends the timer backoff at every timestamp sample, as
    # ccsim does.
    "ns-2, offsets, ts_resetRTO_": ("ns2", {"ts_resetRTO_": "true"}, 50.0),
}
MAIN = ("ns-2", "ccsim", "ccsim, ns-2 conventions")


def run_point(p0: Point, labels=tuple(RUNS)) -> PointResult:
    runs: dict = {}
    arrivals: dict = {}
    # ccsim first: its connection tables give the arrivals ns-2 replays.
    for label in labels:
        sim, what, off = RUNS[label]
        if sim != "ccsim":
            continue
        p = dataclasses.replace(p0, offset_us=off)
        run, sc = run_ccsim(p, VARIANTS[what])
        a = run.conns["start_s"].tolist()
        if off in arrivals and [x for x, _ in arrivals[off][0]] != a:
            raise RuntimeError(f"{label}: arrivals differ from the other ccsim run's")
        conns = list(zip(a, run.conns["pair"].tolist()))
        arrivals.setdefault(off, (conns, sc["topology"]["pairs"]))
        runs[label] = run
    for label in labels:
        sim, extra, off = RUNS[label]
        if sim != "ns2":
            continue
        p = dataclasses.replace(p0, offset_us=off)
        if off not in arrivals:
            run, sc = run_ccsim(p, {})
            conns = list(zip(run.conns["start_s"].tolist(), run.conns["pair"].tolist()))
            arrivals[off] = (conns, sc["topology"]["pairs"])
        a, pairs = arrivals[off]
        runs[label] = run_ns2(p, a, pairs, extra)
    return PointResult(p0, {k: runs[k] for k in labels})


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and 90 % Student-t half-width over seeds (NaN for one seed)."""
    return confidence_interval(xs, 0.90)


@dataclasses.dataclass
class Verdict:
    lam: float
    label: str
    metric: str
    ns2: float
    ccsim: float
    tol: float

    @property
    def checked(self) -> bool:
        """False with a single seed (no spread to judge by)."""
        return not math.isnan(self.tol)

    @property
    def ok(self) -> bool:
        return not self.checked or abs(self.ccsim - self.ns2) <= self.tol

    def verdict(self) -> framework.Verdict:
        """As the framework reports it."""
        case = f"λ = {self.lam:g} conn/s, {self.label}"
        return framework.Verdict(
            case, METRICS[self.metric][0], self.ns2, self.ccsim, self.tol, fmt="{:.5g}"
        )


def verdicts(results: dict) -> list[Verdict]:
    """ccsim's mean against ns-2's, per load, variant and metric; tolerance: the
    larger of the two 90 % confidence half-widths over seeds."""
    out = []
    for lam, prs in results.items():
        per = {
            label: [metrics(pr.runs[label], pr.point) for pr in prs]
            for label in MAIN
            if label in prs[0].runs
        }
        for label in MAIN[1:]:
            if label not in per:
                continue
            for key in METRICS:
                a, ha = mean_ci([m[key] for m in per["ns-2"]])
                b, hb = mean_ci([m[key] for m in per[label]])
                out.append(Verdict(lam, label, key, a, b, max(ha, hb)))
    return out


def table(results: dict, seeds: int, p: Point) -> str:
    heads = [METRICS[k][0] for k in METRICS]
    lines = [
        "| λ (conn/s) | simulator | "
        + " | ".join(heads)
        + " | same R as ns-2 | within tolerance |",
        "|" + "---|" * (len(heads) + 4),
    ]
    vs = verdicts(results)
    for lam, prs in results.items():
        for label in MAIN:
            ms = [metrics(pr.runs[label], pr.point) for pr in prs]
            cells = []
            for key, (_, fmt) in METRICS.items():
                m, h = mean_ci([x[key] for x in ms])
                cells.append(f"{fmt.format(m)} ± {fmt.format(h)}")
            if label == "ns-2":
                same, ok = "—", "—"
            else:
                same = f"{100 * statistics.fmean(same_r(pr.runs[label], pr.runs['ns-2'], pr.point) for pr in prs):.1f} %"
                mine = [v for v in vs if v.lam == lam and v.label == label]
                bad = [METRICS[v.metric][0] for v in mine if not v.ok]
                if not all(v.checked for v in mine):
                    ok = "— (one seed)"
                else:
                    ok = "all" if not bad else "not: " + ", ".join(bad)
            lines.append(f"| {lam:g} | {label} | " + " | ".join(cells) + f" | {same} | {ok} |")
    t0, t1 = p.window()
    lines += [
        "",
        f"Means over {seeds} seeds per load ± the 90 % confidence half-width over seeds "
        f"(Student t). Connections {p.warmup} to {p.warmup + p.measured - 1} by arrival "
        f"are measured ({p.measured}; the first {p.warmup} warm up). Response time R: "
        "arrival to the ACK of the last byte at the sender; utilization of and drops at "
        "the bottleneck over [warm-up/λ, (n + 4√n)/λ + 10 s], n = "
        f"{p.warmup + p.measured} (at λ = 10: [{t0:.0f} s, {t1:.0f} s]); retransmitted "
        "packets and timeouts summed over the measured connections. Same R: share of the "
        "measured connections whose response time equals ns-2's to 1 µs. Within "
        "tolerance: ccsim's mean differs from ns-2's by at most the larger of the two "
        "confidence half-widths.",
    ]
    return "\n".join(lines)


def explain_table(results: dict) -> str:
    """Per load: agreement with the ties removed, then also ns-2's backoff rule."""
    pairs = [
        ("ccsim", "ns-2", "as run"),
        ("ccsim, rtt_estimator ns2", "ns-2", "as run"),
        ("ccsim, loss_window cwnd", "ns-2", "as run"),
        ("ccsim, ns-2 conventions", "ns-2", "as run"),
        ("ccsim, ns-2 conventions, offsets", "ns-2, offsets", "offsets"),
        (
            "ccsim, ns-2 conventions, offsets",
            "ns-2, offsets, ts_resetRTO_",
            "offsets, ns-2 `ts_resetRTO_ true`",
        ),
    ]
    lines = [
        "| λ | ccsim | network, ns-2 | same R | Δ mean R | Δ drops | Δ retransmits | Δ timeouts |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for lam, prs in results.items():
        for a, b, how in pairs:
            if a not in prs[0].runs or b not in prs[0].runs:
                continue
            same = statistics.fmean(same_r(pr.runs[a], pr.runs[b], pr.point) for pr in prs)
            ma = [metrics(pr.runs[a], pr.point) for pr in prs]
            mb = [metrics(pr.runs[b], pr.point) for pr in prs]

            def d(key, fmt):
                return fmt.format(sum(x[key] - y[key] for x, y in zip(ma, mb)) / len(ma))

            name = a.removesuffix(", offsets")
            lines.append(
                f"| {lam:g} | {name} | {how} | {100 * same:.1f} % | {d('r_mean', '{:+.4f}')} s "
                f"| {d('drops', '{:+.1f}')} | {d('retx', '{:+.1f}')} | {d('timeouts', '{:+.1f}')} |"
            )
    lines += [
        "",
        "Differences are ccsim − ns-2, means over the seeds of the same runs. Offsets: each "
        "host pair's sender access delay is 5 ms plus an offset drawn uniformly in "
        "[0, 50 µs), the same in both simulators (no exact ties between an arrival and a "
        "departure at the bottleneck). `ts_resetRTO_ true`: ns-2 ends the timer's backoff "
        "at every RTT sample, as ccsim does.",
    ]
    return "\n".join(lines)


def run(quick: bool, seeds: int, loads, labels=tuple(RUNS)) -> tuple[dict, Point]:
    warmup, measured = (100, 500) if quick else (200, 2000)
    results = {}
    for lam in loads:
        results[lam] = []
        for seed in range(1, seeds + 1):
            t = time.perf_counter()
            pr = run_point(Point(lam, seed, warmup, measured), labels)
            results[lam].append(pr)
            walls = ", ".join(f"{k} {r.wall_s:.1f} s" for k, r in pr.runs.items())
            busy = {k: r.busy_picks for k, r in pr.runs.items() if r.busy_picks}
            print(
                f"λ={lam:g} seed {seed}: {time.perf_counter() - t:.1f} s ({walls})"
                + (f"; busy picks {busy}" if busy else ""),
                file=sys.stderr,
            )
    return results, Point(10.0, 1, warmup, measured)


def run_suite(
    quick: bool, only: str | None = None, jobs: int = 1, seeds: int | None = None
) -> SuiteResult:
    """The suite for ``ccsim validate`` (2 seeds and 100 + 500 connections quick, 5
    seeds and 200 + 2000 full); ``only`` selects loads (``"10"``)."""
    seeds = seeds or (2 if quick else 5)
    loads = tuple(x for x in LOADS if not only or only in f"{x:g}")
    t = time.perf_counter()
    results, p = run(quick, seeds, loads)
    text = table(results, seeds, p) + "\n\n" + explain_table(results)
    checked = [v.verdict() for v in verdicts(results)]
    return SuiteResult(text, checked, seeds, time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 seeds, 100 + 500 connections")
    ap.add_argument("--seeds", type=int, help="seeds per load (default 5, quick 2)")
    ap.add_argument("--loads", help="comma-separated λ values (default 5,10,15)")
    ap.add_argument("--write", type=Path, help="replace the BLT TCP tables in this markdown file")
    ap.add_argument(
        "--rates",
        help="BW_N,BW_b in Mb/s instead of 150,30 (diagnostic: 160,32 makes every "
        "serialization time a whole number of nanoseconds)",
    )
    a = ap.parse_args(argv)
    if a.rates:
        if a.write:
            ap.error("--write is for the reference network: not with --rates")
        global RATES
        RATES = tuple(float(x) for x in a.rates.split(","))
    if not have_ns():
        print(
            "ns-2 BLT TCP validation skipped: the `ns` binary is not installed (apt-get install ns2)"
        )
        return 0
    seeds = a.seeds or (2 if a.quick else 5)
    loads = tuple(float(x) for x in a.loads.split(",")) if a.loads else LOADS
    results, p = run(a.quick, seeds, loads)
    text = table(results, seeds, p) + "\n\n" + explain_table(results)
    print(text)
    bad = [v for v in verdicts(results) if not v.ok]
    for v in bad:
        print(
            f"outside tolerance: λ={v.lam:g} {v.label} {v.metric}: ns-2 {v.ns2:.5g}, "
            f"ccsim {v.ccsim:.5g} (tolerance ±{v.tol:.3g})",
            file=sys.stderr,
        )
    if a.write:
        replace_block(a.write, text, MARK_BEGIN, MARK_END)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
