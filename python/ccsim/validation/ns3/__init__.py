"""Validation suites against ns-3 (the ``ns3`` package of the Python index, 3.44).

* ``westwood`` (:mod:`.westwood`): Westwood+ and NewReno on the buffer-sizing
  paper's settings (one flow, Fig. 4; 200 flows, Fig. 8), against ns-3's
  ``TcpWestwoodPlus`` and ``TcpNewReno`` and ns-2.35's TCP-Linux agent running
  Linux's own ``westwood`` and ``reno`` modules.

:mod:`.ns3tcp` compiles one C++ dumbbell program against the wheel's headers and
libraries (once, cached) and runs it per case and seed with the draws ns-2 and ccsim
get, so the three simulators see one scenario.
"""

from __future__ import annotations

import importlib.metadata

#: How to get the reference, for the one-line message where it is missing.
INSTALL = "pip install ns3 (3.44, with a C++ compiler: apt-get install g++)"


def version() -> str:
    """The installed ns-3 package's version (``3.44.post0``), ``""`` if none."""
    try:
        return importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        return ""
