"""Workload connections in the per-packet trace (``[trace]``) and in packet captures
(``[[capture]]``): each connection is traced under its own name, ``<workload>#<conn>``,
and captured as its own TCP stream, although connections reuse flow slots; their rows
agree with the connection table, and the pcap files read back (dpkt, tshark) hold one
stream per connection."""

import re
import struct
import subprocess

import dpkt
import pytest
from _tools import require

import ccsim

PORT_BASE = 49152
SCENARIO = {
    "seed": 7,
    "duration": "4s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 4,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"kind": "droptail", "limit": "15pkt"},
        },
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    # One static flow (tap flow 0): connection c is numbered 1 + c.
    "flows": [{"pairs": [0], "size": "300KB", "name": "bulk"}],
    "workloads": [
        {
            "name": "web",
            "pairs": "all",
            "arrival_rate": 25,
            "stop": "2s",
            "size": {"dist": "exponential", "mean": "15KB"},
            "transport": {"kind": "tcp", "sack": True, "mss": 1000},
        }
    ],
    "trace": {"links": ["R1->R2", "R2->R1"], "ns2": True},
    "capture": [{"link": "R1->R2", "file": "fwd.pcap"}],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("trace_workloads") / "run"
    r = ccsim.run(SCENARIO)
    r.save(d)
    return r, d


def _names(conns):
    return {f"web#{c}" for c in conns["conn"]}


def test_each_connection_is_traced_under_its_own_name(run):
    r, _ = run
    s, c, t = r.summary, r.connections, r.trace
    assert 30 <= len(c) == s["connections_started"]
    # Slots are reused (fewer slots than connections), yet every connection has a
    # name of its own, and every one crossed the bottleneck.
    assert s["connection_slots"] < len(c)
    assert set(t["flow"].unique()) == _names(c) | {"bulk"}
    assert list(t["flow"].cat.categories) == ["bulk"] + [f"web#{k}" for k in c["conn"]]
    fwd = t[(t["link"] == "R1->R2") & (t["event"] == "dequeue")]
    assert (fwd.groupby("flow", observed=True).size() > 0).all()


def test_connection_rows_agree_with_the_connection_table(run):
    r, _ = run
    c = r.connections.set_index("conn")
    t = r.trace
    data = t[(t["kind"] == "data") & (t["flow"] != "bulk")].copy()
    data["conn"] = data["flow"].astype(str).str.removeprefix("web#").astype(int)
    data["end"] = data["seq"] + data["size_bytes"] - 40  # 40 B of headers
    assert (data["end"] <= data["conn"].map(c["size_bytes"])).all()  # no byte of another
    assert (data["time_s"] >= data["conn"].map(c["start_s"])).all()
    rec = data[(data["link"] == "R1->R2") & (data["event"] == "receive")]
    done = c[c["last_ack_s"].notna()]
    assert len(done) >= 0.9 * len(c)
    for k, row in done.iterrows():
        # every byte of the file reached the far end of the bottleneck
        segs = rec[rec["conn"] == k].drop_duplicates("seq").sort_values("seq")
        covered = 0
        for seq, end in zip(segs["seq"], segs["end"]):
            assert seq <= covered, (k, seq, covered)
            covered = max(covered, end)
        assert covered >= row["size_bytes"], k
        assert segs["end"].sum() - segs["seq"].sum() >= row["size_bytes"]
        # and its last ACK came back over R2->R1, at or before last_ack_s
        acks = t[(t["flow"] == f"web#{k}") & (t["link"] == "R2->R1") & (t["event"] == "receive")]
        assert acks["ack"].max() == row["size_bytes"]
        assert acks.loc[acks["ack"] == row["size_bytes"], "time_s"].min() <= row["last_ack_s"]


def _streams(path):
    """{(src, sport, dst, dport): [tcp segments]} of a pcap file, SYNs apart."""
    out, syns = {}, {}
    with open(path, "rb") as f:
        for _, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ip.IP(buf)
            tcp = ip.data
            assert isinstance(tcp, dpkt.tcp.TCP)
            key = (
                dpkt.utils.inet_to_str(ip.src),
                tcp.sport,
                dpkt.utils.inet_to_str(ip.dst),
                tcp.dport,
            )
            (syns if tcp.flags & dpkt.tcp.TH_SYN else out).setdefault(key, []).append(tcp)
    return out, syns


def test_the_capture_has_one_tcp_stream_per_connection(run):
    r, d = run
    hosts = {
        line.split("\t")[1]: line.split("\t")[0] for line in (d / "hosts").read_text().splitlines()
    }
    c = r.connections
    streams, syns = _streams(d / "fwd.pcap")
    want = {
        (hosts[x.src], PORT_BASE + 1 + x.conn, hosts[x.dst], PORT_BASE + 1 + x.conn): x.conn
        for x in c.itertuples()
    }
    bulk = r.flows.set_index("name").loc["bulk"]
    want[(hosts[bulk.src], PORT_BASE, hosts[bulk.dst], PORT_BASE)] = "bulk"
    assert set(streams) == set(want)  # distinct ports: a stream per connection
    ev = r.trace[(r.trace["link"] == "R1->R2") & (r.trace["event"] == "dequeue")]
    per_flow = ev.groupby("flow", observed=True).size()
    for key, segs in streams.items():
        name = "bulk" if want[key] == "bulk" else f"web#{want[key]}"
        assert len(segs) == per_flow[name]
        # a synthetic SYN with the connection's own MSS (1000; the static flow's 1460)
        (syn,) = [s for s in syns[key] if not s.flags & dpkt.tcp.TH_ACK]
        mss = dict(dpkt.tcp.parse_opts(syn.opts))[dpkt.tcp.TCP_OPT_MSS]
        assert struct.unpack(">H", mss)[0] == (1460 if name == "bulk" else 1000)


def test_tshark_sees_one_stream_per_connection(run):
    exe = require("tshark", "tshark")
    r, d = run
    out = subprocess.run(
        [exe, "-r", str(d / "fwd.pcap"), "-T", "fields", "-e", "tcp.stream", "-e", "tcp.srcport"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    ports = {}
    for stream, port in rows:
        ports.setdefault(stream, set()).add(int(port))
    assert len(ports) == len(r.connections) + 1
    assert all(len(p) == 1 for p in ports.values())
    assert {p.pop() for p in ports.values()} == {PORT_BASE} | {
        PORT_BASE + 1 + k for k in r.connections["conn"]
    }


def test_ns2_text_numbers_connections_after_the_flows(run):
    r, _ = run
    lines = r.files["trace.tr"].decode().splitlines()
    t = r.trace
    assert len(lines) == (t["event"] != "mark").sum()
    pat = re.compile(
        r"^[+\-dr] \S+ \d+ \d+ (tcp|ack) \d+ \S{7} (\d+) \d+\.\d+ \d+\.\d+ -?\d+ (\d+)$"
    )
    fid_of = {"bulk": 0} | {f"web#{k}": 1 + k for k in r.connections["conn"]}
    uid_fid = {}
    for line in lines:
        m = pat.match(line)
        assert m, line
        uid_fid[int(m.group(3))] = int(m.group(2))
    flows = t.drop_duplicates("uid").set_index("uid")["flow"]
    assert all(uid_fid[u] == fid_of[f] for u, f in flows.items())


def test_selection_by_workload_name():
    def flows(sel):
        r = ccsim.run({**SCENARIO, "capture": [], "trace": {"links": ["R1->R2"], "flows": sel}})
        return set(r.trace["flow"].unique()), r.connections

    got, c = flows(["web"])
    assert got == _names(c)
    got, _ = flows(["bulk"])
    assert got == {"bulk"}
    with pytest.raises(ccsim.ScenarioError) as e:
        flows(["webb"])
    m = str(e.value)
    assert m.startswith("trace.flows:") and 'did you mean "web"' in m and "workload names" in m


def test_packets_of_a_finished_connection_keep_its_name_and_ports(tmp_path):
    # Spurious timeouts (a 5-ms minimum RTO on a 44-ms round trip) leave copies of
    # data and their duplicate ACKs in the network when a connection completes; the
    # next arrival takes its slot meanwhile. Those packets still belong to the
    # connection that sent them: in the trace, every connection's earliest-created
    # packet is its first data segment (a packet of the slot's previous occupant
    # would be older), and in the capture they keep that connection's ports.
    sc = {
        "seed": 4,
        "duration": "3s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {
                "rate": "10Mbps",
                "delay": "20ms",
                "queue": {"kind": "droptail", "limit": "20pkt"},
            },
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "workloads": [
            {
                "name": "w",
                "pairs": "all",
                "arrival_rate": 30,
                "stop": "2s",
                "size": {"dist": "exponential", "mean": "20KB"},
                "transport": {"kind": "tcp", "min_rto": "5ms", "init_rto": "10ms"},
            }
        ],
        "trace": {"links": ["R1->R2", "R2->R1"]},
        "capture": [{"link": "R1->R2", "file": "fwd.pcap", "handshake": False}],
    }
    r = ccsim.run(sc)
    r.save(tmp_path / "run")
    s, t = r.summary, r.trace
    assert s["stale_packets"] > 0 and s["connection_slots"] < s["connections_started"]
    c = r.connections.set_index("conn")
    conn = t["flow"].astype(str).str.removeprefix("w#").astype(int)
    first = t.loc[t.groupby(conn)["uid"].idxmin()]
    assert len(first) == len(c)
    assert ((first["kind"] == "data") & (first["seq"] == 0) & (first["retransmit"] == 0)).all()
    after = t["time_s"] > conn.map(c["last_ack_s"])  # rows after the connection completed
    assert after.sum() > 0
    assert (t["ack"].where(t["kind"] == "ack", 0) <= conn.map(c["size_bytes"])).all()
    # the capture of R1->R2 shows each segment with the ports of its own connection
    ev = t[(t["link"] == "R1->R2") & (t["event"] == "dequeue")]
    with open(tmp_path / "run" / "fwd.pcap", "rb") as f:
        ports = [dpkt.ip.IP(buf).data.sport for _, buf in dpkt.pcap.Reader(f)]
    assert ports == list(PORT_BASE + conn[ev.index])
    late = ev.index[after[ev.index]]
    assert len(late) > 0  # some of them after their connection completed


def test_blt_workload_through_the_trace():
    # BLT connections through a congested priority-discard switch leave copies
    # in the network after they complete, while a new connection takes the
    # slot: those rows still belong to the connection that sent them.
    sc = {
        "seed": 4,
        "duration": "4s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 4,
            "bottleneck": {
                "rate": "30Mbps",
                "delay": "5ms",
                "queue": {"kind": "prio_discard", "limit": "40pkt"},
            },
            "access": {"rate": "150Mbps", "delay": "1ms"},
        },
        "workloads": [
            {
                "name": "b",
                "pairs": "all",
                "arrival_rate": 25,
                "size": {"dist": "exponential", "mean": "100KB"},
                "transport": {"kind": "blt", "mss": 460},
            }
        ],
        "trace": {"links": ["R1->R2", "R2->R1"], "ns2": True},
        "capture": [{"link": "R1->R2", "file": "b.pcap"}],
    }
    r = ccsim.run(sc)
    assert r.summary["stale_packets"] > 0
    c = r.connections.set_index("conn")
    t = r.trace
    data = t[t["kind"] == "data"].copy()
    data["conn"] = data["flow"].astype(str).str.removeprefix("b#").astype(int)
    assert (data["seq"] < data["conn"].map(c["size_bytes"])).all()
    assert (data["time_s"] >= data["conn"].map(c["start_s"])).all()
    assert set(t["flow"].unique()) <= {f"b#{k}" for k in c.index}
    assert len(r.files["trace.tr"].decode().splitlines()) == (t["event"] != "mark").sum()
    assert len(r.files["b.pcap"]) > 24
