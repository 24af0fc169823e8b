"""FCT slowdown (ccsim.fct) through the Python API on a k = 4 fat-tree: the ideal FCT of a
one-segment transfer is the hand calculation over six store-and-forward hops; a
connection that had the network to itself in the run has slowdown exactly 1; under load
no connection beats its solo time; the buckets hold what falls in them."""

import math

import ccsim
import ccsim.fct as fct
import numpy as np
import pandas as pd
import pytest

LINK = {
    "rate": "10Gbps",
    "delay": "1us",
    "queue": {"kind": "step", "threshold": 65, "limit": "200pkt"},
}
HOSTS = [f"h{p}_{e}_{i}" for p in range(4) for e in range(2) for i in range(2)]


def _run(workload: dict, duration: str = "20ms", seed: int = 1):
    return ccsim.run(
        {
            "seed": seed,
            "duration": duration,
            "topology": {"kind": "fat_tree", "k": 4, "host_link": LINK, "fabric_link": LINK},
            "workloads": [
                {
                    "name": "w",
                    "transport": {"kind": "tcp", "cc": "dctcp", "init_cwnd": 10},
                    **workload,
                }
            ],
        }
    )


def test_the_ideal_fct_of_one_segment_is_six_hops_there_and_back():
    # 1 000 B of payload (1 040 B on the wire, 0.832 µs per hop at 10 Gb/s) over 6 hops
    # to another pod, its 40-B ACK (0.032 µs per hop) back over 6, 1 µs of propagation
    # per hop: 6·0.832 + 6·0.032 + 12·1 = 17.184 µs
    r = _run(
        {
            "sources": ["h0_0_0"],
            "destinations": ["h3_1_1"],
            "arrival_rate": 2000,
            "size": "1000B",
        },
        duration="5ms",
    )
    assert len(r.connections) >= 1
    ideal = fct.ideal(r)
    assert ideal.to_numpy() == pytest.approx([17.184e-6] * len(ideal), abs=1e-12)


def test_a_connection_alone_in_the_run_has_slowdown_one():
    r = _run(
        {
            "sources": HOSTS,
            "destinations": HOSTS,
            "arrival_rate": 300,
            "size": {"dist": "empirical", "cdf": "hadoop"},
        },
        duration="40ms",
    )
    d = fct.slowdown(r)
    spans = list(zip(d["start_s"], d["start_s"] + d["fct_s"]))
    alone = [
        i
        for i, (a, b) in enumerate(spans)
        if math.isfinite(b) and all(j == i or y <= a or x >= b for j, (x, y) in enumerate(spans))
    ]
    assert len(alone) >= 3
    assert (d["slowdown"].iloc[alone] == 1.0).all(), d.iloc[alone]


def test_under_load_no_connection_beats_its_solo_time():
    r = _run(
        {
            "sources": HOSTS,
            "destinations": HOSTS,
            "load": 0.6,
            "size": {"dist": "empirical", "cdf": "web_search"},
        }
    )
    d = fct.slowdown(r)
    done = d[np.isfinite(d["slowdown"])]
    assert len(done) > 50
    assert (done["slowdown"] >= 1 - 1e-9).all()
    assert done["slowdown"].max() > 1.5  # 60 % load queues somewhere
    table = fct.by_size(d)
    assert table["connections"].sum() == len(done)
    assert list(table.columns) == [
        "size_low_bytes",
        "size_high_bytes",
        "connections",
        "mean",
        "p50",
        "p95",
        "p99",
    ]


def test_buckets_hold_what_falls_in_them():
    d = pd.DataFrame({"size_bytes": [5, 50, 500, 5000], "slowdown": [1.0, 2.0, 3.0, np.nan]})
    t = fct.by_size(d, buckets=(0, 10, 1000, math.inf))
    assert t["connections"].tolist() == [1, 2, 0]
    assert t["mean"].tolist()[:2] == [1.0, 2.5]
    assert t["p50"].tolist()[1] == 2.5
    assert math.isnan(t["mean"].iloc[2])
