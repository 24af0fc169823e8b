"""Speed of the ccsim.gym environments: steps per second and simulated seconds per wall
second, for one environment, for eight in one process (Gymnasium's SyncVectorEnv) and
eight in eight processes (AsyncVectorEnv), plus the native session alone (no Gymnasium,
no observation features) as the floor of the cost of a step.

Each environment is ``ccsim/CongestionControl-v0`` on one fixed dumbbell (Ranges with
single values: 20 Mbit/s, 40 ms, 1 BDP of buffer, one competing CUBIC flow), a decision
every RTT (about 40-80 ms simulated) and a constant action (a = 0, the window kept),
so that the numbers measure the environment, not a policy.

    PYTHONPATH=python python benches/gym.py [--seconds 3] [--json out.json]

A benchmark, not a test: numbers depend on the machine and its load (docs/gym.md
records what was measured and where).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import gymnasium as gym
import numpy as np

import ccsim.gym as cg
from ccsim import _ccsim

RANGES = cg.Ranges(bandwidth_mbps=20.0, rtt_ms=40.0, buffer_bdp=1.0, competitors=1, duration_s=30.0)


def make():
    return cg.CongestionEnv(RANGES)


def bench_single(seconds: float) -> dict:
    env = make()
    env.reset(seed=0)
    steps, sim, last, t0 = 0, 0.0, 0.0, time.perf_counter()
    action = np.zeros(1, dtype=np.float32)
    while time.perf_counter() - t0 < seconds:
        _, _, term, trunc, info = env.step(action)
        steps += 1
        sim, last = sim + info["time"] - last, info["time"]
        if term or trunc:
            _, info = env.reset()
            last = info["time"]
    wall = time.perf_counter() - t0
    return {"envs": 1, "steps_per_s": steps / wall, "sim_s_per_wall_s": sim / wall}


def bench_vector(n: int, mode: str, seconds: float) -> dict:
    if mode == "sync":
        v = gym.vector.SyncVectorEnv([make] * n)
    else:
        v = gym.vector.AsyncVectorEnv([make] * n)
    v.reset(seed=0)
    actions = np.zeros((n, 1), dtype=np.float32)
    steps, sim, last = 0, 0.0, np.zeros(n)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, _, term, trunc, info = v.step(actions)
        steps += n
        now = np.asarray(info["time"], dtype=float)
        sim += float(np.sum(np.where(now >= last, now - last, now)))
        last = now
    wall = time.perf_counter() - t0
    v.close()
    return {"envs": n, "mode": mode, "steps_per_s": steps / wall, "sim_s_per_wall_s": sim / wall}


def bench_session(seconds: float) -> dict:
    """The native session alone: advance and read the rows, no Gymnasium."""
    scenario = RANGES.scenario(RANGES.values(np.random.default_rng(0)))
    steps, sim, t0 = 0, 0.0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = _ccsim.Session(json.dumps(scenario), rtt_bounds_s=(0.005, 1.0))
        while not s.done and time.perf_counter() - t0 < seconds:
            s.advance()
            s.rows()
            steps += 1
        sim += s.now
        s.close()
    wall = time.perf_counter() - t0
    return {
        "envs": 1,
        "mode": "session",
        "steps_per_s": steps / wall,
        "sim_s_per_wall_s": sim / wall,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="wall seconds per measurement")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    rows = [
        bench_session(a.seconds),
        bench_single(a.seconds),
        bench_vector(8, "sync", a.seconds),
        bench_vector(8, "async", a.seconds),
    ]
    print(f"cpus: {os.cpu_count()}")
    for r in rows:
        print(
            f"{r.get('mode', 'env'):>8} x{r['envs']}: {r['steps_per_s']:10.0f} steps/s "
            f"{r['sim_s_per_wall_s']:8.1f} simulated s per wall s"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
