"""A corpus of scenarios for checking that an engine change leaves results unchanged.

    python tools/corpus.py write DIR [--quick] [--only PARTS]
    python tools/corpus.py dump BIN DIR OUT [--jobs 2] [--timeout 600]
    python tools/corpus.py compare OUT_A OUT_B [--ignore-summary KEYS]

``write`` puts the scenarios in DIR, resolved (``ccsim.resolve``) where the engine takes
the resolved form back, named so that they sort stably: the bundled ones (``1-bundled-``),
the papers' experiments in quick mode (``2-paper-``), the ccsim side of the validation
suites (``3-valid-``) and FEATURES (``4-feature-``); long runs shortened (CAPS); a
scenario the engine refuses skipped and named on stderr. ``dump`` runs ``BIN SCENARIO
--dump`` (the engine's ``examples/run``) on each into ``OUT/NAME.dump`` (a failed run's
error text instead); ``compare`` names the dumps that differ and where. See
docs/performance.md, "Checking that a change leaves results unchanged".
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import string
import subprocess
import sys
import time
from pathlib import Path

PARTS = ("bundled", "papers", "validation", "features")
#: Runs kept of a paper experiment with more than BIG runs (every EVERY-th).
BIG, EVERY = 60, 10
#: The memory budget scenarios are resolved against (fixed: the corpus is the same on
#: every machine).
MEMORY = "16GB"
#: Simulated seconds kept of the scenarios (by name prefix) whose full runs take over
#: about 1.5 s (measured with `dump`, which lists the slow runs).
CAPS = {
    "1-bundled-workload-100k": 25.0,  # 200 s, ending at the 100 000th completion (~100 s)
    "2-paper-westwood-fig8-": 45.0,  # 200 flows for 50 s (RTT 100 ms) or 90 s (300 ms)
    "2-paper-bmcc-routers-003": 30.0,  # 100 s
    "2-paper-bmcc-mixes-001": 50.0,  # 100 s
    "2-paper-blt-tradeoff-250": 50.0,  # 100 s
    "2-paper-blt-tradeoff-270": 10.0,  # 40 s
    "3-valid-ns2-tcp-23-": 45.0,  # 200 flows for 90 s
}


def _slug(*parts: object) -> str:
    text = "-".join(str(p) for p in parts if p not in (None, ""))
    return re.sub(r"[^A-Za-z0-9.+]+", "-", text).strip("-")[:70].rstrip("-")


def _seconds(t: str) -> float:
    """A resolved time ("0.04s") in seconds."""
    return float(t.removesuffix("s"))


# ----- the scenarios


def bundled(quick: bool):
    from ccsim import scenarios

    # The repository's scenarios/ (the package's directory) over the installed copy.
    files = {n: scenarios.path(n) for n in scenarios.names()}
    files.update(
        {p.stem: p for p in (Path(__file__).resolve().parent.parent / "scenarios").glob("*.toml")}
    )
    for name in sorted(files):
        yield f"1-bundled-{_slug(name)}", str(files[name])


def papers(quick: bool):
    from ccsim.experiments import all_experiments

    for exp in all_experiments():
        runs = exp.runs(True)
        idx = range(0, len(runs), EVERY) if len(runs) > BIG else range(len(runs))
        for i in idx[:1] if quick else idx:
            params = runs[i].params
            yield f"2-paper-{exp.name}-{i:03d}-{_slug(*params.values())}", runs[i].scenario


def validation(quick: bool):
    import dataclasses

    from ccsim.validation.ns2 import blt_tcp, bmcc_mix, buc_fifo, queue_disciplines, tcp_suite
    from ccsim.validation.ns2.tcp_scenario import ccsim_scenario
    from ccsim.validation.ns3 import modern_cc_aqm, westwood_buffer_sizing

    def first(xs):
        return list(xs)[:1] if quick else list(xs)

    for i, c in enumerate(first(tcp_suite.cases(True))):
        for seed in (1, 2) if c.pairs <= 2 else (1,):
            yield f"3-valid-ns2-tcp-{i:02d}-s{seed}-{_slug(c.name)}", ccsim_scenario(c, seed)
    for p in first(sorted(queue_disciplines.CASE_FILES.glob("*.toml"))):
        yield f"3-valid-ns2-queues-{_slug(p.stem)}", str(p)
    for i, c in enumerate(first(bmcc_mix.cases(True))):
        yield f"3-valid-ns2-bmcc-mix-{i:02d}-{_slug(c.name)}", ccsim_scenario(c, 1)
    for lam in first(blt_tcp.LOADS):
        for v in ("experiment", "ns2"):
            p = blt_tcp.Point(lam, 1, 100, 500)
            sc = blt_tcp.ccsim_scenario(p, blt_tcp.VARIANTS[v])
            yield f"3-valid-ns2-blt-tcp-{_slug(lam, v)}", sc
    for r in first(r for r in buc_fifo.cases(True) if r.seed == 1):
        yield f"3-valid-ns2-buc-fifo-{_slug(r.variant)}", buc_fifo.scenario(r)
    # ns-3 Westwood+: the suite's ccsim variants, as westwood_buffer_sizing.ccsim_run builds them.
    variants = [("fig8", False)] + [
        (conv, sack)
        for lab, conv, sack, _ in westwood_buffer_sizing.CCSIM_VARIANTS
        if lab in westwood_buffer_sizing.SUITE_CCSIM
    ]
    case = westwood_buffer_sizing.single_flow(quick=True)
    for p in first(westwood_buffer_sizing.PROTOCOLS):
        for conv, sack in first(variants):
            s = ccsim_scenario(dataclasses.replace(case, sack=sack), 1)
            keys = westwood_buffer_sizing.CCSIM_CONVENTIONS[conv]
            for f in s["flows"]:
                f["cc"], f["min_rto"] = p, "200ms"
                for k in ("conventions", "rtt_tick") if "conventions" in keys else ():
                    f.pop(k, None)
                f.update(keys)
            yield f"3-valid-ns3-westwood-{_slug(p, conv, 'sack' if sack else '')}", s
    for i, c in enumerate(first(modern_cc_aqm.suite_cases(True))):
        yield f"3-valid-ns3-modern-{i:02d}-{_slug(c.name)}", modern_cc_aqm.ccsim_scenario(c, 1)


# Feature scenarios: overrides of BASE (a 3-s run over a 10-Mbps dumbbell with unequal
# access delays, so no exact ties). One scenario a line (indented lines continue it):
# "NAME: key.path=value; ..." (values in TOML, as `ccsim run --set`), $NAME from MACROS.
BASE = {
    "seed": 7,
    "duration": "3s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
        "access": {"rate": "100Mbps", "delay": ["1ms", "2.7ms"]},
    },
    "flows": [{"pairs": "all", "start": {"uniform": ["0s", "0.2s"]}}],
}
MACROS = {
    "Q": "topology.bottleneck.queue=",
    "RED": '{kind="red", limit="60pkt", min_th=5, max_th=15, ecn=true}',
    "MON": 'monitor={interval="20ms", queues="all", flows="all"}',
    # two TCP flows per pair and a CBR source
    "TWO": 'flows=[{pairs="all", start={uniform=["0s", "0.2s"]}, count=2}, '
    '{kind="cbr", pairs=[0], rate="1Mbps"}]',
    "CC": 'topology.bottleneck.rate="20Mbps"; duration="8s"; flows[0].cc=',
    "WEB": 'workloads=[{name="web", pairs="all", direction="both", arrival_rate=20, size="20KB"}]',
    "BMCC": 'flows=[{pairs="all", count=2, start="0.1s"}, {pairs="all", sack=true, ecn=true}]; '
    "topology.bottleneck.queue=",
    "GRAPH": 'topology={kind="graph", nodes=["s0", "s1", "G", "R", "D"], links=['
    '{from="s0", to="G", rate="10Mbps", delay="1ms"}, '
    '{from="s1", to="G", rate="10Mbps", delay="2ms"}, '
    '{from="G", to="R", rate="2Mbps", delay="10ms"}, '
    '{from="R", to="D", rate="10Mbps", delay="1ms"}]}; duration="5s"; '
    'flows=[{src="s0", dst="D", cc="reno"}, {src="s1", dst="D", start="0.3s"}]',
    "FABRIC": 'topology={kind="leaf_spine", leaves=3, spines=2, hosts_per_leaf=2}; '
    'topology.host_link={rate="100Mbps", delay="10us"}; duration="0.5s"; '
    'topology.fabric_link={rate="100Mbps", delay="20us", jitter="1us", queue=$RED}; '
    'flows=[{src="h0_0", dst="h1_0", cc="dctcp", size="2MB"}, {src="h0_1", dst="h1_1"}, '
    '{src="h2_0", dst="h1_1", cc="cubic"}]; workloads=[{name="rack", arrival_rate=100, '
    'sources=["h0_0", "h2_1"], destinations=["h1_0", "h2_0"], size="10KB"}]',
}
FEATURES = """
queue-droptail-bytes: $Q{kind="droptail", limit="30KB"}; $TWO; $MON
queue-red: $Q{kind="red", limit="60pkt", gentle=false, byte_mode=false}; $TWO; $MON
queue-red-ns2-weight: $Q{kind="red", limit="60pkt", q_weight=-1, wait=false}; $TWO; $MON
queue-red-ecn: $Q$RED; $TWO; flows[0].ecn=true; $MON
queue-ared: $Q{kind="ared", limit="60pkt", target_delay="3ms", interval="200ms"}; $TWO; $MON
queue-drr: $Q{kind="drr", limit="60pkt", quantum="1500B"}; $TWO; $MON
queue-fq: $Q{kind="fq", limit="60pkt"}; $TWO; $MON
queue-fq-head: $Q{kind="fq", limit="60pkt", drop="head"}; $TWO; $MON
queue-codel: $Q{kind="codel", limit="200pkt"}; $TWO; $MON
queue-codel-newton-ecn: $Q{kind="codel", limit="200pkt", inv_sqrt="newton", ecn=true}; $TWO;
    flows[0].ecn=true; $MON
queue-fq_codel: $Q{kind="fq_codel", limit="200pkt"}; $TWO; $MON
queue-fq_codel-ns3: $Q{kind="fq_codel", limit="200pkt", flows=4, mtu_backlog="queue"}; $TWO; $MON
queue-pie: $Q{kind="pie", limit="200pkt"}; $TWO; $MON
queue-pie-ns3-ecn: $Q{kind="pie", limit="200pkt", burst="ns3", derandomize=false, ecn=true};
    $TWO; flows[0].ecn=true; $MON
queue-step-pass: $Q{kind="step", threshold=8, limit="100pkt", non_ect="pass"}; $TWO; $MON
queue-prio_discard: $Q{kind="prio_discard", limit="40KB"};
    flows=[{kind="blt", pairs=[0], size="200KB"}, {kind="bully-tyrant", pairs=[1], size="200KB"}]
queue-prio_discard-fixed: $Q{kind="prio_discard", limit="40KB", variant="fixed"}; flows=[];
    workloads=[{pairs="all", arrival_rate=5, size="50KB", transport={kind="blt"}}]
cc-tahoe: $CC"tahoe"; $MON
cc-reno: $CC"reno"; $MON
cc-newreno: $CC"newreno"; $MON
cc-westwood: $CC"westwood"; $MON
cc-westwood-linux: $CC"westwood-linux"; $MON
cc-cubic: $CC"cubic"; $MON
cc-cubic-linux: $CC{kind="cubic", variant="linux"}; $MON
cc-cubic-ns3-keep: $CC{kind="cubic", variant="ns3", timeout_w_max="keep"}; $MON
cc-cubic-hystart: $CC{kind="cubic", hystart="hystart++", fast_convergence=false}; $MON
cc-vegas: $CC"vegas"; $MON
cc-vegas-one-segment: $CC{kind="vegas", loss="one_segment", alpha=1, beta=3}; $MON
cc-bbr: $CC"bbr"; $MON
cc-bbr-gains: $CC{kind="bbr", probe_gain=1.5, min_rtt_window="1s"}; $MON
cc-dctcp: $Q{kind="step", threshold=10}; flows[0].count=2; flows[0].cc="dctcp"
cc-dctcp-ns3: $Q{kind="step", threshold=10}; flows[0].count=2;
    flows[0].cc={kind="dctcp", variant="ns3", g=0.125}
cc-bmcc: $BMCC{kind="bmcc", limit="1bdp"}; flows[0].cc="bmcc"; flows[0].feedback={kind="bmcc"}; $MON
cc-bmcc-modified: $BMCC{kind="bmcc", limit="1bdp", overload="ared"};
    flows[0].cc={kind="bmcc", sack_fallback=true}; flows[0].feedback={kind="bmcc", on_ce="flag"}
cc-bmcc-once-per-rtt: $BMCC{kind="bmcc", limit="1bdp", kappa1=0.5};
    flows[0].cc={kind="bmcc", md_rule="once-per-rtt", rtt="min"}; flows[0].feedback={kind="bmcc"}
tcp-sack: flows[0].sack=true
tcp-sack-2-blocks-prr: flows[0].sack=true; flows[0].sack_blocks=2; flows[0].prr=true;
    flows[0].send_limit="pipe"
tcp-delayed-ack: flows[0].delayed_ack=true; flows[0].delack_timeout="40ms"
tcp-ns2-send-jitter: flows[0].conventions="ns2"; flows[0].send_jitter="1ms"
tcp-ns3: flows[0].conventions="ns3"
tcp-handshake-pacing: flows[0].handshake=true; flows[0].pacing=true
tcp-timestamps: flows[0].rtt_samples="timestamps"; flows[0].rtt_gains="rfc7323";
    flows[0].limited_transmit=true
tcp-ns2-estimator: flows[0].rtt_estimator="ns2"; flows[0].rtt_tick="10ms"; flows[0].full_ack="keep"
tcp-rto: flows[0].rto_ssthresh="once-per-window"; flows[0].min_rto="50ms"; flows[0].init_cwnd=10
tcp-finite: flows[0].size="300KB"; flows[0].byte_counting=false; flows[0].rwnd="40KB";
    flows[0].count=3
tcp-ecn: $Q$RED; flows[0].ecn=true; flows[0].count=2
link-loss: topology.bottleneck.loss=0.01; flows[0].sack=true
link-jitter: topology.bottleneck.jitter="2ms"; topology.access.jitter="500us";
    topology.access.loss=0.001
warmup: warmup="1.5s"
open-loop-workloads: flows=[]; $WEB; workloads[0].size={dist="pareto", shape=1.2, mean="30KB"};
    $MON
open-loop-per-pair: flows=[]; workloads=[{pairs=[1], process="per_pair", pick="idle",
    offered_load="2Mbps", size={dist="exponential", mean="20KB"}, transport={sack=true}}]
open-loop-completions: $WEB; workloads[0].direction="forward"; workloads[0].completions=40
open-loop-datagrams: $Q$RED; $MON; flows=[{kind="cbr", pairs=[0], rate="6Mbps",
    packet_size="500B", stop="2s"}, {kind="poisson", pairs=[1], rate="5Mbps",
    size_dist="exponential", ecn=true}]
component-token-gate: $GRAPH; topology.links[2].queue={kind="droptail", limit="inf"}; $MON;
    components=[{node="G", kind="token_gate", forward="G->R", buffer="40000B", threshold=3}]
component-buc: $GRAPH; topology.links[2].queue={kind="fq", limit="100pkt"}; $MON;
    topology.links[2].reverse_queue={kind="fq", limit="100pkt"};
    components=[{node="G", kind="buc", ports=["G->R"], tbu="30000B", events=true, w_init=16}]
leaf-spine-ecmp: $FABRIC; $MON
leaf-spine-no-ecmp: $FABRIC; topology.ecmp=false
capture-trace: $Q$RED; flows[0].ecn=true; flows[0].sack=true; capture=[{link="R1->R2",
    snaplen="64B", handshake=true}, {node="R1", file="r1.pcapng", start="0.5s", stop="2s"}];
    trace={links=["R1->R2", "R2->R1"], flows="all", ns2=true}
capture-trace-workload: flows=[]; $WEB; capture=[{link="R1->R2", file="web.pcapng"}];
    trace={links=["R1->R2"], flows=["web"], start="1s", stop="2.5s"}
"""


def features(quick: bool):
    """Short scenarios exercising what the other parts may miss (FEATURES)."""
    macros = {k: string.Template(v).safe_substitute(MACROS) for k, v in MACROS.items()}
    text = string.Template(re.sub(r"\n\s+", " ", FEATURES.strip())).substitute(macros)
    for i, line in enumerate(text.splitlines()):
        name, _, overrides = line.partition(": ")
        yield f"4-feature-{i:02d}-{name}", (BASE, overrides.split("; "))


def prepare(scenario, cap: float | None) -> dict:
    """The scenario to write: resolved where the engine takes its resolved form back
    unchanged, else as given; run for at most ``cap`` simulated seconds."""
    import copy

    import ccsim
    from ccsim.scenario import load_scenario

    raw = copy.deepcopy(load_scenario(*scenario if isinstance(scenario, tuple) else [scenario]))
    resolved = ccsim.resolve(raw, memory_limit=MEMORY)
    if cap is not None and _seconds(resolved["duration"]) > cap:
        raw["duration"] = f"{cap:g}s"
        if _seconds(resolved["warmup"]) >= cap / 2:
            raw["warmup"] = f"{cap / 2:g}s"
        resolved = ccsim.resolve(raw, memory_limit=MEMORY)
    try:
        if ccsim.resolve(resolved, memory_limit=MEMORY) == resolved:
            return resolved
    except ccsim.ScenarioError:
        pass  # e.g. a workload's transport resolves with a `size` it refuses on input
    return raw


def write(directory: Path, quick: bool, parts: list[str]) -> int:
    import ccsim

    directory.mkdir(parents=True, exist_ok=True)
    written, skipped = set(), 0
    for part in parts:
        for name, scenario in globals()[part](quick):
            cap = next((v for k, v in CAPS.items() if name.startswith(k)), None)
            try:
                sc = prepare(scenario, cap)
            except ccsim.ScenarioError as e:
                print(f"skipped {name}: {e}", file=sys.stderr)
                skipped += 1
                continue
            text = json.dumps(sc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            (directory / f"{name}.json").write_text(text, encoding="utf-8")
            written.add(f"{name}.json")
    for p in directory.glob("*.json"):  # from an earlier corpus
        if p.name[:2] in ("1-", "2-", "3-", "4-") and p.name not in written:
            p.unlink()
    print(f"{len(written)} scenarios written to {directory}, {skipped} skipped")
    return 0


# ----- dump and compare


def _dump_one(binary: str, directory: Path, name: str, out: Path, timeout: float):
    t = time.perf_counter()
    try:
        p = subprocess.run(
            [binary, f"{name}.json", "--dump"], cwd=directory, capture_output=True, timeout=timeout
        )
        ok = p.returncode == 0
        text = p.stdout if ok else f"error: exit status {p.returncode}\n".encode() + p.stderr
    except subprocess.TimeoutExpired:
        ok, text = False, f"error: no result within {timeout:g} s\n".encode()
    (out / f"{name}.dump").write_bytes(text)
    return name, time.perf_counter() - t, ok


def dump(binary: str, directory: Path, out: Path, jobs: int, timeout: float, slow: float) -> int:
    binary = str(Path(binary).resolve())
    names = sorted(p.stem for p in directory.glob("*.json"))
    if not names:
        sys.exit(f"no scenario files (*.json) in {directory}")
    out.mkdir(parents=True, exist_ok=True)
    for p in out.glob("*.dump"):
        if p.stem not in names:
            p.unlink()  # of a scenario no longer in DIR
    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        done = list(ex.map(lambda n: _dump_one(binary, directory, n, out, timeout), names))
    wall = time.perf_counter() - t
    failed = [n for n, _, ok in done if not ok]
    print(f"{len(done)} scenarios dumped to {out} in {wall:.1f} s ({jobs} at a time)")
    if failed:
        print(f"{len(failed)} failed (their error text written): {', '.join(failed)}")
    for n, s, _ in sorted(done, key=lambda x: -x[1]):
        if s > slow:
            print(f"  {s:6.1f} s  {n}")
    return 0


def _lines(path: Path) -> dict[str, str]:
    """A dump's lines by key: ``summary``, ``table.column`` or ``file NAME``."""
    out = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        head, _, rest = line.partition(" ")
        key = f"file {rest.split(' ')[0]}" if head == "file" else head
        out.setdefault(key, line)
    return out


def difference(a: Path, b: Path, ignore: set[str]) -> str:
    """Why dumps ``a`` and ``b`` differ ('' if they do not)."""
    if not (a.exists() and b.exists()):
        return f"only in {(a if a.exists() else b).parent}"
    if a.read_bytes() == b.read_bytes():
        return ""
    la, lb = _lines(a), _lines(b)
    if failed := [str(p.parent) for p, d in ((a, la), (b, lb)) if "summary" not in d]:
        return f"the run failed in {' and '.join(failed)}" + (len(failed) == 2) * " (other text)"
    sa, sb = (json.loads(d.pop("summary").partition(" ")[2]) for d in (la, lb))
    keys = [k for k in {**sa, **sb} if k not in ignore and sa.get(k, "-") != sb.get(k, "-")]
    cols = [k for k in {**la, **lb} if la.get(k) != lb.get(k)]
    why = [f"summary keys {', '.join(keys)}"] if keys else []
    if cols:
        more = f" (and {len(cols) - 1} more)" if len(cols) > 1 else ""
        why.append(f"first differing column {cols[0]}{more}")
    return "; ".join(why)


def compare(a: Path, b: Path, ignore: set[str]) -> int:
    if empty := [d for d in (a, b) if not any(d.glob("*.dump"))]:
        sys.exit(f"no dumps (*.dump) in {empty[0]}")
    names = sorted({p.stem for d in (a, b) for p in d.glob("*.dump")})
    diffs = [(n, difference(a / f"{n}.dump", b / f"{n}.dump", ignore)) for n in names]
    diffs = [(n, why) for n, why in diffs if why]
    print(f"{len(names) - len(diffs)} identical, {len(diffs)} differ")
    for n, why in diffs:
        print(f"  {n}: {why}")
    return 1 if diffs else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write the scenario files into DIR")
    w.add_argument("dir", type=Path)
    w.add_argument("--quick", action="store_true", help="one scenario per experiment and suite")
    w.add_argument("--only", default=",".join(PARTS), help=f"parts, of {','.join(PARTS)}")
    d = sub.add_parser("dump", help="run BIN --dump on every scenario of DIR into OUT")
    d.add_argument("bin")
    d.add_argument("dir", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    d.add_argument("--timeout", type=float, default=600.0, help="seconds per run (default 600)")
    d.add_argument("--slow", type=float, default=3.0, help="list runs longer than this (s)")
    c = sub.add_parser("compare", help="compare the dumps of two builds")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--ignore-summary", default="", help="summary keys to ignore, e.g. events")
    a = ap.parse_args(argv)
    if a.cmd == "write":
        parts = [p for p in a.only.split(",") if p]
        if bad := [p for p in parts if p not in PARTS]:
            ap.error(f"unknown part {bad[0]!r}; parts: {', '.join(PARTS)}")
        return write(a.dir, a.quick, parts)
    if a.cmd == "dump":
        return dump(a.bin, a.dir, a.out, a.jobs, a.timeout, a.slow)
    return compare(a.a, a.b, {k for k in a.ignore_summary.split(",") if k})


if __name__ == "__main__":
    sys.exit(main())
