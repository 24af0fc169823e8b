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
