"""``CongestionEnv``: one controlled flow as a Gymnasium environment, and
``MultiAgentCongestionEnv``: several in one network (a PettingZoo-style parallel API,
without a PettingZoo dependency). See docs/gym.md."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from ccsim.gym.core import (
    DEFAULT_FEATURES,
    FEATURES,
    Episode,
    Reward,
    Settings,
    action_space,
    check_action,
    observation_space,
)
from ccsim.gym.scenarios import Ranges

__all__ = ["CongestionEnv", "MultiAgentCongestionEnv"]


def _settings(
    agents,
    scenario,
    decision,
    interval_s,
    rtt_bounds_s,
    features,
    history,
    action,
    cwnd_bounds,
    rate_bounds_mbps,
    multipliers,
    reward,
    queue,
    capacity_mbps,
    mss,
):
    s = Settings(
        scenario=Ranges(agents=agents or 1) if scenario is None else scenario,
        decision=decision,
        interval_s=float(interval_s),
        rtt_bounds_s=tuple(rtt_bounds_s),
        features=tuple(features),
        history=history,
        action=action,
        cwnd_bounds=tuple(cwnd_bounds),
        rate_bounds=tuple(rate_bounds_mbps),
        multipliers=tuple(multipliers),
        reward=reward,
        queue=queue,
        capacity_mbps=capacity_mbps,
        mss=scenario.mss if isinstance(scenario, Ranges) else mss,
        agents=agents,
    )
    s.check()
    return s


class CongestionEnv(gym.Env):
    """One flow's congestion control as a Gymnasium environment.

    Each step applies the action, runs the engine in-process to the flow's next
    decision point and returns what the flow saw over the interval. The episode ends
    (``truncated``; nothing is terminal) at the scenario's duration.

    Parameters
    ----------
    scenario
        A :class:`Ranges` (a dumbbell drawn per episode from the reset seed; default
        ``Ranges()``) or a scenario dict with exactly one flow with ``cc = "agent"``
        (its ``seed`` is drawn per episode).
    decision
        ``"rtt"`` (default): decide once per smoothed RTT of the flow, within
        ``rtt_bounds_s`` (every ``initial_interval_s`` until the flow's first RTT
        sample); ``"interval"``: every ``interval_s`` seconds.
    features, history
        The observation: the named :data:`FEATURES` of the last ``history`` intervals,
        oldest first (float32).
    action
        ``"cwnd_scale"`` (cwnd x 2**a, a in [-1, 1]), ``"cwnd"`` (packets, within
        ``cwnd_bounds``), ``"rate_scale"`` (pacing rate x 2**a), ``"rate"`` (Mbit/s,
        within ``rate_bounds_mbps``) or ``"discrete"`` (cwnd x ``multipliers[a]``).
        A window stays within ``cwnd_bounds`` packets, a rate within
        ``rate_bounds_mbps``.
    reward
        A :class:`Reward` (weights of throughput, delay and loss) or a function
        ``reward(features: dict, info: dict) -> float``.
    queue
        A link whose queue delay the rows carry (feature ``queue_delay``); drawn
        scenarios observe their bottleneck.
    capacity_mbps
        The bottleneck's capacity for the reward, for a scenario dict.
    full_info
        Whether ``step`` returns the full info (the session's row and every feature,
        as the reward function gets it) or only the time (the default: vector
        environments merge every key of every step's info, which for the full one
        cost a third of their speed). ``reset`` always returns the full info and the
        drawn scenario.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 50}

    def __init__(
        self,
        scenario: Ranges | dict | None = None,
        *,
        decision: str = "rtt",
        interval_s: float = 0.02,
        rtt_bounds_s: tuple[float, float] = (0.005, 1.0),
        initial_interval_s: float = 0.1,
        features=DEFAULT_FEATURES,
        history: int = 1,
        action: str = "cwnd_scale",
        cwnd_bounds: tuple[float, float] = (2, 100_000),
        rate_bounds_mbps: tuple[float, float] = (0.05, 10_000),
        multipliers=(0.5, 0.8, 1.0, 1.25, 2.0),
        reward: Reward | Callable = Reward(),
        queue: str | None = None,
        capacity_mbps: float | None = None,
        mss: int = 1460,
        full_info: bool = False,
        render_mode: str | None = None,
    ):
        self.settings = _settings(
            1,
            scenario,
            decision,
            interval_s,
            rtt_bounds_s,
            features,
            history,
            action,
            cwnd_bounds,
            rate_bounds_mbps,
            multipliers,
            reward,
            queue,
            capacity_mbps,
            mss,
        )
        self.settings.full_info = bool(full_info)
        self.settings.initial_interval_s = float(initial_interval_s)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode = {render_mode!r}: None or 'ansi'")
        self.render_mode = render_mode
        s = self.settings
        self.observation_space = observation_space(s.features, s.history)
        self.action_space = action_space(s.action, s.cwnd_bounds, s.rate_bounds, s.multipliers)
        self._ep: Episode | None = None
        self._ended = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self._ep is not None:
            self._ep.close()
            self._ep = None
        self._ep = Episode(self, self.np_random)
        self._ended = self._ep.session.done
        info = self._ep.info(0)
        info["scenario"] = self._ep.values
        return self._obs(), info

    def _obs(self) -> np.ndarray:
        o = self._ep.trackers[0].observation()
        return np.clip(o, self.observation_space.low, self.observation_space.high)

    def step(self, action):
        if self._ep is None:
            raise ResetNeeded("step() before reset(): call reset() first")
        if self._ended:
            raise ResetNeeded(
                f"step() after the episode ended (truncated at t = {self._ep.session.now:g} s, "
                "the scenario's duration): call reset()"
            )
        a = check_action(self.action_space, action)
        self._ep.act(0, a)
        self._ep.advance()
        self._ended = self._ep.session.done
        info = self._ep.info(0, self.settings.full_info)
        return self._obs(), self._ep.reward(0), False, self._ended, info

    def render(self):
        if self.render_mode != "ansi" or self._ep is None:
            return None
        f = self._ep.feats[0]
        return f"t={self._ep.session.now:.3f}s " + " ".join(
            f"{k}={f[k]:.4g}{FEATURES[k][0] if FEATURES[k][0] != '1' else ''}"
            for k in self.settings.features
        )

    def close(self):
        if self._ep is not None:
            self._ep.close()
            self._ep = None

    def results(self):
        """The episode's result tables (``ccsim.Results``, as ``ccsim.run`` gives), up to
        where it stopped; ends the episode."""
        from ccsim.results import Results

        if self._ep is None:
            raise ResetNeeded("results() before reset()")
        raw = self._ep.session.finish()
        self._ep = None
        return Results._from_native(raw, 0.0, 0.0)


class MultiAgentCongestionEnv:
    """Several controlled flows in one network, each an agent, stepped together
    (PettingZoo's parallel API: ``possible_agents``, ``agents``,
    ``observation_space(agent)``, ``action_space(agent)``, ``reset(seed=)`` returning
    ``(observations, infos)`` and ``step(actions)`` returning ``(observations, rewards,
    terminations, truncations, infos)``, dicts by agent; no PettingZoo dependency).

    Agents are the flows with ``cc = "agent"`` (``Ranges(agents=n)`` draws ``n``); all
    decide at the same points, every ``interval_s`` (``decision = "interval"`` only).
    Other parameters as :class:`CongestionEnv`.
    """

    metadata = {"render_modes": [], "name": "ccsim_multi_agent_v0"}

    def __init__(
        self,
        scenario: Ranges | dict | None = None,
        *,
        agents: int | None = None,
        decision: str = "interval",
        interval_s: float = 0.02,
        features=DEFAULT_FEATURES,
        history: int = 1,
        action: str = "cwnd_scale",
        cwnd_bounds=(2, 100_000),
        rate_bounds_mbps=(0.05, 10_000),
        multipliers=(0.5, 0.8, 1.0, 1.25, 2.0),
        reward: Reward | Callable = Reward(),
        queue: str | None = None,
        capacity_mbps: float | None = None,
        mss: int = 1460,
    ):
        if decision != "interval":
            raise ValueError(
                f"decision = {decision!r}: the multi-agent environment steps all agents "
                "together, every interval_s ('interval')"
            )
        if scenario is None:
            scenario = Ranges(agents=agents or 2)
        n = scenario.agents if isinstance(scenario, Ranges) else None
        self.settings = _settings(
            n,
            scenario,
            decision,
            interval_s,
            (0.005, 1.0),
            features,
            history,
            action,
            cwnd_bounds,
            rate_bounds_mbps,
            multipliers,
            reward,
            queue,
            capacity_mbps,
            mss,
        )
        s = self.settings
        self._obs_space = observation_space(s.features, s.history)
        self._act_space = action_space(s.action, s.cwnd_bounds, s.rate_bounds, s.multipliers)
        self._ep: Episode | None = None
        self.np_random = np.random.default_rng()
        self.possible_agents: list[str] = self._names()
        self.agents: list[str] = []

    def _names(self) -> list[str]:
        sc = self.settings.scenario
        if isinstance(sc, Ranges):
            return [f"agent{i}" for i in range(sc.agents)]
        ep = Episode(self, np.random.default_rng(0))
        names = list(ep.names)
        ep.close()
        return names

    def observation_space(self, agent: str):
        return self._obs_space

    def action_space(self, agent: str):
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        if self._ep is not None:
            self._ep.close()
        self._ep = Episode(self, self.np_random)
        self.agents = list(self._ep.names)
        obs = {a: self._obs(i) for i, a in enumerate(self.agents)}
        infos = {a: self._ep.info(i) for i, a in enumerate(self.agents)}
        return obs, infos

    def _obs(self, i: int) -> np.ndarray:
        o = self._ep.trackers[i].observation()
        return np.clip(o, self._obs_space.low, self._obs_space.high)

    def step(self, actions: dict):
        if self._ep is None:
            raise ResetNeeded("step() before reset(): call reset() first")
        if not self.agents:
            raise ResetNeeded("step() after the episode ended: call reset()")
        unknown = set(actions) - set(self.agents)
        missing = [a for a in self.agents if a not in actions]
        if unknown or missing:
            raise ValueError(
                f"actions for {sorted(actions)}: one for each of {self.agents}"
                + (f"; unknown {sorted(unknown)}" if unknown else "")
                + (f"; missing {missing}" if missing else "")
            )
        for i, a in enumerate(self.agents):
            self._ep.act(i, check_action(self._act_space, actions[a], a))
        self._ep.advance()
        names = list(self.agents)
        done = self._ep.session.done
        obs = {a: self._obs(i) for i, a in enumerate(names)}
        rewards = {a: self._ep.reward(i) for i, a in enumerate(names)}
        infos = {a: self._ep.info(i) for i, a in enumerate(names)}
        if done:
            self.agents = []
        return obs, rewards, dict.fromkeys(names, False), dict.fromkeys(names, done), infos

    def close(self):
        if self._ep is not None:
            self._ep.close()
            self._ep = None
