"""ns-2.35 itself, the reference of the ``ns2`` suites: whether ``ns`` is installed, its
version, how to install it, and running a script (:func:`ns2_stdout`)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

#: How to get the reference, for the one-line message where it is missing.
INSTALL = "apt-get install ns2 (Debian, Ubuntu)"


def have_ns() -> bool:
    """True if the ns-2 binary ``ns`` is on PATH."""
    return shutil.which("ns") is not None


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


def ns2_stdout(script: str, timeout_s: float = 3600) -> str:
    """Runs the ns-2 script text ``script`` and returns what it printed."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "case.tcl"
        path.write_text(script)
        return subprocess.run(
            ["ns", str(path)], capture_output=True, text=True, check=True, timeout=timeout_s
        ).stdout
