"""BBR v1 in ccsim against ns-3's TcpBbr on one dumbbell (docs/models/bbr.md).

Not part of ``ccsim validate``: a measurement, printed per seed. Needs the ns-3
wheel (``pip install ns3``) and a C++ compiler (the harness of
:mod:`ccsim.validation.ns3.bulk_tcp`, with ``ns3::TcpBbr`` as the congestion control).

Usage: ``python benches/bbr_vs_ns3.py PAIRS BUFFER_BDP SEEDS``, e.g. ``2 2 1,2``:
10 Mbps, bottleneck 20 ms, access 1 ms and 100 Mbps (RTT 44 ms, BDP 57 packets
of 1000 B), SACK, initial window 10, 30 s measured after 10 s, starts uniform
in [0, 1] s with more than one flow.
"""

from __future__ import annotations

import sys

import ccsim
from ccsim.validation.ns2 import tcp_scenario
from ccsim.validation.ns3 import bulk_tcp

#: Keys of ns-2's conventions that ns-3 does not share (ccsim's defaults instead).
NS2_ONLY = [
    "conventions",
    "rtt_tick",
    "rto_ssthresh",
    "send_jitter",
    "delayed_ack",
    "delack_timeout",
]


def jain(g: list[float]) -> float:
    return sum(g) ** 2 / (len(g) * sum(x * x for x in g))


def main(pairs: int, buffer_bdp: float, seeds: list[int]) -> None:
    bulk_tcp.NS3_CC["bbr"] = "ns3::TcpBbr"
    case = tcp_scenario.Case(
        name="bbr",
        cc="bbr",
        pairs=pairs,
        rate_mbps=10.0,
        delay_ms=20.0,
        access_mbps=100.0,
        buffer_pkts=round(buffer_bdp * 57),
        mss=960,
        init_cwnd=10,
        sack=True,
        duration_s=30.0,
        warmup_s=10.0,
        start_max_s=1.0 if pairs > 1 else 0.0,
    )
    for seed in seeds:
        s = tcp_scenario.ccsim_scenario(case, seed)
        for f in s["flows"]:
            for k in NS2_ONLY:
                f.pop(k, None)
        r = ccsim.run(s)
        q = r.queue("R1->R2")
        g = [x / 1e6 for x in r.flows["goodput_bps"]]
        delay_ms = float(q["mean_len_bytes"]) * 8 / 10e6 * 1e3
        print(
            f"ccsim seed {seed}: util {float(q['utilization']):.4f} drops {int(q['drops'])} "
            f"retx {int(r.flows.retransmits.sum())} rto {int(r.flows.timeouts.sum())} "
            f"queueing delay {delay_ms:.1f} ms goodput {[round(x, 2) for x in g]} jain {jain(g):.3f}"
        )
        m = bulk_tcp.run_ns3(case, seed, bulk_tcp.Ns3Options(cc="bbr", sack=True))
        g = [x / 1e6 for x in m["window_goodputs"]]
        print(
            f"ns-3  seed {seed}: util {m['utilization']:.4f} drops {m['drops']} "
            f"retx {m['retransmits']} rto {m['timeouts']} "
            f"goodput {[round(x, 2) for x in g]} jain {jain(g):.3f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")])
