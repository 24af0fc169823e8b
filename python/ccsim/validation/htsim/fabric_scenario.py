"""Fat-tree cases written for htsim and for ccsim from one description, run in both and
read back the same way.

A :class:`Case` is a k-ary fat-tree (htsim's ``FatTreeTopology``, ccsim's ``kind =
"fat_tree"``) whose every link runs at ``rate_gbps`` with a propagation delay of
``latency_us`` (htsim's one hop latency; no switching latency in either), switch queues of
``queue_pkts`` packets (htsim ``ECNQueue``: bytes, the packet in service included; ccsim
a drop-tail byte limit of one packet less, since its limit counts the packets waiting) and
host NIC queues of 1 000 packets (htsim's ``FEEDER_BUFFER``), and a traffic pattern:

* ``permutation``: every host sends ``pkts`` packets to one other host, a permutation
  without fixed points (htsim's ``ConnectionMatrix::setPermutation``), starting within
  ``jitter_us``;
* ``incast``: ``senders`` hosts send ``pkts`` packets each to host 0, within ``jitter_us``;
* ``websearch``: Poisson arrivals over ``window_us`` at ``load`` of the host links, each
  between two distinct hosts drawn uniformly, sizes from the web-search distribution
  (DCTCP, SIGCOMM 2010; ccsim's ``cdf = "web_search"`` points) in whole packets.

:func:`flows` draws the flows (source, destination, packets, start) from the case and the
seed; both simulators get exactly these (:func:`htsim_flows_text`, :func:`ccsim_scenario`).
Packets are 1 500 bytes on the wire in both (htsim's data packet size; ccsim ``mss =
1460``, ``header = 40``), ACKs 40. The TCP of both is htsim's ``TcpSrc`` as ccsim's keys
express it (:data:`HTSIM_TCP`); paths are drawn differently: htsim's program picks one of
a flow's equal-cost paths at random and one of the paths back for its ACKs on its own,
ccsim hashes each direction per flow at every switch, so the cases are compared over
seeds, not flow by flow (explanatory runs can give htsim ccsim's paths:
``Case.htsim_paths = "ccsim"``).
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import random
import subprocess
import tempfile
import time
from pathlib import Path

from ccsim import _ccsim
from ccsim.api import run
from ccsim.validation.htsim.reference import fabric_program

#: Bytes on the wire per data packet (htsim's ``Packet::data_packet_size``) and per ACK.
WIRE = 1500
PAYLOAD = 1460
ACK = 40

#: htsim's ``TcpSrc`` (tcp.cpp) in ccsim's keys: an 11-packet initial window (its
#: ``_cwnd`` is 10 packets, but the SYN's ACK is taken as an ACK of new data and grows it
#: by one packet in slow start before the first data packet is sent; ccsim grows cwnd
#: on ACKs of data only, RFC 5681 §3.1) and a 100-packet initial ssthresh; a SYN before data; an RTT sample from every ACK
#: (the timestamp it echoes), RTO = SRTT + 4·MDEV with a floor of 250 ms, 3 s before
#: the first sample; no SACK, no delayed ACKs, no limited transmit; slow start by at most
#: one MSS per ACK, congestion avoidance by MSS²/cwnd per ACK; ssthresh = max(cwnd/2,
#: 2 MSS) on a loss; NewReno-like recovery leaving at min(ssthresh, flight + MSS), every
#: new ACK restarting the timer and a fast retransmit not. Not matched: htsim checks its
#: timers every 10 ms for all flows (``TcpRtxTimerScanner``), so its timeouts fire up to
#: 10 ms late; ccsim's fire on time.
HTSIM_TCP = {
    "mss": PAYLOAD,
    "header": WIRE - PAYLOAD,
    "ack_size": ACK,
    "init_cwnd": 11,
    "init_ssthresh": f"{100 * PAYLOAD}B",
    "handshake": True,
    "rtt_samples": "timestamps",
    "min_rto": "250ms",
    "init_rto": "3s",
    "sack": False,
    "delayed_ack": False,
    "limited_transmit": False,
    "byte_counting": False,
    "loss_window": "cwnd",
    "full_ack": "flight",
    "partial_ack_timer": "every",
    "rearm_rto": False,
}

#: The web-search flow sizes (bytes, P(X <= bytes)): ccsim's shipped ``web_search``, from
#: the engine, so that htsim's flows are drawn from the distribution ccsim's workloads use.
WEB_SEARCH = _ccsim.shipped_cdf("web_search")


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    k: int
    traffic: str
    rate_gbps: float = 10.0
    latency_us: float = 1.0
    queue_pkts: int = 100
    #: ``"tcp"`` or ``"dctcp"``.
    cc: str = "tcp"
    pkts: int = 100
    jitter_us: float = 10.0
    senders: int = 0
    load: float = 0.5
    window_us: float = 10_000.0
    end_us: float = 1_000_000.0
    #: ccsim's host NIC queue: ``"fq"`` (fair queueing: an ACK waits for at most the
    #: data packet in service, as htsim's FairPriorityQueue serves ACKs first) or
    #: ``"fifo"`` (ACKs behind the host's own data).
    host_queue: str = "fq"
    #: htsim's timer scan period (us; its TCP main's 10 ms) and its DCTCP sender
    #: (``"dctcp"``, htsim's ``DCTCPSrc``, or ``"dctcp-rfc"``: the program's copy that cuts
    #: only after a window with marks): explanatory runs change them.
    htsim_scan_us: float = 10_000.0
    htsim_dctcp: str = "dctcp"
    #: Where htsim's switch queues mark: ``"departure"`` (its ECNQueue) or ``"arrival"``
    #: (the program's queue marking as ccsim's step queue does), for explanatory runs.
    htsim_mark: str = "departure"
    #: htsim's ACK paths: ``"random"`` (one of the paths back drawn on its own, as ccsim
    #: hashes each direction at every switch on its own) or ``"reverse"`` (the data's path
    #: reversed, the program's choice before; for explanatory runs).
    htsim_ack_paths: str = "random"
    #: ``"ccsim"``: htsim's flows take the paths ccsim's ECMP hashes gave them, data and
    #: ACKs (read from a trace of a ccsim run of the same seed), so the two runs can be
    #: compared flow by flow; for explanatory runs (``""``: htsim draws them).
    htsim_paths: str = ""

    @property
    def hosts(self) -> int:
        return self.k**3 // 4


@dataclasses.dataclass(frozen=True)
class Flow:
    src: int
    dst: int
    pkts: int
    start_us: float


def web_search_size(rng: random.Random) -> float:
    """A flow size in bytes by inverse transform, linear between the points."""
    u = rng.random()
    ps = [p for _, p in WEB_SEARCH]
    i = max(1, bisect.bisect_left(ps, u))
    (x0, p0), (x1, p1) = WEB_SEARCH[i - 1], WEB_SEARCH[i]
    return x0 + (x1 - x0) * (u - p0) / (p1 - p0) if p1 > p0 else x1


def mean_web_search() -> float:
    return sum((x0 + x1) / 2 * (p1 - p0) for (x0, p0), (x1, p1) in zip(WEB_SEARCH, WEB_SEARCH[1:]))


def flows(case: Case, seed: int) -> list[Flow]:
    """The case's flows for ``seed`` (the same for both simulators)."""
    rng = random.Random(f"{case.name}/{seed}")
    n = case.hosts
    if case.traffic == "permutation":
        while True:
            perm = list(range(n))
            rng.shuffle(perm)
            if all(i != d for i, d in enumerate(perm)):
                break
        return [
            Flow(i, d, case.pkts, round(rng.uniform(0, case.jitter_us), 3))
            for i, d in enumerate(perm)
        ]
    if case.traffic == "incast":
        senders = rng.sample(range(1, n), case.senders or n - 1)
        return [Flow(s, 0, case.pkts, round(rng.uniform(0, case.jitter_us), 3)) for s in senders]
    if case.traffic == "websearch":
        mean_wire = mean_web_search() * WIRE / PAYLOAD
        rate = case.load * case.rate_gbps * 1e9 * n / (8 * mean_wire) / 1e6  # per us
        out, t = [], rng.expovariate(rate)
        while t < case.window_us:
            src = rng.randrange(n)
            dst = rng.randrange(n - 1)
            dst += dst >= src
            pkts = max(1, math.ceil(web_search_size(rng) / PAYLOAD))
            out.append(Flow(src, dst, pkts, round(t, 3)))
            t += rng.expovariate(rate)
        return out
    raise ValueError(f"unknown traffic {case.traffic!r}")


def hops(case: Case, src: int, dst: int) -> int:
    """Links between two hosts: 2 under one edge switch, 4 in one pod, 6 across pods."""
    half = case.k // 2
    if src // half == dst // half:
        return 2
    return 4 if src // (half * half) == dst // (half * half) else 6


def ideal_fct_us(case: Case, f: Flow) -> float:
    """The FCT the flow would have on an idle fabric with its whole window open: the
    SYN's round trip, the data at line rate stored and forwarded at each hop, the last
    ACK back (the normalizer of both simulators' slowdowns)."""
    h = hops(case, f.src, f.dst)
    us = 8 / (case.rate_gbps * 1e3)  # microseconds per byte
    rtt_small = 2 * h * (case.latency_us + ACK * us)
    data = f.pkts * WIRE * us + (h - 1) * WIRE * us + h * case.latency_us
    return rtt_small + data + h * (case.latency_us + ACK * us)


def host(case: Case, i: int) -> str:
    """htsim's host ``i`` as ccsim names it (pod, edge switch, host: the same order)."""
    half = case.k // 2
    return f"h{i // (half * half)}_{i // half % half}_{i % half}"


def htsim_flows_text(fs: list[Flow], paths: list[tuple[int, int]] | None = None) -> str:
    """The htsim program's flows file: ``src dst bytes start_us`` per line, and with
    ``paths`` each flow's path and ACK path indices."""
    if paths is None:
        return "".join(f"{f.src} {f.dst} {f.pkts * WIRE} {f.start_us:.3f}\n" for f in fs)
    return "".join(
        f"{f.src} {f.dst} {f.pkts * WIRE} {f.start_us:.3f} {p} {q}\n"
        for f, (p, q) in zip(fs, paths)
    )


def path_index(case: Case, src: int, dst: int, links) -> int:
    """The index among htsim's ``get_paths(src, dst)`` of the path over ``links`` (ccsim
    link names): within a pod the aggregation switch's position a; across pods
    a·k/2 + l for the l-th core of that switch (ccsim's core a·k/2 + l, htsim's
    a + l·k/2: ``FatTreeTopology`` lists a pod's switch a with cores a, a + k/2, ...)."""
    h = hops(case, src, dst)
    if h == 2:
        return 0
    agg = core = None
    for link in links:
        a, b = link.split("->")
        if a.startswith("edge") and b.startswith("agg"):
            agg = int(b.split("_")[1])
        elif a.startswith("agg") and b.startswith("core"):
            core = int(b[len("core") :])
    return agg if h == 4 else core


def ccsim_paths(case: Case, seed: int) -> list[tuple[int, int]]:
    """Each flow's (path, ACK path) as ccsim's ECMP hashes took them in its run of
    ``seed``, as htsim's path indices (a traced ccsim run: for explanatory runs)."""
    fs = flows(case, seed)
    sc = ccsim_scenario(case, seed, fs)
    up = [
        f"{a}->{b}"
        for p in range(case.k)
        for e in range(case.k // 2)
        for x in range(case.k // 2)
        for a, b in [(f"edge{p}_{e}", f"agg{p}_{x}")]
    ] + [
        f"agg{p}_{x}->core{x * (case.k // 2) + j}"
        for p in range(case.k)
        for x in range(case.k // 2)
        for j in range(case.k // 2)
    ]
    sc["trace"] = {"links": up, "flows": "all"}
    t = run(sc).trace
    t = t[t.event == "enqueue"]
    links = t.groupby(["flow", "kind"]).link.unique()

    def on(i: int, kind: str) -> list[str]:
        return list(links.get((f"f{i}", kind), []))

    return [
        (
            path_index(case, f.src, f.dst, on(i, "data")),
            path_index(case, f.dst, f.src, on(i, "ack")),
        )
        for i, f in enumerate(fs)
    ]


def matrix_text(case: Case, fs: list[Flow]) -> str:
    """The same flows in htsim's connection-matrix format (``Nodes``, ``Connections``,
    then ``SRC->DST start PICOSECONDS size BYTES``), which ccsim reads as
    ``matrix = {kind = "file"}``: one shared table for every flow, as htsim reads its
    file, rather than one table per flow."""
    lines = [f"Nodes {case.hosts}", f"Connections {len(fs)}"]
    lines += [
        f"{f.src}->{f.dst} start {round(f.start_us * 1000) * 1000} size {f.pkts * PAYLOAD}"
        for f in fs
    ]
    return "\n".join(lines) + "\n"


def _queue(case: Case, pkts: int) -> dict:
    # htsim's limit holds the packet in service; ccsim's counts the bytes waiting.
    limit = f"{(pkts - 1) * WIRE}B"
    if case.cc == "dctcp":
        return {"kind": "step", "threshold": 15, "non_ect": "pass", "limit": limit}
    return {"kind": "droptail", "limit": limit}


def ccsim_scenario(
    case: Case, seed: int, fs: list[Flow] | None = None, matrix: Path | None = None
) -> dict:
    """The ccsim scenario of ``case`` for ``seed``: a table per flow, or with ``matrix``
    (a file written by :func:`matrix_text`) one table reading the flows from it."""
    fs = flows(case, seed) if fs is None and matrix is None else fs
    rate = f"{case.rate_gbps:g}Gbps"
    delay = f"{case.latency_us * 1000:g}ns"
    switch = _queue(case, case.queue_pkts)
    link = {"rate": rate, "delay": delay, "queue": switch, "reverse_queue": switch}
    nic = {"kind": "fq" if case.host_queue == "fq" else "droptail", "limit": f"{999 * WIRE}B"}
    host_link = dict(link, queue=nic)
    tcp = dict(HTSIM_TCP)
    if case.cc == "dctcp":
        tcp.update(cc={"kind": "dctcp", "alpha_init": 0.0}, ecn=True)
    return {
        "name": f"htsim-fabric {case.name}",
        "seed": seed,
        "duration": f"{case.end_us:g}us",
        "topology": {
            "kind": "fat_tree",
            "k": case.k,
            "host_link": host_link,
            "fabric_link": link,
            "core_link": link,
        },
        "flows": [dict(tcp, matrix={"kind": "file", "path": str(matrix)})]
        if matrix is not None
        else [
            dict(
                tcp,
                name=f"f{i}",
                src=host(case, f.src),
                dst=host(case, f.dst),
                size=f"{f.pkts * PAYLOAD}B",
                start=f"{round(f.start_us * 1000)}ns",
            )
            for i, f in enumerate(fs)
        ],
    }


@dataclasses.dataclass
class Outcome:
    """One run of a case: each flow's FCT (us, NaN if not completed by the end), the
    drops at switch queues, the switch queues' mean and largest backlog (bytes), the
    retransmission timeouts, and the run's wall time."""

    fct_us: list[float]
    drops: int
    queue_mean_bytes: float
    queue_max_bytes: float
    timeouts: int
    wall_s: float = 0.0


def htsim_command(program: str, case: Case, flows_file: Path, seed: int) -> list[str]:
    return [
        program,
        "-k",
        str(case.k),
        "-flows",
        str(flows_file),
        "-end_us",
        f"{case.end_us:g}",
        "-linkspeed_mbps",
        f"{case.rate_gbps * 1000:g}",
        "-latency_ns",
        f"{case.latency_us * 1000:g}",
        "-queue_pkts",
        str(case.queue_pkts),
        "-cc",
        case.htsim_dctcp if case.cc == "dctcp" else case.cc,
        "-seed",
        str(seed),
        "-scan_us",
        f"{case.htsim_scan_us:g}",
        "-mark",
        case.htsim_mark,
        "-ack_paths",
        case.htsim_ack_paths,
    ]


def parse_htsim(text: str) -> Outcome:
    """The program's output: ``flow`` lines, then ``drops``, ``queue_mean_bytes``,
    ``queue_max_bytes``, ``timeouts``."""
    fct: list[float] = []
    said: dict[str, float] = {}
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "flow":
            v = float(w[6])
            fct.append(math.nan if v < 0 else v)
        elif len(w) == 2:
            said[w[0]] = float(w[1])
    return Outcome(
        fct,
        int(said["drops"]),
        said["queue_mean_bytes"],
        said["queue_max_bytes"],
        int(said.get("timeouts", 0)),
    )


def run_htsim(case: Case, seed: int) -> Outcome:
    program = fabric_program()
    if program is None:
        raise RuntimeError("no htsim fat-tree program (CCSIM_HTSIM_DIR)")
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "flows.txt"
        paths = ccsim_paths(case, seed) if case.htsim_paths == "ccsim" else None
        if paths and case.htsim_ack_paths == "reverse":
            paths = [(p, p) for p, _ in paths]
        path.write_text(htsim_flows_text(flows(case, seed), paths))
        out = subprocess.run(
            htsim_command(program, case, path, seed), capture_output=True, text=True, check=True
        ).stdout
    o = parse_htsim(out)
    o.wall_s = time.perf_counter() - t
    return o


def switch_queue(name: str) -> bool:
    """A queue of a switch's output (ccsim names queues ``from->to``)."""
    return not name.startswith("h")


def run_ccsim(case: Case, seed: int) -> Outcome:
    t = time.perf_counter()
    r = run(ccsim_scenario(case, seed))
    fl = r.flows.set_index("name")
    n = len(flows(case, seed))
    fct = [float(fl.loc[f"f{i}"].fct_s) * 1e6 for i in range(n)]
    q = r.queues[[switch_queue(x) for x in r.queues.queue]]
    return Outcome(
        fct,
        int(q.drops.sum()),
        float(q.mean_len_bytes.mean()),
        float(q.max_len_bytes.max()),
        int(r.flows.timeouts.sum()),
        time.perf_counter() - t,
    )
