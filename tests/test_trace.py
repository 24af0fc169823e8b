"""The per-packet event trace (``[trace]``): its rows agree with the queue counters and
with each other (every enqueued packet is dropped or dequeued, every dequeued one is
received or lost), the flow and time filters hold, and the ns-2 text form."""

import re

import pytest

import ccsim

SCENARIO = {
    "seed": 5,
    "duration": "4s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 3,
        "bottleneck": {
            "rate": "8Mbps",
            "delay": "10ms",
            "loss": 0.002,
            "queue": {
                "kind": "red",
                "limit": "30pkt",
                "min_th": 3,
                "max_th": 10,
                "mean_pktsize": "1500B",
                "ecn": True,
            },
        },
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "flows": [
        {"pairs": [0, 1], "cc": "newreno", "ecn": True},
        {"pairs": [2], "kind": "cbr", "rate": "3Mbps"},
    ],
    "trace": {"links": ["R1->R2"], "ns2": True},
}


@pytest.fixture(scope="module")
def r():
    return ccsim.run(SCENARIO)


def test_trace_agrees_with_the_queue_counters(r):
    t = r.trace
    assert set(t["link"].unique()) == {"R1->R2"}
    q = r.queue("R1->R2")  # warm-up 0: the counters cover the whole run, as the trace
    n = t.groupby("event", observed=True).size()
    assert n["enqueue"] == q["arrivals"]
    assert n["mark"] == q["marks"] > 0
    drops = t[t["event"] == "drop"].groupby("reason", observed=True).size()
    for reason in ("overflow", "early", "forced", "link_loss"):
        assert drops.get(reason, 0) == q[f"drops_{reason}"], reason
    assert drops.get("link_loss", 0) > 0 and drops.get("early", 0) + drops.get("overflow", 0) > 0
    # serialization completes at most one packet after it starts
    assert 0 <= n["dequeue"] - q["departures"] <= 1


def test_every_packet_has_a_consistent_life(r):
    t = r.trace
    by = {e: set(t.loc[t["event"] == e, "uid"]) for e in ("enqueue", "dequeue", "drop", "receive")}
    lost = set(t.loc[t["reason"] == "link_loss", "uid"])
    queue_drops = by["drop"] - lost
    assert not (queue_drops & by["dequeue"])  # dropped from the queue or sent, not both
    assert by["dequeue"] | queue_drops <= by["enqueue"]
    assert lost <= by["dequeue"] and not (lost & by["receive"])
    assert by["receive"] <= by["dequeue"]
    waiting = by["enqueue"] - by["dequeue"] - queue_drops  # still queued at the end
    last = t[t["event"] != "receive"].iloc[-1]
    assert len(waiting) == last["queue_pkts"]
    # not received: lost, or still on the wire at the end (sent in the last delay + tx time)
    unreceived = t[(t["event"] == "dequeue") & t["uid"].isin(by["dequeue"] - by["receive"] - lost)]
    assert (unreceived["time_s"] > 4 - 0.010 - 1500 * 8 / 8e6).all()
    # times never go backwards, and each packet goes enqueue -> dequeue -> receive
    assert t["time_ns"].is_monotonic_increasing
    first = t.groupby("uid")["time_ns"].agg(["min", "max"])
    assert (first["min"] <= first["max"]).all()
    s = t[t["event"].isin(["enqueue", "receive"])].pivot_table(
        index="uid", columns="event", values="time_ns", observed=True
    )
    s = s.dropna()
    assert (s["receive"] - s["enqueue"] >= 10_000_000).all()  # at least the 10 ms delay


def test_marks_set_ce_and_fields_are_the_packets(r):
    t = r.trace
    marked = set(t.loc[t["event"] == "mark", "uid"])
    rec = t[(t["event"] == "receive") & t["uid"].isin(marked)]
    assert len(rec) and (rec["ecn"] == "ce").all()
    data = t[t["kind"] == "data"]
    assert (data["seq"] % 1460 == 0).all() and (data["size_bytes"] == 1500).all()
    cbr = t[(t["flow"] == "f2") & (t["event"] == "enqueue")]
    assert (cbr["kind"] == "datagram").all()
    assert list(cbr["seq"]) == sorted(cbr["seq"]) and cbr["seq"].is_unique  # datagram numbers


def test_ns2_text_trace(r):
    text = r.files["trace.tr"].decode()
    lines = text.splitlines()
    t = r.trace
    assert len(lines) == (t["event"] != "mark").sum()  # ns-2 has no mark event
    pat = re.compile(
        r"^[+\-dr] \d+(\.\d+)? \d+ \d+ (tcp|ack|cbr) \d+ [C-][P-]-[A-][E-]-[N-] \d+ "
        r"\d+\.\d+ \d+\.\d+ -?\d+ \d+$"
    )
    bad = [x for x in lines if not pat.match(x)]
    assert not bad, bad[:3]
    assert sum(x.startswith("d ") for x in lines) == (t["event"] == "drop").sum()
    first = t[t["event"] != "mark"].iloc[0]
    ev = {"enqueue": "+", "dequeue": "-", "drop": "d", "receive": "r"}[first["event"]]
    assert lines[0].startswith(f"{ev} {first['time_s']:.9f}".rstrip("0"))
    assert lines[0].endswith(f" {first['uid']}")


def test_filters_by_flow_and_time():
    sc = {**SCENARIO, "trace": {"links": "all", "flows": ["f2"], "start": "1s", "stop": "2s"}}
    r = ccsim.run(sc)
    t = r.trace
    assert set(t["flow"].unique()) == {"f2"}
    assert t["time_s"].between(1, 2).all() and len(t) > 100
    assert len(t["link"].unique()) >= 3  # access, bottleneck, receiver access
    assert "trace.tr" not in r.files


def test_trace_errors_name_the_key():
    def err(trace):
        with pytest.raises(ccsim.ScenarioError) as e:
            ccsim.run({**SCENARIO, "trace": trace})
        return str(e.value)

    m = err({"links": ["R1-R2"]})
    assert m.startswith("trace.links:") and 'did you mean "R1->R2"' in m
    assert err({"flows": ["f9"]}).startswith("trace.flows:")
    assert err({"ns2": "out.txt"}).startswith("trace.ns2:")
    assert err({"stop": "1s", "start": "2s"}).startswith("trace.stop:")
    assert 'did you mean "links"' in err({"link": ["R1->R2"]})


def test_saved_and_loaded(r, tmp_path):
    r.save(tmp_path / "run")
    back = ccsim.Results.load(tmp_path / "run")
    assert back.trace.equals(r.trace) or (back.trace.astype(str) == r.trace.astype(str)).all().all()
    assert back.files["trace.tr"] == r.files["trace.tr"]
    assert (tmp_path / "run" / "trace.tr").exists()
