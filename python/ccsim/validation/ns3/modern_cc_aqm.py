"""Today's congestion controls and AQMs in ns-3 (issue 27): a dumbbell of bulk flows with
a chosen TCP (NewReno, CUBIC, BBR, Vegas, DCTCP) over a chosen bottleneck queue disc
(FIFO drop-tail, CoDel, FQ-CoDel, PIE, or RED as a step marker at K packets).

One description (:class:`ModernCase`) gives the ns-3 run here and the ccsim scenario
(:func:`ccsim_scenario`), so both simulators carry the same traffic. ns-3 runs the shared
dumbbell (:mod:`.dumbbell`, compiled once against the ``pip install ns3`` wheel, 3.44)
with ``programs/modern_cc_aqm.cc`` (the queue discs, jitter and counters) and
``programs/tcp_fixes.h`` (the corrections below), as :mod:`.bulk_tcp` runs it for the
Westwood+ comparison.

ns-3's conventions here, and how each is set:

* the bottleneck's buffer is a traffic-control queue disc (``FifoQueueDisc`` for
  drop-tail, ``CoDelQueueDisc``, ``FqCoDelQueueDisc``, ``PieQueueDisc``,
  ``RedQueueDisc`` with ``MinTh = MaxTh = K``, ``QW = 1`` and ``Gentle`` off for step
  marking: with ``Gentle`` on, its default, RED lets the first arrival of each excursion
  above K through unmarked, which alone moved DCTCP's fairness by 0.1) over a
  device queue of one packet; ns-3's default FqCoDel on every other device is removed, so
  the access links keep their device DropTail queues. The device queue holds one packet
  waiting besides the one in transmission, so the disc's limit is ``buffer − 1``. The
  reverse direction, the ACKs', has a 1000-packet ``FifoQueueDisc`` (ccsim's
  ``reverse_queue``, drop-tail, 1000 packets): with the device queue alone, ACKs that the
  jittered access links bunched were dropped (one jittered BBR flow lost 4 % of them);
* queueing delay is each packet's time from entering the disc to the start of its
  transmission (a packet tag set at the disc's ``Enqueue``, read at the device's
  ``PhyTxBegin``): the wait in the one-packet device queue included, as ccsim's queue
  counts it (the disc's own ``SojournTime`` leaves that service time out);
* ns-3's AQMs see only the disc's part of the wait, and its RED counts the disc's
  packets: ccsim's AQM targets are one service time (one 1488-byte packet at the
  bottleneck rate) longer and its step threshold one packet higher, the same control
  point on the whole wait;
* recovery is RFC 6937 PRR (:class:`PrrOnce` in the program), ns-3.44's
  ``TcpPrrRecovery`` with its DeliveredData counted once: 3.44 adds a segment per
  duplicate ACK to the SACK-derived count (ns-3 issue #1350, fixed upstream after 3.44),
  which sends 1.4 segments per ACK in a CUBIC recovery, drops about four packets per
  congestion event where one is lost, and reduces twice (``recovery = "prr"`` runs 3.44's
  own). The ACK that starts an ECN reduction is also counted once (``TcpSocketBase``
  hands it to the recovery twice, in ``EnterCwr`` and in ``ProcessAck``'s ``CA_CWR``
  branch), and the first segment PRR forces out is forced in a loss recovery only: with
  both, ns-3's DCTCP let about one segment more out per reduction, so a reduction that
  should have emptied the queue above K left it there for two or three more windows;
* ns-3 refills the one-packet device queue from the disc in an event of its own at the
  same time (``NetDeviceQueue::PacketDequeued`` schedules the wake with ``ScheduleNow``):
  a packet arriving at the instant a transmission ends finds the disc one packet fuller
  than ccsim's queue shows. ACK clocking makes such ties systematic for the flow whose
  packets start a busy period, so where drops or marks depend on the phase (fairness in a
  deterministic run) ns-3 and ccsim can land in different phase-locked states;
* ``TcpVegas`` is fed each ACK's RTT sample (:class:`VegasLastRtt` in the program):
  ``TcpSocketBase`` passes every congestion control the smoothed RTT, so stock Vegas
  takes its BaseRTT and per-round minimum from SRTT, whose first value is the SYN
  exchange's RTT (``vegas_rtt = "srtt"`` runs it). With SRTT, 8 Vegas flows at 100 Mb/s
  share fairly (Jain 0.91) over a 3-ms queue; with the samples, as the paper and Linux
  measure, late starters take the standing queue for propagation delay, as in ccsim.
  With delayed ACKs stock Vegas leaves the link idle: SRTT's samples time the earliest
  segment an ACK covers, held at the receiver for the next, against a BaseRTT from the
  SYN, which no data packet's serialization delays, so Diff reaches α over an empty
  queue (one flow at 100 Mb/s and 20 ms: cwnd 101 of a 203-segment pipe, utilization
  0.49, 0.05 ms of queue; 0.99 without delayed ACKs);
* without SACK (``sack = False``) ns-3's NewReno runs its Reno-SACK emulation with
  ``TcpClassicRecovery``; no suite case does. ns-3.44 keeps the emulation's marks
  (``TcpTxBuffer::AddRenoSack``, one per duplicate ACK, moved forward as the head is
  acknowledged) until a timeout, so after a recovery the first duplicate ACK finds
  ``IsLost(HighACK + 1)`` true and starts the next recovery with a spurious
  retransmission (NewReno over CoDel, seed 1: 197 recoveries and 40 timeouts in 20 s at a
  2-segment window, 780 drops in the measured 15 s against ccsim's 91). ccsim's recovery
  without SACK is validated against ns-2 (``ccsim validate tcp``);
* ns-3 does not restart the retransmission timer at a fast retransmit and reduces at
  every timeout but one during a timeout's recovery: the ``"ns3"`` preset's
  ``rearm_rto = false`` and ``rto_ssthresh = "except-in-loss"``. ``TcpCubic`` keeps
  W_max across a timeout (ccsim's CUBIC runs ``timeout_w_max = "keep"``) and runs the
  original HyStart by default, which ccsim does not have: the program turns it off.
  ``TcpCubic`` computes the window as Linux's ``tcp_cubic.c`` does, in whole segments,
  with an ACK count it never clears and the ACK that ends a recovery counted whole:
  ccsim's CUBIC runs ``variant = "ns3"`` (two flows over FQ-CoDel at 10 Mb/s: with the
  RFC's real-valued window, epochs 0.30–0.33 s against ns-3's 0.28–0.31);
* ``TcpVegas::GetSsThresh`` answers a loss with one segment less than cwnd (ssthresh =
  max(min(ssthresh, cwnd − 1), 2) segments) where Linux halves: ccsim's Vegas runs it with
  ``loss = "one_segment"``. It decides the 1-flow, 0.5-BDP case, whose slow start
  overshoots: ns-3 then comes down one segment per round trip with the queue full;
* ns-3's ``FqCoDelQueueDisc`` applies CoDel's one-MTU rule ("no drop while at most one
  MTU is queued") to each flow's queue (its per-flow ``CoDelQueueDisc`` children test
  their own bytes against ``MinBytes``), where Linux passes the discipline's total
  backlog; its quantum is the device MTU, 1500 bytes. ccsim's FQ-CoDel runs
  ``mtu_backlog = "queue"`` and ``quantum = "1500B"``. With 50 flows at 100 Mb/s the rule
  decides the queue length: with Linux's, ccsim had 8.1 ms of mean delay against ns-3's
  12.8 at 2 BDP, and 5640 drops against 8983 at 0.5 BDP;
* ns-3's ``PieQueueDisc`` restores its burst allowance only at the start of a burst
  period (its first arrival, or the first after 1.5 s of light updates), where RFC 8033
  and Linux restore it at every light update: ccsim's PIE runs ``burst = "ns3"`` (one
  CUBIC flow over 2 BDP: with the RFC's rule its slow start overshot a round trip longer
  and timed out 3–4 times, where ns-3 entered its loss state once);
* ns-3's ``CoDelQueueDisc`` (as Linux) computes ``interval / √count`` from a 16-bit
  reciprocal square root updated by one Newton step per change of count; ccsim's CoDel
  computes it exactly (RFC 8289 §5.5) unless ``inv_sqrt = "newton"``, which both CoDels of
  the suite run;
* ns-3's ``PieQueueDisc`` drops with probability p alone (``UseDerandomization`` false);
  Linux always de-randomizes (RFC 8033 §5.1): ccsim's PIE runs ``derandomize = false``.
  With de-randomization, NewReno with ECN over PIE, 50 flows, marked 9320 times against
  ns-3's 4602 with a p95 delay of 34 against 20 ms;
* the senders' sockets are the program's ``SocketFix``, ``TcpSocketBase`` with its ECN
  states brought to Linux's (``ecn_fix = False`` runs 3.44's own). 3.44 takes an ECN
  echo in loss recovery and after a timeout (``EnterCwr`` from any state but
  ``CA_CWR``): a second reduction from the flight left, after a timeout to 2 segments
  (FQ-CoDel with ECN, 8 flows, 100 ms, 2 BDP, jittered, seed 1: two flows at 2 segments
  after 1.7 s, 4.6 and 6.6 Mb/s against 14 for the others, Jain 0.91). It does not
  recover a loss found during ``CA_CWR``: it retransmits every segment the scoreboard
  marks lost at once, unpaced (64 in one burst at 1.14 s in that run). And it keeps the
  duplicate-ACK count when the reduction ends, so an ACK that ends it with new SACK
  information aborts the run on ns-3's own assertion ("From OPEN->DISORDER but with 2
  dup ACKs"; NewReno with ECN over PIE, 8 flows, 100 ms, 2 BDP, jittered, seed 2).
  ``SocketFix`` ignores the echo in ``CA_LOSS`` and ``CA_RECOVERY`` (Linux's
  ``tcp_enter_cwr`` acts only from Open and Disorder), enters recovery from ``CA_CWR``
  with the reduction's ssthresh and PRR counts kept (``tcp_enter_recovery``; with SACK
  and ``PrrOnce``), and clears the count in ``CA_OPEN``. Runs without ECN never see an
  echo nor enter ``CA_CWR`` and are unchanged;
* the senders also estimate delivery rates with the program's ``RatePerAck``
  (``rate_fix = False`` runs 3.44's ``TcpRateLinux``): 3.44 keeps one rate sample across
  ACKs, so the ACK of the second of two segments sent with no ACK between them keeps the
  first one's interval and counts one segment more over it. At 10 Mb/s and 100 ms such
  samples run ~1 % above the link, ``TcpBbr``'s max filter keeps them, and its pacing rate
  stays above the link's: one BBR flow kept a queue growing 0.35 ms/s between PROBE_RTTs
  (12.3 ms of mean delay; 5.5 ms with the fix). Linux builds each ACK's sample afresh;
* ``SocketFix`` also counts bytes in flight as Linux does (``sack_fix = False`` runs
  3.44's count): 3.44's ``TcpTxBuffer::Update`` marks a retransmitted segment SACKed but
  keeps it in ``m_retrans`` (ns-3 issue #1190, fixed in ns-3-dev in 2026), so
  ``BytesInFlight`` counts it in flight until the cumulative ACK passes it. When the
  retransmission at the head is lost, each SACKed retransmission above it adds a segment
  for the rest of the recovery, and cwnd (in flight + PRR's send count) climbs with it:
  one Vegas flow at 0.5 BDP (seed 1) went from 167 to 241 segments in 0.1 s of duplicate
  ACKs, took its timeout's ssthresh from there, and overflowed the buffer every round trip
  for the rest of the run (1431 drops, 47 ms of mean delay; 0 and 3.9 ms with the fix,
  ccsim 0 and 3.1). Linux's ``tcp_sacktag_one`` takes a SACKed retransmission out of
  ``retrans_out``;
* ``SegmentSize`` = ``mss``, ``InitialCwnd`` 10, ``DelAckCount`` 1 (an ACK per segment;
  2, ns-3's default, where the case has ``delayed_ack``), ``MinRto`` 200 ms, SACK on,
  timestamps off (unless ``timestamps``), 16-MB socket buffers, ECN (``UseEcn On``) where
  the case asks for it; point-to-point links carry a 2-byte PPP header, so rates are
  scaled by 1002/1000 (as in bulk_tcp). ccsim's flows take ``conventions = "ns3"`` and the
  same changes (``delayed_ack``, ``min_rto = "200ms"``, ``header = 40`` or 52). With
  delayed ACKs ns-3 acknowledges the first data segment at once ("Always respond to first
  data packet", ``ProcessSynRcvd``): the ``"ns3"`` preset's ``quickack = 1``. Without it
  ccsim's receiver paired the initial window's segments from the first one, the ACK that
  ended Vegas's second round covered the initial window exactly, and its first flow left
  slow start at 14 segments of a 21-packet pipe (10 Mb/s, 20 ms) where ns-3's went on to
  32; with it the delayed-ACK Vegas cases agree seed by seed;
* no suite case runs timestamps: with them on, ns-3 takes every RTT sample from the echo
  (``CalculateRttSample``), its timestamp clock counts milliseconds
  (``TcpOptionTS::NowToTsValue``), and with delayed ACKs the echo is the earliest
  unacknowledged segment's (RFC 7323 §4.3), so each sample includes the time the
  receiver held the ACK: Vegas sees 1-ms steps (8 packets at 100 Mb/s, where it aims at
  2–4) and a 51-ms sample where the receiver held the last segment of a flight for the
  next one's first. Linux's Vegas takes its samples from ACK timing in microseconds even
  with timestamps (``tcp_ack_update_rtt`` prefers it; ``ca_rtt_us`` is the RTT of the
  last segment acknowledged), as ccsim's do; ``timestamps = True`` runs ns-3's;
* ns-3 puts the RTO back to its estimate on every new ACK (``NewAck``), also one that
  brings no RTT sample, where RFC 6298 keeps the backed-off RTO until a new measurement
  (ccsim does). Behind a deep queue a flow whose last sample is old then times out every
  200 ms with the RTT at 300 ms, cwnd back at one segment each time, and starves: CUBIC
  over 2 BDP at 100 Mb/s, jittered, seed 1, two of eight flows took 55 and 202 timeouts
  for 0.2 and 0.1 Mb/s (Karn's rule forbids samples from their retransmissions; ns-3
  takes even timestamp samples through its send history, which each timeout clears, so
  timestamps do not help: 157 and 140 timeouts unjittered with them on). ns-3's 1-s
  default minimum RTO would hide it but, tried, moved BBR's drops and delay at 1 BDP
  outside tolerance (many timeouts there in both, ~24 per run), not traced. Where ns-3
  starved a flow this way (:func:`starved`), a Jain's index outside tolerance is
  explained by it;
* counters: bottleneck utilization (IP bytes against the nominal rate), drops and marks
  of the queue disc, per-flow goodput, each flow's entries into recovery (their times
  for flow 0, for CUBIC's epoch period) and its retransmission timeouts (every one, as
  ccsim counts them: ``SocketFix`` counts each ``ReTxTimeout``; the ``CongState``
  trace alone misses a timeout that fires in ``CA_LOSS``, whose value does not
  change), and flow 0's cwnd and pacing rate every ``sample_ms`` (BBR's gain cycle and
  probe-RTT dips).

Length: this docstring is the list of every convention and correction the comparison
rests on, kept beside the code that sets them (170 lines); the rest, one case
description run in both simulators and the suite built on it, is under 700.
"""

from __future__ import annotations

import dataclasses

from ccsim.validation.framework import draw_pairs
from ccsim.validation.ns3 import dumbbell

#: ns-3's TypeIds of the congestion controls compared.
NS3_CC = {
    "newreno": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "bbr": "ns3::TcpBbr",
    "vegas": "ns3::TcpVegas",
    "dctcp": "ns3::TcpDctcp",
}
QUEUES = ("fifo", "codel", "fqcodel", "pie", "step")


@dataclasses.dataclass(frozen=True)
class ModernCase:
    """A dumbbell of ``pairs`` bulk flows of one congestion control over one bottleneck
    queue, for ns-3 and ccsim alike."""

    name: str
    cc: str
    queue: str = "fifo"
    pairs: int = 1
    rate_mbps: float = 10.0
    #: Round-trip propagation time: 2 · (bottleneck delay + access delay), the
    #: access delay being 1 ms plus each pair's draw of U[0, 1 ms).
    rtt_ms: float = 20.0
    #: Buffer in bandwidth-delay products (at rtt_ms and 1500-byte packets).
    buffer_bdp: float = 1.0
    #: Step-marking threshold K, packets (``queue = "step"``).
    k: int = 20
    ecn: bool = False
    #: SACK recovery (ns-3: PRR, :class:`PrrOnce`); without it NewReno's fast recovery
    #: (ns-3: its Reno-SACK emulation with ``TcpClassicRecovery``).
    sack: bool = True
    mss: int = 1448
    duration_s: float = 30.0
    warmup_s: float = 5.0
    #: Flow starts are drawn from U[0, start_max_s).
    start_max_s: float = 1.0
    #: Phase-breaking jitter: on every access link each packet propagates U[0,
    #: service) longer (:attr:`service_s`), never overtaking the one ahead (ccsim's
    #: link ``jitter``; a ``JitterChannel`` in the ns-3 program). Deterministic
    #: drop-tail and step-marking runs phase-lock (Floyd & Jacobson 1992), and the two
    #: simulators break ties between an arrival and a departure differently (module docs).
    jitter: bool = False
    #: Delayed ACKs (ns-3's default ``DelAckCount`` 2 and 200-ms ``DelAckTimeout``; ccsim's
    #: ``delayed_ack``), else an ACK per segment.
    delayed_ack: bool = False
    #: The timestamps option (ns-3's default ``Timestamp``; ccsim's 52-byte header).
    timestamps: bool = False

    @property
    def buffer_pkts(self) -> int:
        bdp = self.rate_mbps * 1e6 * self.rtt_ms / 1e3 / 8 / 1500
        return max(2, round(self.buffer_bdp * bdp))

    @property
    def service_s(self) -> float:
        """Transmission time of one full packet (mss + 40 bytes) at the bottleneck."""
        return (self.mss + 40) * 8 / (self.rate_mbps * 1e6)

    @property
    def bottleneck_delay_ms(self) -> float:
        return self.rtt_ms / 2 - 1.5  # the access delays average 1.5 ms

    def draw(self, seed: int) -> tuple[list[float], list[float]]:
        """Start times (s) and access delays (ms) per pair for ``seed``: the same
        numbers for ns-3 and ccsim."""
        return draw_pairs(f"{self.name}/{seed}", self.pairs, self.start_max_s, (1.0, 2.0))


def jain(x: list[float]) -> float:
    """Jain's fairness index of ``x``."""
    s, q = sum(x), sum(v * v for v in x)
    return s * s / (len(x) * q) if q > 0 else float("nan")


def run_ns3(
    case: ModernCase,
    seed: int,
    sample_ms: float = 10.0,
    timeout_s: float = 3600,
    recovery: str | None = None,
    vegas_rtt: str = "last",
    ecn_fix: bool = True,
    rate_fix: bool = True,
    sack_fix: bool = True,
    trace_all: bool = False,
    extra_args: tuple[str, ...] = (),
) -> dict:
    """Runs ``case`` in ns-3 for ``seed``; returns utilization, drops, marks, queueing
    delay (mean and 95th percentile, s), per-flow window goodputs, Jain's index,
    recoveries and retransmission timeouts per flow (``loss_entries``), flow 0's recovery
    times and its sampled cwnd (bytes) and pacing rate (bit/s) as ``(t, cwnd, pacing)``
    rows. ``recovery``
    defaults to ``"prr-once"`` with SACK and ``"classic"`` without; ``recovery = "prr"``,
    ``vegas_rtt = "srtt"``, ``ecn_fix = False``, ``rate_fix = False`` and ``sack_fix =
    False`` run ns-3.44's own PRR, TcpVegas input, ECN states, rate samples and bytes in
    flight (module docs). Diagnostics: ``trace_all`` adds every flow's cwnd at each sample
    from the first start (``cwnds``: ``(t, [bytes per flow])``) and, with Vegas, each
    flow's BaseRTT at the end (``base_rtt_s``); ``extra_args`` are passed to the program
    (``--vegasDebug=1``: Vegas's every RTT sample and window change, as ``debug`` lines)."""
    recovery = recovery or ("prr-once" if case.sack else "classic")
    if case.cc not in NS3_CC:
        raise ValueError(f"cc = {case.cc!r}: ns-3 runs one of {sorted(NS3_CC)}")
    if case.queue not in QUEUES:
        raise ValueError(f"queue = {case.queue!r}: ns-3 runs one of {list(QUEUES)}")
    args = dumbbell.options(NS3_CC[case.cc], case.sack, case, case.bottleneck_delay_ms) + [
        f"--queue={case.queue}",
        f"--ecn={int(case.ecn or case.cc == 'dctcp')}",
        f"--k={case.k}",
        f"--sample={sample_ms}",
        f"--jitter={case.service_s if case.jitter else 0}",
        f"--recovery={recovery}",
        f"--vegasRtt={vegas_rtt}",
        f"--ecnFix={int(ecn_fix)}",
        f"--rateFix={int(rate_fix)}",
        f"--sackFix={int(sack_fix)}",
        f"--delAck={2 if case.delayed_ack else 1}",
        f"--timestamps={int(case.timestamps)}",
        f"--traceAll={int(trace_all)}",
        *extra_args,
        f"--RngRun={seed}",
    ]
    if case.cc == "cubic":
        # ccsim has no classic HyStart (its option is RFC 9406's HyStart++)
        args.append("--ns3::TcpCubic::HyStart=false")
    out = dumbbell.run("modern_cc_aqm", args, case.draw(seed), timeout_s)
    if out.returncode:
        raise RuntimeError(f"ns-3 failed:\n{out.stderr[-3000:]}")
    lines = dumbbell.printed(out.stdout)
    q = [float(x) for x in lines["Q"][-1]] if "Q" in lines else None
    flows = [[int(x) for x in f[1:]] for f in lines.get("F", [])]
    recov = [float(f[0]) for f in lines.get("R", [])]
    samples = [(float(f[0]), int(f[1]), int(f[2])) for f in lines.get("W", [])]
    cwnds = [(float(f[0]), [int(x) for x in f[1:]]) for f in lines.get("C", [])]
    base = {int(f[0]): float(f[1]) for f in lines.get("V", [])}
    debug = [" ".join(["D", *f]) for f in lines.get("D", [])]
    if q is None or len(flows) != case.pairs:
        raise RuntimeError(f"ns-3 printed no statistics:\n{out.stdout[-2000:]}")
    window = case.duration_s - case.warmup_s
    goodputs = [(f[0] - f[1]) * 8 / window for f in flows]
    m = {
        "utilization": q[0] * 8 / (case.rate_mbps * 1e6 * window),
        "drops": int(q[1]),
        "marks": int(q[2]),
        "delay_mean_s": q[4],
        "delay_p95_s": q[5],
        "goodputs": goodputs,
        "jain": jain(goodputs),
        "starved": starved(case, goodputs, [f[3] for f in flows]),
        "recoveries": sum(f[2] for f in flows),
        "loss_entries": sum(f[3] for f in flows),
        "recovery_times_flow0": recov,
        "samples_flow0": samples,
    }
    if trace_all:
        m["cwnds"] = cwnds
        m["base_rtt_s"] = [base.get(i) for i in range(case.pairs)]
    if debug:
        m["debug"] = debug
    return m


def starved(case: ModernCase, goodputs: list[float], timeouts: list[int]) -> int:
    """Flows that timed out again and again (ten times or more) and got less than 5 %
    of a fair share: the mark of ns-3's RTO collapse (module docs)."""
    fair = case.rate_mbps * 1e6 / case.pairs
    return sum(g < 0.05 * fair and t >= 10 for g, t in zip(goodputs, timeouts))


def epoch_period(times: list[float], after: float) -> float:
    """Mean time between flow 0's entries into recovery after ``after`` seconds (CUBIC's
    epoch length on a single flow), NaN with fewer than three."""
    t = [x for x in times if x >= after]
    if len(t) < 3:
        return float("nan")
    return (t[-1] - t[0]) / (len(t) - 1)


#: The ccsim queue of each bottleneck kind (``limit`` added per case). The AQMs use the
#: RFCs' defaults, as ns-3's do (CoDel 5/100 ms, PIE 15 ms), and ns-3's choices where it
#: differs from Linux (module doc): FQ-CoDel's per-queue one-MTU rule and 1500-byte
#: quantum, PIE without de-randomization.
CCSIM_QUEUE = {
    "fifo": {"kind": "droptail"},
    "codel": {"kind": "codel", "target": "5ms", "interval": "100ms", "inv_sqrt": "newton"},
    "fqcodel": {
        "kind": "fq_codel",
        "target": "5ms",
        "interval": "100ms",
        "quantum": "1500B",
        "mtu_backlog": "queue",
        "inv_sqrt": "newton",
    },
    "pie": {"kind": "pie", "target": "15ms", "derandomize": False, "burst": "ns3"},
    "step": {"kind": "step"},
}


#: ccsim's module of each congestion control where ns-3's `TcpVegas` and `TcpCubic`
#: differ from ccsim's defaults (module docs): Vegas reduces by one segment at a loss,
#: CUBIC keeps W_max across a timeout and counts as ns-3's `TcpCubic`.
CCSIM_CC = {
    "vegas": {"kind": "vegas", "loss": "one_segment"},
    "cubic": {"kind": "cubic", "timeout_w_max": "keep", "variant": "ns3"},
    "dctcp": {"kind": "dctcp", "variant": "ns3"},
}


def ccsim_scenario(case: ModernCase, seed: int, sample_ms: float = 10.0) -> dict:
    """The ccsim scenario of ``case`` for ``seed``, with ns-3's conventions as set in
    ``programs/modern_cc_aqm.cc`` (``conventions = "ns3"`` less delayed ACKs, timestamps and the 1-s
    minimum RTO), a buffer of ``buffer_pkts`` packets waiting (ns-3: ``buffer − 1`` in
    the disc and one in the device queue), AQM targets and the step threshold moved by
    the device queue's one packet, the same start times and access delays (and with
    ``case.jitter`` the access links' jitter)."""
    starts, delays = case.draw(seed)
    q = dict(CCSIM_QUEUE[case.queue], limit=f"{case.buffer_pkts}pkt")
    # ns-3's disc sits above a device queue holding one packet: its AQM sees the disc's
    # part of the wait only, and its RED counts the disc's packets. ccsim's queue is the
    # whole wait, so the same control point is one service time (one packet) further.
    service_ms = case.service_s * 1e3
    if "target" in q:
        q["target"] = f"{float(q['target'].removesuffix('ms')) + service_ms:.6g}ms"
    if case.queue == "step":
        q["threshold"] = case.k + 1
    if case.ecn and case.queue in ("codel", "fqcodel", "pie"):
        q["ecn"] = True  # (the step marker marks ECN-capable packets by design)
    flows = [
        {
            "src": f"s{i}",
            "dst": f"d{i}",
            "name": f"f{i}",
            "cc": CCSIM_CC.get(case.cc, case.cc),
            "mss": case.mss,
            # ns-3's defaults, less what the program changes: an ACK per segment (unless
            # case.delayed_ack), a 200-ms minimum RTO, no timestamps option (and so
            # 40-byte headers) unless case.timestamps
            "conventions": "ns3",
            "delayed_ack": case.delayed_ack,
            "min_rto": "200ms",
            "header": 52 if case.timestamps else 40,
            "ecn": bool(case.ecn or case.cc == "dctcp"),
            "sack": case.sack,
            "start": f"{starts[i]}s",
        }
        for i in range(case.pairs)
    ]
    return {
        "name": f"ns3-{case.name}",
        "seed": seed,
        "duration": f"{case.duration_s}s",
        "warmup": f"{case.warmup_s}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": case.pairs,
            "bottleneck": {
                "rate": f"{case.rate_mbps}Mbps",
                "delay": f"{case.bottleneck_delay_ms}ms",
                "queue": q,
                # the ACKs' direction: a deep drop-tail, as the program gives ns-3's
                "reverse_queue": {"kind": "droptail", "limit": "1000pkt"},
            },
            "access": {
                "rate": "1Gbps",
                "delay": [f"{d}ms" for d in delays],
                "queue": {"kind": "droptail", "limit": "1000pkt"},
                "jitter": f"{case.service_s if case.jitter else 0:.9f}s",
            },
        },
        "flows": [
            {k: v for k, v in f.items() if k not in ("src", "dst")} | {"pairs": [i]}
            for i, f in enumerate(flows)
        ],
        "monitor": {"interval": f"{sample_ms}ms", "queues": [], "flows": ["f0"]},
    }


def run_ccsim(
    case: ModernCase, seed: int, sample_ms: float = 10.0, trace_all: bool = False
) -> dict:
    """Runs ``case`` in ccsim; the same metrics as :func:`run_ns3` (with ``trace_all``,
    every flow's time series as ``ts_flow``)."""
    import ccsim

    sc = ccsim_scenario(case, seed, sample_ms)
    if trace_all:
        sc["monitor"]["flows"] = [f"f{i}" for i in range(case.pairs)]
    r = ccsim.run(sc)
    q = r.queue("R1->R2")
    goodputs = r.flows["goodput_bps"].tolist()
    f0 = r.timeseries.get("flow")
    samples = []
    extra = {}
    if trace_all and f0 is not None:
        extra["ts_flow"] = f0
        f0 = f0[f0["flow"] == "f0"]
    if f0 is not None and len(f0):
        samples = [(t, int(c), 0) for t, c in zip(f0["time_s"], f0["cwnd_bytes"])]
    return {
        "utilization": float(q["utilization"]),
        "drops": int(q["drops"]),
        "marks": int(q.get("marks", 0)),
        "delay_mean_s": float(q.get("sojourn_mean_s", float("nan"))),
        "delay_p95_s": float(q.get("sojourn_p95_s", float("nan"))),
        "goodputs": goodputs,
        "jain": jain(goodputs),
        "starved": starved(case, goodputs, r.flows["timeouts"].tolist()),
        "recoveries": int(r.flows["fast_retransmits"].sum()),
        "loss_entries": int(r.flows["timeouts"].sum()),
        "samples_flow0": samples,
    } | extra


def reduction_period(samples: list[tuple[float, int, int]], after: float, merge_s: float) -> float:
    """Mean time between flow 0's window reductions after ``after`` seconds: CUBIC's
    epoch length (and NewReno's sawtooth period), read the same way from both
    simulators' samples. A reduction is cwnd falling by more than 10 % from one sample
    to the next; reductions less than ``merge_s`` apart are one congestion event (ns-3's
    PRR lowers cwnd over a round trip, in steps). NaN with fewer than three events."""
    t: list[float] = []
    for a, b in zip(samples, samples[1:]):
        if b[0] >= after and b[1] < 0.9 * a[1] and (not t or b[0] - t[-1] >= merge_s):
            t.append(b[0])
    if len(t) < 3:
        return float("nan")
    return (t[-1] - t[0]) / (len(t) - 1)


# --- the `modern` suite of `ccsim validate` ---------------------------------------------

MARK_BEGIN = "<!-- ns3-modern:begin -->"
MARK_END = "<!-- ns3-modern:end -->"


#: The full grid (issue 27): (label, pairs, Mb/s, RTT ms, K, duration s, warm-up s). K is
#: about a seventh of the BDP (RFC 8257 §4.1's C·RTT/7).
GRIDS = [
    ("8×100M 100ms", 8, 100, 100, 120, 60, 10),
    ("1×10M 100ms", 1, 10, 100, 12, 30, 10),
    ("8×100M 20ms", 8, 100, 20, 24, 30, 10),
    ("50×100M 20ms", 50, 100, 20, 24, 30, 10),
]


#: Vegas with staggered starts (issue 45): (label, pairs, Mb/s, RTT ms, buffer in BDP, starts
#: drawn from U[0, s), duration s, warm-up s, in the quick suite, ACK schemes: False for an
#: ACK per segment, True for ns-3's delayed ACKs, ``DelAckCount`` 2, timestamps off: module
#: docs). Late starters take the standing queue that the first flows' slow start left for
#: propagation delay (Low, Peterson & Wang 2002): which flows do, and by how much, is
#: decided in the first seconds, and the window measures what it left. 4 flows at 10 Mb/s
#: and 100 ms run with delayed ACKs only: with an ACK per segment the first flow's slow
#: start overshoots to 5–6 BDP (Vegas's round sees the queue a flight late) and what is
#: left depends on how each simulator's TCP recovers hundreds of losses (ns-3 starved
#: flows by repeated timeouts in 2 of 10 jittered seeds; docs/models/vegas.md).
VEGAS_STAGGERED = [
    ("2×10M 20ms 2BDP", 2, 10, 20, 2.0, 1.0, 20, 5, True, (False, True)),
    ("4×10M 100ms 2BDP", 4, 10, 100, 2.0, 2.0, 40, 10, True, (True,)),
    ("8×10M 50ms 2BDP", 8, 10, 50, 2.0, 2.0, 30, 10, True, (False, True)),
    ("4×100M 20ms 2BDP", 4, 100, 20, 2.0, 1.0, 30, 10, False, (False, True)),
]


def suite_cases(quick: bool) -> list[ModernCase]:
    """Quick: each model once, 2 flows at 10 Mbps and RTT 20 ms, 1 BDP, NewReno over the
    AQMs also with ECN (4 BDP, so that the AQM acts before the buffer overflows), each
    case also with phase-breaking jitter (``jittered``). Full: also each in every grid of
    :data:`GRIDS` (8 flows at 100 Mbps and RTT 100 ms; the corners 1 flow at 10 Mbps
    and 100 ms, 8 and 50 flows at 100 Mbps and 20 ms) with buffers of 0.5 and 2 BDP,
    with and without jitter; BBR only in the 1-flow corner (ns-3's ``TcpBbr`` takes
    more than half an hour of CPU per run of 8 flows at 100 Mbps). Vegas with
    staggered starts (:data:`VEGAS_STAGGERED`), with and without delayed ACKs: those
    at 10 Mb/s in both, at 100 Mb/s in full."""
    # (cc, queue, ECN)
    combos = [
        ("cubic", "fifo", False),
        ("bbr", "fifo", False),
        ("vegas", "fifo", False),
        ("newreno", "codel", False),
        ("cubic", "codel", False),
        ("newreno", "fqcodel", False),
        ("cubic", "fqcodel", False),
        ("newreno", "pie", False),
        ("cubic", "pie", False),
        ("dctcp", "step", True),
        ("newreno", "codel", True),
        ("newreno", "fqcodel", True),
        ("newreno", "pie", True),
    ]

    def case(cc: str, q: str, ecn: bool, grid: str, **kw) -> ModernCase:
        name = f"{cc}/{q}" + (" ECN" if ecn and cc != "dctcp" else "") + f" {grid}"
        return ModernCase(name, cc, q, ecn=ecn, **kw)

    # a step marker needs a buffer above K (K = 5: about C·RTT/7, RFC 8257 §4.1); with
    # ECN an AQM marks, and a small buffer would overflow first
    cases = [
        case(
            cc,
            q,
            ecn,
            f"2×10M 20ms {4 if ecn else 1}BDP",
            pairs=2,
            rate_mbps=10,
            rtt_ms=20,
            buffer_bdp=4.0 if ecn else 1.0,
            k=5,
            duration_s=20 if quick else 60,
            warmup_s=5,
        )
        for cc, q, ecn in combos
    ]
    if not quick:
        cases += [
            case(
                cc,
                q,
                ecn,
                f"{label} {b:g}BDP",
                pairs=pairs,
                rate_mbps=rate,
                rtt_ms=rtt,
                buffer_bdp=b,
                k=k,
                duration_s=dur,
                warmup_s=warm,
            )
            for label, pairs, rate, rtt, k, dur, warm in GRIDS
            for cc, q, ecn in combos
            if cc != "bbr" or pairs == 1
            for b in (0.5, 2.0)
        ]
    cases += [
        case(
            "vegas",
            "fifo",
            False,
            f"{label} starts<{start:g}s" + (" delack" if delack else ""),
            pairs=pairs,
            rate_mbps=rate,
            rtt_ms=rtt,
            buffer_bdp=b,
            start_max_s=start,
            duration_s=dur,
            warmup_s=warm,
            delayed_ack=delack,
        )
        for label, pairs, rate, rtt, b, start, dur, warm, in_quick, acks in VEGAS_STAGGERED
        if in_quick or not quick
        for delack in acks
    ]
    return cases + [dataclasses.replace(c, name=f"{c.name} jittered", jitter=True) for c in cases]


def _available(case: ModernCase) -> str:
    """Why ccsim cannot run ``case`` yet (its cc module or queue kind is missing), or ''."""
    import ccsim

    try:
        ccsim.resolve(ccsim_scenario(case, 1))
    except ccsim.ScenarioError as e:
        return str(e)
    return ""


def failure(e: BaseException) -> str:
    """One line saying why a run failed: ns-3's assertion or fatal error if it printed
    one, else the last line of the error's text.

    >>> failure(RuntimeError("ns-3 failed:\\nNS_ASSERT failed, cond=\\"x\\", msg=\\"y\\"\\nAborted"))
    'RuntimeError: NS_ASSERT failed, cond="x", msg="y"'
    """
    lines = [x.strip() for x in str(e).splitlines() if x.strip()] or [""]
    line = next((x for x in lines if "NS_ASSERT" in x or "NS_FATAL" in x), lines[-1])
    return f"{type(e).__name__}: {line[:300]}"


def _one(job: tuple[ModernCase, int, str]) -> tuple[str, int, str, dict]:
    """One run; a run that fails (a simulator's crash or time-out) returns its
    :func:`failure` as ``{"error": ...}`` so that the suite reports it and goes on."""
    case, seed, sim = job
    try:
        m = run_ns3(case, seed) if sim == "ns-3" else run_ccsim(case, seed)
    except Exception as e:  # noqa: BLE001 - any failure of one run is reported, not raised
        return case.name, seed, sim, {"error": failure(e)}
    m["period_s"] = reduction_period(m.pop("samples_flow0"), case.warmup_s, 2 * case.rtt_ms / 1e3)
    m.pop("recovery_times_flow0", None)
    return case.name, seed, sim, m


#: (quantity, format, absolute floor, relative floor) of the checks.
CHECKS = [
    ("utilization", "{:.3f}", 0.02, 0.0),
    ("drops", "{:.0f}", 5.0, 0.25),
    ("marks", "{:.0f}", 5.0, 0.25),
    ("delay_mean_s", "{:.4f}", 0.001, 0.2),
    ("delay_p95_s", "{:.4f}", 0.001, 0.2),
    ("jain", "{:.3f}", 0.05, 0.0),
    ("period_s", "{:.3f}", 0.0, 0.2),
]


#: Quantities that a deterministic run's phase decides: a difference in an unjittered
#: case is explained by phase when its jittered twin agrees. Vegas's standing queue too:
#: it is the flows' BaseRTT errors, set by which flow's first RTT samples met the other's
#: slow-start queue (docs/models/vegas.md): two Vegas flows at 10 Mb/s, 20 ms, 1 BDP, an
#: ACK per segment, seeds 1-5, hold 5.1-7.8 ms of queue in ns-3 and 6.6-17.2 ms in
#: ccsim unjittered, 5.8-10.0 and 6.5-8.1 ms jittered.
PHASE_DEPENDENT = ("jain",)
PHASE_DEPENDENT_BY_CC = {"vegas": ("jain", "delay_mean_s", "delay_p95_s")}
PHASE_EXPLANATION = (
    "phase: the jittered twin agrees; unjittered, ns-3 and ccsim order an arrival and a "
    "departure at the same instant differently and lock into different shares"
)


def explain_by_phase(v, twin, cc: str = ""):
    """``v`` (a :class:`framework.Verdict` of an unjittered case of congestion control
    ``cc``) explained by phase if it is outside its tolerance, its quantity is one the
    phase decides (:data:`PHASE_DEPENDENT_BY_CC`), and its jittered twin's verdict is
    within tolerance; otherwise ``v`` unchanged."""
    phased = PHASE_DEPENDENT_BY_CC.get(cc, PHASE_DEPENDENT)
    if v.quantity in phased and not v.within and twin is not None and twin.within:
        return dataclasses.replace(v, explained=PHASE_EXPLANATION)
    return v


def explain_by_starvation(v, ns3_starved: list[int], ccsim_starved: list[int]):
    """``v`` (a share verdict) explained by ns-3's RTO collapse if it is outside its
    tolerance and ns-3 starved flows (:func:`starved`, counts by seed) in some seed
    where ccsim starved none in any."""
    if v.within or not any(ns3_starved) or any(ccsim_starved):
        return v
    seeds = [i + 1 for i, n in enumerate(ns3_starved) if n]
    return dataclasses.replace(
        v,
        explained=f"ns-3 starved {sum(ns3_starved)} flows (seeds {seeds}) by putting the "
        "backed-off RTO back at every new ACK; ccsim none",
    )


def compare(
    cases: list[ModernCase], missing: dict[str, str], res: dict[str, dict[str, dict[int, dict]]]
) -> tuple[list, list[str]]:
    """The suite's verdicts and table rows from ``res`` (case name → simulator → seed →
    :func:`_one`'s metrics). A case whose runs failed in either simulator gets a failing
    ``runs`` verdict naming the seeds and the first failure, and its quantities are
    compared over the seeds that finished in both; a case ccsim cannot run
    (``missing``) gets a row saying why."""
    import math
    import statistics

    from ccsim.validation import framework

    found: dict[tuple[str, str], framework.Verdict] = {}
    errors: dict[str, framework.Verdict] = {}
    for c in cases:
        if c.name in missing:
            continue
        by = res[c.name]
        failed = {
            sim: [s for s in sorted(by[sim]) if "error" in by[sim][s]] for sim in ("ns-3", "ccsim")
        }
        if any(failed.values()):
            why = "; ".join(
                f"{sim} failed in seeds {f}: {by[sim][f[0]]['error']}"
                for sim, f in failed.items()
                if f
            )
            errors[c.name] = framework.Verdict(c.name, "runs", 0, 0, 0, error=why)
        # the quantities over the seeds that finished in both
        done = [s for s in sorted(by["ns-3"]) if not any(s in f for f in failed.values())]
        if not done:
            continue
        for q, fmt, floor, rel in CHECKS:
            a = [by["ns-3"][s][q] for s in done]
            b = [by["ccsim"][s][q] for s in done]
            if any(isinstance(x, float) and math.isnan(x) for x in a + b):
                if all(isinstance(x, float) and math.isnan(x) for x in a + b):
                    continue  # nothing to compare (no reductions, say)
                tol = float("nan")
            else:
                tol = framework.paired_tolerance(a, b, floor=floor, rel_floor=rel, level=0.95)
            v = framework.Verdict(c.name, q, statistics.fmean(a), statistics.fmean(b), tol, fmt=fmt)
            found[(c.name, q)] = v
    verdicts, rows = [], []
    for c in cases:
        if c.name in missing:
            rows.append(f"| {c.name} | not run in ccsim: {missing[c.name]} | | | |")
            continue
        if (e := errors.get(c.name)) is not None:
            verdicts.append(e)
            rows.append(e.row())
        for q, *_ in CHECKS:
            if (v := found.get((c.name, q))) is None:
                continue
            v = explain_by_phase(v, found.get((f"{c.name} jittered", q)), c.cc)
            if q in PHASE_DEPENDENT and not v.ok:
                by = res[c.name]
                ns3, cc = (
                    [by[sim][s].get("starved", 0) for s in sorted(by[sim])]
                    for sim in ("ns-3", "ccsim")
                )
                v = explain_by_starvation(v, ns3, cc)
            verdicts.append(v)
            rows.append(v.row())
    return verdicts, rows


def run_suite(quick: bool, only: str | None = None, jobs: int = 1, seeds: int | None = None):
    """The ``modern`` suite of ``ccsim validate``: each case in ns-3 and ccsim over
    seeds (ten in quick mode; three in full mode, whose 226 cases take about an hour
    and a half on two cores), compared per quantity with
    :func:`framework.paired_tolerance`."""
    import concurrent.futures
    import time

    from ccsim.validation import framework

    t0 = time.perf_counter()
    n = seeds or (10 if quick else 3)
    cases = [c for c in suite_cases(quick) if not only or only in c.name]
    missing = {c.name: why for c in cases if (why := _available(c))}
    todo = [
        (c, s, sim)
        for c in cases
        if c.name not in missing
        for s in range(1, n + 1)
        for sim in ("ns-3", "ccsim")
    ]
    res: dict[str, dict[str, dict[int, dict]]] = {}
    with concurrent.futures.ProcessPoolExecutor(max(1, jobs)) as ex:
        for name, seed, sim, m in ex.map(_one, todo):
            res.setdefault(name, {}).setdefault(sim, {})[seed] = m
    verdicts, rows = compare(cases, missing, res)
    block = framework.VERDICT_HEAD + "\n" + "\n".join(rows)
    return framework.SuiteResult(block, verdicts, n, time.perf_counter() - t0)
