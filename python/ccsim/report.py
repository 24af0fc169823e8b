"""Summaries people read: the HTML of a :class:`~ccsim.Results` in a notebook, and the
side-by-side comparison of several runs (``ccsim compare``)."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ccsim.columns import RunTables

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARED", "compare", "compare_text", "results_html"]

#: What ``ccsim compare`` puts side by side: (table, column, label, scale).
COMPARED = [
    ("flows", "goodput_bps", "goodput (Mbit/s)", 1e-6),
    ("flows", "retransmits", "retransmits", 1),
    ("flows", "timeouts", "timeouts", 1),
    ("flows", "srtt_s", "final SRTT (ms)", 1e3),
    ("flows", "fct_s", "completion time (s)", 1),
    ("queues", "utilization", "utilization (%)", 100),
    ("queues", "drops", "drops", 1),
    ("queues", "marks", "ECN marks", 1),
    ("queues", "mean_len_pkts", "mean queue (packets)", 1),
    ("queues", "max_len_pkts", "max queue (packets)", 1),
]


def results_html(r: RunTables) -> str:
    """The run's facts, then its flows and queues tables (busy queues only), as HTML."""
    s = r.summary
    facts = [
        (
            "simulated",
            f"{s.get('duration_s', float('nan')):g} s (warm-up {s.get('warmup_s', 0):g} s)",
        ),
        ("wall time", f"{s.get('wall_s', float('nan')):.3f} s"),
        ("events", f"{s.get('events', 0):,}"),
        (
            "packets (whole run)",
            f"created {s.get('packets_created', 0):,}, delivered {s.get('packets_delivered', 0):,}, "
            f"dropped {s.get('packets_dropped', 0):,}",
        ),
    ]
    if r.files:
        facts.append(("files", ", ".join(sorted(r.files))))
    if r.trace is not None:
        facts.append(("trace", f"{len(r.trace):,} events"))
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
        f"{html.escape(v)}</td></tr>"
        for k, v in facts
    )
    name = html.escape(str(r.scenario.get("name", "")))
    q = r.queues[r.queues["arrivals"] > 0]
    return (
        f"<div><b>ccsim results</b> {name}<table>{rows}</table>"
        f"<details open><summary>flows ({len(r.flows)})</summary>{_table_html(r.flows)}</details>"
        f"<details open><summary>queues with traffic ({len(q)} of {len(r.queues)}; "
        f"counts after warm-up)</summary>{_table_html(q)}</details></div>"
    )


def _table_html(df: pd.DataFrame, limit: int = 50) -> str:
    shown = df.head(limit)
    more = f"<p>… {len(df) - limit} more rows</p>" if len(df) > limit else ""
    return shown.to_html(index=False, float_format=lambda x: f"{x:.6g}", border=0) + more


def compare(runs: Sequence[tuple[str, RunTables]]) -> pd.DataFrame:
    """The compared metrics of each run side by side: one row per (table, row, metric)
    present in every run, one column per run, then ``diff`` and ``diff_%`` of the last
    run against the first. Queues without arrivals in every run, and metrics that are zero
    (or undefined) in every run, are left out."""
    import pandas as pd

    names = [n for n, _ in runs]
    records = []
    for table, col, label, scale in COMPARED:
        key = "name" if table == "flows" else "queue"
        frames = []
        for _, r in runs:
            df = getattr(r, table)
            if col not in df.columns:
                break
            if table == "queues":
                df = df[df["arrivals"] > 0]
            frames.append(df.set_index(key)[col])
        else:
            common = [k for k in frames[0].index if all(k in f.index for f in frames[1:])]
            for k in common:
                vals = [float(f.loc[k]) * scale for f in frames]
                if all(math.isnan(v) or v == 0 for v in vals):
                    continue  # nothing to compare (no drops anywhere, ...)
                rec = {"table": table, "row": k, "metric": label}
                rec.update(dict(zip(names, vals)))
                first, last = vals[0], vals[-1]
                rec["diff"] = last - first
                rec["diff_%"] = (last - first) / abs(first) * 100 if first else float("nan")
                records.append(rec)
    return pd.DataFrame(records, columns=["table", "row", "metric", *names, "diff", "diff_%"])


def compare_text(df: pd.DataFrame, names: Sequence[str]) -> str:
    """``compare``'s table as aligned text."""
    if not len(df):
        return "nothing in common to compare"

    def num(x: float) -> str:
        if isinstance(x, float) and math.isnan(x):
            return "–"
        return f"{x:.4g}"

    head = ["table", "row", "metric", *names, f"diff ({names[-1]} − {names[0]})", "diff %"]
    body = [
        [
            r["table"],
            str(r["row"]),
            r["metric"],
            *(num(r[n]) for n in names),
            num(r["diff"]),
            num(r["diff_%"]),
        ]
        for _, r in df.iterrows()
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = [
        "  ".join(
            str(x).ljust(w) if i < 3 else str(x).rjust(w)
            for i, (x, w) in enumerate(zip(row, widths))
        )
        for row in [head, *body]
    ]
    return "\n".join(lines)
