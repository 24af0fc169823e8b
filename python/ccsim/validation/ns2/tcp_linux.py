"""ns-2.35's TCP-Linux (``Agent/TCP/Linux`` + ``select_ca``) on a ``tcp_scenario`` case.

ns-2.35 ships Linux 2.6.22's congestion-control modules (``tcp/linux/src/``),
run by Wei & Cao's TCP-Linux agent (``tcp/tcp-linux.cc``): Linux's SACK
scoreboard with FACK loss marking and detection of lost retransmissions
(``tcp/scoreboard1.cc``), a rate-halving style reduction (``next_pkts_in_flight_``)
and no undo. The script is ``tcp_scenario.tcl``'s for the same case with SACK (so every
convention of ``docs/validation.md`` holds: 1000-byte packets, no SYN, IW 2,
minimum RTO 0.2 s, ``window_`` 10⁶, the seed's start times and access delays), the
sender replaced by ``Agent/TCP/Linux`` running the module ``ca`` and the sink
``Agent/TCPSink/Sack1``. Installing a module switches the agent's clock to
Linux's jiffies (``tcp_tick_`` 1 ms).

What the agent does with Westwood+ (read in ``tcp-linux.cc`` and the 2.6.22
``tcp_westwood.c``), which decides the comparison:

* at the start of recovery ``snd_ssthresh = tcp_reno_ssthresh()`` (cwnd/2) and,
  because the module has ``min_cwnd``, ``snd_cwnd = tcp_westwood_bw_rttmin()``
  (BWE·RTT_min): the window after a loss is the paper's; leaving recovery keeps it
  (``cwnd < ssthresh`` does not hold), so the flow continues in congestion
  avoidance from BWE·RTT_min. ``CA_EVENT_COMPLETE_CWR`` is never raised;
* on a timeout ``enter_loss`` sets ``snd_ssthresh = tcp_reno_ssthresh()`` and
  raises ``CA_EVENT_LOSS``, which the 2.6.22 module ignores (it handles
  ``CA_EVENT_FRTO``; later kernels handle ``CA_EVENT_LOSS`` and set
  ssthresh = BWE·RTT_min): after a timeout ns-2's Westwood+ halves like Reno;
* RTT_min is the minimum of the smoothed RTT (``srtt >> 3``, in jiffies), the
  sampling interval max(srtt, 50 ms), the filter two cascaded 7/8 EWMAs on
  integer bytes per jiffy.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import tempfile
from pathlib import Path

from ccsim.validation.ns2.reference import ns2_stdout
from ccsim.validation.ns2.tcp_scenario import Case, parse_printed, tcl


def linux_tcl(case: Case, seed: int, ca: str, out_path: str) -> str:
    """tcp_scenario's script for ``case`` with SACK, the senders made ``Agent/TCP/Linux``
    running the Linux module ``ca`` (``reno``, ``westwood``, ...). The results go
    to ``out_path``: the agent's ``select_ca`` prints through C stdio, whose
    buffer would interleave with Tcl's output on stdout."""
    base = tcl(dataclasses.replace(case, sack=True, counters=True), seed)
    out, n = re.subn(
        r"^set tcp\((\d+)\) \[new Agent/TCP/Sack1\]$",
        lambda m: f"set tcp({m[1]}) [new Agent/TCP/Linux]\n$tcp({m[1]}) select_ca {ca}",
        base,
        flags=re.M,
    )
    if n != case.pairs:
        raise RuntimeError(f"expected {case.pairs} senders in the script, found {n}")
    out = out.replace('puts "', 'puts $::outf "')
    out = out.replace(
        "set ns [new Simulator]", f"set ns [new Simulator]\nset outf [open {{{out_path}}} w]", 1
    )
    return out.replace("  exit 0\n", "  close $::outf\n  exit 0\n", 1)


def run_ns2_linux(case: Case, seed: int, ca: str) -> dict:
    """Runs ns-2 TCP-Linux with module ``ca`` on ``case`` (drop-tail, bulk flows).

    Metrics as ``bulk_tcp.run_ns3``: utilization and drops at the bottleneck over
    the window; retransmitted segments and timeouts summed over flows for the
    whole run and for the window; per-flow goodputs."""
    with tempfile.TemporaryDirectory() as d:
        res = Path(d) / "out.txt"
        script = Path(d) / "case.tcl"
        script.write_text(linux_tcl(case, seed, ca, str(res)))
        p = subprocess.run(["ns", str(script)], capture_output=True, text=True, check=True)
        if "Error: do not find" in p.stdout:
            raise RuntimeError(p.stdout[:500])
        return parse(case, res.read_text())


def parse(case: Case, out: str) -> dict:
    """Parses the Q/F/W lines of a ``tcp_scenario.tcl(counters=True)`` script."""
    p = parse_printed(out)
    q, flows, warm = p.q, p.flows, p.warm
    if q is None or len(flows) != case.pairs or len(warm) != case.pairs:
        raise RuntimeError(f"ns-2 printed no statistics for {case.name}:\n{out[-2000:]}")
    window = case.duration_s - case.warmup_s
    # F: i ndatapack nrexmitpack nrexmit ack necnresponses; W: i ack nrexmitpack nrexmit necn
    return {
        "utilization": q[3] * 8 / (case.rate_mbps * 1e6 * window),
        "drops": int(q[2]),
        "retransmits": int(sum(f[2] for f in flows)),
        "timeouts": int(sum(f[3] for f in flows)),
        "window_retransmits": int(sum(f[2] - warm[int(f[0])][1] for f in flows)),
        "window_timeouts": int(sum(f[3] - warm[int(f[0])][2] for f in flows)),
        # ack_ is the highest cumulative ACK in packets (numbered from 0).
        "goodputs": [(f[4] + 1) * case.mss * 8 / case.duration_s for f in flows],
        "window_goodputs": [(f[4] - warm[int(f[0])][0]) * case.mss * 8 / window for f in flows],
    }


def run_ns2_plain(case: Case, seed: int, slow_but_steady: bool = False) -> dict:
    """ns-2's own agent for ``case`` (``Agent/TCP/Newreno`` etc., or ``Sack1``), with
    the same metrics as :func:`run_ns2_linux`. ``slow_but_steady``: NewReno restarts
    the retransmission timer on every partial ACK (``newreno_changes1_ 0``, RFC 6582
    §4 "Slow-but-Steady") instead of the first only (ns-2.35's default, "Impatient")."""
    script = tcl(dataclasses.replace(case, counters=True), seed)
    if slow_but_steady:
        line = "Agent/TCP/Newreno set newreno_changes1_ 1"
        if line not in script:
            raise RuntimeError("tcp_scenario's script no longer sets newreno_changes1_")
        script = script.replace(line, "Agent/TCP/Newreno set newreno_changes1_ 0")
    return parse(case, ns2_stdout(script))
