"""Kim & Farber, "Congestion control by bandwidth-delay tradeoff in very high-speed
networks: the case of window-based control", U. Pennsylvania MS-CIS-94-55, 1994: BLT
against TCP and Bully-Tyrant under Poisson arrivals of fixed-size files.

Models: docs/models/blt.md (BLT and Bully-Tyrant, the reproduction, and the modelling
decisions L1-L15 cited below, among them three runs per point and a single duplicate ACK
signalling loss), docs/models/priority-discard.md (the switch),
docs/models/workloads.md (arrivals), :mod:`ccsim.connmetrics` (the metrics of the
paper's §4.1.4, computed from the connection table).

Network (the paper's §4.1.1, Fig. 4): sources —(d1, BW_N)— S1 —(d2, BW_b)— S2 —(d3, BW_N)—
destinations with d1 = d2 = d3 = D/6, each connection on a host pair of its own (a pool
of pairs taken idle-longest-first, ``pick = "idle"``: while pairs outnumber live
connections this is a new pair per connection; the runs report any arrival that found
every pair busy; L2). The bottleneck buffer is a byte limit of BW_b·D/3 (L1) with the
priority-discard switch; other buffers BW_N·2·d (never congested); the reverse path
carries only ACKs, 40 B, never dropped (L13). Data packets are 500 B of file data
(F = 100 KB = 200 packets, as the paper counts them; no header is added).

Workload (§4.1.3): Poisson arrivals of F-byte files at λ on a log grid from ≈ 5 % to
≈ 100 % of the bottleneck's connection capacity BW_b/(8F); each run ends once the first
2200 arrivals have all completed (arrivals go on meanwhile); the first 200 are warm-up,
the next 2000 measured; three seeds per point (L11). A run whose measured connections are
not done within 2·2200/λ + 10 s, or whose number of connections in the system keeps
growing, is reported as diverged (with the evidence) and kept out of every curve and mean.

Protocols: TCP (§4 and footnote 5: Reno, fast retransmit on the first duplicate ACK, IW
1, cwnd in packets, RTT samples from every ACK's timestamp, min RTO 2·D on a 1-ms clock:
L6, L7); BLT over the paper's switch (§3.3.2) and over the fixed one (L14); Bully-Tyrant
(§4.2.6). TCP and Bully-Tyrant cross the paper's switch, where equal priorities make it
drop-tail (L15).

The package by concern: :mod:`.scenarios` (networks, scenarios, runs),
:mod:`.run_metrics` (what the workers measure), :mod:`.aggregate` (over replications),
:mod:`.checks` (the paper's numbers and the explanations), :mod:`.figures` and
:mod:`.report` (tables and findings); this module puts them together into the
experiment. Every name is importable from ``ccsim.experiments.blt`` itself.
"""

from __future__ import annotations

from ccsim.experiments.framework import Experiment

from .aggregate import divergence_lambda, idle_ratios, log_pm, max_power, points, speedup
from .checks import (
    PAPER_TCP_PM_150,
    TABLE1,
    _gbps_checks,
    _other_checks,
    _reference_checks,
    _table1_checks,
)
from .figures import FIGURES, STYLE, plot
from .report import findings, names_of, tables
from .run_metrics import metrics
from .scenarios import (
    ACK,
    CONFIGS,
    Config,
    FIFTHS,
    GRID,
    GRID_QUICK,
    GROUPS,
    IDLE_FRAC,
    IDLE_MEASURED,
    MEASURED,
    PKT,
    PROTOCOLS,
    TCP_TIMERS,
    config,
    counts,
    idle_path,
    idle_path_fits,
    pairs_for,
    runs,
    scenario,
    transport,
)

EXPERIMENT = Experiment(
    name="blt-tradeoff",
    title="BLT vs TCP vs Bully-Tyrant under Poisson file arrivals (Figs. 6-31, Table 1)",
    paper="Kim & Farber, MS-CIS-94-55, 1994, §4; docs/models/blt.md",
    runs=runs,
    metrics=metrics,
    plot=plot,
    timeseries=["queue"],
    checks=[*_table1_checks(), *_reference_checks(), *_gbps_checks(), *_other_checks()],
    notes=[
        "§ numbers are the paper's sections; L1-L15 are the modelling decisions of "
        "docs/models/blt.md (section 'Modelling decisions').",
        'Network (§4.1.1): dumbbell of host pairs taken idle-longest-first from a pool (pick = "idle"; '
        "while pairs outnumber live connections this is a new pair per connection: the pool-×4 check "
        "shows identical response times), d1 = d2 = d3 = D/6, bottleneck buffer a byte limit of "
        "BW_b·D/3 (L1) with the paper's priority-discard switch (the fixed one for 'BLT (fixed switch)'); "
        "TCP and Bully-Tyrant packets all have priority 0 (drop-tail); ACKs 40 B on infinite reverse "
        "buffers (L13); 500 B of file data per packet, no header.",
        "Workload (§4.1.3): Poisson arrivals of F-byte files; λ from 5 % to 100 % of BW_b/(8F) on a "
        "log grid of 8 (quick: 15, 40, 65 and 90 %); each run ends once its first K arrivals have "
        "all completed (complete_first; arrivals go on): 200 warm-up (or three times Little's λ·R "
        "of TCP's idle path where that is more: the system must fill up before the measured "
        "connections arrive, 977 at 1 Gb/s and 1250 arrivals/s) and 2000 measured, three seeds; "
        "files of 1 MB: 500 measured after 50, one seed (BLT puts ≈ 20× each file on the wire); "
        "quick: 300 measured (1 MB: 100), one seed. Idle-path runs: λ at 0.5 % of capacity, 100 "
        "measured (quick: 30). A point is diverged if any replication's measured connections were "
        "unfinished within 2·K/λ + 10 s, every host pair was busy (max_alive), or the number of "
        "connections in the system grew more than twofold from the run's second quarter to its "
        "last; near capacity a finite run cannot always tell a slow divergence from a long "
        "excursion.",
        "Metrics (§4.1.4, ccsim.connmetrics): R to the last ACK (R' = R − D/2 for F = 10 KB, "
        "L10); Θ per run and the paper's pessimistic Θ (mean bytes over the longest span of the "
        "replications, L9); P = Θ_pessimistic / R̄; Jain over Θ_i = F/R_i (L8); P_m the largest P "
        "over the stable points.",
        "TCP (§4): Reno, fast retransmit on the first duplicate ACK (L7, the paper's footnote 5), "
        "IW 1, cwnd += 1/cwnd per ACK, RTT samples from every ACK's timestamp, RFC 6298 timer with samples and G on a 1-ms "
        "clock, min RTO 2·D (L6; sensitivity: 200 ms, and a BSD 500-ms tick), max RTO 60 s. BLT and "
        "Bully-Tyrant: RFC 6298 timer on timestamp samples with the same minimum.",
    ],
    findings=findings,
    tables=tables,
)

EXPERIMENTS = [EXPERIMENT]

__all__ = [
    "ACK",
    "Config",
    "config",
    "CONFIGS",
    "counts",
    "divergence_lambda",
    "EXPERIMENT",
    "EXPERIMENTS",
    "FIFTHS",
    "FIGURES",
    "findings",
    "GRID",
    "GRID_QUICK",
    "GROUPS",
    "IDLE_FRAC",
    "IDLE_MEASURED",
    "idle_path",
    "idle_path_fits",
    "idle_ratios",
    "log_pm",
    "max_power",
    "MEASURED",
    "metrics",
    "names_of",
    "pairs_for",
    "PAPER_TCP_PM_150",
    "PKT",
    "plot",
    "points",
    "PROTOCOLS",
    "runs",
    "scenario",
    "speedup",
    "STYLE",
    "TABLE1",
    "tables",
    "TCP_TIMERS",
    "transport",
]
