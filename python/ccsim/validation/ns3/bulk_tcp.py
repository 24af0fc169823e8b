"""An ns-2 TCP case (:class:`ccsim.validation.ns2.tcp_scenario.Case`, drop-tail, bulk
flows) in ns-3: the shared dumbbell with ``programs/bulk_tcp.cc``'s counters
(:mod:`.dumbbell` compiles and runs it), given the seed's draws (:meth:`Case.draw`, the
numbers ns-2 and ccsim get), so the three simulators see one scenario. The ``westwood``
suite (:mod:`.westwood_buffer_sizing`) and ``benches/bbr_vs_ns3.py`` run it.

ns-3's conventions, and how each is set here (``Ns3Options``):

* segment size ``mss`` (ns-3 default 536) and no TCP options in data segments
  (``Timestamp`` false; window scaling and SACK-permitted only ride on the SYN),
  so a data packet is mss + 40 bytes of IP, as in ns-2 and ccsim; SACK blocks
  lengthen only the ACKs;
* ``InitialCwnd`` = ``init_cwnd`` (ns-3 default 10), ``DelAckCount`` 1 (ACK
  every segment; ns-3 default 2), ``MinRto`` 200 ms (ns-3 default 1 s),
  ``ClockGranularity`` 1 ms and the initial RTO of 1 s (ns-3 defaults, RFC 6298);
* ``Sack`` on or off (ns-3 default on); without SACK ns-3 emulates NewReno with
  "Reno SACK" (each duplicate ACK marks one more segment as having left) and
  RFC 6675's pipe; ``RecoveryType`` PRR (ns-3 default, RFC 6937) or classic
  (cwnd = ssthresh at fast retransmit; the inflation is only a trace);
* limited transmit on (ns-3 default, as ns-2's ``singledup_``);
* buffers: ns-3 puts a FqCoDel queue disc on every device when addresses are
  assigned; it is removed, so each device's own DropTail queue of ``MaxSize``
  packets is the buffer. It holds the packets waiting, the one in transmission
  apart (ccsim's convention; ns-2's ``limit_`` is one more), and the traffic
  control layer drops an arrival when that queue is full;
* point-to-point links add a 2-byte PPP header: link rates are scaled by
  1002/1000 (and 42/40 does not matter for ACKs) so that a 1000-byte IP packet
  takes the same serialization time as in ns-2 and ccsim; utilization counts IP
  bytes against the nominal rate;
* send and receive buffers of 16 MB: neither the advertised window nor the
  send buffer limits a window (ns-2 ``window_`` 10⁶, ccsim unlimited);
* the connection starts with a SYN handshake (ns-2 ``syn_ false`` and ccsim do
  not): one RTT more at each start, before the warm-up ends.

Counters: utilization and drops at the bottleneck over the measurement window;
per flow the segments retransmitted (a data segment sent below the highest
sequence sent so far), the retransmission timeouts (each doubles ``m_rto``:
counted on the ``RTO`` trace) and the bytes received by the sink, over the whole
run and up to the end of the warm-up.
"""

from __future__ import annotations

import dataclasses

from ccsim.validation.ns3 import dumbbell

#: ns-3's TypeIds of the congestion controls compared here.
NS3_CC = {"newreno": "ns3::TcpNewReno", "westwood": "ns3::TcpWestwoodPlus"}
NS3_RECOVERY = {"prr": "ns3::TcpPrrRecovery", "classic": "ns3::TcpClassicRecovery"}


@dataclasses.dataclass(frozen=True)
class Ns3Options:
    """How ns-3 runs a case (its conventions where the case does not say)."""

    cc: str = "newreno"
    #: ``"prr"`` (ns-3's default, RFC 6937) or ``"classic"`` (RFC 5681/6582).
    recovery: str = "prr"
    sack: bool = False
    min_rto_ms: float = 200.0
    #: RTO = srtt + max(G, 4·rttvar); ns-3's default G is 1 ms (a diagnostic knob).
    granularity_ms: float = 1.0


def run_ns3(case, seed: int, opt: Ns3Options, timeout_s: float = 7200) -> dict:
    """Runs ns-3 on ``case`` (a ``tcp_scenario.Case``, drop-tail) for ``seed``.

    Returns the metrics of :func:`metrics`' form: utilization and drops at the
    bottleneck over the measurement window; per-flow retransmitted segments
    and timeouts over the whole run and over the window; goodputs."""
    if case.queue != "droptail" or case.cross is not None or case.delayed_ack:
        raise ValueError("run_ns3 handles drop-tail cases of bulk flows without delayed ACKs")
    args = dumbbell.options(NS3_CC[opt.cc], opt.sack, case, case.delay_ms) + [
        f"--accessRate={case.access_mbps}",
        f"--recovery={NS3_RECOVERY[opt.recovery]}",
        f"--initCwnd={case.init_cwnd}",
        f"--minRto={opt.min_rto_ms}",
        f"--granularity={opt.granularity_ms}",
    ]
    out = dumbbell.run("bulk_tcp", args, case.draw(seed), timeout_s)
    out.check_returncode()
    lines = dumbbell.printed(out.stdout)
    q = [int(x) for x in lines["Q"][-1]] if "Q" in lines else None
    flows = [[int(x) for x in f[1:]] for f in lines.get("F", [])]
    if q is None or len(flows) != case.pairs:
        raise RuntimeError(f"ns-3 printed no statistics:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    window = case.duration_s - case.warmup_s
    return {
        "utilization": q[1] * 8 / (case.rate_mbps * 1e6 * window),
        "drops": q[2],
        "retransmits": sum(f[0] for f in flows),
        "timeouts": sum(f[1] for f in flows),
        "window_retransmits": sum(f[0] - f[3] for f in flows),
        "window_timeouts": sum(f[1] - f[4] for f in flows),
        "loss_entries": sum(f[6] for f in flows),
        "fast_recoveries": sum(f[7] for f in flows),
        "goodputs": [f[2] * 8 / case.duration_s for f in flows],
        "window_goodputs": [(f[2] - f[5]) * 8 / window for f in flows],
    }
