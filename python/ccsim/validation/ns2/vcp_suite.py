"""VCP against VCP's own ns-2 code: ccsim's model (docs/models/vcp.md) and the authors'
VCP 0.1 built into ns-2.35, on the SIGCOMM 2005 paper's kinds of scenario.

    ccsim validate vcp                           # every case, 10 seeds
    ccsim validate vcp --quick                   # 5 seeds, shorter dumbbells
    python -m ccsim.validation.ns2.vcp_suite --only "Fig. 1" --save raw.json

Needs the VCP-enabled ns-2.35 binary named by ``CCSIM_NS2_VCP`` (tools/ns2-vcp/build.sh
builds it); without it the suite is skipped with one line. The cases
(:func:`dumbbell_cases`, :func:`convergence_cases`; :mod:`.vcp_scenario` builds both
simulators' runs):

* **dumbbells**: 10, 45 and 150 Mb/s, RTTs 40–150 ms, 4 to 50 forward flows, one with 50
  reverse flows (with VCP's routers serving ACKs first, as its code does, and in one
  FIFO); compared over the measurement window: utilization, the queue (time average,
  95th percentile and maximum of 10-ms samples), drops, Jain's index, aggregate goodput
  and the window cuts (MDs) per flow;
* **convergence**: flows of different RTTs joining one by one (45 Mb/s, RTTs 40, 60, 80,
  120 and 150 ms every 100 s; BMCC's Fig. 1 scenario, 100 Mb/s, 150, 200 and 250 ms,
  with VCP's AI and with BMCC's, α = 0.25): each flow's rate over the last half of every
  period, the newcomer's time to 70 % and 80 % of the fair share, Jain's index at the
  end; BMCC in ccsim on the Fig. 1 scenario is shown beside, not compared.

Every quantity is compared over the seeds (the same drawn start times in both
simulators): the mean per-seed difference must lie within the larger of a resolution
floor and the 99 % confidence half-width of that mean (``framework.paired_tolerance``),
drops also within their Poisson noise (``framework.count_tolerance``).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import statistics
import sys

from ccsim.theory import confidence_interval, jain_index
from ccsim.validation.framework import Quantity, SeedCheck, SuiteResult, run_seeded, seeded_main
from ccsim.validation.ns2.vcp_scenario import (
    INSTALL,
    PAYLOAD,
    WIRE,
    Case,
    Outcome,
    have_vcp_ns,
    run_ccsim,
    run_ns2,
)

MARK_BEGIN = "<!-- ns2-vcp:begin -->"
MARK_END = "<!-- ns2-vcp:end -->"

#: The convergence case run with BMCC in ccsim too (docs/models/bmcc.md, Fig. 1).
FIG1 = "100 Mb/s, RTTs 150/200/250 ms joining every 100 s (BMCC's Fig. 1)"


def dumbbell(name: str, bw: float, rtt: float, n: int, quick: bool, **kw) -> Case:
    """``n`` forward flows of RTT ``rtt`` starting within 300 ms (VCP's sample script);
    60 s measured from 20 s (quick: 40 s from 15 s), at RTT 150 ms 90 s from 30 s."""
    if rtt >= 150:
        dur, warm = (60.0, 25.0) if quick else (90.0, 30.0)
    else:
        dur, warm = (40.0, 15.0) if quick else (60.0, 20.0)
    return Case(name, bw, (rtt,) * n, (0.0,) * n, duration_s=dur, warmup_s=warm, **kw)


def dumbbell_cases(quick: bool) -> list[Case]:
    rev = {"nrev": 50, "rev_rtt_ms": 80.0}
    return [
        dumbbell("10 Mb/s, 80 ms, 10 flows", 10, 80, 10, quick),
        dumbbell("45 Mb/s, 60 ms, 4 flows", 45, 60, 4, quick),
        dumbbell("45 Mb/s, 40 ms, 50 flows", 45, 40, 50, quick),
        dumbbell("45 Mb/s, 150 ms, 10 flows", 45, 150, 10, quick),
        dumbbell("150 Mb/s, 80 ms, 50 flows + 50 reverse", 150, 80, 50, quick, **rev),
        dumbbell(
            "150 Mb/s, 80 ms, 50 flows + 50 reverse, one FIFO",
            150,
            80,
            50,
            quick,
            ack_priority=False,
            **rev,
        ),
    ]


def joining(name: str, bw: float, rtts: tuple[float, ...], gap: float, **kw) -> Case:
    """Flows of RTTs ``rtts`` joining every ``gap`` s (each start plus up to 1 s), until
    ``gap`` s after the last; measured over the last half of the last period."""
    n = len(rtts)
    starts = tuple(k * gap for k in range(n))
    dur = n * gap
    return Case(
        name,
        bw,
        rtts,
        starts,
        jitter_s=1.0,
        duration_s=dur,
        warmup_s=dur - gap / 2,
        program="convergence",
        series=True,
        **kw,
    )


def convergence_cases(quick: bool) -> list[Case]:
    return [
        joining(
            "45 Mb/s, RTTs 40/60/80/120/150 ms joining every 100 s", 45, (40, 60, 80, 120, 150), 100
        ),
        joining(FIG1, 100, (150, 200, 250), 100),
        joining(f"{FIG1}, α = 0.25 (BMCC's AI)", 100, (150, 200, 250), 100, alpha=0.25),
    ]


def cases(quick: bool) -> list[Case]:
    return dumbbell_cases(quick) + convergence_cases(quick)


# ----- what is compared


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else math.nan


COMMON = [
    Quantity("util", "utilization", "{:.4f}", lambda o: o.utilization, 0.003),
    Quantity("qmean", "mean queue, pkts", "{:.2f}", lambda o: o.queue_mean_pkts, 0.25, 0.1),
    Quantity("drops", "drops", "{:.0f}", lambda o: o.drops, 2, count=True),
    Quantity("cuts", "MDs per flow", "{:.1f}", lambda o: _mean(o.cuts), 1.0, 0.03),
]

DUMBBELL = COMMON[:2] + [
    Quantity("qp95", "p95 queue, pkts", "{:.1f}", lambda o: o.queue_p95_pkts, 1.0, 0.1),
    Quantity("qmax", "max queue, pkts", "{:.0f}", lambda o: o.queue_max_pkts, 2.0, 0.15),
    *COMMON[2:],
    Quantity("jain", "Jain's index", "{:.4f}", lambda o: jain_index(o.goodputs), 0.005),
    Quantity("gput", "goodput, Mb/s", "{:.2f}", lambda o: sum(o.goodputs) / 1e6, 0.0, 0.005),
]


def period_bounds(case: Case, k: int) -> tuple[float, float]:
    """Period ``k`` (0-based): from the ``k``-th flow's base start to the next's (or the
    end)."""
    bounds = [*case.starts_s, case.duration_s]
    return bounds[k], bounds[k + 1]


def period_rate(case: Case, o: Outcome, k: int, i: int) -> float:
    """Flow ``i``'s goodput (Mb/s) over the last half of period ``k``."""
    a, b = period_bounds(case, k)
    mid = (a + b) / 2
    d = [0.0, *o.delivered[i]]
    return (d[round(b)] - d[round(mid)]) * 8 / (b - mid) / 1e6


def time_to_share(case: Case, o: Outcome, k: int, frac: float) -> float:
    """Seconds from the ``k``-th flow's base start until its goodput over one second first
    reaches ``frac`` of the fair share (the link's goodput capacity C·1000/1040 over
    the ``k + 1`` flows); the period's length if it never does."""
    a, b = period_bounds(case, k)
    fair = case.bw_mbps * 1e6 * PAYLOAD / WIRE / (k + 1)
    d = [0.0, *o.delivered[k]]
    for t in range(round(a) + 1, round(b) + 1):
        if (d[t] - d[t - 1]) * 8 >= frac * fair:
            return t - a
    return b - a


def convergence_quantities(case: Case) -> list[Quantity]:
    """Per period from the second: every active flow's late rate, the newcomer's time to
    70 % and 80 % of its fair share; then Jain's index at the end and the common ones."""
    out = []
    for k in range(1, case.n):
        for i in range(k + 1):
            out.append(
                Quantity(
                    f"p{k + 1}f{i + 1}",
                    f"{k + 1} flows: flow {i + 1} ({case.rtts_ms[i]:g} ms), Mb/s",
                    "{:.2f}",
                    lambda o, k=k, i=i: period_rate(case, o, k, i),
                    0.3,
                    0.03,
                )
            )
        for frac in (0.7, 0.8):
            out.append(
                Quantity(
                    f"p{k + 1}t{round(frac * 100)}",
                    f"flow {k + 1}: time to {frac:.0%} of the fair share, s",
                    "{:.1f}",
                    lambda o, k=k, frac=frac: time_to_share(case, o, k, frac),
                    2.0,
                    0.1,
                )
            )
    last = Quantity(
        "jain", "Jain's index at the end", "{:.4f}", lambda o: jain_index(o.goodputs), 0.01
    )
    return out + [last] + COMMON


def quantities(case: Case) -> list[Quantity]:
    return convergence_quantities(case) if case.series else DUMBBELL


#: Differences outside tolerance with a known cause that is not a ccsim defect:
#: (case, quantity key) -> the cause with the runs that show it.
EXPLAINED: dict[tuple[str, str], str] = {}


class Check(SeedCheck):
    """A quantity of a case, VCP's ns-2 code (``reference``) against ccsim over seeds."""

    explained = EXPLAINED


# ----- running


def run_one(job: tuple[str, Case, int]) -> tuple[str, int, str, dict]:
    side, c, seed = job
    if side == "ns2":
        o = run_ns2(c, seed)
    elif side == "bmcc":
        o = run_ccsim(dataclasses.replace(c, protocol="bmcc"), seed)
    else:
        o = run_ccsim(c, seed)
    return c.name, seed, side, dataclasses.asdict(o)


def sides(c: Case) -> tuple[str, ...]:
    return ("ns2", "ccsim", "bmcc") if c.name == FIG1 else ("ns2", "ccsim")


def run(cs: list[Case], seeds: int, jobs: int) -> dict:
    """{case name: {side: [outcome dict per seed]}} for the sides ns2, ccsim (and bmcc)."""
    work = [(side, c, s) for c in cs for s in range(1, seeds + 1) for side in sides(c)]
    # The ns-2 runs of the 150-Mb/s dumbbells and of the joins are the longest: first.
    work.sort(key=lambda w: -(w[1].bw_mbps * w[1].duration_s * (4 if w[0] == "ns2" else 1)))
    out: dict = {c.name: {side: [None] * seeds for side in sides(c)} for c in cs}
    if jobs <= 1:
        results = list(map(run_one, work))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(run_one, work))
    for name, seed, side, d in results:
        out[name][side][seed - 1] = d
    return out


def outcomes(raw: dict, name: str, side: str) -> list[Outcome]:
    return [Outcome(**d) for d in raw[name][side]]


def checks(cs: list[Case], raw: dict) -> list[Check]:
    out = []
    for c in cs:
        ns, cc = outcomes(raw, c.name, "ns2"), outcomes(raw, c.name, "ccsim")
        for q in quantities(c):
            out.append(Check(c.name, q, [q.get(o) for o in ns], [q.get(o) for o in cc]))
    return out


# ----- the block of docs/validation.md


def _cell(xs: list[float], fmt: str) -> str:
    """Mean ± the 90 % confidence half-width over seeds."""
    hw = confidence_interval(xs, 0.90)[1] if len(xs) > 1 else math.nan
    return f"{fmt.format(statistics.fmean(xs))} ± {fmt.format(0.0 if hw != hw else hw)}"


class Marks:
    """The mark of a check in the tables: nothing, **✗** (outside) or ‡n (outside for a
    known reason, note n)."""

    def __init__(self, chks: list[Check]):
        self.by = {(ch.case, ch.quantity.key): ch for ch in chks}
        self.notes = sorted(
            {EXPLAINED[k] for k, ch in self.by.items() if k in EXPLAINED and not ch.ok}
        )

    def pair(self, case: str, key: str, bmcc: list[float] | None = None) -> str:
        ch = self.by.get((case, key))
        if ch is None:
            return "—"
        mark = ""
        if not ch.ok:
            why = EXPLAINED.get((case, key))
            mark = f" ‡{self.notes.index(why) + 1}" if why else " **✗**"
        fmt = ch.quantity.fmt
        cells = [_cell(ch.reference, fmt), _cell(ch.ccsim, fmt) + mark]
        if bmcc is not None:
            cells.append(f"*{_cell(bmcc, fmt)}*")
        return "<br>".join(cells)


def dumbbell_table(cs: list[Case], marks: Marks) -> list[str]:
    head = "| case | buffer | " + " | ".join(q.label for q in DUMBBELL) + " |"
    lines = [head, "|" + "---|" * (len(DUMBBELL) + 2)]
    for c in cs:
        window = f"{c.duration_s:g} s, from {c.warmup_s:g} s"
        cells = [marks.pair(c.name, q.key) for q in DUMBBELL]
        lines.append(f"| {c.name} ({window}) | {c.buffer_pkts()} | " + " | ".join(cells) + " |")
    return lines


def convergence_table(c: Case, marks: Marks, raw: dict) -> list[str]:
    """Rows: periods; columns: each flow's late rate, the newcomer's times to 70 % and
    80 %; then the whole-case quantities. For Fig. 1 a third line: BMCC in ccsim."""
    bm = outcomes(raw, c.name, "bmcc") if "bmcc" in raw[c.name] else None
    qs = {q.key: q for q in convergence_quantities(c)}

    def pair(key: str) -> str:
        extra = [qs[key].get(o) for o in bm] if bm is not None else None
        return marks.pair(c.name, key, extra)

    flows = [f"flow {i + 1} ({r:g} ms), Mb/s" for i, r in enumerate(c.rtts_ms)]
    lines = [
        f"**{c.name}** (buffer {c.buffer_pkts()} packets)",
        "",
        "| flows | " + " | ".join(flows) + " | newcomer to 70 %, s | to 80 %, s |",
        "|" + "---|" * (c.n + 3),
    ]
    for k in range(1, c.n):
        a, b = period_bounds(c, k)
        cells = [pair(f"p{k + 1}f{i + 1}") if i <= k else "" for i in range(c.n)]
        cells += [pair(f"p{k + 1}t70"), pair(f"p{k + 1}t80")]
        lines.append(f"| {k + 1} ({(a + b) / 2:g}–{b:g} s) | " + " | ".join(cells) + " |")
    tail = [qs["jain"], *COMMON]
    lines += [
        "",
        "| " + " | ".join(q.label for q in tail) + " |",
        "|" + "---|" * len(tail),
        "| " + " | ".join(pair(q.key) for q in tail) + " |",
    ]
    return lines


def table(cs: list[Case], chks: list[Check], raw: dict, seeds: int, walls: dict) -> str:
    marks = Marks(chks)
    dumb = [c for c in cs if not c.series]
    conv = [c for c in cs if c.series]
    lines: list[str] = []
    if dumb:
        lines += dumbbell_table(dumb, marks) + [""]
    for c in conv:
        lines += convergence_table(c, marks, raw) + [""]
    bad = [ch for ch in chks if not ch.ok]
    unexplained = [ch for ch in bad if (ch.case, ch.quantity.key) not in EXPLAINED]
    lines += [
        f"Each cell: VCP's ns-2 code (first line) and ccsim (second line), mean over {seeds} "
        "seeds ± the 90 % confidence half-width; in the Fig. 1 tables a third line, in "
        "italics, is BMCC in ccsim on the same dumbbell (not compared). Dumbbells over "
        "the window given: the bottleneck R1 -> R2's utilization (headers and reverse ACKs "
        "included), its backlog (time average; 95th percentile and maximum of samples every "
        "10 ms), drops; Jain's index and the sum of the forward flows' goodputs; window "
        "cuts (MDs) per forward flow over the whole run. Joins: each flow's goodput over "
        "the last half of every period, the newcomer's time from its period's start until "
        "its goodput over one second first reaches 70 % or 80 % of C·1000/1040 over the "
        "flows (the period's length if never). **✗**: the mean per-seed difference "
        "(ccsim − ns-2) is outside its tolerance (the 99 % half-width of that mean or the "
        "quantity's floor, whichever is larger)"
        + ("; ‡: outside, for a known reason that is not a ccsim defect:" if marks.notes else "."),
        "",
        *[f"{k}. {n}." for k, n in enumerate(marks.notes, 1)],
        *([""] if marks.notes else []),
        f"{len(chks) - len(bad)} of {len(chks)} comparisons within tolerance, "
        f"{len(bad) - len(unexplained)} outside for a known reason, {len(unexplained)} outside.",
    ]
    if walls:
        lines.append(
            "Wall time per run (s, mean): "
            + ", ".join(f"{k} {v:.1f}" for k, v in sorted(walls.items()))
            + "."
        )
    return "\n".join(lines)


def _walls(cs: list[Case], raw: dict) -> dict[str, float]:
    walls: dict[str, list[float]] = {}
    for c in cs:
        kind = "joins" if c.series else f"{c.bw_mbps:g} Mb/s"
        for side, runs in raw[c.name].items():
            walls.setdefault(f"{side} {kind}", []).extend(d["wall_s"] for d in runs)
    return {k: statistics.fmean(v) for k, v in walls.items()}


def result(cs: list[Case], raw: dict, seeds: int, wall: float) -> SuiteResult:
    chks = checks(cs, raw)
    text = table(cs, chks, raw, seeds, _walls(cs, raw))
    return SuiteResult(text, [ch.verdict() for ch in chks], seeds, wall)


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
        ("ns2", have_vcp_ns, f"VCP validation skipped: no VCP-enabled ns-2 ({INSTALL})"),
        (MARK_BEGIN, MARK_END),
        "5 seeds, shorter dumbbells",
    )


if __name__ == "__main__":
    sys.exit(main())
