import copy

import pytest

SMALL = {
    "seed": 1,
    "duration": "2s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"kind": "droptail", "limit": "50pkt"},
        },
        "access": {"rate": "100Mbps", "delay": {"uniform": ["0ms", "5ms"]}},
    },
    "flows": [{"pairs": "all", "cc": "newreno"}],
}


@pytest.fixture
def small():
    """A 2-second, two-flow dumbbell scenario (fresh copy per test)."""
    return copy.deepcopy(SMALL)


@pytest.fixture
def dask_cluster():
    """A real Dask scheduler with two single-threaded worker processes on loopback
    (skipped where ``distributed`` is not installed)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        processes=True,
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield cluster
