"""Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009: BMCC over BMCC, drop-tail and RED/ECN routers, its mixes with SACK
and SACK+ECN, the modified BMCC router and the SACK-compatibility heuristic.

Model page: docs/models/bmcc.md. The paper gives almost no numbers; the checks are those
of the model page's "Reproduction targets" (analytic values, qualitative outcomes as
rankings and shares), each with its tolerance.

Common settings (the paper's §4; docs/models/bmcc.md, "Experiment settings"): dumbbell,
bottleneck C = 45 Mbps both directions, access links 10·C, every buffer one BDP of
1000-byte packets (960 B + 40 B), round-trip propagation T = 40 ms unless stated (the
bottleneck carries T/4 each way, the access links the rest, so flows of other RTTs
differ in their access delays only). Both directions of the bottleneck have the router
under test (the reverse carries the ACKs and the reverse cross traffic); other queues
are drop-tail. Bidirectional cross traffic on two pairs of its own with RTT T: Poisson
arrivals at 10 % of C per direction (18.75 files/s), Pareto sizes with mean 30 kB and
shape 1.2; BMCC over BMCC routers, SACK elsewhere (not stated in the paper). Every TCP
flow runs with ns-2's conventions (the paper's simulator): ns-2's RTT estimator in 10-ms
ticks, initial RTO 3 s, cwnd += 1/cwnd per ACK; SACK flows are NewReno with SACK
recovery. Runs last 300 s; throughputs are measured over [50 s, end] (durations are not
stated in the paper).

The package by concern: :mod:`.scenarios` (settings, scenarios, runs),
:mod:`.run_metrics` (what the workers measure), :mod:`.figures`, :mod:`.checks` (what the
checks share), and the experiments with their checks and explanations: :mod:`.alone`
(BMCC flows alone, Figs. 1-5), :mod:`.mixed` (with SACK, Figs. 6-12) and
:mod:`.validation`. Every name is importable from ``ccsim.experiments.bmcc`` itself.
"""

from __future__ import annotations

from .alone import EXP_CONVERGENCE, EXP_ROUTERS
from .checks import NOTES_COMMON, PAPER, WIRE, gain_loss
from .mixed import EXP_GAIN, EXP_HEURISTIC, EXP_MIXES, EXP_MODIFIED
from .run_metrics import metrics
from .scenarios import (
    CROSS_MEAN,
    CROSS_SHAPE,
    CROSS_SHARE,
    C_MBPS,
    FIG1,
    GAIN_EXPERIMENTS,
    GAIN_GRID,
    GAIN_GRID_QUICK,
    HEADER,
    KINDS,
    MSS,
    PKT,
    ROUTERS,
    T_P,
    UNEQUAL_RTTS,
    VALIDATION_N,
    VALIDATION_N_QUICK,
    convergence_runs,
    fig1_scenario,
    gain_runs,
    heuristic_runs,
    long_flows,
    mix_runs,
    modified_runs,
    router_queue,
    scenario,
    transport,
    two_flow_runs,
    validation_runs,
    validation_scenario,
)
from .validation import EXP_VALIDATION

EXPERIMENTS = [
    EXP_CONVERGENCE,
    EXP_ROUTERS,
    EXP_MIXES,
    EXP_MODIFIED,
    EXP_GAIN,
    EXP_HEURISTIC,
    EXP_VALIDATION,
]

__all__ = [
    "C_MBPS",
    "convergence_runs",
    "CROSS_MEAN",
    "CROSS_SHAPE",
    "CROSS_SHARE",
    "EXP_CONVERGENCE",
    "EXP_GAIN",
    "EXP_HEURISTIC",
    "EXP_MIXES",
    "EXP_MODIFIED",
    "EXP_ROUTERS",
    "EXP_VALIDATION",
    "EXPERIMENTS",
    "FIG1",
    "fig1_scenario",
    "GAIN_EXPERIMENTS",
    "GAIN_GRID",
    "GAIN_GRID_QUICK",
    "gain_loss",
    "gain_runs",
    "HEADER",
    "heuristic_runs",
    "KINDS",
    "long_flows",
    "metrics",
    "mix_runs",
    "modified_runs",
    "MSS",
    "NOTES_COMMON",
    "PAPER",
    "PKT",
    "router_queue",
    "ROUTERS",
    "scenario",
    "T_P",
    "transport",
    "two_flow_runs",
    "UNEQUAL_RTTS",
    "VALIDATION_N",
    "VALIDATION_N_QUICK",
    "validation_runs",
    "validation_scenario",
    "WIRE",
]
