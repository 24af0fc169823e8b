"""Link jitter (`jitter` on a link table, link.rs `Link::arrival`): each packet
propagates U[0, jitter) longer on every jittered hop, in order, through the real engine."""

import ccsim
import pytest


def one_flow(jitter: str | None, seed: int = 1) -> ccsim.Results:
    """One window-limited flow; ``jitter`` on its access links (None: the key unset)."""
    access = {"rate": "100Mbps", "delay": "1ms"} | ({"jitter": jitter} if jitter else {})
    return ccsim.run(
        {
            "seed": seed,
            "duration": "20s",
            "warmup": "2s",
            "topology": {
                "kind": "dumbbell",
                "pairs": 1,
                "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                "access": access,
            },
            # a receiver window below the path's BDP: no queue, no loss of its own
            "flows": [{"pairs": "all", "cc": "newreno", "rwnd": "16KB", "sack": True}],
        }
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_jitter_lengthens_rtts_by_its_mean_and_never_reorders(seed):
    plain, jittery = one_flow("0s", seed), one_flow("2ms", seed)
    p, j = plain.flows.iloc[0], jittery.flows.iloc[0]
    # A window-limited flow: goodput = window / RTT, so the mean RTT grows by
    # RTT·(plain goodput / jittered goodput − 1), the plain RTT being constant (no
    # queue). Four jittered hops per round trip (s0->R1, R2->d0 and back), 1 ms mean
    # each; the in-order floor adds a little (packets 1.2 ms apart: ~0.2 ms a hop).
    rtt = p["min_rtt_s"]
    assert p["srtt_s"] == pytest.approx(rtt)
    assert 0.004 < rtt * (p["goodput_bps"] / j["goodput_bps"] - 1) < 0.0055
    # the smallest RTT drew little jitter on all four hops
    assert j["min_rtt_s"] - p["min_rtt_s"] < 0.002
    # reordering would show as duplicate ACKs and fast retransmits
    assert p["retransmits"] == j["retransmits"] == 0
    assert int(jittery.queue("s0->R1")["drops"]) == 0


def test_jitter_is_deterministic_and_absent_jitter_changes_nothing():
    a, b = one_flow("2ms"), one_flow("2ms")
    assert a.flows.equals(b.flows)
    unset = one_flow(None)
    assert unset.flows.equals(one_flow("0s").flows)


def test_a_negative_jitter_names_the_key():
    sc = {
        "duration": "1s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "jitter": "-1ms"},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [{"pairs": "all", "cc": "newreno"}],
    }
    with pytest.raises(ccsim.ScenarioError, match=r"topology\.bottleneck\.jitter"):
        ccsim.run(sc)
