"""RoCEv2 with DCQCN through the Python API (docs/models/dcqcn.md): ``kind = "roce"``
flows on a 40 Gb/s dumbbell with PFC switches and DCQCN's Kmin/Kmax marking; the rate
time series (``cc_state``: Rc in B/s), the DCQCN counters in ``summary["cc"]``, and bad
values' one-line ``ScenarioError``."""

import numpy as np
import pytest

import ccsim


def _dumbbell(flow, duration="40ms", queue=None):
    return {
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {
                "rate": "40Gbps",
                "delay": "1us",
                "queue": queue or {"kind": "kmin_kmax", "limit": "10MB"},
            },
            "access": {"rate": "40Gbps", "delay": "1us"},
        },
        "switches": {"buffer": "12MB", "pfc": {}},
        "flows": [{"pairs": "all", "kind": "roce", **flow}],
        "monitor": {"interval": "100us", "flows": "all", "queues": ["R1->R2"]},
    }


def test_two_dcqcn_flows_share_the_link_and_report_their_rates():
    r = ccsim.run({**_dumbbell({}), "warmup": "20ms"})
    assert list(r.flows.cc) == ["dcqcn", "dcqcn"]
    assert r.queues.set_index("queue").loc["R1->R2", "utilization"] > 0.95
    assert r.queues.drops.sum() == 0
    f = r.timeseries["flow"]
    late = f[f.time_s > 0.02]
    rates = late.groupby("flow").cc_state.mean() * 8  # bit/s
    assert np.all((rates > 15e9) & (rates < 25e9)), rates
    cc = r.summary["cc"]["f0"]
    assert cc["cnps"] > 0 and cc["fast_recovery"] > 0 and cc["go_back_n"] == 0
    assert (r.flows.ecn_reductions == [r.summary["cc"][n]["cnps"] for n in r.flows.name]).all()


@pytest.mark.parametrize(
    "flow, key",
    [
        ({"g": 0}, "g"),
        ({"g": 1.5}, "g"),
        ({"rate_timer": "0s"}, "rate_timer"),
        ({"byte_counter": 0}, "byte_counter"),
        ({"rate_ai": "-1Mbps"}, "rate_ai"),
        ({"window": 0}, "window"),
        ({"rate_control": "swift"}, "rate_control"),
        ({"t_low": "10us"}, "t_low"),
        ({"cc": "dctcp"}, "cc"),
    ],
)
def test_bad_values_name_their_key(flow, key):
    with pytest.raises(ccsim.ScenarioError, match=rf"flows\[0\]\.{key}"):
        ccsim.run(_dumbbell(flow, duration="1ms"))


def test_kmin_kmax_refuses_thresholds_out_of_order():
    q = {"kind": "kmin_kmax", "kmin": "50KB", "kmax": "20KB", "limit": "10MB"}
    with pytest.raises(ccsim.ScenarioError, match="kmax"):
        ccsim.run(_dumbbell({}, duration="1ms", queue=q))


def test_dcqcn_over_queues_that_never_mark_warns_once_per_flow_table():
    # DCQCN's only congestion signal is a CNP for a CE mark: over drop-tail queues
    # the NICs send at line rate (a valid run, without meaning), so ccsim.run warns
    from ccsim.api import EcnWarning

    dt = {"kind": "droptail", "limit": "10MB"}
    with pytest.warns(EcnWarning, match=r"flows\[0\]\.rate_control: DCQCN.*no CNP") as w:
        r = ccsim.run(_dumbbell({}, duration="2ms", queue=dt))
    assert len([x for x in w if issubclass(x.category, EcnWarning)]) == 1  # one table, 2 flows
    assert r.summary["cc"]["f0"]["cnps"] == 0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", EcnWarning)
        ccsim.run(_dumbbell({}, duration="2ms"))  # kmin_kmax marks: no warning
