"""The BLT report's tables (Table 1 reconstructed, the other networks' P_m) and
findings (measured facts that are not the paper's claims, among them the idle-path and
processor-sharing comparisons).

Source: Kim & Farber, MS-CIS-94-55, 1994 (§ numbers are its sections); the modelling
decisions L1-L15 are those of docs/models/blt.md.
"""

from __future__ import annotations

import math

from ccsim import theory
from ccsim.experiments.framework import Data

from .aggregate import _series, divergence_lambda, idle_ratios, log_pm, max_power, points
from .checks import TABLE1, _key, _speedup_finding
from .scenarios import CONFIGS, FIFTHS, GROUPS, PROTOCOLS, TCP_TIMERS, config, idle_path


def tables(d: Data) -> list[str]:
    lines = [
        "Table 1 reconstructed: log10 P_m (bytes/s²), F = 100 KB, D = 30 ms (paper in brackets).",
        "",
        "| BW_b/BW_N | BLT 150 Mb/s | BLT 1 Gb/s | Δ BLT | TCP 150 Mb/s | TCP 1 Gb/s | Δ TCP |",
        "|---|---|---|---|---|---|---|",
    ]
    for ratio in FIFTHS:
        cells = []
        for proto in ("blt", "tcp"):
            a, b = (
                log_pm(d, _key(g, n, ratio), proto) for g, n in (("reference", 150), ("gbps", 1000))
            )
            pa, pb = TABLE1[(proto, ratio)]
            cells += [f"{a:.2f} ({pa})", f"{b:.2f} ({pb})", f"{b - a:.2f} ({pb - pa:.1f})"]
        lines.append(f"| {ratio:g} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Every configuration: log10 P_m and the λ of divergence (conn/s; '—' none within the grid up "
        "to ≈ BW_b/(8F)), per protocol.",
        "",
        "| configuration | "
        + " | ".join(f"{PROTOCOLS[p]}: log P_m / λ_div" for p in PROTOCOLS)
        + " |",
        "|---|" + "---|" * len(PROTOCOLS),
    ]
    for c in CONFIGS:
        cells = []
        for p in PROTOCOLS:
            try:
                pm = f"{log_pm(d, c.key, p, adj=c.size == 10_000):.2f}"
            except ValueError:
                pm = "all diverged"
            lam = divergence_lambda(d, c.key, p)
            cells.append(f"{pm} / {'—' if math.isinf(lam) else f'{lam:.3g}'}")
        lines.append(f"| {c.key} ({GROUPS[c.group].split(' (')[0]}) | " + " | ".join(cells) + " |")
    return lines


def findings(d: Data) -> list[str]:
    out = []
    tcp = {v: divergence_lambda(d, "reference/30", "tcp", v) for v in ("", *TCP_TIMERS)}
    pm = {v: log_pm(d, "reference/30", "tcp", variant=v) for v in ("", *TCP_TIMERS)}
    top = float(_series(d, "reference/30", "tcp")["lam"].max())

    def where(lam: float) -> str:
        return f"λ = {lam:.3g} conn/s" if math.isfinite(lam) else f"no λ up to {top:.3g} conn/s"

    out.append(
        "TCP's timer decides where it diverges (L6 of docs/models/blt.md: the paper does not give "
        "it, and TCP's response time is sensitive to it): on the reference "
        f"30 Mb/s network TCP with L6's fine timer (min RTO 2·D, 1-ms clock) diverges at "
        f"{where(tcp[''])} (log10 P_m {pm['']:.2f}); with a 200-ms minimum RTO at "
        f"{where(tcp['tcp-rto200ms'])} ({pm['tcp-rto200ms']:.2f}); with a BSD 500-ms tick at "
        f"{where(tcp['tcp-tick500ms'])} ({pm['tcp-tick500ms']:.2f}). The paper's TCP (divergence "
        "≈ 20, log P_m 6.4) did worse than any of them. ccsim's TCP is not the cause: on this "
        "network, with these arrivals, ns-2.35's Reno (numdupacks_ 1) gives the same mean and "
        "90th-percentile R, drops, retransmissions and timeouts within the seed intervals at "
        "λ = 5, 10 and 15 (docs/validation.md, ccsim validate blt-tcp). The paper's TCP is "
        "the 1994 authors' own simulator, whose timer and recovery details are not given."
    )
    out.append(_speedup_finding(d))
    b = max_power(d, "gbps/1000", "blt")
    t = max_power(d, "gbps/1000", "tcp")
    out.append(
        f"1 Gb/s example: BLT's max power at λ = {b['lam']:.0f} with R = {b['r_s']:.4f} s, Θ = "
        f"{b['theta'] * 8 / 1e6:.0f} Mb/s (pessimistic {b['theta_pess'] * 8 / 1e6:.0f}); TCP's at "
        f"λ = {t['lam']:.0f} with R = {t['r_s']:.4f} s (slow start: ≥ 8 RTTs = 0.24 s), Θ = "
        f"{t['theta'] * 8 / 1e6:.0f} Mb/s. TCP's R stays near its slow-start minimum up to the top "
        "of the grid here, so its power grows with λ; the paper's TCP peaked at 318 Mb/s."
    )
    stable = points(d)
    stable = stable[~stable["diverged"]].copy()
    stable["gap"] = (stable["little_n"] / stable["little_lambda_r"] - 1).abs()
    w = stable.loc[stable["gap"].idxmax()]
    out.append(
        f"Little's law (connmetrics.little): over {len(stable)} stable points the time-average "
        "number of connections in the system while the measured ones arrive and λ̂·R̄ differ by "
        f"{stable['gap'].median():.1%} (median), {(stable['gap'] < 0.05).mean():.0%} of points "
        f"within 5 %; the largest gap, {w['gap']:.1%}, is {names_of(w)} at λ = {w['lam']:.3g} "
        f"(N̄ {w['little_n']:.2f} against {w['little_lambda_r']:.2f}), whose window of "
        f"{w['little_window_s']:.1f} s holds R̄ = {w['r_s']:.2f} s: the two sides differ only "
        "by the connections straddling the window's edges (a warm-up transfer still in the "
        "system at its start, a measured one still running at its end), so the gap is largest "
        "where transfers are long against the window."
    )
    out += _idle_and_ps_findings(d)
    div = d.table[d.table["diverged"] > 0]
    if len(div):
        stopped = int(div["stopped_by_max_alive"].sum())
        out.append(
            f"{len(div)} runs diverged ({stopped} ended when every host pair was busy, the rest when "
            "their measured connections were not done in 2·K/λ + 10 s, K the warm-up and measured "
            "arrivals); for each the report keeps "
            "the evidence (unfinished measured connections, measured ones that never arrived, "
            "connections in the system by quarter) in "
            "the result store's metrics; none is averaged into a curve."
        )
    return out


def names_of(row) -> str:
    """``protocol on config`` (with the variant) for a findings sentence."""
    v = f" ({row['variant']})" if row["variant"] else ""
    return f"{PROTOCOLS[row['protocol']]} on {row['config']}{v}"


def _idle_and_ps_findings(d: Data) -> list[str]:
    """The idle-path calculation at low load, and the processor-sharing ideal near
    capacity, with the numbers that say why each protocol departs from them."""
    out = []
    idle = idle_ratios(d)
    names = {"tcp": "TCP", "blt": "BLT", "blt-fixed": "BLT (fixed switch)", "bt": "Bully-Tyrant"}

    def span(r) -> str:
        return f"{r['ratio'].min():.3f}-{r['ratio'].max():.3f}" if len(r) else "n/a"

    fit, lossy = idle[idle["fits"]], idle[~idle["fits"]]
    per = "; ".join(
        f"{names[p]} {span(fit[fit['protocol'] == p])}"
        for p in names
        if (fit["protocol"] == p).any()
    )
    out.append(
        f"Idle path (theory.idle_path_transfer, λ at 0.5 % of capacity): where the file alone "
        f"fits the buffers ({len(fit)} network-protocol pairs) R̄ is {per} times the "
        f"calculation, the median {fit['median_ratio'].min():.4f}-{fit['median_ratio'].max():.4f} "
        "(a transfer alone takes it to the microsecond: tests/test_engine_theory.py; the mean's "
        "excess is the rare overlap, costly where two slow starts together overflow a buffer "
        "one alone just fits)."
    )
    if len(lossy):
        worst = lossy.loc[(lossy["peak_pkts"] / lossy["buffer_pkts"]).idxmax()]
        out.append(
            f"Where the file alone overflows the bottleneck ({len(lossy)} pairs: a burst of F at "
            "BW_N leaves F·(1 − BW_b/BW_N) waiting whenever BW_b < BW_N, e.g. "
            f"{worst['peak_pkts']:.0f} packets against {worst['buffer_pkts']:.0f} on "
            f"{worst['config']}; TCP's slow-start bursts where the buffer is a few packets) R̄ is "
            f"{span(lossy)} times the loss-free calculation, with "
            f"{lossy['retransmits'].min():.1f}-{lossy['retransmits'].max():.1f} packets resent per "
            "file: the loss response (BLT's reset at the first hole, one more RTT; TCP's halving) "
            "is the difference."
        )
    p = points(d)
    p = p[(p["variant"] == "") & ~p["diverged"] & (p["group"] == "reference")]
    parts = []
    for (cfg_key, protocol), g in p.groupby(["config", "protocol"], sort=True):
        hi = g.loc[g["lam"].idxmax()]
        cfg = config(cfg_key)
        service = 8 * cfg.size / (cfg.bw_b * 1e6)
        ps = theory.processor_sharing_response_time(
            idle_path(cfg, protocol).response_s, service, float(hi["frac"])
        )
        parts.append(
            f"{names[protocol]} on {cfg_key} at ρ = {hi['frac']:.2f}: R̄/R_PS = "
            f"{hi['r_s'] / ps:.2f}, {hi['retransmits']:.1f} packets resent per file"
        )
    out.append(
        "Near capacity (the highest stable λ of the reference networks) against an M/G/1 "
        "processor-sharing bottleneck (theory.processor_sharing_response_time: the file's "
        "service time stretched by 1/(1 − ρ) plus the idle path's latency): "
        + "; ".join(parts)
        + ". Above 1: capacity spent on resent packets (BLT resends the rest of a file at "
        "each loss) or on idle slow-start rounds; below 1: FIFO service that finishes the "
        "transfers in the queue one after another rather than all at once (a burst sender "
        "is not slowed by others' packets arriving after it), which PS would share."
    )
    return out
