"""Packet captures (``[[capture]]``) read back by real readers — dpkt and tshark — and
checked field by field against the engine's own record of the same packets (the
``[trace]`` table of the same run)."""

import struct
import subprocess

import dpkt
import pytest
from _tools import require

import ccsim

SCENARIO = {
    "seed": 3,
    "duration": "3s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {
                "kind": "red",
                "limit": "40pkt",
                "min_th": 3,
                "max_th": 12,
                "mean_pktsize": "1500B",
                "ecn": True,
            },
        },
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "flows": [
        {"pairs": [0], "cc": "newreno", "ecn": True, "sack": True, "feedback": {"kind": "bmcc"}},
        {"pairs": [1], "kind": "cbr", "rate": "4Mbps", "ecn": True},
    ],
    "capture": [
        {"link": "R1->R2", "file": "fwd.pcap"},
        {"link": "R2->R1", "file": "rev.pcapng"},
        {
            "link": "R1->R2",
            "file": "snap.pcap",
            "snaplen": "64B",
            "start": "1s",
            "stop": "2s",
            "handshake": False,
        },
    ],
    "trace": {"links": ["R1->R2", "R2->R1"]},
}
ECN = {"not-ect": 0, "ect1": 1, "ect0": 2, "ce": 3}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("capture") / "run"
    r = ccsim.run(SCENARIO)
    r.save(d)
    return r, d


def _read(path):
    """(time_ns, ip packet, captured length) of every record, with dpkt."""
    with open(path, "rb") as f:
        rd = dpkt.pcapng.Reader(f) if path.suffix == ".pcapng" else dpkt.pcap.Reader(f)
        assert rd.datalink() == 101  # LINKTYPE_RAW (only a multi-interface pcapng is 228)
        return [(round(ts * 10**9), dpkt.ip.IP(buf), len(buf)) for ts, buf in rd]


def _hosts(d):
    return {
        line.split("\t")[1]: line.split("\t")[0] for line in (d / "hosts").read_text().splitlines()
    }


def _events(r, link, event):
    t = r.trace
    return t[(t["link"] == link) & (t["event"] == event)].reset_index(drop=True)


def _tcp_options(tcp):
    return dict((k, v) for k, v in dpkt.tcp.parse_opts(tcp.opts))


def test_capture_matches_the_engine_record_field_by_field(run):
    r, d = run
    hosts = _hosts(d)
    flows = r.flows.set_index("name")
    pkts = _read(d / "fwd.pcap")
    syn = [
        p for _, p, _ in pkts if isinstance(p.data, dpkt.tcp.TCP) and p.data.flags & dpkt.tcp.TH_SYN
    ]
    assert len(syn) == 2  # the synthetic SYN and SYN-ACK of f0, carrying what it negotiates
    opts = _tcp_options(syn[0].data)
    assert struct.unpack(">H", opts[dpkt.tcp.TCP_OPT_MSS])[0] == 1460
    assert dpkt.tcp.TCP_OPT_SACKOK in opts and dpkt.tcp.TCP_OPT_TIMESTAMP in opts
    assert syn[0].data.flags & (dpkt.tcp.TH_ECE | dpkt.tcp.TH_CWR)  # RFC 3168 ECN setup
    pkts = [
        x
        for x in pkts
        if not (isinstance(x[1].data, dpkt.tcp.TCP) and x[1].data.flags & dpkt.tcp.TH_SYN)
    ]
    ev = _events(r, "R1->R2", "dequeue")  # the capture sees packets as they start onto the link
    assert len(pkts) == len(ev) > 2000
    ce = 0
    for (ts, ip, caplen), (_, row) in zip(pkts, ev.iterrows()):
        assert ts == row["time_ns"]
        assert ip.id == row["ip_id"]
        assert ip.tos & 3 == ECN[row["ecn"]]
        ce += row["ecn"] == "ce"
        assert ip.ttl == 63  # 64 at the sender, one router passed
        assert dpkt.utils.inet_to_str(ip.src) == hosts[flows.loc[row["flow"], "src"]]
        assert dpkt.utils.inet_to_str(ip.dst) == hosts[flows.loc[row["flow"], "dst"]]
        if row["kind"] == "datagram":
            assert isinstance(ip.data, dpkt.udp.UDP) and ip.len == row["size_bytes"]
        else:
            tcp = ip.data
            assert isinstance(tcp, dpkt.tcp.TCP)
            assert tcp.seq == (row["seq"] + 1) % 2**32  # ISN 0: wire = ccsim byte + 1
            assert len(tcp.data) == row["size_bytes"] - 40
            assert bool(tcp.flags & dpkt.tcp.TH_CWR) == bool(row["cwr"])
            assert dpkt.tcp.TCP_OPT_TIMESTAMP in _tcp_options(tcp)
        assert caplen == ip.len  # snaplen "inf": whole packets
    assert ce > 0  # RED marked some: the ECN field shows CE


def test_acks_carry_window_sack_and_the_ccsim_feedback_option(run):
    r, d = run
    pkts = [p for _, p, _ in _read(d / "rev.pcapng") if not p.data.flags & dpkt.tcp.TH_SYN]
    ev = _events(r, "R2->R1", "dequeue")
    assert len(pkts) == len(ev)
    sacks = feedback = 0
    for ip, (_, row) in zip(pkts, ev.iterrows()):
        tcp = ip.data
        assert tcp.ack == (row["ack"] + 1) % 2**32
        assert bool(tcp.flags & dpkt.tcp.TH_ECE) == bool(row["ece"])
        assert tcp.win == 0xFFFF  # rwnd "inf", window scale 14
        opts = _tcp_options(tcp)
        if dpkt.tcp.TCP_OPT_SACK in opts:
            edges = struct.unpack(f">{len(opts[5]) // 4}I", opts[5])
            assert all(e > tcp.ack for e in edges)  # blocks above the cumulative ACK
            sacks += 1
        fb = opts.get(254)
        if fb is not None:  # RFC 6994 ExID 0xCC51, flags, load factor in 2^-14 units
            exid, flags, load = struct.unpack(">HBH", fb)
            assert exid == 0xCC51 and flags & 0x01 and 0 <= load / 16384 < 4
            feedback += 1
    assert sacks > 10 and feedback == len(pkts)


def test_snaplen_and_time_window(run):
    r, d = run
    pkts = _read(d / "snap.pcap")
    assert pkts and all(caplen <= 64 for _, _, caplen in pkts)
    assert all(1e9 <= ts <= 2e9 for ts, _, _ in pkts)
    ev = _events(r, "R1->R2", "dequeue")
    assert len(pkts) == ((ev["time_ns"] >= 1e9) & (ev["time_ns"] <= 2e9)).sum()


def _fields(exe, path, *fields):
    cmd = [exe, "-r", str(path), "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"]
    cmd += ["-o", "udp.check_checksum:TRUE", "-T", "fields", "-E", "separator=;"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120).stdout
    return [line.split(";") for line in out.splitlines()]


def test_tshark_decodes_every_field_with_good_checksums(run):
    exe = require("tshark", "tshark")
    r, d = run
    rows = _fields(
        exe,
        d / "fwd.pcap",
        "ip.id",
        "ip.dsfield.ecn",
        "ip.ttl",
        "ip.checksum.status",
        "tcp.checksum.status",
        "udp.checksum.status",
        "tcp.flags.syn",
        "tcp.seq_raw",
    )
    rows = [x for x in rows if x[6] != "1"]  # not the synthetic handshake
    ev = _events(r, "R1->R2", "dequeue")
    assert len(rows) == len(ev)
    assert [int(x[0], 16) for x in rows] == list(ev["ip_id"])
    assert [int(x[1]) for x in rows] == [ECN[e] for e in ev["ecn"]]
    assert {x[2] for x in rows} == {"63"}
    assert {x[3] for x in rows} == {"1"}  # 1: Good
    assert {x[4] or x[5] for x in rows} == {"1"}
    tcp = ev["kind"] == "data"
    assert [int(x[7]) for x in rows if x[7]] == list((ev.loc[tcp, "seq"] + 1) % 2**32)
    acks = _fields(
        exe,
        d / "rev.pcapng",
        "tcp.checksum.status",
        "tcp.options.experimental.exid",
        "tcp.options.sack_le",
        "frame.interface_name",
    )
    assert {x[0] for x in acks} == {"1"}
    assert {x[1] for x in acks[2:]} == {"0xcc51"}
    assert any(x[2] for x in acks)
    assert {x[3] for x in acks} == {"R2->R1"}


def test_capture_errors_name_the_key():
    def err(cap):
        with pytest.raises(ccsim.ScenarioError) as e:
            ccsim.run({**SCENARIO, "capture": [cap], "trace": {}})
        return str(e.value)

    assert "capture[0].link" in err({"link": "R9->R2"}) and "R1->R2" in err({"link": "R9->R2"})
    assert "exactly one of link" in err({"link": "R1->R2", "node": "R1"})
    assert "capture[0].file" in err({"link": "R1->R2", "file": "../x.pcap"})
    assert "capture[0].file" in err({"link": "R1->R2", "file": "x.txt"})
    assert "capture[0].snaplen" in err({"link": "R1->R2", "snaplen": "10B"})
    assert "capture[0].stop" in err({"link": "R1->R2", "start": "2s", "stop": "1s"})
    m = err({"link": "R1->R2", "snaplen": "64B", "nope": 1})
    assert "capture[0].nope" in m


def test_capture_is_deterministic_and_off_by_default():
    a, b = ccsim.run(SCENARIO), ccsim.run(SCENARIO)
    assert a.files == b.files
    plain = {k: v for k, v in SCENARIO.items() if k not in ("capture", "trace")}
    r = ccsim.run(plain)
    assert r.files == {} and r.trace is None
    # capturing does not change what happens
    assert r.flows.equals(a.flows) and r.queues.equals(a.queues)


def test_a_flow_with_its_own_handshake_shows_its_syn_once(tmp_path):
    # `handshake = true` on the flow (docs/models/tcp.md#handshake): the capture writes the
    # flow's own SYN and SYN-ACK when they pass, no synthetic ones; data follows the
    # SYN-ACK: at R1, one round trip (2 × (10 + 1 + 1) ms plus serialization) after the SYN.
    sc = {
        "seed": 1,
        "duration": "1s",
        "topology": SCENARIO["topology"],
        "flows": [{"pairs": [0], "cc": "newreno", "sack": True, "handshake": True}],
        "capture": [{"link": "R1->R2", "file": "f.pcap"}, {"link": "R2->R1", "file": "r.pcap"}],
    }
    r = ccsim.run(sc)
    r.save(tmp_path)
    fwd, rev = _read(tmp_path / "f.pcap"), _read(tmp_path / "r.pcap")
    syn = [(t, p) for t, p, _ in fwd if p.data.flags & dpkt.tcp.TH_SYN]
    synack = [(t, p) for t, p, _ in rev if p.data.flags & dpkt.tcp.TH_SYN]
    assert len(syn) == 1 and len(synack) == 1
    assert not syn[0][1].data.flags & dpkt.tcp.TH_ACK and synack[0][1].data.flags & dpkt.tcp.TH_ACK
    first_data = min(t for t, p, _ in fwd if len(p.data.data) > 0)
    assert fwd[0][0] == syn[0][0], "the SYN is the flow's first packet on the link"
    assert 0.024e9 < first_data - syn[0][0] < 0.026e9
