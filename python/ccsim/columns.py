"""Every column of the result tables, with its unit and meaning: the one source of the
column tables in docs/user-guide.md (``python -m ccsim.columns docs/user-guide.md``
rewrites them; a test fails when the engine's columns, this list and the guide differ).
Also :class:`RunTables`, the tables of one run as their readers (plots, report) see them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FLOWS",
    "QUEUES",
    "TRACE",
    "CONNECTIONS",
    "WORKLOADS",
    "TABLES",
    "RunTables",
    "markdown",
    "update",
]

_W = "over the measurement window (warm-up to end)"

#: ``flows``: one row per flow. (name, unit, meaning)
FLOWS = [
    ("flow", "–", "flow index (scenario order, after `count` and `pairs` expansion)"),
    ("name", "–", "flow name (`name` key, default `f<index>`)"),
    ("kind", "–", "`tcp`, `blt`, `bully-tyrant`, `roce`, `cbr` or `poisson`"),
    ("cc", "–", "congestion control of a TCP flow (empty for datagram flows)"),
    ("src", "–", "sending node"),
    ("dst", "–", "receiving node"),
    ("start_s", "s", "start time"),
    (
        "bytes_sent",
        "B",
        "payload bytes sent, retransmissions included (datagrams: bytes on the wire), whole run",
    ),
    (
        "packets_sent",
        "packets",
        "data segments or datagrams sent, retransmissions included, whole run",
    ),
    ("bytes_delivered", "B", "bytes delivered in order to the receiving application, whole run"),
    ("bytes_delivered_window", "B", f"`bytes_delivered` {_W}"),
    (
        "goodput_bps",
        "bit/s",
        f"`bytes_delivered_window` · 8 / the time the flow was active {_W} (until completion for a finite transfer)",
    ),
    ("retransmits", "segments", "retransmitted segments, whole run"),
    ("timeouts", "–", "retransmission timeouts, whole run"),
    (
        "fast_retransmits",
        "–",
        "fast retransmits (loss recoveries entered on duplicate ACKs or SACK), whole run",
    ),
    ("ecn_reductions", "–", "window reductions on ECN-Echo, whole run"),
    ("ce_received", "packets", "CE-marked packets that reached the receiver, whole run"),
    ("completion_s", "s", "time the last byte of a finite transfer was acknowledged (NaN if none)"),
    ("fct_s", "s", "flow completion time: `completion_s − start_s` (NaN if not completed)"),
    ("cwnd_bytes", "B", "congestion window at the end of the run (0 for datagram flows)"),
    ("srtt_s", "s", "smoothed RTT at the end of the run (NaN without samples)"),
    ("min_rtt_s", "s", "smallest RTT sample of the run (NaN without samples)"),
]

#: ``queues``: one row per link direction. (name, unit, meaning)
QUEUES = [
    ("queue", "–", 'link direction, `"<from>-><to>"`'),
    ("from", "–", "node whose output queue this is"),
    ("to", "–", "node at the far end of the link"),
    ("kind", "–", "queue discipline (`droptail`, `red`, ...)"),
    ("limit", "–", 'buffer: `"<n>pkt"`, `"<n>B"` or `"inf"`'),
    ("rate_bps", "bit/s", "link rate"),
    ("delay_s", "s", "propagation delay"),
    ("arrivals", "packets", f"packets offered to the queue {_W}"),
    ("departures", "packets", f"packets whose serialization completed {_W}"),
    ("departure_bytes", "B", f"bytes of those packets {_W}"),
    ("drops", "packets", f"packets dropped at this link, all reasons {_W}"),
    ("drops_overflow", "packets", "the arrival did not fit in the buffer"),
    (
        "drops_pushout",
        "packets",
        "a queued packet discarded to make room (fair queueing, priority discard)",
    ),
    ("drops_early", "packets", "AQM probabilistic (unforced) drops"),
    ("drops_forced", "packets", "AQM forced drops (e.g. RED average above max_th)"),
    ("drops_link_loss", "packets", "lost on the wire (`loss` key)"),
    ("drops_component", "packets", "dropped by a router component before the queue"),
    (
        "drops_shared_buffer",
        "packets",
        "refused by the switch's shared buffer: the queue was at its dynamic threshold (`[switches]`)",
    ),
    (
        "drops_headroom",
        "packets",
        "refused by a PFC switch: the input port's headroom was full (`[switches.pfc]`)",
    ),
    ("marks", "packets", f"ECN CE marks {_W}"),
    ("marks_early", "packets", "AQM probabilistic marks"),
    ("marks_forced", "packets", "deterministic marks"),
    (
        "marks_adpm",
        "packets",
        "BMCC ADPM load marks, ECT(0) → ECT(1) (not CE: not counted in `marks`)",
    ),
    (
        "trims",
        "packets",
        'data packets whose payload a trimming queue cut to a header (`kind = "ndp"`: '
        "docs/models/ndp.md; not counted in `marks`)",
    ),
    ("loss_rate", "–", "`drops / arrivals` (0 without arrivals)"),
    ("utilization", "–", "bits sent / (rate · window length), from 0 to 1"),
    ("mean_len_pkts", "packets", f"time-average backlog (waiting, not in service) {_W}"),
    ("mean_len_bytes", "B", f"time-average backlog {_W}"),
    ("max_len_pkts", "packets", f"largest backlog {_W}"),
    ("max_len_bytes", "B", f"largest backlog {_W}"),
    (
        "pfc_pauses",
        "frames",
        f"PFC pause frames this link's sender received from the switch at its far end {_W}",
    ),
    ("pfc_paused_s", "s", f"time this link's transmitter was paused by PFC {_W}"),
    (
        "sojourn_mean_s",
        "s",
        "mean sojourn time (dequeue − enqueue) of the packets that left the queue "
        f"{_W}; a packet that found the link idle counts 0; NaN if none left",
    ),
    ("sojourn_p50_s", "s", "median sojourn time (nearest rank, within 1/64 relative)"),
    ("sojourn_p95_s", "s", "95th percentile of the sojourn time (same histogram)"),
    ("sojourn_p99_s", "s", "99th percentile of the sojourn time (same histogram)"),
    ("sojourn_max_s", "s", f"largest sojourn time {_W} (exact)"),
]

#: ``trace`` (``[trace]``): one row per packet event. (name, unit, meaning)
TRACE = [
    ("time_s", "s", "time of the event"),
    ("time_ns", "ns", "the same, exact"),
    ("event", "–", "`enqueue`, `dequeue`, `drop`, `mark` or `receive`"),
    (
        "reason",
        "–",
        "drop or mark reason (`overflow`, `early`, ..., as the `drops_` and `marks_` columns); empty otherwise",
    ),
    ("link", "–", "link direction where it happened"),
    (
        "flow",
        "–",
        "flow name; a workload connection's is `<workload>#<conn>` (`conn` of the connections table)",
    ),
    ("uid", "–", "packet id, unique in the run (a retransmission is a new packet)"),
    ("kind", "–", "`data`, `ack` or `datagram`"),
    ("size_bytes", "B", "size on the wire"),
    ("seq", "B", "first payload byte (TCP; a datagram's number in its flow)"),
    ("ack", "B", "cumulative ACK: next byte expected (ACKs)"),
    ("ecn", "–", "IP ECN field: `not-ect`, `ect0`, `ect1` or `ce`"),
    ("ece", "–", "1 if the TCP ECN-Echo flag is set"),
    ("cwr", "–", "1 if the TCP CWR flag is set"),
    ("ip_id", "–", "IPv4 identification field (as in packet captures)"),
    ("retransmit", "–", "1 for a retransmitted segment"),
    ("queue_pkts", "packets", "the link's queue backlog just after the event"),
    ("queue_bytes", "B", "the same in bytes"),
]

#: ``connections`` (with workloads): one row per connection a workload started.
CONNECTIONS = [
    ("conn", "–", "connection index, in order of arrival"),
    ("workload", "–", "the workload that started it (`name` key)"),
    ("src", "–", "sending node"),
    ("dst", "–", "receiving node"),
    (
        "start_s",
        "s",
        "arrival time: the sender starts at once (with `handshake`, by sending its SYN)",
    ),
    ("size_bytes", "B", "file size"),
    ("first_byte_s", "s", "first byte delivered in order at the receiver (NaN if none)"),
    ("last_byte_s", "s", "last byte delivered in order at the receiver (NaN while unfinished)"),
    ("last_ack_s", "s", "the ACK of the last byte at the sender (NaN while unfinished)"),
    ("response_time_s", "s", "`last_ack_s − start_s` (NaN while unfinished)"),
    ("retransmits", "segments", "retransmitted segments"),
    ("timeouts", "–", "retransmission timeouts"),
]

#: ``workloads``: one row per arrival process (per workload and direction, or pair).
WORKLOADS = [
    ("workload", "–", "workload name"),
    ("kind", "–", "transport of its connections"),
    ("direction", "–", "`forward` or `reverse`"),
    ("pairs", "–", "host pairs the process picks from"),
    (
        "busy_picks",
        "–",
        'arrivals that found every pair busy (with `pick = "idle"`; 0 otherwise)',
    ),
    ("active_s", "s", "time the process was generating arrivals"),
    ("arrivals", "–", "connections started"),
    ("completed", "–", "connections completed"),
    ("rate_requested", "1/s", "requested arrival rate"),
    ("rate_realised", "1/s", "`arrivals / active_s`"),
    ("mean_size_requested", "B", "mean of the requested size distribution"),
    ("mean_size_realised", "B", "mean size of the files started"),
    ("load_requested_bps", "bit/s", "requested offered load: 8 · rate · mean size"),
    ("load_realised_bps", "bit/s", "realised offered load: 8 · bytes started / `active_s`"),
]

TABLES = {
    "flows": FLOWS,
    "queues": QUEUES,
    "trace": TRACE,
    "connections": CONNECTIONS,
    "workloads": WORKLOADS,
}


class RunTables(Protocol):
    """The tables and facts of one run, as :mod:`ccsim.plots` and :mod:`ccsim.report`
    read them; :class:`ccsim.Results` is one. Declared here, below those readers and
    ``Results`` alike, so that the readers do not import the module whose methods call
    them."""

    scenario: dict
    summary: dict
    flows: pd.DataFrame
    queues: pd.DataFrame
    timeseries: dict[str, pd.DataFrame]
    connections: pd.DataFrame
    workloads: pd.DataFrame
    trace: pd.DataFrame | None
    files: dict[str, bytes]


def markdown(table: str) -> str:
    """The Markdown table of ``table``'s columns."""
    rows = ["| column | unit | meaning |", "|---|---|---|"]
    rows += [f"| `{n}` | {u} | {m} |" for n, u, m in TABLES[table]]
    return "\n".join(rows)


def update(text: str) -> str:
    """``text`` with each ``<!-- columns:NAME -->...<!-- /columns:NAME -->`` block regenerated."""

    def sub(m: re.Match) -> str:
        return f"<!-- columns:{m[1]} -->\n{markdown(m[1])}\n<!-- /columns:{m[1]} -->"

    return re.sub(r"<!-- columns:(\w+) -->.*?<!-- /columns:\1 -->", sub, text, flags=re.DOTALL)


if __name__ == "__main__":  # python -m ccsim.columns docs/user-guide.md
    for p in sys.argv[1:]:
        path = Path(p)
        path.write_text(update(path.read_text()))
