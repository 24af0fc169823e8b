"""What the sweep workers measure in one BLT run: §4.1.4's metrics of the measured
connections (:mod:`ccsim.connmetrics`), whether the run diverged and why, and the
bottleneck's queue.

Source: Kim & Farber, MS-CIS-94-55, 1994 (§ numbers are its sections); the modelling
decisions L1-L15 are those of docs/models/blt.md.
"""

from __future__ import annotations

from ccsim import connmetrics as cm


def metrics(r) -> dict:
    """One run: whether it diverged (and why); if not, the §4.1.4 metrics of its measured
    connections (by arrival order, after the warm-up)."""
    sc = r.scenario
    desc = dict(kv.split("=") for kv in sc["description"].split())
    warm, k = int(desc["warmup"]), int(desc["warmup"]) + int(desc["measured"])
    c = r.connections
    end = float(r.summary["duration_s"])
    q = r.queue("R1->R2")
    m = {
        **cm.divergence(c, end, warm, k - warm),
        "end_s": end,
        "stopped_by_max_alive": float(str(r.summary.get("stopped_by")).startswith("max_alive")),
        "peak_alive": float(r.summary["connections_peak_alive"]),
        "busy_picks": float(r.workloads["busy_picks"].sum()),
        "utilization": float(q["utilization"]),
        "drops": float(q["drops"]),
        "arrivals": float(len(c)),
    }
    # Every host pair busy stops a run: it diverged, even if its measured set finished.
    m["diverged"] = max(m["diverged"], m["stopped_by_max_alive"])
    if m["diverged"]:
        return m
    meas = cm.measured(c, warm, k - warm)
    d = 6 * float(q["delay_s"])  # D = 6 × the bottleneck's delay
    rt = cm.response_times(meas)
    n_avg, n_theta = cm.little(meas, c)
    m.update(
        {
            "r_s": float(rt.mean()),
            "r50_s": float(rt.median()),
            "r90_s": float(rt.quantile(0.9)),
            "r_adj_s": float(rt.mean() - d / 2),
            "theta_Bps": cm.throughput(meas),
            "span_s": float(meas["last_ack_s"].max() - meas["start_s"].min()),
            "bytes": float(meas["size_bytes"].sum()),
            "power": cm.power(meas),
            "power_adj": cm.power(meas, one_way_s=d / 2),
            "jain": cm.jain(meas),
            "little_n": n_avg,
            "little_lambda_r": n_theta,
            "little_window_s": float(meas["start_s"].max() - meas["start_s"].min()),
            "retransmits": float(meas["retransmits"].mean()),
            "timeouts": float(meas["timeouts"].mean()),
        }
    )
    return m
