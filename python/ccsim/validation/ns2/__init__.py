"""Validation suites against ns-2.35 (``ns``; Debian ``apt-get install ns2``).

* ``tcp`` (:mod:`.tcp`): TCP dumbbells, 1 to 200 flows, ns-2's conventions;
* ``queues`` (:mod:`.queues`): RED, ARED, DRR and FQ on small scenarios;
* ``bmcc-mix`` (:mod:`.bmcc_mix`): BMCC's protocol mixes without BMCC (SACK and
  SACK + ECN over drop-tail and RED, with and without cross traffic);
* ``blt-tcp`` (:mod:`.blt_tcp`): TCP in BLT's open-loop study;
* ``buc-fifo`` (:mod:`.buc_fifo`): the BUC comparison's FIFO gateway, phase locking.

:mod:`.ns2linux` runs ns-2.35's TCP-Linux agent (Linux 2.6.22's congestion-control
modules) on the same cases, for the ``westwood`` suite of :mod:`ccsim.validation.ns3`.

:mod:`.ns2tcp` writes, for one case description, the ns-2 script and the ccsim
scenario with the same drawn start times and delays.
"""

from __future__ import annotations

import shutil
import subprocess

#: How to get the reference, for the one-line message where it is missing.
INSTALL = "apt-get install ns2 (Debian, Ubuntu)"


def version() -> str:
    """The installed ns-2's version as its package names it (``2.35+dfsg-5``), or
    ``"2.35"`` where the package manager cannot tell; ``""`` without ``ns``."""
    if shutil.which("ns") is None:
        return ""
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True, timeout=10
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return "2.35"
