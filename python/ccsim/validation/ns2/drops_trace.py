"""What the bottleneck drops hit, in ns-2.35 and in ccsim (issue 25, discrepancy 3).

    python -m ccsim.validation.ns2.drops_trace                          # 8 NewReno flows, seeds 1-3
    python -m ccsim.validation.ns2.drops_trace --second 20 --seeds 1    # and the drops of t = 20-21 s
    python -m ccsim.validation.ns2.drops_trace --full-first-segment     # traces identical up to a tie
    python -m ccsim.validation.ns2.drops_trace --seeds none --sweep 200 # 200 untraced seeds
    python -m ccsim.validation.ns2.drops_trace --case "100 flows SACK" --seeds 1,2

For a case of the ``tcp`` suite (``ccsim.validation.ns2.tcp_suite``) and a seed, both
simulators run the same scenario (``tcp_scenario``) with a trace of the bottleneck R1->R2
and of the senders:

* ns-2: ``$ns trace-queue $r1 $r2`` (``+`` arrival, ``d`` drop; times printed
  to the microsecond) and, per agent, the traced variables ``cwnd_`` (every
  change) and ``nrexmit_`` (a timeout);
* ccsim: ``[trace] links = ["R1->R2"]`` (``enqueue``, ``drop``) and
  ``[monitor]`` sampling each flow's cwnd every millisecond; a timeout is a
  sample where cwnd fell to one segment (a repeated timeout at one segment is
  missed: a warning gives the count against the flow table).

Every data packet of a flow crosses R1->R2 (the access links never drop), so a
packet is a retransmission when its segment number is not above the highest
one the flow had sent before (the same rule in both; ccsim's own flag is
checked against it), and a retransmission is spurious when an earlier copy got
through.

Drops are grouped into congestion episodes (drops less than ``gap`` apart) and,
per flow, into loss events (drops within one base RTT of the previous one);
for each loss event the script counts what the flow sent in the round of the
loss, the next (recovery) round and the one after. Everything is over the
measurement window [warm-up, duration]. ``--sweep N`` adds N untraced seeds of
ns-2, of ns-2 with its clock shifted by 1 s (the same scenario; only
floating-point rounding differs) and of ccsim. FINDINGS-drops.md has the results.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ccsim.validation.ns2.reference import have_ns
from ccsim.validation.ns2.tcp_scenario import Case, ccsim_scenario, tcl


@dataclasses.dataclass
class Traced:
    """One simulator's run of a case, traced at the bottleneck and the senders."""

    sim: str
    case: Case
    seed: int
    #: Data packets arriving at R1->R2 in time order: time_s, flow (index),
    #: seg (segment number), retx (a retransmission), dropped (at the bottleneck).
    arrivals: pd.DataFrame
    #: Each flow's congestion window over time: time_s, flow, cwnd (segments).
    cwnd: pd.DataFrame
    #: Retransmission timeouts: time_s, flow.
    timeouts: pd.DataFrame

    def window(self) -> tuple[float, float]:
        return self.case.warmup_s, self.case.duration_s


def _mark_retx(df: pd.DataFrame) -> pd.Series:
    """True where a flow's segment number is not above all it sent before."""
    prev_max = df.groupby("flow")["seg"].transform(lambda s: s.cummax().shift(1, fill_value=-1))
    return df["seg"] <= prev_max


def ns2_full_first_segment(script: str, case: Case) -> str:
    """The ns-2 script with every data segment ``mss + 40`` bytes on the wire.

    ns-2's ``output()`` adds ``tcpip_base_hdr_size_`` to a segment's size only
    for seqno > 0 when ``syn_`` is false: segment 0 (and its retransmissions)
    is 40 bytes shorter than the others, and than ccsim's. With
    ``useHeaders_ false`` and ``packetSize_`` = mss + 40 every segment has
    ccsim's size (ACKs are the sink's own 40 bytes either way)."""
    old = f"Agent/TCP set packetSize_ {case.mss}"
    assert old in script
    return script.replace(
        old, f"Agent/TCP set packetSize_ {case.mss + 40}\nAgent/TCP set useHeaders_ false"
    )


def run_ns2_traced(
    case: Case, seed: int, extra_tcl: str = "", full_first_segment: bool = False
) -> Traced:
    """ns-2 on ``case`` with the bottleneck and the senders traced.

    ``extra_tcl`` is inserted after the topology (before ``$ns run``);
    ``full_first_segment``: see :func:`ns2_full_first_segment`."""
    with tempfile.TemporaryDirectory() as d:
        qf, tf = Path(d) / "q.tr", Path(d) / "tcp.tr"
        script = tcl(case, seed)
        if full_first_segment:
            script = ns2_full_first_segment(script, case)
        add = [
            f"set qtf [open {qf} w]",
            "$ns trace-queue $r1 $r2 $qtf",
            f"set ttf [open {tf} w]",
            f"for {{set i 0}} {{$i < {case.pairs}}} {{incr i}} {{",
            "  $tcp($i) attach $ttf",
            "  $tcp($i) trace cwnd_",
            "  $tcp($i) trace nrexmit_",
            "}",
            "proc flush_traces {} { global qtf ttf; flush $qtf; flush $ttf }",
            f'$ns at {case.duration_s - 1e-6} "flush_traces"',
            extra_tcl,
        ]
        script = script.replace("$ns run", "\n".join(add) + "\n$ns run")
        sp = Path(d) / "case.tcl"
        sp.write_text(script)
        subprocess.run(["ns", str(sp)], capture_output=True, text=True, check=True)
        # + t from to type size flags fid src.port dst.port seq uid; flow i's
        # sender is node 2 + 2i (r1 = 0, r2 = 1, then s(i), d(i) per pair).
        q = pd.read_csv(
            qf,
            sep=" ",
            header=None,
            usecols=[0, 1, 4, 8, 10],
            names=["ev", "time_s", "type", "src", "seg"],
            dtype={"ev": str, "time_s": float, "type": str, "src": str, "seg": np.int64},
        )
        t = pd.read_csv(
            tf,
            sep=r"\s+",
            header=None,
            names=["time_s", "addr", "port", "daddr", "dport", "var", "value"],
        )
    q = q[(q["type"] == "tcp") & q["ev"].isin(["+", "d"])]
    q["flow"] = (q["src"].str.split(".").str[0].astype(int) - 2) // 2
    q = q[q["flow"] < case.pairs]
    arr = q[q["ev"] == "+"][["time_s", "flow", "seg"]].reset_index(drop=True)
    drops = q[q["ev"] == "d"]
    # A drop follows its arrival at the same instant: match (time, flow, seg).
    key = set(zip(drops["time_s"], drops["flow"], drops["seg"]))
    arr["dropped"] = [k in key for k in zip(arr["time_s"], arr["flow"], arr["seg"])]
    arr["retx"] = _mark_retx(arr)
    t["flow"] = (t["addr"] - 2) // 2
    cwnd = t[t["var"] == "cwnd_"][["time_s", "flow", "value"]].rename(columns={"value": "cwnd"})
    # The first line of each variable is its value when tracing began.
    to = t[(t["var"] == "nrexmit_") & (t["value"] > 0)][["time_s", "flow"]]
    return Traced("ns-2", case, seed, arr, cwnd.reset_index(drop=True), to.reset_index(drop=True))


def run_ccsim_traced(case: Case, seed: int, scenario_edit=None) -> Traced:
    """ccsim on ``case`` with the bottleneck traced and cwnd sampled every ms.

    ``scenario_edit``: a function applied to the scenario dict (an option to try)."""
    import ccsim

    s = ccsim_scenario(case, seed)
    s["trace"] = {"links": ["R1->R2"], "flows": [f"f{i}" for i in range(case.pairs)]}
    s["monitor"] = {"interval": "1ms", "queues": [], "flows": [f"f{i}" for i in range(case.pairs)]}
    if scenario_edit is not None:
        s = scenario_edit(s)
    r = ccsim.run(s)
    tr = r.trace
    tr = tr[(tr["kind"] == "data") & tr["event"].isin(["enqueue", "drop"])]
    tr = tr.assign(flow=tr["flow"].astype(str).str[1:].astype(int), seg=tr["seq"] // case.mss)
    arr = tr[tr["event"] == "enqueue"][["time_s", "flow", "seg", "uid", "retransmit"]].reset_index(
        drop=True
    )
    dropped = set(tr[tr["event"] == "drop"]["uid"])
    arr["dropped"] = arr["uid"].isin(dropped)
    arr["retx"] = _mark_retx(arr)
    mismatch = int((arr["retx"] != arr["retransmit"].astype(bool)).sum())
    if mismatch:
        print(
            f"ccsim seed {seed}: {mismatch} retransmission flags differ from the rule",
            file=sys.stderr,
        )
    arr = arr[["time_s", "flow", "seg", "dropped", "retx"]]
    ts = r.timeseries["flow"]
    cw = pd.DataFrame(
        {
            "time_s": ts["time_s"].astype(float),
            "flow": ts["flow"].astype(str).str[1:].astype(int),
            "cwnd": ts["cwnd_bytes"] / case.mss,
        }
    )
    # A timeout: cwnd at one segment after a sample above it.
    rows = []
    for f, g in cw.groupby("flow"):
        c = g["cwnd"].to_numpy()
        hit = np.nonzero((c[1:] <= 1.0 + 1e-9) & (c[:-1] > 1.0 + 1e-9))[0] + 1
        rows += [(float(g["time_s"].iloc[k]), f) for k in hit]
    to = pd.DataFrame(rows, columns=["time_s", "flow"]).sort_values("time_s").reset_index(drop=True)
    n = int(r.flows["timeouts"].iloc[: case.pairs].sum())
    if len(to) != n:
        print(
            f"ccsim seed {seed}: {len(to)} timeouts found in cwnd, {n} in the flow table",
            file=sys.stderr,
        )
    return Traced("ccsim", case, seed, arr, cw, to)


def episodes(tr: Traced, gap: float = 0.1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The congestion episodes of the measurement window, and the flows hit.

    Returns ``(eps, hits)``. ``eps``, one row per episode: t0, t1 (first and
    last drop), drops, flows (hit), retx_drops (drops of retransmissions).
    ``hits``, one row per (episode, flow hit): drops, retx_drops, cwnd (the
    flow's window just before the episode, segments), timeout (the flow timed
    out before the next episode hitting it, or within one second), sent and
    retx_sent (segments it sent from the episode's first drop until then, and
    how many of those were retransmissions).
    """
    lo, hi = tr.window()
    arr = tr.arrivals
    d = arr[arr["dropped"] & (arr["time_s"] >= lo) & (arr["time_s"] < hi)].copy()
    t = d["time_s"].to_numpy()
    d["ep"] = np.concatenate([[0], np.cumsum(np.diff(t) > gap)]) if len(t) else []
    eps = d.groupby("ep").agg(
        t0=("time_s", "min"),
        t1=("time_s", "max"),
        drops=("seg", "size"),
        flows=("flow", "nunique"),
        retx_drops=("retx", "sum"),
    )
    hits = (
        d.groupby(["ep", "flow"])
        .agg(t0=("time_s", "min"), drops=("seg", "size"), retx_drops=("retx", "sum"))
        .reset_index()
    )
    # The flow's window just before the episode (the last value before t0).
    cw = tr.cwnd.sort_values("time_s")
    before = []
    for f, g in hits.groupby("flow"):
        c = cw[cw["flow"] == f]
        k = np.searchsorted(c["time_s"].to_numpy(), eps.loc[g["ep"], "t0"].to_numpy() - 1e-9) - 1
        before.append(pd.Series(c["cwnd"].to_numpy()[np.maximum(k, 0)], index=g.index))
    hits["cwnd"] = pd.concat(before) if before else []
    # Until the flow's next episode (or one second, or the end).
    hits = hits.sort_values(["flow", "ep"])
    nxt = hits.groupby("flow")["ep"].shift(-1)
    ep_start = eps["t0"]
    hits["until"] = np.minimum(
        np.where(nxt.notna(), ep_start.reindex(nxt.fillna(-1).astype(int)).to_numpy(), np.inf),
        np.minimum(ep_start.loc[hits["ep"]].to_numpy() + 1.0, hi),
    )
    hits["start"] = ep_start.loc[hits["ep"]].to_numpy()
    to = tr.timeouts
    hits["timeout"] = [
        bool(((to["flow"] == f) & (to["time_s"] >= s) & (to["time_s"] < u)).any())
        for f, s, u in zip(hits["flow"], hits["start"], hits["until"])
    ]
    sent, rsent = [], []
    by_flow = {f: g for f, g in arr.groupby("flow")}
    for f, s, u in zip(hits["flow"], hits["start"], hits["until"]):
        g = by_flow[f]
        m = (g["time_s"] >= s) & (g["time_s"] < u)
        sent.append(int(m.sum()))
        rsent.append(int((m & g["retx"]).sum()))
    hits["sent"], hits["retx_sent"] = sent, rsent
    return eps, hits.sort_values(["ep", "flow"]).reset_index(drop=True)


def stats(tr: Traced, gap: float = 0.1) -> dict:
    """Per-run statistics of the episodes (means over episodes or flows hit)."""
    eps, hits = episodes(tr, gap)
    lo, hi = tr.window()
    arr = tr.arrivals
    w = arr[(arr["time_s"] >= lo) & (arr["time_s"] < hi)]
    to = tr.timeouts
    span = (
        (eps["t0"].iloc[-1] - eps["t0"].iloc[0]) / (len(eps) - 1) if len(eps) > 1 else float("nan")
    )
    rx = retransmissions(tr)
    per_flow = w.groupby("flow").size()
    return {
        "drops": rx["drops"],
        "drops of retransmissions": rx["drops of retransmissions"],
        "retransmissions": rx["retransmissions"],
        "spurious retransmissions": rx["spurious"],
        "timeouts": int(((to["time_s"] >= lo) & (to["time_s"] < hi)).sum()),
        "largest flow's share of packets (%)": 100 * per_flow.max() / per_flow.sum(),
        "episodes": len(eps),
        "s between episodes": span,
        "drops / episode": eps["drops"].mean(),
        "flows hit / episode": eps["flows"].mean(),
        "drops / flow hit": hits["drops"].mean(),
        "flows hit once (%)": 100 * (hits["drops"] == 1).mean(),
        "cwnd of flows hit": hits["cwnd"].mean(),
        "hits ending in timeout (%)": 100 * hits["timeout"].mean(),
        "episode length (ms)": 1000 * (eps["t1"] - eps["t0"]).mean(),
    }


@dataclasses.dataclass(frozen=True)
class ShiftedCase(Case):
    """``case`` started ``shift_s`` later: every start time, the warm-up and the
    end move by ``shift_s``. The same scenario in exact arithmetic (ccsim's
    integer nanoseconds give the same run); in ns-2's floating-point clock
    the sums that make each event's time round differently, so events that
    tie in exact arithmetic (two packets reaching R1 at one instant) are
    ordered otherwise."""

    shift_s: float = 0.0

    def draw(self, seed: int) -> tuple[list[float], list[float]]:
        starts, delays = super().draw(seed)
        return [round(s + self.shift_s, 9) for s in starts], delays


def shifted(case: Case, shift_s: float) -> ShiftedCase:
    """``case`` as a :class:`ShiftedCase` (draws keyed on the original name)."""
    fields = {f.name: getattr(case, f.name) for f in dataclasses.fields(case)}
    fields["draw_key"] = case.draw_key or case.name
    fields["duration_s"] = case.duration_s + shift_s
    fields["warmup_s"] = case.warmup_s + shift_s
    return ShiftedCase(**fields, shift_s=shift_s)


def retransmissions(tr: Traced) -> dict:
    """Retransmissions over the measurement window, by whether they were needed.

    A retransmission of a segment is *needed* when every earlier transmission
    of that segment was dropped at the bottleneck (the receiver does not have
    it: nothing is lost elsewhere), *spurious* when one got through."""
    lo, hi = tr.window()
    arr = tr.arrivals
    delivered = set()
    needed = spurious = 0
    for t, f, s, d, r in zip(arr["time_s"], arr["flow"], arr["seg"], arr["dropped"], arr["retx"]):
        if r and lo <= t < hi:
            if (f, s) in delivered:
                spurious += 1
            else:
                needed += 1
        if not d:
            delivered.add((f, s))
    w = arr[(arr["time_s"] >= lo) & (arr["time_s"] < hi)]
    return {
        "sent": len(w),
        "drops": int(w["dropped"].sum()),
        "drops of retransmissions": int((w["dropped"] & w["retx"]).sum()),
        "retransmissions": int(w["retx"].sum()),
        "needed": needed,
        "spurious": spurious,
    }


def base_rtts(case: Case, seed: int) -> list[float]:
    """Each flow's two-way propagation delay (s), without queueing."""
    _, delays = case.draw(seed)
    return [2 * (case.delay_ms + 2 * d) / 1000 for d in delays]


def loss_events(tr: Traced, gap_rtts: float = 1.0) -> pd.DataFrame:
    """Each flow's loss events over the measurement window and what followed.

    A loss event is a run of the flow's drops each within ``gap_rtts`` base
    RTTs of the previous one. Columns: flow, t0 (first drop), drops, cwnd (the
    window just before t0, segments), sent0, sent1, sent2 (segments the flow
    sent in the base RTTs [t0, t0 + R), [t0 + R, t0 + 2R), [t0 + 2R, t0 + 3R):
    the round in which the loss happens, the recovery round, the next),
    retx1 (retransmissions among sent1), timeout (a timeout before the flow's
    next loss event, within one second)."""
    lo, hi = tr.window()
    rtt = base_rtts(tr.case, tr.seed)
    arr = tr.arrivals
    cw = tr.cwnd.sort_values("time_s")
    rows = []
    for f, g in arr.groupby("flow"):
        r = rtt[f]
        t = g["time_s"].to_numpy()
        retx = g["retx"].to_numpy()
        d = t[g["dropped"].to_numpy() & (t >= lo) & (t < hi - 3 * r)]
        if not len(d):
            continue
        starts = np.concatenate([[0], np.nonzero(np.diff(d) > gap_rtts * r)[0] + 1])
        ends = np.concatenate([starts[1:], [len(d)]])
        c = cw[cw["flow"] == f]
        ct, cv = c["time_s"].to_numpy(), c["cwnd"].to_numpy()
        to = tr.timeouts[tr.timeouts["flow"] == f]["time_s"].to_numpy()
        nexts = np.concatenate([d[starts[1:]], [np.inf]])
        for s, e, t_next in zip(starts, ends, nexts):
            t0 = d[s]
            k = np.searchsorted(ct, t0 - 1e-9) - 1
            i = np.searchsorted(t, [t0, t0 + r, t0 + 2 * r, t0 + 3 * r])
            rows.append(
                {
                    "flow": f,
                    "t0": t0,
                    "drops": e - s,
                    "cwnd": cv[max(k, 0)],
                    "sent0": i[1] - i[0],
                    "sent1": i[2] - i[1],
                    "sent2": i[3] - i[2],
                    "retx1": int(retx[i[1] : i[2]].sum()),
                    "timeout": bool(((to >= t0) & (to < min(t0 + 1.0, t_next))).any()),
                }
            )
    return pd.DataFrame(rows)


def first_divergence(a: Traced, b: Traced, tol_s: float = 1.01e-6) -> int | None:
    """Index of the first bottleneck arrival where the two runs differ (time
    beyond ``tol_s``, ns-2 printing microseconds; flow; segment; dropped)."""
    A, B = a.arrivals, b.arrivals
    n = min(len(A), len(B))
    bad = (
        (np.abs(A["time_s"].to_numpy()[:n] - B["time_s"].to_numpy()[:n]) > tol_s)
        | (A["flow"].to_numpy()[:n] != B["flow"].to_numpy()[:n])
        | (A["seg"].to_numpy()[:n] != B["seg"].to_numpy()[:n])
        | (A["dropped"].to_numpy()[:n] != B["dropped"].to_numpy()[:n])
    )
    k = np.nonzero(bad)[0]
    return int(k[0]) if len(k) else (None if len(A) == len(B) else n)


def divergence_cause(a: Traced, b: Traced, k: int) -> str:
    """What differs at arrival ``k`` (see :func:`first_divergence`)."""
    A, B = a.arrivals, b.arrivals
    if k >= min(len(A), len(B)):
        return "one trace ends"
    ra, rb = A.iloc[k], B.iloc[k]
    if abs(ra["time_s"] - rb["time_s"]) <= 1.01e-6:
        if (ra["flow"], ra["seg"]) == (rb["flow"], rb["seg"]):
            if ra["dropped"] != rb["dropped"]:
                return "drop decision (arrival and departure at one instant)"
        else:
            pa = {tuple(x) for x in A.iloc[k : k + 2][["flow", "seg"]].to_numpy()}
            pb = {tuple(x) for x in B.iloc[k : k + 2][["flow", "seg"]].to_numpy()}
            if pa == pb:
                return "order of two flows' arrivals at one instant"
    return "other"


def exact_ties(tr: Traced) -> int:
    """Consecutive bottleneck arrivals of two flows at one nanosecond (ccsim)."""
    t = np.round(tr.arrivals["time_s"].to_numpy() * 1e9).astype(np.int64)
    f = tr.arrivals["flow"].to_numpy()
    return int(((np.diff(t) == 0) & (f[1:] != f[:-1])).sum())


def second(tr: Traced, t: float) -> pd.DataFrame:
    """The drops of [t, t + 1): time, flow, segment, retransmission or not, the
    flow's cwnd just before (segments) and its segments sent in that second."""
    arr = tr.arrivals
    w = arr[(arr["time_s"] >= t) & (arr["time_s"] < t + 1)]
    d = w[w["dropped"]].copy()
    cw = tr.cwnd.sort_values("time_s")
    before = []
    for f, tt in zip(d["flow"], d["time_s"]):
        c = cw[(cw["flow"] == f) & (cw["time_s"] < tt)]
        before.append(float(c["cwnd"].iloc[-1]) if len(c) else float("nan"))
    d["cwnd"] = before
    d["sent in second"] = d["flow"].map(w.groupby("flow").size())
    d["time_s"] = d["time_s"].map(lambda x: f"{x:.6f}")
    return d[["time_s", "flow", "seg", "retx", "cwnd", "sent in second"]].reset_index(drop=True)


def event_table(evs: list[pd.DataFrame]) -> pd.DataFrame:
    """:func:`loss_events` of several runs grouped by drops per event (1, 2,
    3, 4 or more): events, mean cwnd before, segments sent per round,
    retransmissions in the recovery round, share ending in a timeout."""
    ev = pd.concat(evs)
    ev["drops in event"] = ev["drops"].clip(upper=4).map(lambda k: "4+" if k == 4 else str(k))
    return ev.groupby("drops in event").agg(
        events=("flow", "size"),
        cwnd=("cwnd", "mean"),
        sent_loss_round=("sent0", "mean"),
        sent_recovery_round=("sent1", "mean"),
        sent_next_round=("sent2", "mean"),
        retx_recovery_round=("retx1", "mean"),
        timeout_pct=("timeout", lambda x: 100 * x.mean()),
    )


def _md(df: pd.DataFrame, fmt: str = "{:.2f}") -> str:
    cols = [str(c) for c in df.columns]
    lines = [
        "| " + " | ".join([str(df.index.name or "")] + cols) + " |",
        "|" + "---|" * (len(cols) + 1),
    ]
    for i, row in df.iterrows():
        cells = [fmt.format(v) if isinstance(v, (float, np.floating)) else str(v) for v in row]
        lines.append("| " + " | ".join([str(i)] + cells) + " |")
    return "\n".join(lines)


def compare(
    case: Case, seeds: list[int], gap: float = 0.1, full_first_segment: bool = False
) -> dict:
    """Both simulators traced on ``case`` for each seed: per-run statistics
    (:func:`stats`), loss events (:func:`loss_events`), the first arrival
    where the traces differ, and the runs themselves."""
    out = {
        "stats": {"ns-2": [], "ccsim": []},
        "events": {"ns-2": [], "ccsim": []},
        "divergence": [],
        "runs": [],
    }
    for seed in seeds:
        a = run_ns2_traced(case, seed, full_first_segment=full_first_segment)
        b = run_ccsim_traced(case, seed)
        for x in (a, b):
            out["stats"][x.sim].append(stats(x, gap))
            out["events"][x.sim].append(loss_events(x))
        k = first_divergence(a, b)
        t = float(a.arrivals["time_s"].iloc[k]) if k is not None and k < len(a.arrivals) else None
        cause = divergence_cause(a, b, k) if k is not None else "none"
        drops = int(a.arrivals["dropped"].iloc[:k].sum()) if k else 0
        out["divergence"].append((seed, k, t, drops, cause, exact_ties(b)))
        out["runs"].append((a, b))
    return out


def sweep(case: Case, seeds: list[int], shift_s: float = 1.0) -> dict:
    """Untraced runs over many seeds: ns-2, ns-2 with every time shifted by
    ``shift_s`` (:func:`shifted`) and ccsim. Returns, per metric, each
    variant's mean ± 95 % half-width and the per-seed differences' spread."""
    from run import jain

    from ccsim.theory import confidence_interval
    from ccsim.validation.ns2.tcp_scenario import run_ccsim, run_ns2

    runs = {
        "ns-2": [run_ns2(case, s) for s in seeds],
        f"ns-2, clock +{shift_s:g} s": [run_ns2(shifted(case, shift_s), s) for s in seeds],
        "ccsim": [run_ccsim(case, s) for s in seeds],
    }
    metrics = {
        "utilization": lambda o: o.utilization,
        "drops": lambda o: o.drops,
        "retransmissions": lambda o: o.retransmits,
        "timeouts": lambda o: o.timeouts,
        "Jain": lambda o: jain(o.goodputs),
    }
    res = {}
    for m, f in metrics.items():
        row = {k: confidence_interval([f(o) for o in v], 0.95) for k, v in runs.items()}
        base = [f(o) for o in runs["ns-2"]]
        for k in list(runs)[1:]:
            d = [f(o) - x for o, x in zip(runs[k], base)]
            row[f"sd of per-seed difference, {k} - ns-2"] = (
                statistics.stdev(d) if len(d) > 1 else float("nan")
            )
        res[m] = row
    return res


def report(
    case: Case, seeds: list[int], gap: float, at: float | None, full_first_segment: bool
) -> str:
    """The markdown summary printed by ``__main__``."""
    import os

    c = compare(case, seeds, gap, full_first_segment)
    lines = [f"## {case.name}, seeds {', '.join(map(str, seeds))}", ""]
    if os.environ.get("CCSIM_EXP_SACK1"):
        lines += [
            f"ccsim built with sack1_experiment.patch, CCSIM_EXP_SACK1={os.environ['CCSIM_EXP_SACK1']}",
            "",
        ]
    keys = list(c["stats"]["ns-2"][0])
    lines += ["| per run, mean over seeds | ns-2 | ccsim |", "|---|---|---|"]
    for k in keys:
        a = statistics.fmean(r[k] for r in c["stats"]["ns-2"])
        b = statistics.fmean(r[k] for r in c["stats"]["ccsim"])
        lines.append(f"| {k} | {a:.2f} | {b:.2f} |")
    lines += [
        "",
        f"Measurement window [{case.warmup_s:g}, {case.duration_s:g}) s; an episode is a run of "
        f"drops less than {gap:g} s apart.",
        "",
        "Loss events of a flow (its drops each within one base RTT of the previous), by drops "
        "in the event; segments the flow sent in the base RTT of the loss, the next "
        "(recovery) and the one after:",
        "",
    ]
    for sim in ("ns-2", "ccsim"):
        lines += [f"**{sim}**", "", _md(event_table(c["events"][sim])), ""]
    lines += ["First bottleneck arrival where the two traces differ:", ""]
    lines += [
        "| seed | arrival | time (s) | identical drops before | what differs "
        "| arrivals of two flows at one ns in ccsim's run |",
        "|---|---|---|---|---|---|",
    ]
    for seed, k, t, d, cause, ties in c["divergence"]:
        ts = "—" if t is None else f"{t:.6f}"
        lines.append(f"| {seed} | {k} | {ts} | {d} | {cause} | {ties} |")
    if at is not None:
        for a, b in c["runs"][:1]:
            for x in (a, b):
                lines += [
                    "",
                    f"Drops in [{at:g}, {at + 1:g}) s, {x.sim}, seed {x.seed}:",
                    "",
                    _md(second(x, at)),
                ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from ccsim.validation.ns2.tcp_suite import cases

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--case",
        default="8 flows newreno 100Mbps B=100pkt",
        help="a case of the tcp suite (substring of its name)",
    )
    ap.add_argument(
        "--seeds", default="1,2,3", help="comma-separated seeds to trace (none: only --sweep)"
    )
    ap.add_argument(
        "--gap", type=float, default=0.1, help="drops further apart start a new episode (s)"
    )
    ap.add_argument(
        "--second", type=float, default=None, help="list the drops of [t, t+1) of the first seed"
    )
    ap.add_argument(
        "--full-first-segment",
        action="store_true",
        help="ns-2's segment 0 as long as the others (ns2_full_first_segment)",
    )
    ap.add_argument(
        "--sweep",
        type=int,
        default=0,
        help="also N untraced seeds: ns-2, ns-2 shifted by 1 s, ccsim",
    )
    a = ap.parse_args(argv)
    if not have_ns():
        print("drops trace skipped: the `ns` binary is not installed (apt-get install ns2)")
        return 0
    matches = [c for c in cases(False) if a.case in c.name]
    if not matches:
        ap.error(f"no case matches {a.case!r}")
    case = matches[0]
    if a.seeds not in ("", "none"):
        seeds = [int(s) for s in a.seeds.split(",")]
        print(report(case, seeds, a.gap, a.second, a.full_first_segment))
    if a.sweep:
        res = sweep(case, list(range(1, a.sweep + 1)))
        cols = list(next(iter(res.values())))
        print(f"\n## {case.name}: {a.sweep} seeds, untraced\n")
        print("Mean ± 95 % half-width over seeds.\n")
        print("| metric | " + " | ".join(cols) + " |")
        print("|" + "---|" * (len(cols) + 1))
        for m, row in res.items():
            cells = [
                f"{v[0]:.4g} ± {v[1]:.2g}" if isinstance(v, tuple) else f"{v:.3g}"
                for v in row.values()
            ]
            print(f"| {m} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
