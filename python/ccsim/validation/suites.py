"""The suites of ``ccsim validate``: :data:`SUITES`, each with its reference simulator,
what it needs and how to install it, its docs markers and its ``run_suite``; the
reference's version for the report's stamp; :func:`select` by name.

>>> [s.name for s in SUITES]
['tcp', 'queues', 'bmcc-mix', 'blt-tcp', 'buc-fifo', 'vcp', 'westwood', 'modern', 'htsim-fabric', 'htsim-transports']
"""

from __future__ import annotations

from ccsim.validation.framework import Suite
from ccsim.validation.htsim import fabric_suite
from ccsim.validation.htsim import reference as htsim_reference
from ccsim.validation.htsim import transports_suite
from ccsim.validation.ns2 import (
    blt_tcp,
    bmcc_mix,
    buc_fifo,
    queue_disciplines,
    tcp_suite,
    vcp_scenario,
    vcp_suite,
)
from ccsim.validation.ns2 import reference as ns2_reference
from ccsim.validation.ns3 import modern_cc_aqm, westwood_buffer_sizing
from ccsim.validation.ns3 import reference as ns3_reference


def _ns2_suite(name: str, title: str, module, minutes: tuple[float, float]) -> Suite:
    """A suite against ns-2.35 run by ``module`` (its ``run_suite`` and docs markers)."""
    return Suite(
        name,
        title,
        "ns-2.35",
        "`ns`",
        ns2_reference.have_ns,
        ns2_reference.INSTALL,
        (module.MARK_BEGIN, module.MARK_END),
        module.run_suite,
        minutes,
    )


SUITES: list[Suite] = [
    _ns2_suite(
        "tcp",
        "TCP dumbbells, 1 to 200 flows (Tahoe, Reno, NewReno, SACK)",
        tcp_suite,
        (1.5, 6.0),
    ),
    _ns2_suite(
        "queues",
        "Queue disciplines: RED, gentle RED with ECN, ARED, DRR, FQ",
        queue_disciplines,
        (0.2, 0.2),
    ),
    _ns2_suite(
        "bmcc-mix",
        "BMCC's protocol mixes without BMCC: SACK and SACK + ECN over drop-tail and RED",
        bmcc_mix,
        (7.0, 45.0),
    ),
    _ns2_suite(
        "blt-tcp",
        "TCP in BLT's open-loop study (Poisson arrivals of 100-KB transfers)",
        blt_tcp,
        (1.5, 12.0),
    ),
    _ns2_suite(
        "buc-fifo",
        "The BUC comparison's FIFO gateway: drop-tail phase locking, with and without send jitter",
        buc_fifo,
        (0.5, 1.5),
    ),
    Suite(
        "vcp",
        "VCP against its authors' ns-2 code (VCP 0.1): dumbbells of 10-150 Mb/s, 4-50 flows, "
        "with and without reverse traffic; flows of different RTTs joining one by one, BMCC's "
        "Fig. 1 scenario among them",
        vcp_scenario.REFERENCE,
        f"VCP's ns-2 code built into ns-2.35, `${vcp_scenario.ENV}`",
        vcp_scenario.have_vcp_ns,
        vcp_scenario.INSTALL,
        (vcp_suite.MARK_BEGIN, vcp_suite.MARK_END),
        vcp_suite.run_suite,
        (2.0, 6.0),
    ),
    Suite(
        "westwood",
        "Westwood+ and NewReno, 1 and 200 flows (buffer-sizing Figs. 4 and 8), with ns-2.35's "
        "TCP-Linux beside",
        "ns-3",
        "the `ns3` Python package and a C++ compiler",
        ns3_reference.have_ns3,
        ns3_reference.INSTALL,
        (westwood_buffer_sizing.MARK_BEGIN, westwood_buffer_sizing.MARK_END),
        westwood_buffer_sizing.run_suite,
        (3.0, 30.0),
    ),
    Suite(
        "modern",
        "Today's congestion control and AQM: CUBIC, BBR, Vegas over drop-tail (Vegas also "
        "with staggered starts, with and without delayed ACKs); NewReno and CUBIC over CoDel, "
        "FQ-CoDel, PIE (NewReno also with ECN); DCTCP over step marking; each also with "
        "phase-breaking link jitter",
        "ns-3",
        "the `ns3` Python package and a C++ compiler",
        ns3_reference.have_ns3,
        ns3_reference.INSTALL,
        (modern_cc_aqm.MARK_BEGIN, modern_cc_aqm.MARK_END),
        modern_cc_aqm.run_suite,
        (2.5, 90.0),
    ),
    Suite(
        "htsim-fabric",
        "Fat-trees (k = 4 and 8) against htsim: permutation, incast and web-search traffic, "
        "TCP and DCTCP, with htsim's TCP conventions",
        htsim_reference.REFERENCE,
        f"htsim built from Broadcom/csg-htsim, `${htsim_reference.ENV}`",
        htsim_reference.have_htsim,
        htsim_reference.INSTALL,
        (fabric_suite.MARK_BEGIN, fabric_suite.MARK_END),
        fabric_suite.run_suite,
        (0.5, 1.5),
    ),
    Suite(
        "htsim-transports",
        "NDP and Swift against htsim's own htsim_ndp and htsim_swift on the k = 4 "
        "fat-tree: incasts of 8 and 15 senders and (NDP) a permutation, one "
        "connection-matrix file feeding both",
        htsim_reference.REFERENCE,
        f"htsim built from Broadcom/csg-htsim (`datacenter/htsim_ndp`, `htsim_swift`), "
        f"`${htsim_reference.ENV}`",
        transports_suite.have_htsim_transports,
        htsim_reference.INSTALL,
        (transports_suite.MARK_BEGIN, transports_suite.MARK_END),
        transports_suite.run_suite,
        (0.1, 0.2),
    ),
]


def reference_version(suite: Suite) -> str:
    if suite.reference == "ns-3":
        return ns3_reference.version()
    if suite.reference == vcp_scenario.REFERENCE:
        return vcp_scenario.version()
    if suite.reference == htsim_reference.REFERENCE:
        return htsim_reference.version()
    return ns2_reference.version() if suite.reference == "ns-2.35" else ""


def select(names: list[str] | None) -> list[Suite]:
    """The suites named (all by default); an unknown name is an error listing them."""
    if not names:
        return list(SUITES)
    known = {s.name: s for s in SUITES}
    bad = [n for n in names if n not in known]
    if bad:
        raise KeyError(
            f"no validation suite {', '.join(map(repr, bad))}; suites: {', '.join(known)}"
        )
    return [known[n] for n in names]
