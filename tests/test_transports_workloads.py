"""Non-TCP transports (BLT, Bully-Tyrant) and open-loop workloads through the Python API."""

import math

import ccsim
import numpy as np
import pytest
from ccsim.scenarios import path as bundled


def dumbbell(
    pairs=1, rate="10Mbps", access="10Mbps", delay="10ms", access_delay="1ms", limit="50pkt"
):
    return {
        "kind": "dumbbell",
        "pairs": pairs,
        "bottleneck": {"rate": rate, "delay": delay, "queue": {"kind": "droptail", "limit": limit}},
        "access": {"rate": access, "delay": access_delay},
    }


def blt_run(kind, queue="prio_discard"):
    # Kim & Farber §4.1.1 in small: 10 Mbps access links into a 15 Mbps... here 150 Mbps
    # access links into a 15 Mbps bottleneck with a 20-packet buffer, two 1 MB
    # files of 500 B packets starting together.
    topo = dumbbell(2, rate="15Mbps", access="150Mbps", delay="5ms", limit="20pkt")
    topo["bottleneck"]["queue"]["kind"] = queue
    sc = {
        "seed": 1,
        "duration": "20s",
        "topology": topo,
        "flows": [{"pairs": "all", "kind": kind, "size": "1MB", "mss": 460, "name": kind}],
        "monitor": {"interval": "1ms", "flows": [f"{kind}.0"]},
    }
    return ccsim.run(sc)


def test_blt_completes_files_through_a_priority_discard_switch():
    # Kim & Farber §3.3: each burst is sent at the access rate (10× the bottleneck's);
    # losses restart it at the hole with priority 0, which the switch keeps
    # by discarding the less important tail of earlier bursts.
    r = blt_run("blt")
    f = r.flows
    assert (f.kind == "blt").all() and (f.cc == "").all() and (f.cwnd_bytes == 0).all()
    assert (f.bytes_delivered == 1_000_000).all() and (f.completion_s > 0).all()
    # Resets on a duplicate ACK with a later echo (counted as fast
    # retransmits) re-send what the receiver may already hold.
    assert (f.fast_retransmits > 10).all() and (f.bytes_sent > 1_000_000).all()
    # The flow time series' cc_state is the next packet's priority,
    # floor(log2(k + 1)) for the k-th packet of a burst: small after a reset
    # (sampled every 1 ms, 37 packet times), up to 11 for the 2174 packets of
    # a whole file.
    prio = r.timeseries["flow"].cc_state.dropna()
    assert prio.min() <= 2 and 8 <= prio.max() <= 11
    s = r.summary
    assert s["packets_created"] == (
        s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
    )


def test_bully_tyrant_melts_down_where_blt_does_not():
    # Kim & Farber §4.2.6: the same sender without priorities meets the same
    # switch as a drop-tail FIFO; the queue stays full of the tails of its
    # bursts and a restarted burst's first packet finds no room ("congestion
    # meltdown"). With drop-tail BLT is Bully-Tyrant.
    blt = blt_run("blt").flows
    bt = blt_run("bully-tyrant").flows
    assert (bt.kind == "bully-tyrant").all()
    assert bt.bytes_delivered.sum() < 0.5 * blt.bytes_delivered.sum()
    bt_fifo = blt_run("bully-tyrant", "droptail").flows
    blt_fifo = blt_run("blt", "droptail").flows
    assert list(blt_fifo.bytes_delivered) == list(bt_fifo.bytes_delivered)


@pytest.mark.parametrize(
    ("flow", "key", "words"),
    [
        ({"kind": "blt", "size": "1MB", "sack": True}, "sack", "SACK is a TCP option"),
        ({"kind": "bully-tyrant", "size": "1MB", "cc": "reno"}, "cc", "congestion control"),
        ({"kind": "bully-tyrant", "size": "1MB", "gamma": 3}, "gamma", "unknown key"),
        ({"kind": "blt", "size": "inf"}, "size", "finite size"),
        ({"kind": "blt", "size": "1MB", "colour": 1}, "colour", "unknown key"),
    ],
)
def test_bad_transport_keys_name_the_key(flow, key, words):
    sc = {"duration": "1s", "topology": dumbbell(), "flows": [{"pairs": [0], **flow}]}
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(sc)
    msg = str(e.value)
    assert f"flows[0].{key}" in msg and words in msg and "\n" not in msg


def workload_scenario(**w):
    return {
        "seed": w.pop("seed", 1),
        "duration": w.pop("duration", "60s"),
        "topology": dumbbell(
            4, rate="1Gbps", access="1Gbps", delay="1ms", access_delay="1ms", limit="1000pkt"
        ),
        "workloads": [{"name": "w", "pairs": "all", **w}],
    }


def test_a_workload_scenario_resolves_to_itself():
    # The resolved form is a scenario in its own right: resolving it again
    # changes nothing (a workload's TCP transport once resolved with a `size`
    # its own reader then refused).
    r = ccsim.resolve(bundled("workload-100k"))
    assert "size" not in r["workloads"][0]["transport"]
    assert ccsim.resolve(r) == r


def test_realised_arrival_rate_and_mean_size_match_the_request():
    # Poisson arrivals at λ = 50/s for 60 s: N ~ Poisson(3000), so |N − λT| <
    # 4·sqrt(λT) = 219 (4σ). Exponential sizes with mean m: the sample mean of
    # N draws has standard error m/sqrt(N); 4σ ≈ 7.3 % of m.
    lam, T, m = 50.0, 60.0, 20_000
    r = ccsim.run(workload_scenario(arrival_rate=lam, size={"dist": "exponential", "mean": "20KB"}))
    w = r.workloads.iloc[0]
    n = w.arrivals
    assert abs(n - lam * T) < 4 * math.sqrt(lam * T)
    assert w.rate_requested == lam and abs(w.rate_realised - n / T) < 1e-9
    assert abs(w.mean_size_realised - m) < 4 * m / math.sqrt(n)
    assert abs(w.load_requested_bps - 8 * lam * m) < 1e-6
    c = r.connections
    assert len(c) == n and abs(c.size_bytes.mean() - w.mean_size_realised) < 1e-6
    # Inter-arrival times are exponential: their coefficient of variation is 1
    # (standard error ≈ 1/sqrt(N) for the CV of an exponential sample).
    gaps = np.diff(np.sort(c.start_s.to_numpy()))
    assert abs(gaps.std() / gaps.mean() - 1) < 4 / math.sqrt(n)
    # Pairs are drawn uniformly from the four: each gets N/4 ± 4·sqrt(N·3/16).
    counts = c.groupby("src").size()
    assert len(counts) == 4 and (abs(counts - n / 4) < 4 * math.sqrt(n * 3 / 16)).all()
    # An idle 1 Gbps path: every connection completes, nothing is lost.
    assert (c.last_ack_s > 0).all() and (c.retransmits == 0).all()


def test_per_pair_processes_and_both_directions():
    r = ccsim.run(
        workload_scenario(
            arrival_rate=10, size="10KB", process="per_pair", direction="both", duration="20s"
        )
    )
    w = r.workloads
    assert len(w) == 8 and (w.pairs == 1).all()
    assert list(w.direction) == ["forward"] * 4 + ["reverse"] * 4
    c = r.connections
    assert set(c.src) == {"s0", "s1", "s2", "s3", "d0", "d1", "d2", "d3"}
    assert w.arrivals.sum() == len(c)


def test_response_time_on_an_idle_path_matches_the_hand_calculation():
    # No handshake is modelled: a connection's sender starts at its arrival.
    # Three hops of 8 Mbps (1000 B data packets take T = 1 ms to serialize, a
    # 40 B ACK Ta = 40 µs), propagation 1 + 5 + 1 ms each way. A file of n = 10
    # packets sent back to back (TCP with an initial window of 10, or BLT at the
    # access rate): the last packet reaches the receiver at (n + 2)·T + 7 ms
    # (store and forward, pipelined), its ACK the sender 3·Ta + 7 ms later.
    n, T, Ta, prop = 10, 1e-3, 40e-6, 7e-3
    first_byte = 3 * T + prop
    last_byte = (n + 2) * T + prop
    resp = last_byte + 3 * Ta + prop
    for transport in ({"kind": "tcp", "init_cwnd": n, "mss": 960}, {"kind": "blt", "mss": 960}):
        sc = {
            "seed": 5,
            "duration": "20s",
            "topology": dumbbell(1, rate="8Mbps", access="8Mbps", delay="5ms"),
            "workloads": [
                {"pairs": "all", "arrival_rate": 2, "size": "9600B", "transport": transport}
            ],
        }
        r = ccsim.run(sc)
        c = r.connections
        assert len(c) > 20
        # Arrivals 0.5 s apart on average: those more than 0.1 s from their
        # predecessor and their successor (a fraction e^-0.4 = 67 %) have the
        # path to themselves. (A successor matters to a paced BLT sender,
        # whose packets then share the access link's queue with it.)
        t = c.start_s
        idle = c[(t.diff().fillna(1.0) > 0.1) & (-t.diff(-1).fillna(-1.0) > 0.1)]
        assert len(idle) > 0.5 * len(c)
        for col, want in (
            ("first_byte_s", first_byte),
            ("last_byte_s", last_byte),
            ("last_ack_s", resp),
        ):
            got = (idle[col] - idle.start_s).to_numpy()
            np.testing.assert_allclose(got, want, atol=2e-9, err_msg=f"{transport['kind']} {col}")
        np.testing.assert_allclose(idle.response_time_s, resp, atol=2e-9)


def test_completions_stop_the_run_and_slots_are_reused():
    r = ccsim.run(workload_scenario(arrival_rate=200, size="100KB", completions=500))
    s = r.summary
    assert s["connections_completed"] == 500
    assert s["duration_s"] < 60
    c = r.connections
    assert c.last_ack_s.max() == pytest.approx(s["duration_s"], abs=1e-9)
    # State is freed on completion: the flow slots are as many as were alive at once.
    assert s["connection_slots"] == s["connections_peak_alive"] < 50
    assert s["connections_started"] == len(c) >= 500


def test_complete_first_waits_for_the_first_k_arrivals_while_arrivals_go_on():
    r = ccsim.run(workload_scenario(arrival_rate=200, size="100KB", complete_first=300))
    c, s = r.connections, r.summary
    first = c[c.conn < 300]
    assert first.last_ack_s.notna().all(), "every one of the first 300 completed"
    assert first.last_ack_s.max() == pytest.approx(s["duration_s"], abs=1e-9)
    assert len(c) > 300, "arrivals went on while the last of them finished"
    # Stopping at the 300th completion instead leaves some of the first 300 out.
    k = ccsim.run(workload_scenario(arrival_rate=200, size="100KB", completions=300))
    assert k.summary["duration_s"] <= s["duration_s"]


def test_max_alive_ends_a_diverging_run_and_says_why():
    # 400 arrivals/s of 1 MB on 1 Gb/s (3.2 Gb/s offered): connections pile up.
    r = ccsim.run(workload_scenario(arrival_rate=400, size="1MB", max_alive=50))
    s = r.summary
    assert s["stopped_by"].startswith("max_alive: 50 connections alive at")
    assert s["duration_s"] < 1.0
    assert s["connections_started"] - s["connections_completed"] == 50
    ok = ccsim.run(workload_scenario(arrival_rate=50, size="10KB", complete_first=100))
    assert ok.summary["stopped_by"].startswith('complete_first: workload "w" at')


def test_idle_pick_gives_each_connection_its_own_pair():
    """With more pairs than connections alive at once, no two live connections share a
    pair (access links of their own), unlike a uniform pick."""

    def overlaps(c):
        n = 0
        for _, g in c.groupby("src"):
            g = g.sort_values("start_s")
            end = g.last_ack_s.fillna(np.inf).to_numpy()
            n += int((g.start_s.to_numpy()[1:] < np.maximum.accumulate(end)[:-1]).sum())
        return n

    sc = workload_scenario(arrival_rate=300, size="100KB", duration="5s")
    sc["topology"]["pairs"] = 40
    sc["workloads"][0]["pick"] = "idle"
    r = ccsim.run(sc)
    assert r.summary["connections_peak_alive"] < 40
    assert r.workloads.busy_picks.iloc[0] == 0
    assert overlaps(r.connections) == 0
    sc["workloads"][0]["pick"] = "uniform"
    assert overlaps(ccsim.run(sc).connections) > 10


def test_connection_table_saves_and_loads(tmp_path):
    r = ccsim.run(workload_scenario(arrival_rate=20, size="10KB", duration="5s"))
    d = r.save(tmp_path / "run")
    assert (d / "connections.parquet").exists() and (d / "workloads.parquet").exists()
    back = ccsim.Results.load(d)
    assert back.connections.equals(r.connections) and back.workloads.equals(r.workloads)


def test_pareto_cross_traffic_in_both_directions_reports_its_offered_load():
    # docs/models/bmcc.md, "Experiment settings": 10 % of a 45 Mbps bottleneck per direction (4.5 Mbps),
    # Pareto sizes of mean 30 kB and shape 1.2 ⇒ 18.75 arrivals/s per direction.
    sc = {
        "seed": 2,
        "duration": "40s",
        "topology": dumbbell(1, rate="45Mbps", access="450Mbps", delay="18ms", limit="225pkt"),
        "workloads": [
            {
                "name": "cross",
                "pairs": "all",
                "direction": "both",
                "offered_load": "4.5Mbps",
                "size": {"dist": "pareto", "shape": 1.2, "mean": "30KB"},
                "transport": {"kind": "tcp", "sack": True, "mss": 960},
            }
        ],
    }
    w = ccsim.run(sc).workloads
    assert list(w.direction) == ["forward", "reverse"]
    np.testing.assert_allclose(w.rate_requested, 18.75)
    np.testing.assert_allclose(w.load_requested_bps, 4.5e6)
    # The realised load is reported beside it; with shape 1.2 the sample mean
    # converges slowly (infinite variance), so only its order is checked here.
    assert (w.load_realised_bps > 0.2 * 4.5e6).all() and (w.load_realised_bps < 5 * 4.5e6).all()
    assert (abs(w.arrivals - 18.75 * 40) < 4 * math.sqrt(18.75 * 40)).all()


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"arrival_rate": 0}, "arrival_rate", "positive"),
        ({"arrival_rate": -3}, "arrival_rate", "positive"),
        ({"arrival_rate": "fast"}, "arrival_rate", "connections per second"),
        ({"offered_load": "0bps", "arrival_rate": None}, "offered_load", "positive"),
        ({"size": {"dist": "pareto", "shape": 1.0, "mean": "30KB"}}, "size.shape", "infinite"),
        (
            {
                "size": {"dist": "pareto", "shape": 0.8, "min": "1KB"},
                "arrival_rate": None,
                "offered_load": "1Mbps",
            },
            "offered_load",
            "infinite",
        ),
        ({"transport": {"kind": "cbr", "rate": "1Mbps"}}, "transport.kind", "transfers"),
        ({"transport": {"kind": "tcp", "size": "1MB"}}, "transport.size", "workload"),
        ({"transport": {"kind": "blt", "sack": True}}, "transport.sack", "SACK"),
        ({"process": "each"}, "process", "per_pair"),
        ({"sources": ["s0"]}, "sources", "not both"),
        ({"arrivals": 3}, "arrivals", "unknown key"),
    ],
)
def test_bad_workload_input_names_the_key(change, key, words):
    w = {"name": "w", "pairs": "all", "arrival_rate": 5, "size": "10KB"}
    w.update(change)
    w = {k: v for k, v in w.items() if v is not None}
    sc = {"duration": "1s", "topology": dumbbell(2), "workloads": [w]}
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(sc)
    msg = str(e.value)
    assert f"workloads[0].{key}" in msg and words in msg and "\n" not in msg


def test_blt_workload_discards_packets_of_closed_connections_and_is_deterministic():
    # BLT connections through a congested priority-discard switch: resets send
    # copies that are still in the network when the last ACK closes the
    # connection; they are discarded on arrival (the slot may hold a new
    # connection by then) and packet conservation still holds.
    topo = dumbbell(4, rate="30Mbps", access="150Mbps", delay="5ms", limit="40pkt")
    topo["bottleneck"]["queue"]["kind"] = "prio_discard"
    sc = {
        "seed": 4,
        "duration": "10s",
        "topology": topo,
        "workloads": [
            {
                "pairs": "all",
                "arrival_rate": 25,
                "size": "100KB",
                "transport": {"kind": "blt", "mss": 460},
            }
        ],
    }
    a, b = ccsim.run(sc), ccsim.run(sc)
    s = a.summary
    assert s["stale_packets"] > 0
    assert s["packets_created"] == (
        s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
    )
    assert s["connection_slots"] == s["connections_peak_alive"] < s["connections_started"]
    c = a.connections
    assert (c.retransmits > 0).any()
    done = c[c.last_ack_s.notna()]
    assert (done.last_byte_s <= done.last_ack_s).all() and (
        done.first_byte_s <= done.last_byte_s
    ).all()
    assert c.equals(b.connections) and a.workloads.equals(b.workloads)
