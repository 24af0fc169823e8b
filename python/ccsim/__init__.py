"""ccsim: a fast packet-level network simulator for congestion-control and
router-buffer research.

The engine is written in Rust (``crates/ccsim-core``); this package is how it is
driven: :func:`run` takes a scenario (a dict, a TOML file or a
:class:`Scenario`) and returns :class:`Results` with pandas DataFrames.

>>> import ccsim
>>> r = ccsim.run({
...     "seed": 1, "duration": "2s",
...     "topology": {"kind": "dumbbell", "pairs": 1,
...                  "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
...                  "access": {"rate": "100Mbps", "delay": "1ms"}},
...     "flows": [{"pairs": "all", "cc": "newreno"}]})
>>> bool(r.queues.set_index("queue").loc["R1->R2", "utilization"] > 0.5)
True
"""

from ccsim._ccsim import ScenarioError, SimulationError, __version__
from ccsim.api import memory_limit, resolve, run
from ccsim.engine import fingerprint
from ccsim.extend import CongestionControl, ParameterError, QueueDiscipline, Verdict
from ccsim.results import Results
from ccsim.scenario import Scenario, load_scenario, queue, scenario_schema, set_path

__all__ = [
    "CongestionControl",
    "ParameterError",
    "QueueDiscipline",
    "Results",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "Verdict",
    "__version__",
    "fingerprint",
    "load_scenario",
    "memory_limit",
    "open_results",
    "queue",
    "resolve",
    "run",
    "scenario_schema",
    "set_path",
]


def open_results(path="./ccsim-results", experiment=None):
    """Open a result store written by sweeps and ``ccsim reproduce``.

    See :func:`ccsim.store.open_results`.
    """
    from ccsim.store import open_results as _open

    return _open(path, experiment=experiment)
