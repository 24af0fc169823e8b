"""ns-3 itself, the reference of the ``ns3`` suites: the ``ns3`` wheel of the Python
index (3.44) and a C++ compiler to build the harnesses against it (:mod:`.dumbbell`);
whether they are here, the wheel's version, and how to install them."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
from pathlib import Path

#: How to get the reference, for the one-line message where it is missing.
INSTALL = "pip install ns3 (3.44, with a C++ compiler: apt-get install g++)"


def version() -> str:
    """The installed ns-3 package's version (``3.44.post0``), ``""`` if none."""
    try:
        return importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        return ""


def ns3_prefix() -> Path | None:
    """The ``ns3`` directory of the PyPI wheel (headers and libraries), if installed."""
    spec = importlib.util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        return None
    for p in spec.submodule_search_locations:
        if (Path(p) / "include" / "ns3" / "tcp-westwood-plus.h").exists():
            return Path(p)
    return None


def compiler() -> str:
    """The C++ compiler the harnesses are built with (``$CXX``, else ``c++``)."""
    return os.environ.get("CXX", "c++")


def have_ns3() -> bool:
    """True if the ns-3 wheel and a C++ compiler are available."""
    return ns3_prefix() is not None and shutil.which(compiler()) is not None
