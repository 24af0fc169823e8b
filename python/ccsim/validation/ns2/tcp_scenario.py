"""The TCP dumbbell scenario of the ns-2 suites, written for ns-2.35 and for ccsim with
matched conventions, and run in both.

A :class:`Case` describes a dumbbell (bottleneck, access links with per-pair
delays, drop-tail buffers in packets) carrying bulk TCP flows of one variant.
:func:`tcl` writes the ns-2 script, :func:`ccsim_scenario` the ccsim scenario;
both use the same start times and access delays, drawn from the seed here, so
the two simulators see the same scenario. ccsim runs with ``conventions =
"ns2"`` (see ``crates/ccsim-core/src/tcp/params.rs``), and the rest is
matched here (docs/validation.md explains every item):

* data packets are ``mss + 40`` bytes on the wire, ACKs 40 bytes
  (ns-2 ``packetSize_`` + ``tcpip_base_hdr_size_``);
* buffers: ns-2's DropTail ``limit_`` N admits an arrival only while fewer
  than N − 1 packets wait (``drop-tail.cc``: ``length + 1 >= qlim_`` drops),
  so it holds N − 1 waiting packets plus the one in transmission; ccsim's
  limit counts waiting packets, so ccsim's B is ns-2's ``limit_`` B + 1;
* no SYN packet and no growth delay for it (ns-2 ``syn_ false``,
  ``delay_growth_ false``); receiver window unlimited (``window_`` large);
  initial window ``windowInit_``;
* RTO: initial 3 s (``rtxcur_init_``), minimum 0.2 s, ns-2's fixed-point
  estimator in ticks of ``tcpTick_`` (each connection's clock phase is
  random in both simulators);
* packet-counted windows: congestion avoidance adds MSS²/cwnd per ACK
  (ns-2 ``cwnd_ += 1/cwnd_``), and a loss halves the congestion window,
  keeping its fraction (``slowdown`` halves ``window()``), not FlightSize;
* limited transmit (ns-2.35 ``singledup_ 1``), NewReno's Impatient timer
  (``newreno_changes1_ 1``) and partial window deflation;
* a timeout halves the window in use (``rto_ssthresh = "window"``), unless
  a case asks for the Linux rule;
* delayed ACKs: ns-2 ``TCPSink/DelAck`` with ``interval_`` = ccsim
  ``delack_timeout``.

Options used by the BMCC protocol-mix comparison (``bmcc_mix.py``), all off by
default so the other cases' scripts and scenarios are unchanged byte for byte:

* ``queue = "red"``: the bottleneck runs RED with ns-2.35's defaults
  (``ns-default.tcl``: byte mode, queue in bytes with ``mean_pktsize_`` 500,
  automatic thresholds, ``q_weight_ -1``, gentle, ``use_mark_p_``) and
  ``setbit_ true``; ccsim ``{kind = "red", ecn = true}``, whose defaults are
  the same. The buffer is ``buffer_bytes``: ns-2 counts RED's byte-mode
  ``limit_`` in units of ``mean_pktsize_`` (so ``limit_`` = bytes / 500) and
  admits while fewer bytes wait, ccsim takes the same number of bytes;
* ``ecn``: ns-2 ``ecn_ 1`` on the agents, ccsim ``ecn = true``;
* ``counters``: ns-2 measures the bottleneck with an early-drop queue monitor
  (``QueueMonitor/ED``: CE marks at departure, RED's unforced drops apart),
  per-flow ACKs at the end of the warm-up (goodput over the measurement
  window) and ECN responses (``necnresponses_``), and counts the long flows'
  retransmission timeouts from their agents' event trace (``eventtrace-all``
  to stdout: an ``E ... TIMEOUT`` line at every expiry, ``TcpAgent::timeout``)
  rather than ``nrexmit_``, which ns-2.35 leaves unchanged at a timeout whose
  last congestion response was an ECN one (``last_cwnd_action_ ==
  CWND_ACTION_ECN``: no ssthresh cut, no count) and which so misses about half
  the timeouts of ECN-capable flows over RED (docs/validation.md, bmcc-mix);
* ``cross``: bidirectional file transfers (:class:`CrossTraffic`): Poisson
  arrivals with Pareto sizes drawn here from the seed, each file a new SACK
  connection between cross-traffic hosts, in ns-2 an agent created at the
  arrival (``advanceby`` its packets), in ccsim a flow with that ``start`` and
  ``size``: the same arrivals and sizes in both.

Only the standard library and ccsim are needed; ``ns`` must be on PATH for
:func:`run_ns2`.
"""

from __future__ import annotations

import dataclasses
import math
import random

from ccsim.validation.framework import draw_pairs
from ccsim.validation.ns2.reference import ns2_stdout

NS2_AGENT = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno"}
#: ns-2's SACK agent (Fall & Floyd 1996), compared with ccsim's RFC 6675 recovery.
NS2_SACK_AGENT = "Agent/TCP/Sack1"


@dataclasses.dataclass(frozen=True)
class CrossTraffic:
    """Bidirectional short transfers over the bottleneck (docs/models/bmcc.md, "Experiment settings").

    In each direction files arrive as a Poisson process of rate
    ``load_bps / (8 · mean_bytes)``; sizes are Pareto with ``shape`` and mean
    ``mean_bytes`` (minimum ``mean_bytes · (shape − 1) / shape``), sent as whole
    segments (ns-2 agents send whole packets). Each file picks one of ``pairs``
    extra host pairs uniformly; forward files go s → d, reverse ones d → s.
    """

    load_bps: float = 4.5e6
    mean_bytes: float = 30_000.0
    shape: float = 1.2
    pairs: int = 3


@dataclasses.dataclass(frozen=True)
class Case:
    """A dumbbell with ``pairs`` bulk TCP flows of one variant."""

    name: str
    cc: str = "newreno"
    pairs: int = 1
    rate_mbps: float = 10.0
    delay_ms: float = 20.0
    buffer_pkts: int = 50
    access_mbps: float = 100.0
    #: Access delay (each side) per pair: uniform in [lo, hi] ms, drawn per seed.
    access_ms: tuple[float, float] = (1.0, 1.0)
    #: Flow start times: uniform in [0, start_max] s, drawn per seed.
    start_max_s: float = 0.0
    mss: int = 960
    init_cwnd: int = 2
    delayed_ack: bool = False
    #: SACK: ns-2 ``Agent/TCP/Sack1`` + ``TCPSink/Sack1``, ccsim ``sack = true``.
    sack: bool = False
    duration_s: float = 60.0
    warmup_s: float = 10.0
    tick_s: float = 0.01
    #: Flows whose cwnd is sampled (indices), and the sampling interval.
    trace: tuple[int, ...] = ()
    trace_interval_s: float = 0.01
    #: Random send delay before each burst, uniform in [0, jitter_s) (ns-2
    #: ``overhead_``, ccsim ``send_jitter``); 0 = off.
    jitter_s: float = 0.0
    #: ccsim's timeout ssthresh rule: ``"window"`` is ns-2's; ``"once-per-window"``
    #: (ccsim's default) shows the difference.
    rto_ssthresh: str = "window"
    #: Bottleneck queue: ``"droptail"``, or ``"red"`` (ns-2.35's defaults with
    #: ``setbit_ true``; buffer ``buffer_bytes``).
    queue: str = "droptail"
    #: RED's buffer in bytes (a multiple of ns-2's ``mean_pktsize_`` 500).
    buffer_bytes: int = 0
    #: ECN-capable flows (ns-2 ``ecn_ 1``, ccsim ``ecn = true``).
    ecn: bool = False
    #: Extended counters: marks, RED's early drops, window goodputs, ECN responses.
    counters: bool = False
    #: Cross traffic (None: none).
    cross: CrossTraffic | None = None
    #: What the random draws are keyed on (default: the name): cases sharing a
    #: key get the same start times, access delays and cross-traffic files.
    draw_key: str = ""

    def bdp_pkts(self) -> float:
        """Bottleneck BDP in packets for the mean two-way propagation delay."""
        rtt = 2 * (self.delay_ms + sum(self.access_ms)) / 1000
        return self.rate_mbps * 1e6 * rtt / 8 / (self.mss + 40)

    def draw(self, seed: int) -> tuple[list[float], list[float]]:
        """Per-pair start times (s) and access delays (ms) for ``seed``."""
        key = f"{self.draw_key or self.name}/{seed}"
        return draw_pairs(key, self.pairs, self.start_max_s, self.access_ms)

    def draw_cross(self, seed: int) -> tuple[list[float], list[tuple[float, int, int, int]]]:
        """Cross-traffic hosts' access delays (ms) and files ``(start_s, pair,
        direction (0 forward, 1 reverse), segments)`` for ``seed``, by start."""
        x = self.cross
        if x is None:
            return [], []
        rng = random.Random(f"{self.draw_key or self.name}/{seed}/cross")
        lo, hi = self.access_ms
        delays = [round(rng.uniform(lo, hi), 6) for _ in range(x.pairs)]
        rate = x.load_bps / (8 * x.mean_bytes)
        x_min = x.mean_bytes * (x.shape - 1) / x.shape
        files = []
        for direction in (0, 1):
            t = 0.0
            while True:
                t += rng.expovariate(rate)
                start = round(t, 6)
                if start >= self.duration_s:
                    break
                size = x_min / (1.0 - rng.random()) ** (1 / x.shape)
                segments = max(1, math.ceil(size / self.mss))
                files.append((start, self.pairs + rng.randrange(x.pairs), direction, segments))
        files.sort()
        return delays, files


def tcl(case: Case, seed: int) -> str:
    """The ns-2.35 script for ``case`` under ``seed``; prints Q/F/C lines."""
    starts, delays = case.draw(seed)
    x_delays, x_files = case.draw_cross(seed)
    lines = _tcl_defaults(case) + _tcl_bottleneck(case)
    if case.counters:
        # Every retransmission timeout of the long flows' agents, as `E` lines on
        # stdout (nrexmit_ skips those after an ECN response); off again before
        # the cross traffic's agents are created.
        lines.insert(1, "$ns eventtrace-all stdout")
    lines += _tcl_pairs(case, starts, delays + x_delays)
    if case.counters:
        lines.append("$ns set eventTraceAll_ 0")
    if x_files:
        lines += _tcl_cross(case, x_files)
    lines += _tcl_monitor(case) + _tcl_finish(case, bool(x_files))
    if case.trace:
        lines.append('$ns at 0.0 "sample"')
    lines += [f'$ns at {case.duration_s} "finish"', "$ns run", ""]
    return "\n".join(lines)


def _tcl_defaults(case: Case) -> list[str]:
    """The simulator and the agents' class defaults: the matched conventions."""
    lines = [
        "set ns [new Simulator]",
        f"Agent/TCP set packetSize_ {case.mss}",
        "Agent/TCP set tcpip_base_hdr_size_ 40",
        "Agent/TCP set window_ 1000000",
        f"Agent/TCP set windowInit_ {case.init_cwnd}",
        "Agent/TCP set syn_ false",
        f"Agent/TCP set tcpTick_ {case.tick_s}",
        "Agent/TCP set minrto_ 0.2",
        "Agent/TCP set rtxcur_init_ 3.0",
        "Agent/TCP set singledup_ 1",
        "Agent/TCP set delay_growth_ false",
        "Agent/TCP/Newreno set newreno_changes1_ 1",
        "Agent/TCPSink/DelAck set interval_ 100ms",
        "Agent/TCPSink/Sack1/DelAck set interval_ 100ms",
        f"Agent/TCP set overhead_ {case.jitter_s}",
    ]
    if case.queue == "red":
        # Every other RED parameter keeps its ns-2.35 default (ns-default.tcl).
        lines.append("Queue/RED set setbit_ true")
    elif case.queue != "droptail":
        raise ValueError(f"unknown bottleneck queue {case.queue!r}")
    return lines


def _tcl_bottleneck(case: Case) -> list[str]:
    """The routers and the bottleneck link, with its buffer in ns-2's units."""
    lines = [
        "set r1 [$ns node]",
        "set r2 [$ns node]",
    ]
    if case.queue == "red":
        # Byte mode: `limit_` counts units of mean_pktsize_ (500 B); RED admits
        # an arrival while fewer than limit_ · 500 bytes wait.
        if case.buffer_bytes <= 0 or case.buffer_bytes % 500:
            raise ValueError("RED needs buffer_bytes, a positive multiple of 500")
        return lines + [
            f"$ns duplex-link $r1 $r2 {case.rate_mbps}Mb {case.delay_ms}ms RED",
            f"$ns queue-limit $r1 $r2 {case.buffer_bytes // 500}",
            f"$ns queue-limit $r2 $r1 {case.buffer_bytes // 500}",
        ]
    return lines + [
        f"$ns duplex-link $r1 $r2 {case.rate_mbps}Mb {case.delay_ms}ms DropTail",
        # ns-2's DropTail `limit_` N holds N − 1 waiting packets plus the one
        # in transmission; ccsim's limit counts waiting packets only.
        f"$ns queue-limit $r1 $r2 {case.buffer_pkts + 1}",
        f"$ns queue-limit $r2 $r1 {case.buffer_pkts + 1}",
    ]


def _tcl_pairs(case: Case, starts: list[float], delays: list[float]) -> list[str]:
    """Every host pair's access links (``delays``: the long-lived flows' pairs, then
    the cross traffic's), and on the first ``case.pairs`` a bulk flow from its start."""
    sink = (
        "Agent/TCPSink" + ("/Sack1" if case.sack else "") + ("/DelAck" if case.delayed_ack else "")
    )
    agent = NS2_SACK_AGENT if case.sack else NS2_AGENT[case.cc]
    lines = []
    for i, delay in enumerate(delays):
        a = f"{case.access_mbps}Mb {delay}ms DropTail"
        lines += [
            f"set s({i}) [$ns node]",
            f"set d({i}) [$ns node]",
            f"$ns duplex-link $s({i}) $r1 {a}",
            f"$ns duplex-link $r2 $d({i}) {a}",
            f"$ns queue-limit $s({i}) $r1 1001",
            f"$ns queue-limit $r1 $s({i}) 1001",
            f"$ns queue-limit $r2 $d({i}) 1001",
            f"$ns queue-limit $d({i}) $r2 1001",
        ]
        if i >= case.pairs:
            continue
        lines += [
            f"set tcp({i}) [new {agent}]",
            f"$ns attach-agent $s({i}) $tcp({i})",
            f"set sink({i}) [new {sink}]",
            f"$ns attach-agent $d({i}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [new Application/FTP]",
            f"$ftp({i}) attach-agent $tcp({i})",
            f'$ns at {starts[i]} "$ftp({i}) start"',
        ]
        if case.ecn:
            lines.append(f"$tcp({i}) set ecn_ 1")
        if case.counters:
            # The flow's index in its event-trace lines (no other use here).
            lines.append(f"$tcp({i}) set fid_ {i}")
    return lines


def _tcl_cross(case: Case, x_files: list[tuple[float, int, int, int]]) -> list[str]:
    """The cross traffic: a SACK agent per file, created at its arrival."""
    lines = [
        "set xfiles 0",
        "proc xfile {j src dst n} {",
        "  global ns xtcp xn xfiles",
        f"  set xtcp($j) [new {NS2_SACK_AGENT}]",
    ]
    if case.ecn:
        lines.append("  $xtcp($j) set ecn_ 1")
    lines += [
        "  set xn($j) $n",
        "  incr xfiles",
        "  $ns attach-agent $src $xtcp($j)",
        "  set k [new Agent/TCPSink/Sack1]",
        "  $ns attach-agent $dst $k",
        "  $ns connect $xtcp($j) $k",
        "  $xtcp($j) advanceby $n",
        "}",
    ]
    for j, (t, pair, direction, segments) in enumerate(x_files):
        src, dst = ("s", "d") if direction == 0 else ("d", "s")
        lines.append(f'$ns at {t} "xfile {j} ${src}({pair}) ${dst}({pair}) {segments}"')
    return lines


def _tcl_monitor(case: Case) -> list[str]:
    """The bottleneck's queue monitor, reset at the end of the warm-up."""
    if not case.counters:
        return [
            "set qm [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]",
            f'$ns at {case.warmup_s} "$qm reset"',
        ]
    # An early-drop monitor: RED's unforced drops go to their own target
    # (epdrops_) and count in pdrops_ too; pmarks_ counts CE departures.
    lines = [
        "set bl [$ns link $r1 $r2]",
        "set qm [new QueueMonitor/ED]",
        "$bl attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm",
    ]
    if case.queue == "red":
        lines += [
            "set ed [new SnoopQueue/EDrop]",
            "$ed set-monitor $qm",
            "$ed target [$ns set nullAgent_]",
            "[$bl queue] early-drop-target $ed",
        ]
    return lines + [
        "proc warm {} {",
        "  global qm tcp",
        "  $qm reset",
        "  $qm set pmarks_ 0",
        "  $qm set epdrops_ 0",
        f"  for {{set i 0}} {{$i < {case.pairs}}} {{incr i}} {{",
        '    puts "W $i [$tcp($i) set ack_] [$tcp($i) set nrexmitpack_] '
        '[$tcp($i) set nrexmit_] [$tcp($i) set necnresponses_]"',
        "  }",
        "}",
        f'$ns at {case.warmup_s} "warm"',
    ]


def _tcl_finish(case: Case, cross: bool) -> list[str]:
    """The cwnd sampler and ``finish``, which prints the Q, F (and X) lines."""
    lines = [
        "proc sample {} {",
        "  global ns tcp",
        f"  foreach i {{{' '.join(map(str, case.trace))}}} {{",
        '    puts "C [$ns now] $i [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_]"',
        "  }",
        f'  $ns at [expr [$ns now] + {case.trace_interval_s}] "sample"',
        "}",
        "proc finish {} {",
        "  global qm tcp" + (" xtcp xn xfiles" if cross else ""),
    ]
    counters = " [$qm set pmarks_] [$qm set epdrops_]" if case.counters else ""
    necn = " [$tcp($i) set necnresponses_]" if case.counters else ""
    lines += [
        '  puts "Q [$qm set parrivals_] [$qm set pdepartures_] [$qm set pdrops_] '
        f'[$qm set bdepartures_]{counters}"',
        f"  for {{set i 0}} {{$i < {case.pairs}}} {{incr i}} {{",
        '    puts "F $i [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] '
        f'[$tcp($i) set nrexmit_] [$tcp($i) set ack_]{necn}"',
        "  }",
    ]
    if cross:
        # Files, completed files, segments acknowledged, retransmitted
        # segments and timeouts of the cross traffic (whole run).
        lines += [
            "  set done 0; set acked 0; set rexmit 0; set touts 0",
            "  foreach j [array names xtcp] {",
            "    set a [expr [$xtcp($j) set ack_] + 1]",
            "    if {$a >= $xn($j)} { incr done }",
            "    incr acked $a",
            "    incr rexmit [$xtcp($j) set nrexmitpack_]",
            "    incr touts [$xtcp($j) set nrexmit_]",
            "  }",
            '  puts "X $xfiles $done $acked $rexmit $touts"',
        ]
    return lines + [
        "  exit 0",
        "}",
    ]


def ccsim_scenario(case: Case, seed: int) -> dict:
    """The ccsim scenario matching :func:`tcl` for ``seed``."""
    starts, delays = case.draw(seed)
    x_delays, x_files = case.draw_cross(seed)
    if case.queue == "red":
        # All other keys default to ns-2.35's values (docs/models/red.md).
        q = {"kind": "red", "limit": f"{case.buffer_bytes}B", "ecn": True}
    else:
        q = {"kind": "droptail", "limit": f"{case.buffer_pkts}pkt"}

    def tcp(name: str, start: float, cc: str, sack: bool) -> dict:
        f = {
            "name": name,
            "cc": cc,
            "conventions": "ns2",
            "mss": case.mss,
            "header": 40,
            "ack_size": 40,
            "init_cwnd": case.init_cwnd,
            "start": f"{start}s",
            "rtt_tick": f"{case.tick_s}s",
            "rto_ssthresh": case.rto_ssthresh,
            "delayed_ack": case.delayed_ack,
            "delack_timeout": "100ms",
            "send_jitter": f"{case.jitter_s}s",
            "sack": sack,
        }
        if case.ecn:
            f["ecn"] = True
        return f

    flows = [
        {"name": f"f{i}", "pairs": [i], **tcp(f"f{i}", starts[i], case.cc, case.sack)}
        for i in range(case.pairs)
    ]
    for j, (t, pair, direction, segments) in enumerate(x_files):
        src, dst = (f"s{pair}", f"d{pair}") if direction == 0 else (f"d{pair}", f"s{pair}")
        flows.append(
            {
                **tcp(f"x{j}", t, "newreno", True),
                "src": src,
                "dst": dst,
                "size": f"{segments * case.mss}B",
            }
        )
    s = {
        "name": f"{case.name}-seed{seed}",
        "seed": seed,
        "duration": f"{case.duration_s}s",
        "warmup": f"{case.warmup_s}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": case.pairs + len(x_delays),
            "bottleneck": {
                "rate": f"{case.rate_mbps}Mbps",
                "delay": f"{case.delay_ms}ms",
                "queue": q,
            },
            "access": {
                "rate": f"{case.access_mbps}Mbps",
                "delay": [f"{d}ms" for d in delays + x_delays],
                "queue": {"kind": "droptail", "limit": "1000pkt"},
            },
        },
        "flows": flows,
    }
    if case.trace:
        s["monitor"] = {
            "interval": f"{case.trace_interval_s}s",
            "queues": ["R1->R2"],
            "flows": [f"f{i}" for i in case.trace],
        }
    return s


@dataclasses.dataclass
class Outcome:
    """What one simulator reported for one run."""

    utilization: float
    drops: int
    retransmits: int
    timeouts: int
    #: Goodput of each flow over the whole run (bit/s), for fairness.
    goodputs: list[float]
    #: (time_s, flow index, cwnd in segments, ssthresh in segments) samples.
    cwnd: list[tuple[float, int, float, float]]
    # With ``Case.counters`` (else 0 / empty):
    #: CE marks at the bottleneck over the measurement window.
    marks: int = 0
    #: Bottleneck drops by RED's unforced (early) decision, and the rest
    #: (buffer overflow; RED's forced drops by the average are off with
    #: use_mark_p), over the measurement window.
    drops_early: int = 0
    drops_other: int = 0
    #: Window reductions on ECN-Echo, summed over the long-lived flows (whole run).
    ecn_responses: int = 0
    #: Retransmitted segments, timeouts and ECN responses of the long-lived
    #: flows over the measurement window.
    window_retransmits: int = 0
    window_timeouts: int = 0
    window_ecn_responses: int = 0
    #: Goodput of each long-lived flow over the measurement window (bit/s).
    window_goodputs: list[float] = dataclasses.field(default_factory=list)
    #: Cross traffic (whole run): files started, completed, payload bytes
    #: acknowledged, retransmitted segments, timeouts.
    cross_files: int = 0
    cross_completed: int = 0
    cross_bytes: float = 0.0
    cross_retransmits: int = 0
    cross_timeouts: int = 0


@dataclasses.dataclass
class Printed:
    """The statistics lines a :func:`tcl` script prints: ``Q`` (the bottleneck's
    counters), ``F`` (one per flow: i ndatapack nrexmitpack nrexmit ack
    necnresponses), ``C`` (cwnd samples: time flow cwnd ssthresh), ``W`` (each flow at
    the end of the warm-up, by flow: ack nrexmitpack nrexmit necn), ``X`` (the cross
    traffic's counters) and, with ``counters``, the agents' event trace (``E`` lines,
    of which the ``TIMEOUT`` ones are kept)."""

    q: list[float] | None = None
    flows: list[list[float]] = dataclasses.field(default_factory=list)
    cwnd: list[tuple[float, int, float, float]] = dataclasses.field(default_factory=list)
    warm: dict[int, list[float]] = dataclasses.field(default_factory=dict)
    cross: list[float] | None = None
    #: (time, flow) of each retransmission timeout of a long flow, from the
    #: agents' event trace (``E`` lines, with ``counters``).
    rto_events: list[tuple[float, int]] = dataclasses.field(default_factory=list)


def parse_printed(out: str) -> Printed:
    """Reads the statistics lines of a :func:`tcl` script's output (:class:`Printed`)."""
    p = Printed()
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "Q":
            p.q = [float(x) for x in f[1:]]
        elif f[0] == "F":
            p.flows.append([float(x) for x in f[1:]])
        elif f[0] == "C":
            p.cwnd.append((float(f[1]), int(f[2]), float(f[3]), float(f[4])))
        elif f[0] == "W":
            p.warm[int(f[1])] = [float(x) for x in f[2:]]
        elif f[0] == "X":
            p.cross = [float(x) for x in f[1:]]
        elif f[0] == "E" and len(f) > 6 and f[5] == "TIMEOUT":
            # E time src dst TCP TIMEOUT fid seqno cwnd (TcpAgent::trace_event)
            p.rto_events.append((float(f[1]), int(f[6])))
    return p


def run_ns2(case: Case, seed: int) -> Outcome:
    """Runs ns-2 on ``case`` and parses its output."""
    out = ns2_stdout(tcl(case, seed))
    p = parse_printed(out)
    q, flows, cwnd, warm, cross = p.q, p.flows, p.cwnd, p.warm, p.cross
    if q is None:
        raise RuntimeError(f"ns-2 printed no queue statistics for {case.name}:\n{out[-2000:]}")
    window = case.duration_s - case.warmup_s
    o = Outcome(
        utilization=q[3] * 8 / (case.rate_mbps * 1e6 * window),
        drops=int(q[2]),
        retransmits=int(sum(f[2] for f in flows)),
        timeouts=int(sum(f[3] for f in flows)),
        # ack_ is the highest cumulative ACK in packets (numbered from 0).
        goodputs=[(f[4] + 1) * case.mss * 8 / case.duration_s for f in flows],
        cwnd=cwnd,
    )
    if case.counters:
        o.marks = int(q[4])
        o.drops_early = int(q[5])
        o.drops_other = int(q[2] - q[5])
        o.ecn_responses = int(sum(f[5] for f in flows))
        o.window_retransmits = o.retransmits - int(sum(w[1] for w in warm.values()))
        # Every expiry of the timer (the agents' TIMEOUT events), as ccsim counts
        # them; nrexmit_ misses those whose last congestion response was ECN.
        o.timeouts = len(p.rto_events)
        o.window_timeouts = sum(1 for t, _ in p.rto_events if t >= case.warmup_s)
        o.window_ecn_responses = o.ecn_responses - int(sum(w[3] for w in warm.values()))
        o.window_goodputs = [
            (f[4] - warm[i][0]) * case.mss * 8 / window for i, f in enumerate(flows)
        ]
    if cross is not None:
        o.cross_files, o.cross_completed = int(cross[0]), int(cross[1])
        o.cross_bytes = cross[2] * case.mss
        o.cross_retransmits, o.cross_timeouts = int(cross[3]), int(cross[4])
    return o


def run_ccsim(case: Case, seed: int) -> Outcome:
    """Runs ccsim on the matching scenario."""
    import ccsim

    scenario = ccsim_scenario(case, seed)
    r = ccsim.run(scenario)
    q = r.queue("R1->R2")
    f = r.flows
    cwnd = []
    if case.trace:
        ts = r.timeseries["flow"]
        for t, name, c, s in zip(ts["time_s"], ts["flow"], ts["cwnd_bytes"], ts["ssthresh_bytes"]):
            cwnd.append((float(t), int(name[1:]), c / case.mss, s / case.mss))
    x = f.iloc[case.pairs :]
    f = f.iloc[: case.pairs]
    o = Outcome(
        utilization=float(q["utilization"]),
        drops=int(q["drops"]),
        retransmits=int(f["retransmits"].sum()),
        timeouts=int(f["timeouts"].sum()),
        goodputs=[float(b) * 8 / case.duration_s for b in f["bytes_delivered"]],
        cwnd=cwnd,
    )
    if case.counters:
        o.marks = int(q["marks"])
        o.drops_early = int(q["drops_early"])
        o.drops_other = int(q["drops"] - q["drops_early"])
        o.ecn_responses = int(f["ecn_reductions"].sum())
        # The flow table counts over the whole run: subtract a run that ends at
        # the warm-up (the same history up to there, the simulation being
        # deterministic).
        w = ccsim.run(dict(scenario, duration=f"{case.warmup_s}s", warmup="0s"))
        w = w.flows.iloc[: case.pairs]
        o.window_retransmits = o.retransmits - int(w["retransmits"].sum())
        o.window_timeouts = o.timeouts - int(w["timeouts"].sum())
        o.window_ecn_responses = o.ecn_responses - int(w["ecn_reductions"].sum())
        window = case.duration_s - case.warmup_s
        o.window_goodputs = [float(b) * 8 / window for b in f["bytes_delivered_window"]]
    if case.cross is not None:
        o.cross_files = len(x)
        o.cross_completed = int(x["completion_s"].notna().sum())
        o.cross_bytes = float(x["bytes_delivered"].sum())
        o.cross_retransmits = int(x["retransmits"].sum())
        o.cross_timeouts = int(x["timeouts"].sum())
    return o
