"""Collectives (``[[collectives]]``) and flows that wait for others (``after``) through the
Python API on a k = 4 fat-tree: a step starts when the transfer it depends on completes;
a ring all-reduce has 2(n−1) steps of ⌈S/n⌉ bytes from each host to the next, a butterfly
2·log₂ n steps of halving then doubling sizes with XOR partners; without contention the
ring takes 2(n−1) times a chunk's solo transfer; bad input names its key."""

import ccsim
import numpy as np
import pytest

LINK = {"rate": "10Gbps", "delay": "1us"}
PODS = [f"h{p}_0_0" for p in range(4)]


def _run(extra: dict, duration="50ms"):
    return ccsim.run(
        {
            "seed": 1,
            "duration": duration,
            "topology": {"kind": "fat_tree", "k": 4, "host_link": LINK, "fabric_link": LINK},
            **extra,
        }
    )


def test_a_flow_after_others_starts_when_the_last_completes():
    r = _run(
        {
            "flows": [
                {"name": "a", "src": "h0_0_0", "dst": "h1_0_0", "size": "100KB"},
                {"name": "b", "src": "h2_0_0", "dst": "h3_0_0", "size": "300KB"},
                {
                    "name": "c",
                    "src": "h1_0_0",
                    "dst": "h2_0_0",
                    "size": "10KB",
                    "after": ["a", "b"],
                    "start": "5us",
                },
            ]
        }
    ).flows.set_index("name")
    assert r.loc["c", "start_s"] == pytest.approx(
        max(r.loc["a", "completion_s"], r.loc["b", "completion_s"]) + 5e-6, abs=1e-12
    )
    assert r.loc["c", "completion_s"] > r.loc["c", "start_s"]


def test_a_ring_allreduce_is_2n_minus_2_chained_steps():
    r = _run(
        {
            "collectives": [
                {
                    "name": "ar",
                    "algorithm": "ring_allreduce",
                    "hosts": PODS,
                    "size": "4MB",
                    "init_cwnd": 10,
                }
            ]
        }
    )
    f = r.flows.set_index("name")
    assert len(f) == 4 * 6 and (f["bytes_delivered"] == 1_000_000).all()
    for k in range(1, 6):
        for i in range(4):
            # host i's step k starts when host i-1's step k-1 (to host i) completed
            assert (
                f.loc[f"ar/{k}/{i}", "start_s"]
                == f.loc[f"ar/{k - 1}/{(i - 1) % 4}", "completion_s"]
            )
    c = r.collectives.iloc[0]
    assert (c["algorithm"], c["hosts"], c["size_bytes"], c["flows"], c["flows_completed"]) == (
        "ring_allreduce",
        4,
        4_000_000,
        24,
        24,
    )
    assert c["completion_s"] == f["completion_s"].max()
    # each step's data crosses links no other data crosses (one pod to the next), so a
    # step takes a 1-MB transfer alone and a little more: the ACKs of the flow into the
    # next pod come down the same links (40 B for each 1500-B packet, 2.7 % of the
    # link), and the collective waits for the slowest of four chains
    alone = (
        _run({"flows": [{"src": "h0_0_0", "dst": "h1_0_0", "size": "1MB", "init_cwnd": 10}]})
        .flows["fct_s"]
        .iloc[0]
    )
    assert 6 * alone <= c["duration_s"] < 6 * alone * 1.08


def test_a_butterfly_halves_then_doubles():
    r = _run(
        {
            "collectives": [
                {"name": "bf", "algorithm": "butterfly_allreduce", "hosts": PODS, "size": "4MB"}
            ]
        }
    )
    f = r.flows.set_index("name")
    sizes = [f.loc[f"bf/{k}/0", "bytes_delivered"] for k in range(4)]
    assert sizes == [2_000_000, 1_000_000, 1_000_000, 2_000_000]
    partners = [f.loc[f"bf/{k}/0", "dst"] for k in range(4)]
    assert partners == ["h2_0_0", "h1_0_0", "h1_0_0", "h2_0_0"]
    assert np.isfinite(r.collectives["completion_s"].iloc[0])


@pytest.mark.parametrize(
    "extra, key, words",
    [
        (
            {
                "collectives": [
                    {"algorithm": "butterfly_allreduce", "hosts": PODS[:3], "size": "1MB"}
                ]
            },
            "collectives[0].hosts",
            "a power of two",
        ),
        (
            {"collectives": [{"algorithm": "tree", "size": "1MB"}]},
            "collectives[0].algorithm",
            "ring_allreduce",
        ),
        (
            {
                "collectives": [
                    {"algorithm": "ring_allreduce", "size": "1MB", "hosts": ["h0_0_0", "nowhere"]}
                ]
            },
            "collectives[0].hosts",
            "node names",
        ),
        (  # a host twice would send to itself (the engine crashed on it)
            {
                "collectives": [
                    {"algorithm": "ring_allreduce", "size": "1MB", "hosts": ["h0_0_0", "h0_0_0"]}
                ]
            },
            "collectives[0].hosts",
            "distinct host names (h0_0_0 is listed twice)",
        ),
        (
            {
                "flows": [
                    {"name": "a", "src": "h0_0_0", "dst": "h1_0_0", "after": ["zz"], "size": "1KB"}
                ]
            },
            "flows[0].after",
            "names of flows",
        ),
        (
            {
                "flows": [
                    {"name": "a", "src": "h0_0_0", "dst": "h1_0_0"},
                    {"name": "b", "src": "h1_0_0", "dst": "h2_0_0", "after": ["a"]},
                ]
            },
            "flows[1].after",
            "no finite `size`",
        ),
        (
            {
                "flows": [
                    {"name": "a", "src": "h0_0_0", "dst": "h1_0_0", "size": "1KB", "after": ["b"]},
                    {"name": "b", "src": "h1_0_0", "dst": "h2_0_0", "size": "1KB", "after": ["a"]},
                ]
            },
            "flows",
            "without cycles",
        ),
    ],
)
def test_bad_collectives_and_dependencies_are_refused_naming_the_key(extra, key, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        _run(extra)
    assert str(e.value).startswith(key) and words in str(e.value), str(e.value)
    assert "\n" not in str(e.value)  # one line
