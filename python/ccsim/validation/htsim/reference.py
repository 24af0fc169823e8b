"""htsim (Broadcom/csg-htsim) as a reference: where it is, and the fat-tree program
built against it (``tools/htsim/fabric.cpp``, built by ``tools/htsim/build.sh``).

``CCSIM_HTSIM_DIR`` names htsim's ``sim/`` directory (with ``libhtsim.a`` and the
``datacenter/`` objects ``make`` leaves there); the program is ``$CCSIM_HTSIM_DIR/fabric``,
built on first use where a C++ compiler and the build script are at hand.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import subprocess
from pathlib import Path

#: The environment variable naming htsim's ``sim/`` directory.
ENV = "CCSIM_HTSIM_DIR"
#: How to get it, for the one-line message where it is missing.
INSTALL = (
    "build htsim (git clone https://github.com/Broadcom/csg-htsim; make in sim/ and "
    f"sim/datacenter/), then export {ENV}=/path/to/csg-htsim/sim (tools/htsim/build.sh "
    "builds the fat-tree program there on first use)"
)
#: The reference as the report names it.
REFERENCE = "htsim"

#: The build script of the fat-tree program, in a source checkout.
BUILD = Path(__file__).resolve().parents[4] / "tools" / "htsim" / "build.sh"


def sim_dir() -> Path | None:
    """htsim's ``sim/`` directory from ``$CCSIM_HTSIM_DIR`` if it holds a built
    library, else None."""
    d = os.environ.get(ENV, "")
    if not d or not (Path(d) / "libhtsim.a").is_file():
        return None
    return Path(d)


def fabric_program(build: bool = True) -> str | None:
    """The fat-tree program ``$CCSIM_HTSIM_DIR/fabric``, built if missing (and ``build``);
    None where htsim is absent or the program cannot be built."""
    d = sim_dir()
    if d is None:
        return None
    prog = d / "fabric"
    if not prog.is_file() and build and BUILD.is_file() and shutil.which("g++"):
        subprocess.run(["sh", str(BUILD), str(d)], check=False, capture_output=True)
    return str(prog) if prog.is_file() and os.access(prog, os.X_OK) else None


def transport_program(name: str) -> str | None:
    """htsim's own driver ``$CCSIM_HTSIM_DIR/datacenter/htsim_<name>`` (``ndp``,
    ``swift``, ...: built by htsim's ``make`` in ``datacenter/``), or None."""
    d = sim_dir()
    if d is None:
        return None
    prog = d / "datacenter" / f"htsim_{name}"
    return str(prog) if prog.is_file() and os.access(prog, os.X_OK) else None


def have_htsim() -> bool:
    return fabric_program() is not None


def version() -> str:
    """htsim's commit where its checkout says it, else "Broadcom/csg-htsim"."""
    d = sim_dir()
    if d is None:
        return ""
    try:
        head = subprocess.run(
            ["git", "-C", str(d), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return f"Broadcom/csg-htsim {head}"
    except (OSError, subprocess.CalledProcessError):
        return "Broadcom/csg-htsim"


def run_sides(cases: list, seeds: int, jobs: int, run_one) -> dict:
    """{case name: {"htsim" | "ccsim": [outcome dict per seed]}}: ``run_one`` (a
    module-level function, so that worker processes can take it) applied to every
    ``(side, case, seed)``, in ``jobs`` processes; it returns ``(case name, seed, side,
    outcome dict)``."""
    work = [(side, c, s) for c in cases for s in range(1, seeds + 1) for side in ("htsim", "ccsim")]
    out: dict = {c.name: {side: [None] * seeds for side in ("htsim", "ccsim")} for c in cases}
    if jobs <= 1:
        results = list(map(run_one, work))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(run_one, work))
    for name, seed, side, d in results:
        out[name][side][seed - 1] = d
    return out
