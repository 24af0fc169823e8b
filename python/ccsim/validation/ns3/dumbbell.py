"""The ns-3 dumbbell the ``ns3`` harnesses share: C++ sources in ``programs/`` (package
data), compiled against the ``ns3`` wheel, cached, and run with a case's draws.

ns-3 comes from the Python index (``pip install ns3``, 3.44). Its Python bindings load
through cppyy, which takes ~15 s per process and runs trace callbacks in Python; the
harnesses are C++ programs instead, compiled once with the C++ compiler against the
wheel's headers and libraries (cached under ``$XDG_CACHE_HOME/ccsim-ns3``, keyed by the
sources' text and the wheel's place) and run per case and seed. Each reads its case
from the command line and the seed's draws (start times, access delays: the numbers ns-2
and ccsim get) from a file, so the simulators see one scenario.

``programs/dumbbell.cc`` (and ``.h``) builds the topology and the bulk flows every
harness shares (:data:`HARNESSES`); each harness adds its main and counters:
``bulk_tcp.cc`` (:mod:`.bulk_tcp`: an ns-2 TCP case over drop-tail device queues, for the
``westwood`` suite and ``benches/bbr_vs_ns3.py``) and ``modern_cc_aqm.cc`` with
``tcp_fixes.h`` (:mod:`.modern_cc_aqm`: a chosen queue disc, the ``modern`` suite).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ccsim.validation.ns3 import reference

#: The sources of each harness in ``programs/``: its ``.cc`` files are compiled together,
#: its headers included.
HARNESSES = {
    "bulk_tcp": ("dumbbell.h", "dumbbell.cc", "bulk_tcp.cc"),
    "modern_cc_aqm": ("dumbbell.h", "tcp_fixes.h", "dumbbell.cc", "modern_cc_aqm.cc"),
}

#: ns-3's libraries the harnesses link.
LIBRARIES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")


def programs():
    """The ``programs`` folder of this package (a resource: the C++ sources)."""
    return importlib.resources.files("ccsim.validation.ns3") / "programs"


def sources(harness: str) -> dict[str, str]:
    """File name -> text of the sources ``harness`` is built from."""
    return {name: (programs() / name).read_text() for name in HARNESSES[harness]}


def compile_program(harness: str) -> Path:
    """``harness`` compiled against the wheel (built on first use, ~20-45 s; cached by
    its sources' text)."""
    prefix = reference.ns3_prefix()
    if prefix is None:
        raise RuntimeError("ns-3 is not installed: pip install ns3")
    text = sources(harness)
    key = hashlib.sha256(
        ("".join(f"{n}\n{t}" for n, t in text.items()) + str(prefix)).encode()
    ).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ccsim-ns3"
    exe = cache / f"{harness}-{key}"
    if exe.exists():
        return exe
    cache.mkdir(parents=True, exist_ok=True)
    lib = prefix / "lib64"
    with tempfile.TemporaryDirectory() as d:
        for name, t in text.items():
            (Path(d) / name).write_text(t)
        tmp = Path(d) / harness
        cmd = [
            reference.compiler(),
            "-std=c++20",
            "-O2",
            # the wheel's build: release profile with logging and asserts compiled in
            "-DNS3_BUILD_PROFILE_RELEASE",
            "-DNS3_LOG_ENABLE",
            "-DNS3_ASSERT_ENABLE",
            f"-I{prefix / 'include'}",
            *[str(Path(d) / name) for name in text if name.endswith(".cc")],
            "-o",
            str(tmp),
            f"-L{lib}",
            f"-Wl,-rpath,{lib}",
            "-Wl,--no-as-needed",
            *[f"-lns3.44-{m}" for m in LIBRARIES],
        ]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        shutil.move(str(tmp), exe)
    return exe


def options(cc: str, sack: bool, case, delay_ms: float) -> list[str]:
    """The command line of the dumbbell every harness shares (``DumbbellOptions`` in
    ``programs/dumbbell.h``) for ``case`` (its ``pairs``, ``mss``, ``buffer_pkts``,
    ``rate_mbps``, ``duration_s`` and ``warmup_s``), the congestion control's TypeId
    ``cc``, SACK and the bottleneck's one-way delay."""
    return [
        f"--cc={cc}",
        f"--sack={int(sack)}",
        f"--pairs={case.pairs}",
        f"--mss={case.mss}",
        f"--buffer={case.buffer_pkts}",
        f"--rate={case.rate_mbps}",
        f"--delay={delay_ms}",
        f"--duration={case.duration_s}",
        f"--warmup={case.warmup_s}",
    ]


def run(
    harness: str,
    args: list[str],
    draws: tuple[list[float], list[float]],
    timeout_s: float,
) -> subprocess.CompletedProcess:
    """Runs ``harness`` with ``args`` and a seed's ``draws`` (each pair's start time in s
    and its access delay in ms); its exit status is the caller's to check."""
    starts, delays = draws
    with tempfile.TemporaryDirectory() as d:
        draws = Path(d) / "draws.txt"
        draws.write_text("".join(f"{s} {a}\n" for s, a in zip(starts, delays)))
        return subprocess.run(
            [str(compile_program(harness)), *args, f"--draws={draws}"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )


def printed(stdout: str) -> dict[str, list[list[str]]]:
    """A harness's output lines by their first word (``Q``, ``F``, ...): the rest of each
    line's words, in order.

    >>> printed("Q 1 2\\nF 0 5\\n\\nF 1 6\\n")
    {'Q': [['1', '2']], 'F': [['0', '5'], ['1', '6']]}
    """
    out: dict[str, list[list[str]]] = {}
    for line in stdout.splitlines():
        f = line.split()
        if f:
            out.setdefault(f[0], []).append(f[1:])
    return out
