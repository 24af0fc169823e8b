"""Closed-form models used to check ccsim's packet-level results.

Everything here is plain Python (``math``, and ``random`` for one Monte Carlo): no NumPy, no SciPy, no native
code, and no imports from the rest of ``ccsim`` (only between the modules of this
package, a test checks it). Its doctests run without the engine.

Function groups, one module each (``docs/theory.md`` gives the equations and the
corrections); every name is importable from ``ccsim.theory`` itself:

* Westwood+ / router buffer sizing (:mod:`~ccsim.theory.buffer_sizing`) -- Mascolo &
  Vacirca, "Congestion Control and Sizing Router Buffers in the Internet", IEEE
  CDC-ECC 2005, with the corrections of ``docs/theory.md`` §1.1:
  :func:`bdp_packets`, :func:`buffer_rule_of_thumb`, :func:`idle_time_newreno`,
  :func:`idle_time_westwood`, :func:`sigma_q_bound`,
  :func:`gaussian_window_utilization`, :func:`util_bound_reno`,
  :func:`util_bound_westwood`, :func:`util_bound_westwood_as_printed`,
  :func:`fluid_utilization_newreno`, :func:`fluid_phases_newreno`,
  :func:`fluid_utilization_westwood`.
* Token-based Fast-TCP (:mod:`~ccsim.theory.token_ftcp`; the ACK-delaying gateway
  paper, §2-§3, reconstructed in ``docs/models/token-gate.md``): :func:`token_ftcp_ca_packets`,
  :func:`token_ftcp_throughput`, :func:`token_ftcp_tcp_peak_buffer`,
  :func:`token_ftcp_gate_cap`, :func:`token_ftcp_conditions`.
* BUC gateways (:mod:`~ccsim.theory.buc_rfcn`; Ziegler & Clausen, IPCCC 1997, §3.2,
  §3.4, §5; ``docs/models/buc-rfcn.md``): :func:`buc_equilibrium`.
* BMCC (:mod:`~ccsim.theory.bmcc`; Qazi, Znati & Andrew, PFLDNeT 2009, §3.3 and §4):
  :func:`bmcc_mi_factor`, :func:`bmcc_ai_increment`, :func:`bmcc_md_factor`,
  :func:`bmcc_cross_arrival_rate`.
* BLT (:mod:`~ccsim.theory.blt`; Kim & Farber 1994, §4; ``docs/models/blt.md``):
  :func:`idle_path_transfer`, :func:`processor_sharing_response_time`.
* Queueing theory (:mod:`~ccsim.theory.queueing`): :func:`mm1k_distribution`,
  :func:`mm1k_loss`, :func:`mm1k_mean_number`, :func:`md1_mean_wait`,
  :func:`mg1_mean_wait`, :func:`mathis_throughput`, :func:`mathis_window_packets`.
* Metrics (:mod:`~ccsim.theory.fairness`, ``docs/theory.md`` §4):
  :func:`jain_index`, :func:`mean_deviation`, :func:`max_min_fair`.
* Data-centre classics (:mod:`~ccsim.theory.datacenter`, ``docs/theory.md`` §6;
  Vasudevan et al. 2009, Alizadeh et al. 2010, Al-Fares et al. 2008):
  :func:`slow_start_rounds`, :func:`incast_no_loss_senders`,
  :func:`fat_tree_ecmp_path`, :func:`ecmp_permutation_throughput`.
* Statistics (:mod:`~ccsim.theory.stats`): :func:`confidence_interval`, with the
  Student-t helpers :func:`student_t_ppf`, :func:`student_t_sf`, :func:`normal_ppf`
  and :func:`regularized_incomplete_beta`.

Units: unless a docstring says otherwise, capacities are in packets/s, buffers
and windows in packets, times in seconds.
"""

from __future__ import annotations

from .blt import idle_path_transfer, IdlePath, processor_sharing_response_time
from .bmcc import BMCC_ETA0, BMCC_U  # noqa: F401 (the laws' constants, as before)
from .bmcc import bmcc_ai_increment, bmcc_cross_arrival_rate, bmcc_md_factor, bmcc_mi_factor
from .buc_rfcn import buc_equilibrium
from .buffer_sizing import (
    bdp_packets,
    buffer_rule_of_thumb,
    fluid_phases_newreno,
    fluid_utilization_newreno,
    fluid_utilization_westwood,
    gaussian_window_utilization,
    idle_time_newreno,
    idle_time_westwood,
    sigma_q_bound,
    util_bound_reno,
    util_bound_westwood,
    util_bound_westwood_as_printed,
)
from .datacenter import (
    ecmp_permutation_throughput,
    fat_tree_ecmp_path,
    incast_no_loss_senders,
    slow_start_rounds,
)
from .fairness import jain_index, max_min_fair, mean_deviation
from .queueing import (
    mathis_throughput,
    mathis_window_packets,
    md1_mean_wait,
    mg1_mean_wait,
    mm1k_distribution,
    mm1k_loss,
    mm1k_mean_number,
)
from .stats import (
    confidence_interval,
    normal_ppf,
    regularized_incomplete_beta,
    student_t_ppf,
    student_t_sf,
)
from .token_ftcp import (
    token_ftcp_ca_packets,
    token_ftcp_conditions,
    token_ftcp_gate_cap,
    token_ftcp_tcp_peak_buffer,
    token_ftcp_throughput,
    TokenConditions,
)

__all__ = [
    "TokenConditions",
    "bdp_packets",
    "bmcc_ai_increment",
    "bmcc_cross_arrival_rate",
    "bmcc_md_factor",
    "bmcc_mi_factor",
    "buc_equilibrium",
    "buffer_rule_of_thumb",
    "confidence_interval",
    "ecmp_permutation_throughput",
    "fat_tree_ecmp_path",
    "fluid_phases_newreno",
    "fluid_utilization_newreno",
    "fluid_utilization_westwood",
    "gaussian_window_utilization",
    "IdlePath",
    "idle_path_transfer",
    "idle_time_newreno",
    "idle_time_westwood",
    "incast_no_loss_senders",
    "jain_index",
    "mathis_throughput",
    "mathis_window_packets",
    "max_min_fair",
    "md1_mean_wait",
    "mean_deviation",
    "mg1_mean_wait",
    "mm1k_distribution",
    "mm1k_loss",
    "mm1k_mean_number",
    "normal_ppf",
    "processor_sharing_response_time",
    "regularized_incomplete_beta",
    "sigma_q_bound",
    "slow_start_rounds",
    "student_t_ppf",
    "student_t_sf",
    "token_ftcp_ca_packets",
    "token_ftcp_conditions",
    "token_ftcp_gate_cap",
    "token_ftcp_tcp_peak_buffer",
    "token_ftcp_throughput",
    "util_bound_reno",
    "util_bound_westwood",
    "util_bound_westwood_as_printed",
]
