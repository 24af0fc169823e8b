"""Ziegler & Clausen, "Congestion avoidance with BUC (buffer utilization control)
gateways and RFCN (reverse feedback congestion notification)", IEEE IPCCC 1997.

The paper's figures and result tables are lost; the topologies are inferred (model
page docs/models/buc-rfcn.md, "The experiments' settings", decision A1) and meet the one
constraint the text keeps, 2·C·propagation = 16 000 B (§5 footnote 11).

Both experiments use TCP Tahoe (the ns default agent of 1997, decision A2) in packet
mode: 1000-byte packets on the wire (MSS 960 + 40 B header), 40-byte ACKs, IW 1, one
ACK per packet, the 1997 ns timers (0.1 s clock tick, RTO floor 0.2 s, initial RTO
3 s), cwnd += 1/cwnd per ACK. The BUC gateway is the port's fair queue (``kind =
"fq"``: DKS bid numbers, one shared buffer, longest-queue drop) plus the ``buc``
router component (TBU 60 packets, up 1.25, down 0.5, W_init 64) that writes its
windows into the ACKs passing back (RFCN). The model page is docs/models/buc-rfcn.md.

The package by concern: :mod:`.scenarios` (settings, scenarios, runs),
:mod:`.run_metrics` (what the workers measure), :mod:`.figures` and :mod:`.checks`
(checks, explanations, tables, findings and the experiments); every name is importable
from ``ccsim.experiments.buc_rfcn`` itself.
"""

from __future__ import annotations

from .checks import COMPARISON, CONVERGENCE, EQUILIBRIUM, NS2_FIFO_MD_NORM, PIPE, TABLE_COLUMNS
from .run_metrics import GRID_STEP, at_times, comparison_metrics, convergence_metrics, queue_steps
from .scenarios import (
    ACCESS_MS,
    HEADER,
    JITTER_REPS,
    JOINS,
    MSS,
    PKT,
    PORT1,
    PORT2,
    SCHEMES,
    SEND_JITTER,
    SWEEP_FLOWS,
    TBU,
    VARIANTS,
    buc_component,
    comparison_runs,
    comparison_scenario,
    convergence_runs,
    convergence_scenario,
    tcp,
)

EXPERIMENTS = [CONVERGENCE, COMPARISON]

__all__ = [
    "ACCESS_MS",
    "at_times",
    "buc_component",
    "COMPARISON",
    "comparison_metrics",
    "comparison_runs",
    "comparison_scenario",
    "CONVERGENCE",
    "convergence_metrics",
    "convergence_runs",
    "convergence_scenario",
    "EQUILIBRIUM",
    "EXPERIMENTS",
    "GRID_STEP",
    "HEADER",
    "JITTER_REPS",
    "JOINS",
    "MSS",
    "NS2_FIFO_MD_NORM",
    "PIPE",
    "PKT",
    "PORT1",
    "PORT2",
    "queue_steps",
    "SCHEMES",
    "SEND_JITTER",
    "SWEEP_FLOWS",
    "TABLE_COLUMNS",
    "TBU",
    "tcp",
    "VARIANTS",
]
