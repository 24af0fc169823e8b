"""Fat-trees against htsim (Broadcom/csg-htsim), side by side: permutation, incast and
web-search traffic on k = 4 and 8 fat-trees, TCP and DCTCP (issue 46).

    ccsim validate htsim-fabric                    # every case, 10 seeds
    ccsim validate htsim-fabric --quick            # 5 seeds
    python -m ccsim.validation.htsim.fabric_suite --only incast --seeds 20

Needs htsim's ``sim/`` directory, built, named by ``CCSIM_HTSIM_DIR`` (the fat-tree
program ``tools/htsim/fabric.cpp`` is built there on first use); without it the suite is
skipped with one line. :mod:`.fabric_scenario` writes both simulators' inputs from one
description (the same hosts, flows, sizes and start times; htsim's TCP conventions in
ccsim's keys) and reads both back.

Compared per case, over seeds (each seed its own draw of the traffic and of the paths;
paths are drawn differently by the two simulators, so never flow by flow): the mean FCT,
the 99th percentile (incast: the last flow's FCT, the incast's completion), the FCT
slowdown (FCT over the flow's FCT on an idle fabric with its window open, one formula
for both: :func:`~.fabric_scenario.ideal_fct_us`) as mean, median and 99th percentile,
and for flows under 100 KB; throughput per flow (size over FCT) as mean and 10th
percentile; the share of flows completed; drops and retransmission timeouts at the
switch queues; the switch queues' mean backlog. The tolerance of a quantity is
``framework.paired_tolerance`` at 99 % (and the Poisson noise of counts).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import sys

from ccsim.theory import confidence_interval
from ccsim.validation.framework import Quantity, SeedCheck, SuiteResult, run_seeded, seeded_main
from ccsim.validation.htsim.fabric_scenario import (
    PAYLOAD,
    WIRE,
    Case,
    Outcome,
    flows,
    ideal_fct_us,
    run_ccsim,
    run_htsim,
)
from ccsim.validation.htsim import reference
from ccsim.validation.htsim.reference import INSTALL, have_htsim

MARK_BEGIN = "<!-- htsim-fabric:begin -->"
MARK_END = "<!-- htsim-fabric:end -->"


def cases(quick: bool) -> list[Case]:
    out = [
        Case("k=4 permutation, 1 MB per host", 4, "permutation", pkts=700, end_us=2e6),
        Case("k=4 incast 15 to 1, 64 KB each", 4, "incast", pkts=44, end_us=3e6),
        Case("k=4 web search 50 %, 20 ms of arrivals", 4, "websearch", window_us=2e4, end_us=3e6),
        Case("k=8 permutation, 1 MB per host", 8, "permutation", pkts=700, end_us=2e6),
        Case(
            "k=4 DCTCP web search 50 %, 20 ms",
            4,
            "websearch",
            cc="dctcp",
            window_us=2e4,
            end_us=3e6,
        ),
        Case("k=4 DCTCP incast 15 to 1, 64 KB", 4, "incast", cc="dctcp", pkts=44, end_us=3e6),
    ]
    if not quick:
        out += [
            Case("k=8 incast 63 to 1, 64 KB each", 8, "incast", senders=63, pkts=44, end_us=3e6),
            Case(
                "k=8 web search 50 %, 5 ms of arrivals", 8, "websearch", window_us=5e3, end_us=3e6
            ),
        ]
    return out


# ----- what is compared


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(x for x in xs if not math.isnan(x))
    if not xs:
        return math.nan
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _mean(xs: list[float]) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.fmean(xs) if xs else math.nan


@dataclasses.dataclass
class Run:
    """One run with the case it belongs to (its flows, for sizes and ideal FCTs)."""

    case: Case
    seed: int
    o: Outcome

    def slowdowns(self, max_pkts: int | None = None) -> list[float]:
        fs = flows(self.case, self.seed)
        return [
            fct / ideal_fct_us(self.case, f)
            for f, fct in zip(fs, self.o.fct_us)
            if max_pkts is None or f.pkts <= max_pkts
        ]

    def throughputs_gbps(self) -> list[float]:
        fs = flows(self.case, self.seed)
        return [f.pkts * WIRE * 8 / fct / 1e3 for f, fct in zip(fs, self.o.fct_us)]


SMALL = 100_000 // PAYLOAD

FCT = [
    Quantity("fct", "mean FCT, ms", "{:.3f}", lambda r: _mean(r.o.fct_us) / 1e3, 0.005, 0.05),
    Quantity("fct99", "p99 FCT, ms", "{:.3f}", lambda r: _pct(r.o.fct_us, 0.99) / 1e3, 0.01, 0.1),
]
SLOW = [
    Quantity("sd", "mean slowdown", "{:.2f}", lambda r: _mean(r.slowdowns()), 0.05, 0.05),
    Quantity("sd50", "median slowdown", "{:.2f}", lambda r: _pct(r.slowdowns(), 0.5), 0.05, 0.05),
    Quantity("sd99", "p99 slowdown", "{:.1f}", lambda r: _pct(r.slowdowns(), 0.99), 0.5, 0.1),
    Quantity(
        "sds",
        "mean slowdown < 100 KB",
        "{:.2f}",
        lambda r: _mean(r.slowdowns(SMALL)),
        0.05,
        0.05,
    ),
]
TPUT = [
    Quantity(
        "tp",
        "mean throughput/flow, Gb/s",
        "{:.3f}",
        lambda r: _mean(r.throughputs_gbps()),
        0.05,
        0.03,
    ),
    Quantity(
        "tp10",
        "p10 throughput/flow, Gb/s",
        "{:.3f}",
        lambda r: _pct(r.throughputs_gbps(), 0.1),
        0.05,
        0.05,
    ),
]
NET = [
    Quantity(
        "done",
        "flows completed, %",
        "{:.1f}",
        lambda r: 100 * _mean([0.0 if math.isnan(x) else 1.0 for x in r.o.fct_us]),
        0.5,
    ),
    Quantity("drops", "drops", "{:.1f}", lambda r: r.o.drops, 2, 0.05, count=True),
    Quantity("rto", "timeouts", "{:.1f}", lambda r: r.o.timeouts, 1, 0.1, count=True),
    Quantity("q", "mean switch backlog, B", "{:.1f}", lambda r: r.o.queue_mean_bytes, 1, 0.1),
]


def quantities(case: Case) -> list[Quantity]:
    if case.traffic == "permutation":
        return FCT + TPUT + NET
    if case.traffic == "incast":
        last = Quantity(
            "last",
            "incast completion, ms",
            "{:.3f}",
            lambda r: _pct(r.o.fct_us, 1.0) / 1e3,
            0.01,
            0.05,
        )
        return [FCT[0], last] + NET
    return FCT + SLOW + NET


#: Differences outside tolerance with a known cause that is not a ccsim defect:
#: (case, quantity key) -> the cause with the runs that show it.
EXPLAINED: dict[tuple[str, str], str] = {
    ("k=8 incast 63 to 1, 64 KB each", "rto"): (
        "htsim checks every flow's timer once per 10 ms (TcpRtxTimerScanner), so the "
        "incast's late timeouts fire together at one tick and their retransmissions collide; "
        "with its scan at 10 us (-scan_us 10, 10 seeds) htsim has 75.2 timeouts and 754.6 "
        "drops per run, ccsim 83.7 and 774.8"
    ),
    ("k=8 incast 63 to 1, 64 KB each", "drops"): (
        "htsim checks every flow's timer once per 10 ms (TcpRtxTimerScanner), so the "
        "incast's late timeouts fire together at one tick and their retransmissions collide; "
        "with its scan at 10 us (-scan_us 10, 10 seeds) htsim has 75.2 timeouts and 754.6 "
        "drops per run, ccsim 83.7 and 774.8"
    ),
    ("k=4 DCTCP web search 50 %, 20 ms", "q"): (
        "htsim's ECNQueue marks a packet as it leaves, ccsim's step queue as it arrives "
        "(RFC 8257 §3.1), and htsim's DCTCPSrc cuts at the end of every window while "
        "alpha > 0; with the program's arrival-marking queue and RFC 8257 sender (-mark "
        "arrival -cc dctcp-rfc, 10 seeds) htsim has a mean switch backlog of 11.7 B and "
        "40.6 drops per run, ccsim 11.6 B and 49.4"
    ),
    ("k=4 DCTCP web search 50 %, 20 ms", "drops"): (
        "htsim's ECNQueue marks a packet as it leaves, ccsim's step queue as it arrives "
        "(RFC 8257 §3.1), and htsim's DCTCPSrc cuts at the end of every window while "
        "alpha > 0; with the program's arrival-marking queue and RFC 8257 sender (-mark "
        "arrival -cc dctcp-rfc, 10 seeds) htsim has a mean switch backlog of 11.7 B and "
        "40.6 drops per run, ccsim 11.6 B and 49.4"
    ),
    ("k=8 permutation, 1 MB per host", "drops"): (
        "the paths drawn: with ccsim's paths, data and ACKs (htsim_paths = ccsim, the same "
        "10 seeds) htsim drops 2791.2 per run against ccsim's 2787.1; over 30 seeds htsim "
        "drops 2870.2 with its own draw, 2851.7 with ccsim's paths, ccsim 2850.4"
    ),
}


class Check(SeedCheck):
    """A quantity of a case, htsim (``reference``) against ccsim over seeds."""

    explained = EXPLAINED


# ----- running


def run_one(job: tuple[str, Case, int]) -> tuple[str, int, str, dict]:
    side, c, seed = job
    o = run_htsim(c, seed) if side == "htsim" else run_ccsim(c, seed)
    return c.name, seed, side, dataclasses.asdict(o)


def run(cs: list[Case], seeds: int, jobs: int) -> dict:
    """{case name: {side: [outcome dict per seed]}}."""
    return reference.run_sides(cs, seeds, jobs, run_one)


def runs(raw: dict, c: Case, side: str) -> list[Run]:
    return [Run(c, s, Outcome(**d)) for s, d in enumerate(raw[c.name][side], 1)]


def checks(cs: list[Case], raw: dict) -> list[Check]:
    out = []
    for c in cs:
        ht, cc = runs(raw, c, "htsim"), runs(raw, c, "ccsim")
        for q in quantities(c):
            a, b = [q.get(r) for r in ht], [q.get(r) for r in cc]
            pairs = [(x, y) for x, y in zip(a, b) if not (math.isnan(x) or math.isnan(y))]
            if pairs:
                out.append(Check(c.name, q, [x for x, _ in pairs], [y for _, y in pairs]))
    return out


# ----- the block of docs/validation.md


def _cell(xs: list[float], fmt: str) -> str:
    hw = confidence_interval(xs, 0.90)[1] if len(xs) > 1 else math.nan
    return f"{fmt.format(statistics.fmean(xs))} ± {fmt.format(0.0 if hw != hw else hw)}"


def table(chks: list[Check], seeds: int) -> str:
    notes = sorted(
        {
            EXPLAINED[k]
            for ch in chks
            if not ch.ok
            for k in [(ch.case, ch.quantity.key)]
            if k in EXPLAINED
        }
    )
    lines = [
        "| case | quantity | htsim | ccsim | difference | tolerance | |",
        "|---|---|---|---|---|---|---|",
    ]
    for ch in chks:
        v = ch.verdict()
        mark = v.status
        if v.status == "explained":
            mark = f"explained ‡{notes.index(EXPLAINED[(ch.case, ch.quantity.key)]) + 1}"
        elif v.status == "FAIL":
            mark = "**✗**"
        fmt = ch.quantity.fmt
        lines.append(
            f"| {ch.case} | {ch.quantity.label} | {_cell(ch.reference, fmt)} "
            f"| {_cell(ch.ccsim, fmt)} | {ch.diff:+.3g} | ±{fmt.format(ch.tol)} | {mark} |"
        )
    bad = [ch for ch in chks if not ch.ok]
    unexplained = [ch for ch in bad if (ch.case, ch.quantity.key) not in EXPLAINED]
    lines += [
        "",
        f"Each cell: the mean over {seeds} seeds ± the 90 % confidence half-width; difference: "
        "the mean per-seed difference ccsim − htsim; tolerance: the 99 % half-width of that "
        "mean or the quantity's floor, whichever is larger (counts also their Poisson noise). "
        "**✗**: outside its tolerance" + ("; ‡: outside for a known reason:" if notes else "."),
        "",
        *[f"{i}. {n}." for i, n in enumerate(notes, 1)],
        *([""] if notes else []),
        f"{len(chks) - len(bad)} of {len(chks)} comparisons within tolerance, "
        f"{len(bad) - len(unexplained)} outside for a known reason, {len(unexplained)} outside.",
    ]
    return "\n".join(lines)


def result(cs: list[Case], raw: dict, seeds: int, wall: float) -> SuiteResult:
    chks = checks(cs, raw)
    return SuiteResult(table(chks, seeds), [ch.verdict() for ch in chks], seeds, wall)


def run_suite(
    quick: bool, only: str | None = None, jobs: int = 1, seeds: int | None = None
) -> SuiteResult:
    """The suite for ``ccsim validate`` (5 seeds quick, 10 full)."""
    return run_seeded(cases(quick), run, result, quick, only, jobs, seeds)


def main(argv: list[str] | None = None) -> int:
    return seeded_main(
        argv,
        __doc__,
        cases,
        run,
        result,
        ("htsim", have_htsim, f"htsim fabric validation skipped: no htsim ({INSTALL})"),
        (MARK_BEGIN, MARK_END),
        "5 seeds, k = 4 cases and one k = 8",
    )


if __name__ == "__main__":
    sys.exit(main())
