"""ccsim.gym: the Gymnasium environments over in-process sessions (docs/gym.md)."""

import json
import math

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import ccsim  # noqa: E402
import ccsim.gym as cg  # noqa: E402
from ccsim import _ccsim  # noqa: E402
from gymnasium.error import ResetNeeded  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

SHORT = cg.Ranges(duration_s=1.0)


def dumbbell(rate="10Mbps", delay="18ms", limit="200pkt", duration="3s", agents=1):
    """A fixed dumbbell: 10 Mbit/s, 40 ms base RTT (18 ms + 2 x 1 ms each way)."""
    return {
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "pairs": agents,
            "bottleneck": {
                "rate": rate,
                "delay": delay,
                "queue": {"kind": "droptail", "limit": limit},
            },
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "flows": [{"pairs": "all", "cc": "agent", "mss": 1460}],
    }


@pytest.mark.parametrize(
    "env_id",
    [
        "ccsim/CongestionControl-v0",
        "ccsim/CongestionControlRate-v0",
        "ccsim/CongestionControlDiscrete-v0",
    ],
)
def test_registered_envs_pass_the_checker(env_id):
    env = gym.make(env_id, scenario=SHORT)
    check_env(env.unwrapped, skip_render_check=False)
    env.close()
    # the "module:id" form, which imports ccsim.gym in a process that has not
    gym.make("ccsim.gym:" + env_id, scenario=SHORT).close()


def test_same_seed_same_episode_other_seed_other_scenario():
    def episode(seed):
        env = cg.CongestionEnv(SHORT)
        obs, info = env.reset(seed=seed)
        seq, actions = [obs], np.random.default_rng(7)
        done = False
        while not done:
            obs, r, term, trunc, _ = env.step(actions.uniform(-1, 1, 1))
            seq.append(np.append(obs, r))
            done = term or trunc
        env.close()
        return info["scenario"], np.concatenate(seq)

    s1, a = episode(11)
    s2, b = episode(11)
    assert s1 == s2 and np.array_equal(a, b)
    s3, c = episode(12)
    assert s3 != s1


def test_window_of_one_and_two_bdp_against_theory():
    """10 Mbit/s, 40 ms: a BDP is 10e6 x 0.04 / 8 / 1500 = 33.3 packets of 1500 B on
    the wire. With cwnd = 34 packets the link is full and the queue nearly empty; with
    68 packets one BDP waits in the queue: RTT about 2 x 40 ms, queue delay about 40 ms."""
    for cwnd, ratio, qdelay in ((34, 1.0, 0.0), (68, 2.0, 40.0)):
        env = cg.CongestionEnv(
            dumbbell(),
            decision="interval",
            interval_s=0.1,
            action="cwnd",
            features=("delivery_rate", "rtt_ratio", "queue_delay", "cwnd", "loss_fraction"),
            queue="R1->R2",
            capacity_mbps=10,
        )
        env.reset(seed=0)
        for _ in range(20):
            obs, r, *_ = env.step(np.array([cwnd], dtype=np.float32))
        thr, rtt_ratio, qd, w, loss = obs
        assert w == cwnd and loss == 0
        assert thr == pytest.approx(10 * 1460 / 1500, rel=0.03)
        assert rtt_ratio == pytest.approx(ratio, abs=0.1)
        assert qd == pytest.approx(qdelay, abs=4.0)
        env.close()


def test_rate_action_paces_the_flow():
    """A pacing rate of 4 Mbit/s on a 10 Mbit/s path: 4 Mbit/s delivered, no queue."""
    env = cg.CongestionEnv(
        dumbbell(),
        decision="interval",
        interval_s=0.1,
        action="rate",
        features=("delivery_rate", "pacing_rate", "rtt_ratio"),
    )
    env.reset(seed=0)
    for _ in range(15):
        obs, *_ = env.step([4.0])
    assert obs[0] == pytest.approx(4.0, rel=0.03)
    assert obs[1] == pytest.approx(4.0, rel=1e-6)
    assert obs[2] < 1.1


def test_no_acks_in_an_interval_gives_no_nan():
    """Decisions every millisecond on a 200-ms path: most intervals have no ACK and
    no RTT sample; every feature stays finite."""
    env = cg.CongestionEnv(
        dumbbell(delay="98ms", duration="1s"),
        decision="interval",
        interval_s=0.001,
        features=tuple(cg.FEATURES),
        queue="R1->R2",
        full_info=True,
    )
    obs, _ = env.reset(seed=3)
    empty, done = 0, False
    while not done:
        obs, r, term, trunc, info = env.step([0.0])
        assert np.isfinite(obs).all() and math.isfinite(r)
        empty += info["row"]["acks"] == 0
        done = trunc
    assert empty > 500


def test_bad_actions_are_refused_by_name():
    env = cg.CongestionEnv(SHORT)
    env.reset(seed=0)
    for bad in ([1.5], [float("nan")], [0.1, 0.2], "up"):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
    env.step(np.float64(0.5))  # a number of the right shape is accepted
    d = cg.CongestionEnv(SHORT, action="discrete")
    d.reset(seed=0)
    for bad in (5, -1, 1.0):
        with pytest.raises(ValueError, match="outside the action space"):
            d.step(bad)
    d.step(np.int64(4))


def test_step_before_reset_and_after_the_end():
    env = cg.CongestionEnv(cg.Ranges(duration_s=0.2))
    with pytest.raises(ResetNeeded, match="before reset"):
        env.step([0.0])
    env.reset(seed=0)
    trunc = False
    while not trunc:
        _, _, term, trunc, _ = env.step([0.0])
        assert not term
    with pytest.raises(ResetNeeded, match="ended"):
        env.step([0.0])
    env.reset(seed=0)  # a new episode after the end
    env.step([0.0])


def test_reward_function_errors_name_the_function():
    def my_reward(features, info):
        return features["no such feature"]

    env = cg.CongestionEnv(SHORT, reward=my_reward)
    env.reset(seed=0)
    with pytest.raises(cg.RewardFunctionError, match="my_reward raised KeyError") as e:
        env.step([0.0])
    assert isinstance(e.value.__cause__, KeyError)
    env = cg.CongestionEnv(SHORT, reward=lambda f, i: float("nan"))
    env.reset(seed=0)
    with pytest.raises(cg.RewardFunctionError, match="returned nan"):
        env.step([0.0])
    custom = cg.CongestionEnv(SHORT, reward=lambda f, i: f["delivery_rate"] - f["rtt_ratio"])
    custom.reset(seed=0)
    _, r, *_ = custom.step([0.0])
    assert math.isfinite(r)


def test_settings_errors():
    with pytest.raises(ValueError, match="feature 'nope'"):
        cg.CongestionEnv(SHORT, features=("nope",))
    with pytest.raises(ValueError, match="action = 'up'"):
        cg.CongestionEnv(SHORT, action="up")
    with pytest.raises(ValueError, match="Ranges.rtt_ms"):
        cg.Ranges(rtt_ms=(50, 10))
    with pytest.raises(ValueError, match="needs queue="):
        cg.CongestionEnv(dumbbell(), features=("queue_delay",))
    env = cg.CongestionEnv(dumbbell(agents=2))
    with pytest.raises(ValueError, match="MultiAgentCongestionEnv"):
        env.reset(seed=0)
    with pytest.raises(ccsim.ScenarioError, match="queues"):
        _ccsim.Session(json.dumps(dumbbell()), interval_s=0.1, queues=["nope"])
    with pytest.raises(ccsim.ScenarioError, match='cc = "agent"'):
        sc = dumbbell()
        sc["flows"][0]["cc"] = "cubic"
        _ccsim.Session(json.dumps(sc), interval_s=0.1)


def test_multi_agent_two_flows_share_the_link():
    """Two agents each holding 34 packets on a 34-packet BDP: the queue holds a BDP,
    the RTT doubles, and each gets half the link (averaged over 1 s: a 100-ms interval
    against an 82-ms RTT sees one flow's bursts more than the other's)."""
    env = cg.MultiAgentCongestionEnv(
        dumbbell(agents=2),
        action="cwnd",
        interval_s=0.1,
        features=("delivery_rate", "rtt_ratio"),
        capacity_mbps=10,
    )
    assert env.possible_agents == ["f0", "f1"]
    obs, infos = env.reset(seed=1)
    assert set(obs) == {"f0", "f1"}
    with pytest.raises(ValueError, match="missing"):
        env.step({"f0": [10.0]})
    steps, rates = 0, []
    while env.agents:
        obs, rewards, term, trunc, infos = env.step({a: [34.0] for a in env.agents})
        rates.append([obs[a][0] for a in ("f0", "f1")])
        steps += 1
    # 3 s in 0.1-s intervals: 30 decision points, the first one ends reset()
    assert steps == 29 and all(trunc.values()) and not any(term.values())
    rates = np.mean(rates[-10:], axis=0)
    assert sum(rates) == pytest.approx(10 * 1460 / 1500, rel=0.03)
    assert rates[0] == pytest.approx(rates[1], rel=0.05)
    assert obs["f0"][1] == pytest.approx(2.0, abs=0.1)
    with pytest.raises(ResetNeeded):
        env.step({})
    with pytest.raises(ValueError, match="interval"):
        cg.MultiAgentCongestionEnv(decision="rtt")


def test_vector_envs_in_process_and_across_processes():
    sync = gym.make_vec(
        "ccsim/CongestionControl-v0",
        num_envs=3,
        vectorization_mode="sync",
        scenario=cg.Ranges(duration_s=0.3),
    )
    obs, _ = sync.reset(seed=5)
    assert obs.shape == (3, len(cg.DEFAULT_FEATURES))
    for _ in range(40):  # past the end: the episodes restart (next-step autoreset)
        obs, r, term, trunc, _ = sync.step(sync.action_space.sample())
        assert np.isfinite(obs).all()
    sync.close()
    asyn = gym.vector.AsyncVectorEnv([lambda: cg.CongestionEnv(cg.Ranges(duration_s=0.3))] * 2)
    a_obs, _ = asyn.reset(seed=[1, 2])
    one = cg.CongestionEnv(cg.Ranges(duration_s=0.3))
    o1, _ = one.reset(seed=2)
    assert np.array_equal(a_obs[1], o1)
    a_obs, *_ = asyn.step(np.zeros((2, 1), dtype=np.float32))
    o1, *_ = one.step([0.0])
    assert np.array_equal(a_obs[1], o1)
    asyn.close()


def test_results_of_an_episode():
    env = cg.CongestionEnv(dumbbell(duration="2s"), decision="interval", interval_s=0.1)
    env.reset(seed=0)
    for _ in range(5):
        env.step([0.0])
    res = env.results()
    flows = res.flows
    assert list(flows["cc"]) == ["agent"]
    assert flows["bytes_delivered"].iloc[0] > 0


def test_example_trains_and_compares_with_cubic_and_bbr(capsys):
    """The example end to end, in miniature: a few candidates, one held-out scenario."""
    from ccsim.examples import gym_cem

    means = gym_cem.main(
        ["--iterations", "2", "--population", "4", "--episodes", "1", "--held-out", "1"]
    )
    assert set(means) == {"trained", "cubic", "bbr"}
    for m in means.values():
        assert all(math.isfinite(v) for v in m.values()) and 0 <= m["utilization"] <= 1.05
    assert "held-out scenarios: 1" in capsys.readouterr().out


def test_docs_list_every_feature():
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "gym.md").read_text()
    for name in cg.FEATURES:
        assert f"| `{name}` |" in text, name
