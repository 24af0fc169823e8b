"""ccsim against htsim on fat-trees: speed, memory per flow, and cost per packet as the
fabric grows (issue 46).

    python benches/fabric.py                       # k = 4, 8, 12, 16, best of 3
    python benches/fabric.py --ks 4,8 --repeat 1 --window-ms 20
    python benches/fabric.py --write docs/performance.md

htsim: the fat-tree program of ``tools/htsim/`` (``fabric.cpp``, built against
Broadcom/csg-htsim by ``tools/htsim/build.sh``; ``CCSIM_HTSIM_DIR`` names htsim's
``sim/`` directory), htsim's own ``FatTreeTopology``, ``TcpSrc``/``TcpSink`` and
``TcpRtxTimerScanner``. Both simulators get the same work, written from one description
(``ccsim.validation.htsim.fabric_scenario``): a k-ary fat-tree of 10 Gb/s links (1 us
each, switch queues of 100 packets), web-search flows (DCTCP's distribution) between
uniformly drawn hosts, Poisson arrivals at 50 % of the host links' capacity over the
window, simulated to its end; every flow with htsim's TCP conventions on both sides
(``HTSIM_TCP``); ccsim's host NIC queue is ``fq`` as in the suite (``--host-queue
fifo``: a drop-tail FIFO, cheaper, with ACKs behind the host's data). ccsim runs as a user runs it: ``ccsim run SCENARIO --out DIR --quiet``
(start-up; reading a scenario whose one flow table takes the flows from a file in
htsim's connection-matrix format, ``matrix = {kind = "file"}``, as htsim's program reads
a flows file; the run; the Parquet tables); its
engine's own CPU time is ``summary.json``'s ``cpu_s``.

Measured, as ``benches/speed.py`` measures (its ``_timed``: CPU time user + system from
``wait4``, peak RSS from ``/usr/bin/time``), the simulators alternating, best of
``--repeat`` by CPU time: each simulator's CPU time, peak RSS, the data packets delivered
(in order, at the receivers), CPU per delivered packet, the ratio htsim / ccsim, and
memory per flow: the peak RSS of the run minus that of the same fabric with half the
window (half the flows; the fabric and the load's packets in flight cancel out), over
the flows removed. Wall time and peak memory per simulated 100 ms are given for every k
(the run's wall time scaled to 100 ms where the window is shorter).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import speed  # noqa: E402  (benches/ is not a package)

from ccsim.validation.htsim.fabric_scenario import (  # noqa: E402
    Case,
    ccsim_scenario,
    flows,
    htsim_command,
    htsim_flows_text,
    matrix_text,
)
from ccsim.validation.htsim.reference import fabric_program  # noqa: E402
from ccsim.validation.mdblock import replace_block  # noqa: E402

MARKS = ("<!-- htsim-fabric-speed:begin -->", "<!-- htsim-fabric-speed:end -->")


@dataclasses.dataclass
class Run:
    wall_s: float
    cpu_s: float
    rss_mb: float
    delivered: int
    engine_cpu_s: float = float("nan")
    flows: int = 0


def case(k: int, window_ms: float, host_queue: str = "fq") -> Case:
    w = window_ms * 1000
    return Case(f"websearch k={k}", k, "websearch", window_us=w, end_us=w, host_queue=host_queue)


def run_htsim(c: Case, program: str) -> Run:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "flows.txt"
        fs = flows(c, 1)
        path.write_text(htsim_flows_text(fs))
        out, wall, cpu, rss = speed._timed(htsim_command(program, c, path, 1))
    delivered = int(next(ln.split()[1] for ln in out.splitlines() if ln.startswith("delivered")))
    return Run(wall, cpu, rss, delivered, flows=len(fs))


def run_ccsim(c: Case) -> Run:
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as d:
        path, cm = Path(d) / "fabric.json", Path(d) / "flows.cm"
        fs = flows(c, 1)
        cm.write_text(matrix_text(c, fs))
        sc = ccsim_scenario(c, 1, matrix=cm)
        path.write_text(json.dumps(sc))
        out_dir = Path(d) / "out"
        _, wall, cpu, rss = speed._timed(
            [*speed._ccsim_command(), "run", str(path), "--out", str(out_dir), "--quiet"]
        )
        summary = json.loads((out_dir / "summary.json").read_text())
        delivered = pq.read_table(out_dir / "flows.parquet", columns=["bytes_delivered"])
        pkts = sum(-(-b // 1460) for b in delivered.column(0).to_pylist())
    return Run(wall, cpu, rss, pkts, summary["cpu_s"], len(fs))


def best(runs: list[Run]) -> Run:
    return min(runs, key=lambda r: r.cpu_s)


def measure(k: int, window_ms: float, repeat: int, program: str, host_queue: str) -> dict:
    c = case(k, window_ms, host_queue)
    hs, cs = [], []
    for i in range(repeat):
        print(f"k={k}: run {i + 1}/{repeat}", file=sys.stderr, flush=True)
        hs.append(run_htsim(c, program))
        cs.append(run_ccsim(c))
    h, s = best(hs), best(cs)
    half = case(k, window_ms / 2, host_queue)
    h2, s2 = run_htsim(half, program), run_ccsim(half)
    return {
        "k": k,
        "hosts": c.hosts,
        "window_ms": window_ms,
        "htsim": dataclasses.asdict(h),
        "ccsim": dataclasses.asdict(s),
        "htsim_half": dataclasses.asdict(h2),
        "ccsim_half": dataclasses.asdict(s2),
    }


def per_flow_kb(full: dict, half: dict) -> float:
    removed = full["flows"] - half["flows"]
    return (full["rss_mb"] - half["rss_mb"]) * 1024 / removed if removed > 0 else float("nan")


def table(rows: list[dict]) -> str:
    lines = [
        "| k (hosts) | window | flows | delivered packets (htsim / ccsim) | CPU s (htsim / ccsim "
        "process / ccsim engine) | ratio htsim / ccsim CPU (process / engine) | CPU per "
        "delivered packet, us (htsim / ccsim) | wall s per simulated 100 ms (htsim / ccsim) "
        "| peak RSS MB (htsim / ccsim) | memory per flow, KB (htsim / ccsim) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        h, s = r["htsim"], r["ccsim"]
        scale = 100 / r["window_ms"]
        lines.append(
            f"| {r['k']} ({r['hosts']}) | {r['window_ms']:g} ms | {h['flows']} "
            f"| {h['delivered']:,} / {s['delivered']:,} "
            f"| {h['cpu_s']:.2f} / {s['cpu_s']:.2f} / {s['engine_cpu_s']:.2f} "
            f"| {h['cpu_s'] / s['cpu_s']:.2f}× / {h['cpu_s'] / s['engine_cpu_s']:.2f}× "
            f"| {h['cpu_s'] / h['delivered'] * 1e6:.3f} / {s['cpu_s'] / s['delivered'] * 1e6:.3f} "
            f"| {h['wall_s'] * scale:.1f} / {s['wall_s'] * scale:.1f} "
            f"| {h['rss_mb']:.0f} / {s['rss_mb']:.0f} "
            f"| {per_flow_kb(h, r['htsim_half']):.2f} / {per_flow_kb(s, r['ccsim_half']):.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", default="4,8,12,16", help="fat-tree sizes (even k)")
    ap.add_argument("--window-ms", type=float, default=100.0, help="simulated window")
    ap.add_argument("--repeat", type=int, default=3, help="runs per simulator (best by CPU)")
    ap.add_argument(
        "--host-queue",
        choices=("fq", "fifo"),
        default="fq",
        help="ccsim's host NIC queue: fq (as the validation suite: ACKs not behind data, as "
        "htsim's FairPriorityQueue serves them) or fifo (cheaper; ACKs wait behind data)",
    )
    ap.add_argument("--save", type=Path, help="write the measurements (JSON) here")
    ap.add_argument("--load", type=Path, help="tabulate saved measurements")
    ap.add_argument("--write", type=Path, help="replace the block in this markdown file")
    a = ap.parse_args(argv)
    if a.load:
        rows = json.loads(a.load.read_text())
    else:
        program = fabric_program()
        if program is None:
            print("fabric benchmark skipped: no htsim (CCSIM_HTSIM_DIR)")
            return 0
        rows = []
        for k in (int(x) for x in a.ks.split(",")):
            rows.append(measure(k, a.window_ms, a.repeat, program, a.host_queue))
            if a.save:
                a.save.write_text(json.dumps(rows, indent=1))
    text = table(rows)
    print(text)
    if a.write:
        shown = [x for x in (argv if argv is not None else sys.argv[1:])]
        block = f"{speed.stamp(shown).replace('benches/speed.py', 'benches/fabric.py')}\n\n{text}"
        replace_block(a.write, block, *MARKS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
