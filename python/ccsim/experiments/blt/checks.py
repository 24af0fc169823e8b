"""The BLT reproduction's checks: Table 1's log10 P_m, the reference networks'
power ratios and fairness, the 1-Gb/s examples, the idle-path and file-size checks,
each with its tolerance and the explanation of a failure measured in the same runs
(the paper's §4.2-§4.3 and Table 1; tolerances as in docs/models/blt.md, "Reproduction
targets").

Source: Kim & Farber, MS-CIS-94-55, 1994 (§ numbers are its sections); the modelling
decisions L1-L15 are those of docs/models/blt.md.
"""

from __future__ import annotations

import math

import numpy as np

from ccsim.experiments.framework import Check, Data

from .aggregate import (
    _series,
    _stable_pairs,
    divergence_lambda,
    idle_ratios,
    log_pm,
    max_power,
    speedup,
)
from .scenarios import PROTOCOLS, TCP_TIMERS, config, idle_path


#: Table 1 of the paper: log10 P_m (bytes/s²), F = 100 KB, D = 30 ms.
TABLE1 = {
    ("blt", 0.2): (6.9, 8.4),
    ("blt", 0.6): (7.9, 9.2),
    ("blt", 1.0): (8.3, 9.4),
    ("tcp", 0.2): (6.4, 7.5),
    ("tcp", 0.6): (7.1, 7.9),
    ("tcp", 1.0): (7.4, 8.1),
}


def _key(group: str, bw_n: float, ratio: float) -> str:
    return f"{group}/{bw_n * ratio:g}"


#: The paper's TCP log10 P_m on the 150-Mb/s reference networks (Table 1), by BW_b.
PAPER_TCP_PM_150 = {
    30: TABLE1[("tcp", 0.2)][0],
    90: TABLE1[("tcp", 0.6)][0],
    150: TABLE1[("tcp", 1.0)][0],
}


def _lam_text(lam: float) -> str:
    return f"{lam:.3g}" if math.isfinite(lam) else "none in the grid"


def _why_tcp_stronger(d: Data) -> str:
    """TCP-side failures: ccsim's TCP has more power and diverges later than the paper's."""
    div = divergence_lambda(d, "reference/30", "tcp")
    top = float(_series(d, "reference/30", "tcp")["lam"].max())
    where = (
        f"diverges only at λ = {div:.3g} conn/s"
        if math.isfinite(div)
        else f"does not diverge up to the grid's top, λ = {top:.3g} conn/s"
    )
    gaps = [
        log_pm(d, f"{g}/{n * r:g}", p) - TABLE1[(p, r)][0 if g == "reference" else 1]
        for p in ("blt", "tcp")
        for r in (0.2, 0.6, 1.0)
        for g, n in (("reference", 150), ("gbps", 1000))
    ]
    blt_gap, tcp_gap = gaps[:6], gaps[6:]
    timers = ", ".join(
        f"{v}: λ_div {_lam_text(divergence_lambda(d, 'reference/30', 'tcp', v))}, log P_m "
        f"{log_pm(d, 'reference/30', 'tcp', variant=v):.2f}"
        for v in TCP_TIMERS
    )
    return (
        "ccsim's TCP does better than the paper's, BLT does not differ: over the six Table 1 "
        f"cells TCP's log10 P_m is {min(tcp_gap):+.2f} to {max(tcp_gap):+.2f} above the "
        f"paper's, BLT's {min(blt_gap):+.2f} to {max(blt_gap):+.2f}. On reference/30 TCP "
        f"{where} (the paper's ≈ 20), and its coarser-timer "
        f"variants no earlier ({timers}; the paper: ≈ 20 and 6.4). ns-2.35's Reno agrees with ccsim's TCP on this "
        "network within the seed intervals at λ = 5, 10 and 15 (ccsim validate blt-tcp, "
        "docs/validation.md): the paper's TCP, from the authors' own 1994 simulator with timer "
        "and recovery details not given, lost more than a Reno with one-dupack fast retransmit "
        "does (see the Findings on TCP's timer)."
    )


def _why_power_ratio(bw: int):
    def why(d: Data) -> str:
        cfg = f"reference/{bw}"
        b, t = log_pm(d, cfg, "blt"), log_pm(d, cfg, "tcp")
        paper_b = TABLE1[("blt", bw / 150)][0]
        paper_t = PAPER_TCP_PM_150[bw]
        return (
            f"BLT's log10 P_m on {cfg} is {b:.2f} (Table 1: {paper_b}), TCP's {t:.2f} (Table 1: "
            f"{paper_t}): the ratio is short because TCP's power is {t - paper_t:+.2f} in log10 "
            f"above the paper's; with the paper's TCP it would be {10 ** (b - paper_t):.1f}."
            + "\n\n"
            + _why_tcp_stronger(d)
        )

    return why


def _speedup_finding(d: Data) -> str:
    """R_TCP / R_BLT on the reference network, and what the buffer rule L1
    (docs/models/blt.md) does to it."""
    full = speedup(d, math.inf)
    x3 = speedup(d, variant="buffer-x3")
    ref = config("reference/30")

    def low(protocol: str) -> float:
        s = _series(d, "reference/30", protocol)
        return float(s.loc[s["lam"].idxmin(), "r_s"])

    return (
        f"R_TCP / R_BLT on the reference 30 Mb/s network: smallest {speedup(d):.2f} over λ ≤ 20 "
        f"conn/s, {full:.2f} over every λ where both are stable (BLT's R grows as it nears its "
        "own divergence, where the paper's TCP no longer had a curve). The buffer rule L1 "
        "decides most of the gap to the paper's 3: a 100-KB burst at 150 Mb/s leaves 160 "
        "packets waiting at 30 Mb/s against the 75 that BW_b·D/3 holds, so even alone a BLT "
        f"transfer loses its tail and resets (R̄ = {low('blt'):.3f} s at the lowest λ against "
        f"{idle_path(ref, 'blt').response_s:.3f} s loss-free; TCP {low('tcp'):.3f} s, its "
        f"calculation {idle_path(ref, 'tcp').response_s:.3f} s); with a buffer of BW_b·D (three times as large) the smallest ratio over "
        f"λ ≤ 20 is {x3:.2f}."
    )


def _why_utilization(d: Data) -> str:
    both = _stable_pairs(d, "reference/30", "tcp", "blt")
    ref = config("reference/30")
    mid = both.iloc[len(both) // 2]
    offered = mid["lam"] / ref.capacity()
    return (
        "at a stable point the bottleneck carries λ·F plus whatever is resent, so at equal λ "
        "the protocol that resends more has the busier link, whatever the number of concurrent "
        f"connections: BLT resends {both['retransmits_blt'].mean():.0f} packets per file (mean "
        f"over the {len(both)} common stable λ), TCP {both['retransmits_tcp'].mean():.1f}; at "
        f"λ = {mid['lam']:.3g} (λ·F = {offered:.1%} of BW_b) the utilization is "
        f"{mid['utilization_blt']:.1%} for BLT and {mid['utilization_tcp']:.1%} for TCP. The paper's "
        "ordering needs a TCP that resends more than BLT."
    )


def _why_jain(bw: int):
    def why(d: Data) -> str:
        cfg = f"reference/{bw}"
        both = _stable_pairs(d, cfg, "tcp", "blt")
        spread_t = float((both["r90_s_tcp"] / both["r50_s_tcp"]).mean())
        spread_b = float((both["r90_s_blt"] / both["r50_s_blt"]).mean())
        return (
            f"BLT's response times are more spread than TCP's on {cfg}: R90/R50 is "
            f"{spread_b:.2f} for BLT against {spread_t:.2f} for TCP (mean over the "
            f"{len(both)} common stable λ). A BLT transfer that loses nothing ends in about one "
            "RTT, one that loses its tail resets and resends it "
            f"({both['retransmits_blt'].mean():.0f} packets per file on average), while every "
            "TCP transfer takes its ≈ 8 RTTs of slow start whatever it loses; Jain's index "
            "over F/R_i follows that spread."
        )

    return why


def _why_gbps_tcp(d: Data) -> str:
    t = max_power(d, "gbps/1000", "tcp")
    s = _series(d, "gbps/1000", "tcp")
    top = s[~s["diverged"]].iloc[-1]
    idle = idle_path(config("gbps/1000"), "tcp").response_s
    return (
        f"TCP's R̄ stays near slow start's minimum ({idle:.4f} s for a transfer alone) up to the "
        f"top of the stable grid (λ = {top['lam']:.0f}: {top['r_s']:.4f} s), so its power peaks "
        f"at a high load, λ = {t['lam']:.0f} (R̄ = {t['r_s']:.4f} s), where Θ = "
        f"{t['theta_pess'] * 8 / 1e6:.0f} Mb/s; the paper's TCP peaked at 318 Mb/s, its R having "
        "left that minimum at a lower load.\n\n" + _why_tcp_stronger(d)
    )


def _why_gbps_blt(d: Data) -> str:
    b = max_power(d, "gbps/1000", "blt")
    cap = config("gbps/1000").capacity()
    grid = ", ".join(f"{x:.0%}" for x in sorted(_series(d, "gbps/1000", "blt")["frac"].unique()))
    return (
        f"Θ at the maximum power is about λ·F at the grid point where the maximum falls: here "
        f"λ = {b['lam']:.0f} conn/s, {b['lam'] / cap:.0%} of capacity (grid: {grid} of "
        f"{cap:.0f} conn/s), Θ = {b['theta_pess'] * 8 / 1e6:.0f} Mb/s with R̄ = {b['r_s']:.4f} s. "
        f"The paper's maximum, ≈ 900 conn/s ({900 / cap:.0%}), lies between grid points of a "
        "coarse grid (the quick one's 65 % and 90 %); the full grid puts it near the paper's."
    )


def _why_1mb_tcp(d: Data) -> str:
    ours = [log_pm(d, f"reference/{b}", "tcp") for b in (30, 90, 150)]
    big = [log_pm(d, f"1mb-150/{b}", "tcp") for b in (30, 90, 150)]
    paper = [PAPER_TCP_PM_150[b] for b in (30, 90, 150)]
    return (
        "the fall is measured from ccsim's 100-KB TCP, whose log10 P_m on the 150-Mb/s "
        f"networks ({', '.join(f'{x:.2f}' for x in ours)}) is above the paper's "
        f"({', '.join(f'{x:g}' for x in paper)}); from the paper's 100-KB values to ccsim's "
        f"1-MB ones ({', '.join(f'{x:.2f}' for x in big)}) the fall is "
        f"{10 ** float(np.mean(paper) - np.mean(big)):.1f}×, within the factor 2 of ≈ 3.\n\n"
        + _why_tcp_stronger(d)
    )


def _table1_checks() -> list[Check]:
    out = []
    for (proto, ratio), (p150, p1g) in TABLE1.items():
        for group, bw_n, paper in (("reference", 150, p150), ("gbps", 1000, p1g)):
            out.append(
                Check(
                    f"Table 1: log10 P_m, {PROTOCOLS[proto]}, BW_N {bw_n:g} Mb/s, BW_b/BW_N = {ratio:g}",
                    f"{paper}",
                    lambda d, g=group, n=bw_n, r=ratio, p=proto: log_pm(d, _key(g, n, r), p),
                    paper - 0.3,
                    paper + 0.3,
                    "±0.3",
                    "{:.2f}",
                    why=_why_tcp_stronger,
                )
            )
    for ratio, paper in ((0.2, 0.4), (0.6, 0.5), (1.0, 0.4)):

        def delta(d, r=ratio):
            gain = {
                p: log_pm(d, _key("gbps", 1000, r), p) - log_pm(d, _key("reference", 150, r), p)
                for p in ("blt", "tcp")
            }
            return gain["blt"] - gain["tcp"]

        out.append(
            Check(
                f"Table 1: ΔlogP_m(BLT) − ΔlogP_m(TCP), BW_b/BW_N = {ratio:g}",
                f"{paper} (BLT scales better)",
                delta,
                0.1,
                math.inf,
                "> 0.1",
                "{:.2f}",
            )
        )
    return out


def _power_ratio(cfg: str, proto_a: str = "blt", proto_b: str = "tcp"):
    return lambda d: max_power(d, cfg, proto_a)["power"] / max_power(d, cfg, proto_b)["power"]


def _reference_checks() -> list[Check]:
    """The reference networks (BW_N 150 Mb/s, D 30 ms, F 100 KB): max power, speed and
    stability, fairness."""
    return [*_reference_power_checks(), *_reference_speed_checks(), *_reference_fairness_checks()]


def _reference_power_checks() -> list[Check]:
    """The max-power ratio BLT / TCP at each BW_b, and its growth with BW_b."""
    out = []
    for bw, paper in ((30, 3), (90, 6), (150, 10)):
        out.append(
            Check(
                f"Reference: max-power ratio BLT / TCP, BW_b = {bw} Mb/s",
                f"≈ {paper}",
                _power_ratio(f"reference/{bw}"),
                paper / 2,
                paper * 2,
                "within a factor 2",
                "{:.2f}",
                why=_why_power_ratio(bw),
            )
        )
    out.append(
        Check(
            "Reference: the max-power ratio increases with BW_b (30 → 90 → 150)",
            "3 < 6 < 10",
            lambda d: float(
                _power_ratio("reference/30")(d)
                < _power_ratio("reference/90")(d)
                < _power_ratio("reference/150")(d)
            ),
            1,
            1,
            "increasing",
            "{:.0f}",
        )
    )
    return out


def _reference_speed_checks() -> list[Check]:
    """BW_b = 30 Mb/s: BLT's speed-up over TCP, the loads at which each diverges, and
    the utilization at equal load."""
    return [
        Check(
            "Reference, BW_b = 30 Mb/s: smallest R_TCP / R_BLT over λ ≤ 20 conn/s (the paper's "
            "TCP curve; both stable)",
            "> 3 ('faster by more than 200 %') at all λ",
            speedup,
            2.5,
            math.inf,
            "≥ 2.5",
            "{:.2f}",
            why=_speedup_finding,
        ),
        Check(
            "Reference, BW_b = 30 Mb/s: λ at which TCP diverges (conn/s)",
            "≈ 20",
            lambda d: divergence_lambda(d, "reference/30", "tcp"),
            15,
            25,
            "±25 %",
            "{:.1f}",
            why=_why_tcp_stronger,
        ),
        Check(
            "Reference, BW_b = 30 Mb/s: λ at which BLT diverges (conn/s)",
            "≈ 35",
            lambda d: divergence_lambda(d, "reference/30", "blt"),
            26.25,
            43.75,
            "±25 %",
            "{:.1f}",
        ),
        Check(
            "Reference, BW_b = 30 Mb/s: BLT diverges at a larger λ than TCP",
            "BLT > TCP",
            lambda d: float(
                divergence_lambda(d, "reference/30", "blt")
                > divergence_lambda(d, "reference/30", "tcp")
            ),
            1,
            1,
            "ordering",
            "{:.0f}",
            why=_why_tcp_stronger,
        ),
        Check(
            "Reference, BW_b = 30 Mb/s: share of λ points where BLT's utilization < TCP's",
            "BLT < TCP at equal λ (fewer concurrent connections)",
            lambda d: float(
                (
                    _series(d, "reference/30", "blt")["utilization"].to_numpy()
                    < _series(d, "reference/30", "tcp")["utilization"].to_numpy()
                ).mean()
            ),
            1,
            1,
            "all",
            "{:.2f}",
            why=_why_utilization,
        ),
    ]


def _reference_fairness_checks() -> list[Check]:
    """BLT fairer than TCP (mean Jain index) at 30 and 150 Mb/s."""
    out = []
    for bw in (30, 150):
        out.append(
            Check(
                f"Reference, BW_b = {bw} Mb/s: mean Jain over common stable λ, BLT − TCP",
                "BLT fairer at 30 and 150 Mb/s",
                lambda d, bw=bw: _jain_gap(d, f"reference/{bw}"),
                0,
                math.inf,
                "> 0",
                "{:+.3f}",
                why=_why_jain(bw),
            )
        )
    return out


def _jain_gap(d: Data, cfg: str, a: str = "blt", b: str = "tcp") -> float:
    both = _stable_pairs(d, cfg, a, b)
    return float((both[f"jain_{a}"] - both[f"jain_{b}"]).mean())


def _gbps_checks() -> list[Check]:
    cfg = "gbps/1000"

    def at(proto, col):
        return lambda d: float(max_power(d, cfg, proto)[col])

    return [
        Check(
            "1 Gb/s example: Θ_BLT at BLT's max power (pessimistic, Mb/s)",
            "605 (≈ 725 not pessimistic)",
            lambda d: at("blt", "theta_pess")(d) * 8 / 1e6,
            605 * 0.8,
            605 * 1.2,
            "±20 %",
            "{:.0f}",
            why=_why_gbps_blt,
        ),
        Check(
            "1 Gb/s example: Θ_TCP at TCP's max power (pessimistic, Mb/s)",
            "318",
            lambda d: at("tcp", "theta_pess")(d) * 8 / 1e6,
            318 * 0.8,
            318 * 1.2,
            "±20 %",
            "{:.0f}",
            why=_why_gbps_tcp,
        ),
        Check(
            "1 Gb/s example: R_BLT at its max power (s)",
            "0.032",
            at("blt", "r_s"),
            0.031,
            0.040,
            "0.031-0.040",
            "{:.4f}",
        ),
        Check(
            "1 Gb/s example: R_TCP at its max power (s)",
            "0.2894",
            at("tcp", "r_s"),
            0.2894 * 0.75,
            0.2894 * 1.25,
            "±25 %",
            "{:.4f}",
        ),
        Check(
            "1 Gb/s example: max-power ratio BLT / TCP",
            "≈ 17 (1.23 in log10)",
            _power_ratio(cfg),
            8,
            35,
            "8-35",
            "{:.1f}",
        ),
        Check(
            "1 Gb/s example: λ at BLT's max power (conn/s)",
            "≈ 900",
            at("blt", "lam"),
            900 * 0.7,
            900 * 1.3,
            "±30 %",
            "{:.0f}",
        ),
    ]


def _idle_check(d: Data) -> float:
    r = idle_ratios(d)
    r = r[r["fits"]]
    if r.empty:
        return math.nan
    dev = r["median_ratio"] - 1
    return float(dev.loc[dev.abs().idxmax()])


def _other_checks() -> list[Check]:
    """The checks beyond the reference and 1-Gb/s networks, in the report's order."""
    return [
        *_idle_path_checks(),
        *_bully_tyrant_checks(),
        *_large_file_checks(),
        *_short_delay_checks(),
        *_slow_network_checks(),
        *_small_file_checks(),
        *_pair_pool_checks(),
    ]


def _idle_path_checks() -> list[Check]:
    """An idle path's transfer time against the hand calculation (not in the paper)."""
    return [
        Check(
            "Idle path: median R at 0.5 % of capacity over the hand calculation "
            "(theory.idle_path_transfer), the ratio furthest from 1 over every protocol and "
            "network where the file alone fits the buffers",
            "(not in the paper) R ≥ D + 0.8 ms for BLT, ≥ 8 RTTs of slow start for TCP "
            "(lower bounds for the 1-Gb/s example of §4.3.1)",
            _idle_check,
            -0.001,
            0.01,
            "−0.1 % … +1 % (the median transfer is alone)",
            "{:+.4f}",
        ),
    ]


def _bully_tyrant_checks() -> list[Check]:
    """Bully-Tyrant against BLT and TCP on the reference 30-Mb/s network: power,
    divergence, fairness."""
    return [
        Check(
            "Bully-Tyrant, reference 30 Mb/s: power at the lowest λ / BLT's",
            "≈ BLT at low λ",
            lambda d: float(
                _series(d, "reference/30", "bt")["power"].iloc[0]
                / _series(d, "reference/30", "blt")["power"].iloc[0]
            ),
            0.5,
            2,
            "within a factor 2",
            "{:.2f}",
        ),
        Check(
            "Bully-Tyrant diverges at a lower λ than BLT (reference 30 Mb/s)",
            "collapses earlier ('congestion meltdown')",
            lambda d: float(
                divergence_lambda(d, "reference/30", "bt")
                < divergence_lambda(d, "reference/30", "blt")
            ),
            1,
            1,
            "ordering",
            "{:.0f}",
        ),
        Check(
            "Bully-Tyrant has the lowest fairness (reference 30 Mb/s; mean Jain, BT − min(BLT, TCP))",
            "worst of the three",
            lambda d: min(
                -_jain_gap(d, "reference/30", "blt", "bt"),
                -_jain_gap(d, "reference/30", "tcp", "bt"),
            ),
            -math.inf,
            0,
            "< 0",
            "{:+.3f}",
        ),
    ]


def _large_file_checks() -> list[Check]:
    """F = 1 MB: how far each protocol's max power falls from F = 100 KB."""
    out = []
    for proto, lo, hi, paper in (("blt", 5, math.inf, "≥ 10×"), ("tcp", 1.5, 6, "≈ 3×")):
        out.append(
            Check(
                f"F = 1 MB: {PROTOCOLS[proto]}'s max power falls vs 100 KB (BW_N 150, mean over BW_b, factor)",
                paper,
                lambda d, p=proto: (
                    10
                    ** float(
                        np.mean(
                            [
                                log_pm(d, f"reference/{b}", p) - log_pm(d, f"1mb-150/{b}", p)
                                for b in (30, 90, 150)
                            ]
                        )
                    )
                ),
                lo,
                hi,
                "factor 2",
                "{:.1f}",
                why=_why_1mb_tcp if proto == "tcp" else None,
            )
        )
    return out


def _short_delay_checks() -> list[Check]:
    """D = 3 ms and 1.8 ms: BLT still ahead of TCP, by less than at 30 ms."""
    out = []
    for group, label in (("d3ms", "3 ms"), ("d1.8ms", "1.8 ms")):
        out.append(
            Check(
                f"D = {label}: smallest max-power ratio BLT / TCP over BW_b",
                "BLT > TCP",
                lambda d, g=group: min(_power_ratio(f"{g}/{b}")(d) for b in (30, 90, 150)),
                1,
                math.inf,
                "> 1",
                "{:.2f}",
            )
        )
        out.append(
            Check(
                f"D = {label}: BLT/TCP gap (log10, mean over BW_b) minus the gap at 30 ms",
                "gap smaller than at 30 ms",
                lambda d, g=group: float(
                    np.mean(
                        [
                            math.log10(_power_ratio(f"{g}/{b}")(d))
                            - math.log10(_power_ratio(f"reference/{b}")(d))
                            for b in (30, 90, 150)
                        ]
                    )
                ),
                -math.inf,
                0,
                "< 0",
                "{:+.2f}",
            )
        )
    return out


def _slow_network_checks() -> list[Check]:
    """BW_N = 15 Mb/s: power two orders of magnitude lower, BLT still ahead."""
    return [
        Check(
            "BW_N = 15 Mb/s: log10 P_m below the (150 Mb/s, 3 ms) case (BLT, mean over the three BW_b)",
            "≈ 2 orders of magnitude",
            lambda d: float(
                np.mean(
                    [
                        log_pm(d, f"d3ms/{b}", "blt") - log_pm(d, f"slow/{b / 10:g}", "blt")
                        for b in (30, 90, 150)
                    ]
                )
            ),
            2 - math.log10(3),
            2 + math.log10(3),
            "factor 3",
            "{:.2f}",
        ),
        Check(
            "BW_N = 15 Mb/s: max-power ratio BLT / TCP at BW_b = 9 and 15 (the smaller)",
            "BLT better (TCP ≥ BLT only at 3 Mb/s, low λ)",
            lambda d: min(_power_ratio("slow/9")(d), _power_ratio("slow/15")(d)),
            1,
            math.inf,
            "> 1",
            "{:.2f}",
        ),
    ]


def _small_file_checks() -> list[Check]:
    """F = 10 KB: BLT's power gains more than TCP's from F = 100 KB."""
    return [
        Check(
            "F = 10 KB (R' = R − D/2): ΔlogP_m(BLT) − ΔlogP_m(TCP) from 100 KB, mean over BW_b",
            "≥ 0",
            lambda d: float(
                np.mean(
                    [
                        (
                            log_pm(d, f"10kb/{b}", "blt", adj=True)
                            - log_pm(d, f"reference/{b}", "blt", adj=True)
                        )
                        - (
                            log_pm(d, f"10kb/{b}", "tcp", adj=True)
                            - log_pm(d, f"reference/{b}", "tcp", adj=True)
                        )
                        for b in (30, 90, 150)
                    ]
                )
            ),
            0,
            math.inf,
            "≥ 0",
            "{:+.2f}",
        ),
    ]


def _pair_pool_checks() -> list[Check]:
    """The pool of host pairs (not in the paper): its size changes nothing, no
    arrival finds every pair busy."""
    return [
        Check(
            "A pool of pairs (idle longest first) vs four times as many: R, TCP and BLT (relative gap)",
            "(not in the paper) a new pair per connection",
            lambda d: max(
                abs(
                    d.one("r_s", config="reference/30", protocol=p, variant="pool-x4")
                    / d.one("r_s", config="reference/30", protocol=p, variant="pool-x1")
                    - 1
                )
                for p in ("tcp", "blt")
            ),
            0,
            0.01,
            "< 1 %",
            "{:.4f}",
        ),
        Check(
            "Arrivals that found every pair busy (stable points)",
            "(not in the paper) none: every connection had its own pair",
            lambda d: float(d.table[d.table["diverged"] == 0]["busy_picks"].sum()),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
    ]
