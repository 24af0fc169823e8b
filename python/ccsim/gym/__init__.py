"""Gymnasium environments over the ccsim engine (docs/gym.md).

Importing this package registers the environments, so that
``gymnasium.make("ccsim/CongestionControl-v0")`` works (or, without importing it
first, ``gymnasium.make("ccsim.gym:ccsim/CongestionControl-v0")``):

- ``ccsim/CongestionControl-v0``: one flow's window, scaled (x 2**a, a in [-1, 1]) once
  per RTT, on a dumbbell drawn per episode from :class:`Ranges` (5-50 Mbit/s, 10-100 ms,
  0.5-2 BDP of buffer, 0-1 competing CUBIC flow, 10 s);
- ``ccsim/CongestionControlRate-v0``: the same with the pacing rate as the action
  (Aurora's action);
- ``ccsim/CongestionControlDiscrete-v0``: the window multiplied by one of
  (0.5, 0.8, 1, 1.25, 2), for tabular methods.

Several at once: ``gymnasium.make_vec(id, num_envs=n, vectorization_mode="sync")``
(independent simulations in one process) or ``"async"`` (one process each).
:class:`MultiAgentCongestionEnv` puts several controlled flows in one network.
Gymnasium is an optional dependency: ``pip install ccsim[gym]``.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from ccsim.gym.core import (
    ACTIONS,
    DEFAULT_FEATURES,
    FEATURES,
    Reward,
    RewardFunctionError,
)
from ccsim.gym.env import CongestionEnv, MultiAgentCongestionEnv
from ccsim.gym.scenarios import BOTTLENECK, Ranges

__all__ = [
    "ACTIONS",
    "BOTTLENECK",
    "DEFAULT_FEATURES",
    "FEATURES",
    "CongestionEnv",
    "MultiAgentCongestionEnv",
    "Ranges",
    "Reward",
    "RewardFunctionError",
]

ENV_IDS = {
    "ccsim/CongestionControl-v0": {},
    "ccsim/CongestionControlRate-v0": {"action": "rate_scale"},
    "ccsim/CongestionControlDiscrete-v0": {"action": "discrete"},
}

for _id, _kwargs in ENV_IDS.items():
    if _id not in registry:
        register(id=_id, entry_point="ccsim.gym.env:CongestionEnv", kwargs=_kwargs)
