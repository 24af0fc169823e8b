"""Token-based Fast-TCP: a gateway that holds ACKs until the forward buffer has tokens
(spare room), keeping the buffer small at the same throughput.

Source: the token-based Fast-TCP paper (an OPNET study without title or authors in the
surviving text; docs/models/token-gate.md identifies it and records the reconstruction,
labels T1-T12). Setup (§4.1): server —10 Mbps/1 ms— router_1 —2 Mbps/140 ms—
router_2 —10 Mbps/1 ms— client; 576-byte datagrams (MSS 536 + 40 B), 40-byte ACKs, Reno
with IW 1, no delayed ACKs. The paper's windows are in packets (maximum window 65 536 B
= 113.78 packets of 576 B, ssthresh 32 768 B = 56.89 packets); ccsim's TCP counts
payload bytes, so the same windows are 113.78 × 536 B and 56.89 × 536 B (T1, T12).
Plain TCP runs with an unbounded forward buffer and no gate (T11); the gate runs with a
40 000-bit forward buffer and Th = 3.

Three gate variants are run. On the paper's topology the gate uses ccsim's promise
accounting (``in_transit = "count"``), because there the paper's rule overflows: its
§3.1 timing assumption (a released ACK's packets arrive before the next departure)
fails with 1 ms access hops. The paper's rule itself is run twice: on the paper's
topology (it overshoots) and with 0.1 ms access hops, where its assumption holds and it
reproduces the paper's exact numbers (27 648 bits, the 4 <-> 6 packet oscillation).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ccsim import theory
from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

MSS, HEADER = 536, 40
PKT = MSS + HEADER  # 576 B = 4608 bit on the wire
MAX_WINDOW_PKTS = 65536 / PKT  # 113.78
SSTHRESH_PKTS = 32768 / PKT  # 56.89
BF_BITS = 40000
TH = 3
FORWARD = "router_1->router_2"
SCHEMES = {"tcp": "TCP (infinite buffer)", "token": "Token F-TCP"}
PAPER_TIMING_ACCESS = "0.1ms"  # both packets of a release arrive before the next departure


def scenario(
    scheme: str,
    connections: int = 1,
    duration: str = "25s",
    stagger_s: float = 2.2,
    interval: str = "2ms",
    in_transit: str = "count",
    access_delay: str = "1ms",
) -> dict:
    """The paper's topology with ``connections`` host pairs; the five-connection case
    multiplies every rate by 5 (§4.2). ``in_transit`` is the gate's token accounting
    (``"ignore"`` = the paper's rule, ``"count"`` = ccsim's compensation)."""
    k = 5 if connections > 1 else 1
    nodes = ["router_1", "router_2"]
    links = []
    for i in range(connections):
        s, c = (f"server{i}", f"client{i}") if connections > 1 else ("server", "client")
        nodes += [s, c]
        links.append(
            {
                "from": s,
                "to": "router_1",
                "rate": f"{10 * k}Mbps",
                "delay": access_delay,
                "queue": {"kind": "droptail", "limit": "inf"},
            }
        )
        links.append(
            {
                "from": "router_2",
                "to": c,
                "rate": f"{10 * k}Mbps",
                "delay": access_delay,
                "queue": {"kind": "droptail", "limit": "inf"},
            }
        )
    forward_limit = "inf" if scheme == "tcp" else f"{BF_BITS}bit"
    links.append(
        {
            "from": "router_1",
            "to": "router_2",
            "rate": f"{2 * k}Mbps",
            "delay": "140ms",
            "queue": {"kind": "droptail", "limit": forward_limit},
            "reverse_queue": {"kind": "droptail", "limit": "inf"},
        }
    )
    flows = []
    for i in range(connections):
        s, c = (f"server{i}", f"client{i}") if connections > 1 else ("server", "client")
        flows.append(
            {
                "name": f"conn{i + 1}",
                "src": s,
                "dst": c,
                "cc": "reno",
                "mss": MSS,
                "header": HEADER,
                "init_cwnd": 1,
                "init_ssthresh": f"{round(SSTHRESH_PKTS * MSS)}B",
                "rwnd": f"{round(MAX_WINDOW_PKTS * MSS)}B",
                "min_rto": "1s",
                "start": f"{i * stagger_s}s",
            }
        )
    sc = {
        "name": f"token-ftcp-{scheme}-{connections}",
        "seed": 1,
        "duration": duration,
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "flows": flows,
        "monitor": {"interval": interval, "queues": [FORWARD], "flows": "all"},
    }
    if scheme == "token":
        sc["components"] = [
            {
                "node": "router_1",
                "kind": "token_gate",
                "forward": FORWARD,
                "buffer": f"{BF_BITS}bit",
                "threshold": TH,
                "packet_length": f"{PKT}B",
                "in_transit": in_transit,
            }
        ]
    return sc


def runs(quick: bool) -> list[Run]:
    """All runs take well under a second, so quick and full modes are the same."""
    out = [
        Run({"scheme": s, "connections": n}, scenario(s, n, duration="25s" if n == 1 else "30s"))
        for n in (1, 5)
        for s in SCHEMES
    ]
    # The paper's literal token rule on the paper's topology, to show the overshoot.
    out += [
        Run(
            {"scheme": "token-paper-rule", "connections": n},
            scenario("token", n, duration="25s" if n == 1 else "30s", in_transit="ignore"),
        )
        for n in (1, 5)
    ]
    # The paper's rule where its timing assumption holds, sampled finely enough
    # (0.2 ms < the 2.304 ms service time) to see the oscillation.
    for s, it in (("tcp", "count"), ("token", "ignore")):
        out.append(
            Run(
                {"scheme": f"{s}-paper-timing", "connections": 1},
                scenario(
                    s,
                    1,
                    duration="20s",
                    interval="0.2ms",
                    in_transit=it,
                    access_delay=PAPER_TIMING_ACCESS,
                ),
            )
        )
    return out


def _phase(f, start: float):
    """(end time, bytes sent) of the phase from the start until cwnd first reaches the
    maximum window (T8); packets counted as sent, as the paper reads Fig. 7."""
    full = f[f["cwnd_bytes"] >= MAX_WINDOW_PKTS * MSS - 1]
    t_end = float(full["time_s"].iloc[0]) if len(full) else float(f["time_s"].iloc[-1])
    at = f[f["time_s"] <= t_end]
    return t_end, float(at["sent_seq"].iloc[-1])


def metrics(r) -> dict:
    q = r.queue(FORWARD)
    flows = r.flows
    m = {
        "max_forward_bits": float(q["max_len_bytes"]) * 8,
        "max_forward_pkts": float(q["max_len_pkts"]),
        # The packet in transmission occupies the buffer too: the paper's eq. (5)-(8)
        # queue counts it (a backlog > 0 means the link is busy).
        "max_forward_pkts_system": float(q["max_len_pkts"] + (q["max_len_pkts"] > 0)),
        "forward_utilization": float(q["utilization"]),
        "drops": float(r.queues["drops"].sum()),
        "retransmits": float(flows["retransmits"].sum()),
        "min_rtt_s": float(flows["min_rtt_s"].min()),
    }
    f0 = r.timeseries["flow"]
    f0 = f0[f0["flow"] == "conn1"]
    start = float(flows.iloc[0]["start_s"])
    t_end, sent = _phase(f0, start)
    m["phase_end_s"] = t_end
    m["phase_throughput_pps"] = sent / MSS / (t_end - start)
    ss = f0[f0["cwnd_bytes"] >= SSTHRESH_PKTS * MSS - 1]
    rtt = m["min_rtt_s"]
    m["slow_start_cycles"] = (
        float(np.floor((ss["time_s"].iloc[0] - start) / rtt) + 1) if len(ss) else float("nan")
    )
    comp = r.timeseries.get("component")
    if comp is not None and len(comp):
        held = comp[comp["name"] == "held_acks"].set_index("time_s")["value"]
        holding = held[held > 0]
        m["first_hold_cycle"], m["last_hold_cycle"] = (
            (
                float(np.floor(holding.index[0] / rtt) + 1),
                float(np.floor(holding.index[-1] / rtt) + 1),
            )
            if len(holding)
            else (float("nan"), float("nan"))
        )
        # Forward backlog (packets) at the samples where ACKs wait: the oscillation.
        backlog = r.timeseries["queue"].set_index("time_s")["packets"]
        during = backlog.reindex(holding.index).dropna()
        m["hold_backlog_min"] = float(during.min()) if len(during) else float("nan")
        m["hold_backlog_max"] = float(during.max()) if len(during) else float("nan")
        stats = r.summary["components"]["router_1"]["stats"]
        for k in ("max_held_acks", "acks_held", "max_promised", "promised_lapsed"):
            m[k] = float(stats[k])
    return m


def plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    paths = []
    # one colour and line style per scheme (its connections share them)
    styles = {s: ("-" if k == 0 else "--", f"C{k}") for k, s in enumerate(SCHEMES)}
    for n, figs in ((1, "3-7"), (5, "8-12")):
        fig, axes = plt.subplots(2, 2, figsize=(12, 7))
        for s, label in SCHEMES.items():
            q = data.timeseries("queue", scheme=s, connections=n)
            f = data.timeseries("flow", scheme=s, connections=n)
            ls, color = styles[s]
            axes[0, 0].plot(
                q["time_s"], q["bytes"] * 8 / 1e3, lw=0.8, ls=ls, color=color, label=label
            )
            for k, (name, g) in enumerate(f.groupby("flow")):
                # several connections of one scheme draw the same curve: one legend
                # entry per scheme, the scheme told apart by the line style
                tag = label if n == 1 else (f"{label} (each of {n} connections)" if k == 0 else "_")
                window = np.minimum(g["cwnd_bytes"], MAX_WINDOW_PKTS * MSS) / MSS
                axes[0, 1].plot(g["time_s"], window, lw=0.8, ls=ls, color=color, label=tag)
                axes[1, 0].plot(
                    g["time_s"], g["sent_seq"] / 1e6, lw=0.8, ls=ls, color=color, label=tag
                )
            if s == "token":
                c = data.timeseries("component", scheme=s, connections=n)
                c = c[c["name"] == "held_acks"]
                axes[1, 1].plot(c["time_s"], c["value"], lw=0.8, color=color, label=label)
        axes[0, 0].axhline(
            theory.token_ftcp_gate_cap(BF_BITS, PKT * 8, TH) / 1e3,
            ls="--",
            color="gray",
            lw=1,
            label="gate cap (B−Th+1)·L_p",
        )
        axes[0, 0].set_title("forward buffer occupancy (kbit), slow starts")
        axes[0, 0].set_xlim(0, 4 if n == 1 else 13)
        axes[0, 1].set_title("send window min(cwnd, max window) (packets)")
        axes[1, 0].set_title("sent sequence number (MB)")
        axes[1, 1].set_title("ACK buffer occupancy (ACKs)")
        for ax in (axes[0, 1], axes[1, 1]):  # counts: whole-number ticks
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        for ax in axes.flat:
            ax.grid(True, alpha=0.3)
            ax.ticklabel_format(axis="y", style="plain", useOffset=False)
            ax.legend(fontsize=8)
        for ax in axes[1]:
            ax.set_xlabel("time (s)")
        fig.suptitle(
            f"Token F-TCP vs TCP, {n} connection{'s' if n > 1 else ''} (paper Figs. {figs})"
        )
        fig.tight_layout()
        paths += save_figure(fig, outdir, f"figs{figs}-{n}-connection{'s' if n > 1 else ''}")
    return paths


def _ratio(metric: str, scheme: str, reference: str, connections: int):
    """A check value: ``metric`` of ``scheme`` over that of ``reference``."""
    return lambda d: (
        d.one(metric, scheme=scheme, connections=connections)
        / d.one(metric, scheme=reference, connections=connections)
    )


def _eq14_sim_rtt(d: Data) -> float:
    return theory.token_ftcp_throughput(
        SSTHRESH_PKTS, d.one("min_rtt_s", scheme="tcp", connections=1)
    )


CAP_BITS = theory.token_ftcp_gate_cap(BF_BITS, PKT * 8, TH)  # 27 648

EXPERIMENT = Experiment(
    name="token-ftcp",
    title="Token-based Fast-TCP ACK gate: buffer and throughput (Figs. 3-12)",
    paper="Token-based Fast-TCP (OPNET study), §3-4; docs/models/token-gate.md",
    runs=runs,
    metrics=metrics,
    plot=plot,
    timeseries=["flow", "queue", "component"],
    checks=[
        Check(
            "Token F-TCP forward buffer maximum (bits), 1 connection",
            "27 648 (never exceeded)",
            lambda d: d.one("max_forward_bits", scheme="token", connections=1),
            0,
            CAP_BITS,
            "≤ 27 648",
            "{:.0f}",
        ),
        Check(
            "Five connections: Token F-TCP buffer maximum (bits)",
            "27 648",
            lambda d: d.one("max_forward_bits", scheme="token", connections=5),
            0,
            CAP_BITS,
            "≤ 27 648",
            "{:.0f}",
        ),
        Check(
            "Packet loss: TCP and Token F-TCP, 1 and 5 connections, and the paper-timing runs",
            "none",
            lambda d: d.table[~d.table["scheme"].eq("token-paper-rule")]["drops"].sum(),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Throughput Token F-TCP / TCP over the whole phase, 1 connection",
            "equal",
            _ratio("phase_throughput_pps", "token", "tcp", 1),
            0.995,
            1.005,
            "within 0.5 %",
            "{:.5f}",
        ),
        Check(
            "Five connections: bottleneck utilization Token F-TCP / TCP",
            "equal (curves coincide)",
            _ratio("forward_utilization", "token", "tcp", 5),
            0.995,
            1.005,
            "within 0.5 %",
            "{:.5f}",
        ),
        Check(
            "Cycles: time to reach the maximum window, Token F-TCP / TCP (1 connection)",
            "identical RTT per cycle",
            _ratio("phase_end_s", "token", "tcp", 1),
            0.99,
            1.01,
            "< 1 %",
            "{:.5f}",
        ),
        Check(
            "Simulated throughput, TCP, whole phase (pkt/s)",
            "276.8 (read from Fig. 7)",
            lambda d: d.one("phase_throughput_pps", scheme="tcp", connections=1),
            269,
            278,
            "269-278",
            "{:.1f}",
        ),
        Check(
            "Simulated throughput, Token F-TCP, whole phase (pkt/s)",
            "276.8",
            lambda d: d.one("phase_throughput_pps", scheme="token", connections=1),
            269,
            278,
            "269-278",
            "{:.1f}",
        ),
        Check(
            "Eq. (14), w_s = 32768/576, T = 0.28 s (pkt/s)",
            "276.877",
            lambda d: theory.token_ftcp_throughput(SSTHRESH_PKTS, 0.28),
            276.876,
            276.878,
            "±0.001",
            "{:.3f}",
        ),
        Check(
            "Eq. (14) with the simulated RTT (pkt/s)",
            "(not in paper) ≈ 269.7",
            _eq14_sim_rtt,
            268,
            272,
            "268-272",
            "{:.1f}",
        ),
        Check(
            "Plain TCP peak buffer (packets, incl. the one in transmission)",
            "≈ ssthresh/2 = 16 384 B ≈ 28 packets (eq. 11)",
            lambda d: d.one("max_forward_pkts_system", scheme="tcp", connections=1),
            25,
            29,
            "25-29",
            "{:.0f}",
        ),
        Check(
            "Five connections: TCP peak buffer (packets, incl. the one in transmission)",
            "16 384 B ≈ 28 packets (+1 with overlap)",
            lambda d: d.one("max_forward_pkts_system", scheme="tcp", connections=5),
            25,
            30,
            "25-29, +1 overlap",
            "{:.0f}",
        ),
        Check(
            "Cycle in which ACK holding starts",
            "5th",
            lambda d: d.one("first_hold_cycle", scheme="token", connections=1),
            5,
            5,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Last cycle with ACKs waiting (the ACK buffer drains before congestion avoidance)",
            "slow start only (cycles 5-7)",
            lambda d: d.one("last_hold_cycle", scheme="token", connections=1),
            7,
            7,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Plain TCP slow-start cycles",
            "7",
            lambda d: d.one("slow_start_cycles", scheme="tcp", connections=1),
            7,
            7,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Paper's rule, 0.1 ms access: forward buffer maximum (bits)",
            "27 648 = (B − Th + 1)·L_p",
            lambda d: d.one("max_forward_bits", scheme="token-paper-timing", connections=1),
            CAP_BITS,
            CAP_BITS,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Paper's rule, 0.1 ms access: lowest backlog while ACKs wait (packets)",
            "B − Th − 1 = 4",
            lambda d: d.one("hold_backlog_min", scheme="token-paper-timing", connections=1),
            4,
            4,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Paper's rule, 0.1 ms access: throughput / TCP on the same path",
            "equal",
            _ratio("phase_throughput_pps", "token-paper-timing", "tcp-paper-timing", 1),
            0.995,
            1.005,
            "within 0.5 %",
            "{:.5f}",
        ),
        Check(
            "Paper's rule, 0.1 ms access: cycle in which ACK holding starts",
            "5th",
            lambda d: d.one("first_hold_cycle", scheme="token-paper-timing", connections=1),
            5,
            5,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Paper's rule on the paper's 1 ms topology: forward buffer maximum (bits)",
            "(not in paper; its §3.1 timing assumption fails here)",
            lambda d: d.one("max_forward_bits", scheme="token-paper-rule", connections=1),
            CAP_BITS + 1,
            40000,
            "overshoots the cap",
            "{:.0f}",
            demo=True,
        ),
        Check(
            "Paper's rule on the paper's 1 ms topology: packets dropped, 1 and 5 connections",
            "(not in paper)",
            lambda d: d.rows(scheme="token-paper-rule")["drops"].sum(),
            1,
            math.inf,
            "> 0 (the buffer overflows)",
            "{:.0f}",
            demo=True,
        ),
    ],
    notes=[
        "Token F-TCP on the paper's topology uses ccsim's promise accounting "
        '(in_transit = "count"): every ACK the gate lets out promises the packets it will clock '
        "out (m newly acknowledged segments, plus one while the window grows per ACK), and tokens are "
        "spare room minus promised packets until they arrive or lapse. The paper's rule (§3.1) "
        "assumes a released ACK's packets arrive before the next departure (2.304 ms); on the paper's "
        "own topology they arrive 2.49 and 2.95 ms after the release (two 1 ms hops plus "
        "serialization), so the next departure hands the same room out again and the 40 000-bit "
        "buffer overflows (rows 'paper's rule on the paper's 1 ms topology'). With 0.1 ms access hops "
        "the assumption holds and the paper's rule gives its numbers exactly (rows '0.1 ms access').",
        "On the 1 ms topology the promise accounting keeps backlog + promised ≤ B − Th + 1 = 6, so "
        "the backlog itself peaks lower (5 packets with one connection, fewer with five, where the "
        "50 Mbps/1 ms access loop holds about 4.6 packets of the 10 Mbps link's service time); the "
        "bottleneck never idles for it (same throughput/utilization as TCP).",
        "The paper's 276.877 pkt/s uses T = 0.28 s (twice the 140 ms hop only). The simulated path's "
        "RTT is ≈ 287.4 ms (all propagation plus serialization), so eq. (14) with the real T gives "
        "≈ 269.7 pkt/s and the simulation ≈ 269-271 pkt/s, about 2.5 % below 276.877: an explained "
        "gap (docs/models/token-gate.md, 'Throughput against eq. (14)'), not a model error.",
        "Throughput is measured from the connection's start until cwnd first reaches the maximum "
        "window (T8), in 576-byte packets sent.",
        "Plain TCP's peak is below the eq. (11) bound w_s/2 = 28.4 packets: the ssthresh-crossing "
        "cycle starts at 32 packets and grows only to 57 (w_s = 56.89), one queued packet per ACK, "
        "so 25 packets are in the buffer (24 waiting plus the one in transmission) — the low end of "
        "the expected 25-29. The same holds with five connections (slow starts do not overlap).",
        "Five connections start at 0, 2.2, 4.4, 6.6, 8.8 s so slow starts do not overlap (T9).",
        "ACKs are 40 B; ACK buffer unbounded; Reno with IW 1, no delayed ACKs (T7, T10).",
    ],
)

EXPERIMENTS = [EXPERIMENT]
