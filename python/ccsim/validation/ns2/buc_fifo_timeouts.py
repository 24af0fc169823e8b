"""Every timeout of a traced BUC FIFO run, classified by its cause, in both simulators.

    python -m ccsim.validation.ns2.buc_fifo --trace DIR [--jitter 0.001] [--seed 1] [--duration 300]

reads ``DIR/ns2.tr`` and ``DIR/ccsim.tr`` (ns-2's trace format, written by both
simulators for the sources' access links in both directions and the bottleneck) and
rebuilds, per flow, what the sender did: each transmission (a ``+`` on the link
leaving the source), each ACK arriving at the source (an ``r`` of an ACK there), each
drop (``d``). Sequence numbers are packets, ACKs the highest packet received in order
(ns-2's numbering; ccsim's writer converts).

A retransmission of the first unacknowledged packet (``ack + 1``, sent before) that is
not the continuation of a go-back-N round starts a recovery. Its trigger is the last
event at the sender at most one jitter interval earlier (both simulators delay a send
by up to the jitter, the retransmissions included): the third duplicate ACK (fast
retransmit), a new ACK (go-back-N continuing from the new cumulative ACK), or nothing
(the retransmission timer). For each timeout the report gives:

* the packet's last copy before the timeout: dropped (an original, or a
  retransmission: the fast retransmission or a go-back-N copy), or not dropped
  (a spurious timeout);
* the duplicate ACKs that arrived for it before the timeout: fewer than three (too
  few packets above the loss reached the receiver), or three or more with no fast
  retransmit (Tahoe's ``bugFix_``: no second fast retransmit until the cumulative ACK
  passes ``recover``, the highest packet sent at the previous one);
* the flow's drops in the loss burst (drops of the flow less than 1 s apart);
* the time from the last timer restart (a new ACK, or the start of a recovery) to the
  timeout's retransmission, which is the RTO in use (backoff included) plus at most
  one jitter interval.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
from pathlib import Path


@dataclasses.dataclass
class Flow:
    #: (t, seq, uid, line) of each transmission and (t, ack, line) of each ACK arrival;
    #: ``line`` keeps the trace's order of events at one instant.
    sent: list[tuple[float, int, int, int]] = dataclasses.field(default_factory=list)
    acks: list[tuple[float, int, int]] = dataclasses.field(default_factory=list)
    drops: dict[int, list[tuple[float, int]]] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(list)
    )  # uid -> [(t, seq)]
    drop_times: list[tuple[float, int]] = dataclasses.field(default_factory=list)  # t, seq


def parse(path: Path) -> dict[int, Flow]:
    """Per-flow transmissions, ACK arrivals and drops from an ns-2 format trace."""
    flows: dict[int, Flow] = collections.defaultdict(Flow)
    with open(path) as fh:
        for n, line in enumerate(fh):
            f = line.split()
            if len(f) < 12:
                continue
            ev, t, a, b, kind = f[0], float(f[1]), f[2], f[3], f[4]
            fid, src, dst, seq, uid = int(f[7]), f[8], f[9], int(f[10]), int(f[11])
            fl = flows[fid]
            if kind == "tcp":
                if ev == "+" and src.split(".")[0] == a:
                    fl.sent.append((t, seq, uid, n))
                elif ev == "d":
                    fl.drops[uid].append((t, seq))
                    fl.drop_times.append((t, seq))
            elif kind == "ack" and ev == "r" and dst.split(".")[0] == b:
                fl.acks.append((t, seq, n))
    return flows


TIE = "timer expired at the instant of an ACK (tie), which then acked the packet"


@dataclasses.dataclass
class Timeout:
    flow: int
    time: float
    seq: int
    cause: str
    dupacks: int
    burst_drops: int
    timer_s: float
    outstanding: int


@dataclasses.dataclass
class Analysis:
    timeouts: list[Timeout]
    fast_retransmits: int
    blocked_fast_retransmits: int  # 3rd dupack with no fast retransmit (bugFix_)


def analyse(flows: dict[int, Flow], jitter: float) -> Analysis:
    """Classifies every recovery start of every flow."""
    eps = jitter + 1e-6
    out: list[Timeout] = []
    fast = blocked = 0
    for fid, fl in sorted(flows.items()):
        # The sender's events in the trace's order (time order; at one instant, the
        # order the simulator handled them in).
        evs = [(t, n, ("ack", a, 0)) for t, a, n in fl.acks]
        evs += [(t, n, ("send", s, u)) for t, s, u, n in fl.sent]
        evs.sort(key=lambda e: e[1])
        drop_t = sorted(t for t, _ in fl.drop_times)
        ha, maxsent, dup = -1, -1, 0
        last_new_ack = last_third_dup = last_restart = -1.0
        recover = -1
        gbn = False  # in a go-back-N round (resending below maxsent)
        prev_restart = -1.0  # the timer restart before the latest ACK's
        last_copy: dict[int, int] = {}  # seq -> uid of its last transmission
        for t, _, (what, x, uid) in evs:
            if what == "ack":
                if x > ha:
                    ha, dup = x, 0
                    prev_restart = last_restart
                    last_new_ack = last_restart = t
                elif x == ha:
                    dup += 1
                    if dup == 3:
                        last_third_dup = t
                        if ha <= recover:
                            blocked += 1
                continue
            seq = x
            if seq <= maxsent and seq == ha + 1:
                if t - last_third_dup <= eps and dup >= 3 and ha > recover:
                    fast += 1
                    recover = maxsent
                    last_restart = t
                elif t - last_new_ack <= eps and gbn:
                    pass  # go-back-N continues from the new cumulative ACK
                elif t - last_new_ack <= eps:
                    # A go-back-N round nothing started: the timer expired at the
                    # instant an ACK arrived (before it), and the ACK then moved
                    # the go-back-N point past the timed-out packet.
                    out.append(Timeout(fid, t, seq, TIE, dup, 0, t - prev_restart, maxsent - ha))
                    recover = maxsent
                    last_restart = t
                else:
                    prev = last_copy.get(seq)
                    dropped = prev is not None and prev in fl.drops
                    if not dropped:
                        cause = "spurious (last copy not dropped)"
                    elif prev != first_uid(fl, seq):
                        cause = "retransmission lost"
                    elif dup >= 3:
                        cause = "original lost, ≥ 3 dupacks, fast retransmit blocked (bugFix_)"
                    else:
                        cause = f"original lost, {dup} dupacks"
                    td = fl.drops[prev][0][0] if dropped else t
                    burst = burst_size(drop_t, td) if dropped else 0
                    out.append(
                        Timeout(fid, t, seq, cause, dup, burst, t - last_restart, maxsent - ha)
                    )
                    recover = maxsent
                    last_restart = t
            last_copy[seq] = uid
            gbn = seq < maxsent
            maxsent = max(maxsent, seq)
    return Analysis(out, fast, blocked)


def first_uid(fl: Flow, seq: int) -> int:
    for _, s, u, _ in fl.sent:
        if s == seq:
            return u
    return -1


def burst_size(drop_t: list[float], t: float) -> int:
    """Drops of the flow in the cluster around ``t`` (successive drops < 1 s apart)."""
    lo = hi = bisect.bisect_left(drop_t, t)
    while lo > 0 and drop_t[lo] - drop_t[lo - 1] < 1.0:
        lo -= 1
    while hi + 1 < len(drop_t) and drop_t[hi + 1] - drop_t[hi] < 1.0:
        hi += 1
    return hi - lo + 1 if drop_t else 0


def report(trace_dir: Path, jitter: float) -> str:
    """Markdown: causes of the timeouts in each simulator, then every timeout."""
    res = {sim: analyse(parse(trace_dir / f"{sim}.tr"), jitter) for sim in ("ns2", "ccsim")}
    causes = sorted({to.cause for a in res.values() for to in a.timeouts})
    lines = [
        "| | ns-2 | ccsim |",
        "|---|---|---|",
        f"| fast retransmits | {res['ns2'].fast_retransmits} | {res['ccsim'].fast_retransmits} |",
        "| third dupack, no fast retransmit (bugFix_) | "
        f"{res['ns2'].blocked_fast_retransmits} | {res['ccsim'].blocked_fast_retransmits} |",
        f"| timeouts | {len(res['ns2'].timeouts)} | {len(res['ccsim'].timeouts)} |",
    ]
    for c in causes:
        k = [sum(to.cause == c for to in res[s].timeouts) for s in ("ns2", "ccsim")]
        lines.append(f"| timeouts: {c} | {k[0]} | {k[1]} |")
    lines += [
        "",
        "| sim | flow | t (s) | packet | cause | dupacks | burst drops | timer (s) | outstanding |",
    ]
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for s in ("ns2", "ccsim"):
        for to in res[s].timeouts:
            lines.append(
                f"| {s} | {to.flow} | {to.time:.3f} | {to.seq} | {to.cause} | {to.dupacks} "
                f"| {to.burst_drops} | {to.timer_s:.3f} | {to.outstanding} |"
            )
    return "\n".join(lines)
