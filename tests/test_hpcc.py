"""HPCC through the Python API (docs/models/hpcc.md): ``kind = "roce"`` flows with
``rate_control = "hpcc"`` on a 100 Gb/s dumbbell whose PFC switches stamp in-band
telemetry (``[switches] int = true``); the window time series (``cwnd_bytes``: W), the
HPCC counters in ``summary["cc"]``, and the one-line ``ScenarioError`` of HPCC without
telemetry or with bad values."""

import pytest

import ccsim


def _dumbbell(flow=None, switches=None, pairs=4):
    return {
        "seed": 1,
        "duration": "10ms",
        "warmup": "5ms",
        "topology": {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck": {"rate": "100Gbps", "delay": "1us", "queue": {"limit": "10MB"}},
            "access": {"rate": "100Gbps", "delay": "1us"},
        },
        "switches": {"buffer": "12MB", "pfc": {}, "int": True} if switches is None else switches,
        "flows": [{"pairs": "all", "kind": "roce", "rate_control": "hpcc", **(flow or {})}],
        "monitor": {"interval": "100us", "flows": "all"},
    }


def test_hpcc_flows_fill_the_port_to_eta_with_a_short_queue():
    r = ccsim.run(_dumbbell())
    assert list(r.flows.cc) == ["hpcc"] * 4
    q = r.queues.set_index("queue").loc["R1->R2"]
    # HPCC aims the bottleneck at eta = 0.95 with a near-empty queue (Li et al. 2019).
    assert 0.92 < q.utilization < 0.98
    assert q.mean_len_bytes < 2000 and q.drops == 0
    shares = r.flows.bytes_delivered_window
    assert shares.sum() ** 2 / (len(shares) * (shares**2).sum()) > 0.95  # Jain
    # The window stays near a quarter of the BDP each (100 Gb/s x ~6.3 us / 4).
    f = r.timeseries["flow"]
    w = f[f.time_s > 0.005].cwnd_bytes.mean()
    assert 0.15 * 79_000 < w < 0.4 * 79_000, w
    cc = r.summary["cc"]["f0"]
    assert cc["updates"] > 100 and cc["fast_reacts"] > cc["updates"]
    assert cc["go_back_n"] == 0


@pytest.mark.parametrize(
    "switches, key",
    [
        ({}, "switches.int"),
        ({"buffer": "12MB", "pfc": {}}, "switches.int"),
        ({"buffer": "12MB", "int": True, "nodes": ["R2"]}, "switches.nodes"),
    ],
)
def test_hpcc_without_telemetry_is_refused_naming_the_key(switches, key):
    sc = _dumbbell(switches=switches or None)
    if switches == {}:
        del sc["switches"]
    with pytest.raises(ccsim.ScenarioError, match=rf"^{key}: got .*hpcc") as e:
        ccsim.run(sc)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "flow, key",
    [
        ({"eta": 0}, "eta"),
        ({"eta": 1.2}, "eta"),
        ({"max_stage": -1}, "max_stage"),
        ({"base_rtt": "0s"}, "base_rtt"),
        ({"w_ai": "lots"}, "w_ai"),
        ({"g": 0.5}, "g"),
    ],
)
def test_bad_hpcc_values_name_their_key(flow, key):
    with pytest.raises(ccsim.ScenarioError, match=rf"flows\[0\]\.{key}"):
        ccsim.run(_dumbbell(flow))
