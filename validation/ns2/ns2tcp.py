"""Run one TCP scenario in ns-2.35 and in ccsim with matched conventions.

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

Only the standard library and ccsim are needed; ``ns`` must be on PATH for
:func:`run_ns2`.
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

NS2_AGENT = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno"}
#: ns-2's SACK agent (Fall & Floyd 1996), compared with ccsim's RFC 6675 recovery.
NS2_SACK_AGENT = "Agent/TCP/Sack1"


def have_ns() -> bool:
    """True if the ns-2 binary ``ns`` is on PATH."""
    return shutil.which("ns") is not None


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

    def bdp_pkts(self) -> float:
        """Bottleneck BDP in packets for the mean two-way propagation delay."""
        rtt = 2 * (self.delay_ms + sum(self.access_ms)) / 1000
        return self.rate_mbps * 1e6 * rtt / 8 / (self.mss + 40)

    def draw(self, seed: int) -> tuple[list[float], list[float]]:
        """Per-pair start times (s) and access delays (ms) for ``seed``."""
        rng = random.Random(f"{self.name}/{seed}")
        starts = [round(rng.uniform(0, self.start_max_s), 6) for _ in range(self.pairs)]
        lo, hi = self.access_ms
        delays = [round(rng.uniform(lo, hi), 6) for _ in range(self.pairs)]
        return starts, delays


def tcl(case: Case, seed: int) -> str:
    """The ns-2.35 script for ``case`` under ``seed``; prints Q/F/C lines."""
    starts, delays = case.draw(seed)
    sink = (
        "Agent/TCPSink" + ("/Sack1" if case.sack else "") + ("/DelAck" if case.delayed_ack else "")
    )
    agent = NS2_SACK_AGENT if case.sack else NS2_AGENT[case.cc]
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
        "set r1 [$ns node]",
        "set r2 [$ns node]",
        f"$ns duplex-link $r1 $r2 {case.rate_mbps}Mb {case.delay_ms}ms DropTail",
        # ns-2's DropTail `limit_` N holds N − 1 waiting packets plus the one
        # in transmission; ccsim's limit counts waiting packets only.
        f"$ns queue-limit $r1 $r2 {case.buffer_pkts + 1}",
        f"$ns queue-limit $r2 $r1 {case.buffer_pkts + 1}",
    ]
    for i in range(case.pairs):
        a = f"{case.access_mbps}Mb {delays[i]}ms DropTail"
        lines += [
            f"set s({i}) [$ns node]",
            f"set d({i}) [$ns node]",
            f"$ns duplex-link $s({i}) $r1 {a}",
            f"$ns duplex-link $r2 $d({i}) {a}",
            f"$ns queue-limit $s({i}) $r1 1001",
            f"$ns queue-limit $r1 $s({i}) 1001",
            f"$ns queue-limit $r2 $d({i}) 1001",
            f"$ns queue-limit $d({i}) $r2 1001",
            f"set tcp({i}) [new {agent}]",
            f"$ns attach-agent $s({i}) $tcp({i})",
            f"set sink({i}) [new {sink}]",
            f"$ns attach-agent $d({i}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [new Application/FTP]",
            f"$ftp({i}) attach-agent $tcp({i})",
            f'$ns at {starts[i]} "$ftp({i}) start"',
        ]
    lines += [
        "set qm [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]",
        f'$ns at {case.warmup_s} "$qm reset"',
        "proc sample {} {",
        "  global ns tcp",
        f"  foreach i {{{' '.join(map(str, case.trace))}}} {{",
        '    puts "C [$ns now] $i [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_]"',
        "  }",
        f'  $ns at [expr [$ns now] + {case.trace_interval_s}] "sample"',
        "}",
        "proc finish {} {",
        "  global qm tcp",
        '  puts "Q [$qm set parrivals_] [$qm set pdepartures_] [$qm set pdrops_] [$qm set bdepartures_]"',
        f"  for {{set i 0}} {{$i < {case.pairs}}} {{incr i}} {{",
        '    puts "F $i [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] '
        '[$tcp($i) set nrexmit_] [$tcp($i) set ack_]"',
        "  }",
        "  exit 0",
        "}",
    ]
    if case.trace:
        lines.append('$ns at 0.0 "sample"')
    lines += [f'$ns at {case.duration_s} "finish"', "$ns run", ""]
    return "\n".join(lines)


def ccsim_scenario(case: Case, seed: int) -> dict:
    """The ccsim scenario matching :func:`tcl` for ``seed``."""
    starts, delays = case.draw(seed)
    q = {"kind": "droptail", "limit": f"{case.buffer_pkts}pkt"}
    flows = [
        {
            "name": f"f{i}",
            "pairs": [i],
            "cc": case.cc,
            "conventions": "ns2",
            "mss": case.mss,
            "header": 40,
            "ack_size": 40,
            "init_cwnd": case.init_cwnd,
            "start": f"{starts[i]}s",
            "rtt_tick": f"{case.tick_s}s",
            "rto_ssthresh": case.rto_ssthresh,
            "delayed_ack": case.delayed_ack,
            "delack_timeout": "100ms",
            "send_jitter": f"{case.jitter_s}s",
            "sack": case.sack,
        }
        for i in range(case.pairs)
    ]
    s = {
        "name": f"{case.name}-seed{seed}",
        "seed": seed,
        "duration": f"{case.duration_s}s",
        "warmup": f"{case.warmup_s}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": case.pairs,
            "bottleneck": {
                "rate": f"{case.rate_mbps}Mbps",
                "delay": f"{case.delay_ms}ms",
                "queue": q,
            },
            "access": {
                "rate": f"{case.access_mbps}Mbps",
                "delay": [f"{d}ms" for d in delays],
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


def ns2_stdout(script: str, timeout_s: float = 3600) -> str:
    """Runs the ns-2 script text ``script`` and returns what it printed."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "case.tcl"
        path.write_text(script)
        return subprocess.run(
            ["ns", str(path)], capture_output=True, text=True, check=True, timeout=timeout_s
        ).stdout


def run_ns2(case: Case, seed: int) -> Outcome:
    """Runs ns-2 on ``case`` and parses its output."""
    out = ns2_stdout(tcl(case, seed))
    q = None
    flows = []
    cwnd = []
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "Q":
            q = [float(x) for x in f[1:]]
        elif f[0] == "F":
            flows.append([float(x) for x in f[1:]])
        elif f[0] == "C":
            cwnd.append((float(f[1]), int(f[2]), float(f[3]), float(f[4])))
    if q is None:
        raise RuntimeError(f"ns-2 printed no queue statistics for {case.name}:\n{out[-2000:]}")
    window = case.duration_s - case.warmup_s
    return Outcome(
        utilization=q[3] * 8 / (case.rate_mbps * 1e6 * window),
        drops=int(q[2]),
        retransmits=int(sum(f[2] for f in flows)),
        timeouts=int(sum(f[3] for f in flows)),
        # ack_ is the highest cumulative ACK in packets (numbered from 0).
        goodputs=[(f[4] + 1) * case.mss * 8 / case.duration_s for f in flows],
        cwnd=cwnd,
    )


def run_ccsim(case: Case, seed: int) -> Outcome:
    """Runs ccsim on the matching scenario."""
    import ccsim

    r = ccsim.run(ccsim_scenario(case, seed))
    q = r.queue("R1->R2")
    f = r.flows
    cwnd = []
    if case.trace:
        ts = r.timeseries["flow"]
        for t, name, c, s in zip(ts["time_s"], ts["flow"], ts["cwnd_bytes"], ts["ssthresh_bytes"]):
            cwnd.append((float(t), int(name[1:]), c / case.mss, s / case.mss))
    return Outcome(
        utilization=float(q["utilization"]),
        drops=int(q["drops"]),
        retransmits=int(f["retransmits"].sum()),
        timeouts=int(f["timeouts"].sum()),
        goodputs=[float(b) * 8 / case.duration_s for b in f["bytes_delivered"]],
        cwnd=cwnd,
    )
