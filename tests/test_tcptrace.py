"""tcptrace (Ostermann's, 6.6.7) reads ccsim's packet captures: for every TCP connection it
finds, its long listing (``tcptrace -l -n --csv``) is checked against the engine's own record
of the same run — the ``[trace]`` table and ``Results.flows``.

Where tcptrace counts differently from ccsim the relation is asserted exactly:

* tcptrace calls a segment retransmitted when any of its bytes were seen before *in that file*
  (``rexmit.c``), and out of order when it fills a hole below data already seen. At the
  sender every retransmission repeats bytes sent before, so there ``rexmt data pkts`` is
  ccsim's ``retransmits``. On the bottleneck, a retransmission of a segment the queue dropped
  fills a hole (``outoforder pkts``); only repeats of segments that did start onto the link
  count as ``rexmt``. The expected figures replay tcptrace's rule on the trace's rows.
* The SYN and SYN-ACK are the capture's synthetic handshake (one packet more each way, both
  written where the flow's first packet is seen); ccsim sends no FIN, so tcptrace never calls
  a connection complete (``SYNs: 2, FINs: 0``).
"""

import csv
import subprocess

import pytest
from _tools import require

import ccsim

HEADER = 40  # ccsim's TCP/IP header bytes in size_bytes (the `header` key's default)
PORT_BASE = 49152  # flow i: port 49152 + i at both ends (capture/wire.rs)

SCENARIO = {
    "seed": 1,
    "duration": "4s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"kind": "droptail", "limit": "15pkt"},  # small: losses
        },
        "access": {"rate": "100Mbps", "delay": "1ms"},
        # losses past the bottleneck: segments that crossed it are sent again
        "receiver_access": {"rate": "100Mbps", "delay": "1ms", "loss": 0.005},
    },
    "flows": [
        {"pairs": [0], "cc": "newreno", "sack": True},
        {"pairs": [1], "cc": "newreno", "sack": True, "start": "0.5s", "size": "1MB"},
    ],
    "capture": [
        {"node": "s0", "file": "s0.pcap"},  # f0's sender: its data leaving, its ACKs arriving
        {"link": "R1->R2", "file": "fwd.pcap"},  # both flows' data
        {"link": "R2->R1", "file": "rev.pcap"},  # both flows' ACKs
    ],
    "trace": {
        "links": ["s0->R1", "R1->s0", "R1->R2", "R2->R1", "R2->d0", "d0->R2", "R2->d1", "d1->R2"]
    },
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("tcptrace") / "run"
    r = ccsim.run(SCENARIO)
    r.save(d)
    return r, d


def _tcptrace(exe, path):
    """One dict per connection of `tcptrace -l -n --csv path` (columns as tcptrace names
    them: `actual_data_pkts_a2b`, ...)."""
    out = subprocess.run(
        [exe, "-l", "-n", "--csv", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={"TCPTRACEOPTS": ""},
    ).stdout
    rows = [line for line in out.splitlines() if line.strip() and not line.startswith("#")]
    table = list(csv.reader(rows))
    head = [h.strip() for h in table[0]]
    return [{h: v.strip() for h, v in zip(head, row) if h} for row in table[1:]]


def _replay(segments):
    """tcptrace's per-direction counts (rexmit.c, tcp.c) over data segments (ccsim seq, len)
    in the order a file holds them: a segment is a retransmission if any of its bytes were
    recorded before (rexmt bytes: those bytes), out of order if it starts in a hole and ends
    before the end of the segment recorded above the hole; unique bytes are the rest."""
    seen = []  # recorded pieces [a, b), disjoint, sorted, as tcptrace's segment list
    n = {"pkts": 0, "bytes": 0, "rexmt_pkts": 0, "rexmt_bytes": 0, "ooo": 0, "unique": 0}
    for s, ln in segments:
        e = s + ln
        above = next(((a, b) for a, b in seen if b > s), None)
        if above is not None and s < above[0] and e < above[1]:
            n["ooo"] += 1
        again = sum(max(0, min(e, b) - max(s, a)) for a, b in seen)
        n["pkts"] += 1
        n["bytes"] += ln
        n["rexmt_pkts"] += again > 0
        n["rexmt_bytes"] += again
        n["unique"] += ln - again
        new, at = [], s  # record the bytes not seen before
        for a, b in seen:
            if b <= at or a >= e:
                continue
            if a > at:
                new.append((at, a))
            at = max(at, b)
        if at < e:
            new.append((at, e))
        seen = sorted(seen + new)
    return n


def _rows(r, link, event, flow, kind):
    t = r.trace
    return t[
        (t["link"] == link) & (t["event"] == event) & (t["flow"] == flow) & (t["kind"] == kind)
    ]


def _data(r, link, flow):
    """(seq, payload) of `flow`'s data segments as they start onto `link`."""
    rows = _rows(r, link, "dequeue", flow, "data")
    return list(zip(rows["seq"], rows["size_bytes"] - HEADER))


def _sack_uids(r, flow, dst):
    """uids of `flow`'s ACKs that carry SACK blocks: those its receiver sent while holding
    data above the cumulative ACK (a segment received earlier with seq > ack)."""
    t = r.trace
    rows = t[(t["flow"] == flow) & (t["link"].isin([f"R2->{dst}", f"{dst}->R2"]))]
    high, uids = -1, set()
    for link, event, kind, seq, ack, uid in zip(
        rows["link"], rows["event"], rows["kind"], rows["seq"], rows["ack"], rows["uid"]
    ):
        if link == f"R2->{dst}" and event == "receive" and kind == "data":
            high = max(high, seq)
        elif link == f"{dst}->R2" and event == "enqueue" and kind == "ack" and high > ack:
            uids.add(uid)
    return uids


def _conns(exe, d, r, file):
    """tcptrace's connections in `file`, by ccsim flow name, checking their endpoints."""
    hosts = {
        line.split("\t")[1]: line.split("\t")[0] for line in (d / "hosts").read_text().splitlines()
    }
    out = {}
    for c in _tcptrace(exe, d / file):
        f = r.flows[r.flows["flow"] == int(c["port_a"]) - PORT_BASE].iloc[0]
        assert (c["host_a"], c["host_b"]) == (hosts[f["src"]], hosts[f["dst"]])
        assert c["port_b"] == c["port_a"]
        # the synthetic SYN / SYN-ACK, no FIN: never "complete" for tcptrace
        assert (c["SYN/FIN_pkts_sent_a2b"], c["SYN/FIN_pkts_sent_b2a"]) == ("1/0", "1/0")
        assert (c["req_sack_a2b"], c["req_sack_b2a"]) == ("Y", "Y")
        assert c["mss_requested_a2b"] == "1460"
        out[f["name"]] = {k: int(v) for k, v in c.items() if v.lstrip("-").isdigit()}
    return out


def test_tcptrace_at_the_sender_counts_what_the_flow_table_does(run):
    exe = require("tcptrace", "tcptrace")
    r, d = run
    conns = _conns(exe, d, r, "s0.pcap")
    assert list(conns) == ["f0"]
    c = conns["f0"]
    f0 = r.flows.set_index("name").loc["f0"]
    assert f0["retransmits"] > 10 and f0["fast_retransmits"] > 0  # the scenario has losses
    data = _data(r, "s0->R1", "f0")
    assert len(data) == f0["packets_sent"]
    n = _replay(data)
    assert c["actual_data_pkts_a2b"] == n["pkts"] == f0["packets_sent"]
    assert c["actual_data_bytes_a2b"] == n["bytes"] == f0["bytes_sent"]
    # every retransmission repeats bytes sent before: tcptrace's rexmt is ccsim's
    rexmt = _rows(r, "s0->R1", "dequeue", "f0", "data")["retransmit"].sum()
    assert c["rexmt_data_pkts_a2b"] == n["rexmt_pkts"] == f0["retransmits"] == rexmt
    assert c["rexmt_data_bytes_a2b"] == n["rexmt_bytes"]
    assert c["unique_bytes_sent_a2b"] == n["unique"] == f0["bytes_sent"] - n["rexmt_bytes"]
    assert c["outoforder_pkts_a2b"] == n["ooo"] == 0
    assert c["total_packets_a2b"] == len(data) + 1  # + the SYN
    # the ACKs reaching s0 (a node capture sees them on arrival)
    acks = _rows(r, "R1->s0", "receive", "f0", "ack")
    assert c["pure_acks_sent_b2a"] == len(acks)
    assert c["total_packets_b2a"] == len(acks) + 1  # + the SYN-ACK
    sack = len(set(acks["uid"]) & _sack_uids(r, "f0", "d0"))
    assert c["sack_pkts_sent_b2a"] == c["sacks_sent_b2a"] == sack > 10
    assert c["dsack_pkts_sent_b2a"] == 0 and c["actual_data_pkts_b2a"] == 0


def test_tcptrace_on_the_bottleneck_both_directions(run):
    exe = require("tcptrace", "tcptrace")
    r, d = run
    fwd, rev = _conns(exe, d, r, "fwd.pcap"), _conns(exe, d, r, "rev.pcap")
    assert sorted(fwd) == sorted(rev) == ["f0", "f1"]
    drops = r.queues.set_index("queue").loc["R1->R2", "drops"]
    assert drops > 10
    for name, dst in (("f0", "d0"), ("f1", "d1")):
        c, n = fwd[name], _replay(_data(r, "R1->R2", name))
        assert c["actual_data_pkts_a2b"] == n["pkts"]
        assert c["actual_data_bytes_a2b"] == n["bytes"]
        assert c["rexmt_data_pkts_a2b"] == n["rexmt_pkts"]
        assert c["rexmt_data_bytes_a2b"] == n["rexmt_bytes"]
        assert c["outoforder_pkts_a2b"] == n["ooo"]
        assert c["unique_bytes_sent_a2b"] == n["unique"]
        assert c["total_packets_a2b"] == n["pkts"] + 1 and c["total_packets_b2a"] == 1
        acks = _rows(r, "R2->R1", "dequeue", name, "ack")
        c = rev[name]
        assert c["pure_acks_sent_b2a"] == len(acks)
        assert c["total_packets_b2a"] == len(acks) + 1 and c["total_packets_a2b"] == 1
        sack = len(set(acks["uid"]) & _sack_uids(r, name, dst))
        assert c["sack_pkts_sent_b2a"] == c["sacks_sent_b2a"] == sack > 0
    # f1 (1 MB) finished: every byte crossed the bottleneck once as tcptrace sees it
    assert fwd["f1"]["unique_bytes_sent_a2b"] == 1_000_000
    # the queue's drops come back as hole fills (out of order for tcptrace), the segments
    # lost past the bottleneck as retransmissions: the scenario has both
    assert sum(fwd[x]["outoforder_pkts_a2b"] for x in fwd) > 0
    assert sum(fwd[x]["rexmt_data_pkts_a2b"] for x in fwd) > 0
