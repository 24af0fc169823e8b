"""The result tables' columns are documented once (``ccsim.columns``): the engine's
tables have exactly those columns, in that order, and the user guide's tables are
generated from the same list."""

from pathlib import Path

import ccsim
from ccsim import columns
from test_trace import SCENARIO


def test_engine_tables_have_the_documented_columns():
    r = ccsim.run(SCENARIO)
    for name, df in (("flows", r.flows), ("queues", r.queues), ("trace", r.trace)):
        assert list(df.columns) == [c for c, _, _ in columns.TABLES[name]], name
    for c, unit, meaning in [row for t in columns.TABLES.values() for row in t]:
        assert unit and meaning, c


def test_user_guide_tables_are_generated_from_the_list():
    guide = Path(__file__).parent.parent / "docs" / "user-guide.md"
    text = guide.read_text()
    for name in columns.TABLES:
        assert f"<!-- columns:{name} -->" in text, name
    assert columns.update(text) == text, "run: python -m ccsim.columns docs/user-guide.md"
    assert "| `goodput_bps` | bit/s |" in text


def test_workload_tables_have_the_documented_columns():
    import tomllib

    from ccsim import scenarios

    s = tomllib.loads(scenarios.path("workload-100k").read_text())
    s["workloads"][0]["completions"] = 20
    r = ccsim.run(s)
    assert len(r.connections) >= 20 and len(r.workloads) == 1
    for name, df in (("connections", r.connections), ("workloads", r.workloads)):
        assert list(df.columns) == [c for c, _, _ in columns.TABLES[name]], name
