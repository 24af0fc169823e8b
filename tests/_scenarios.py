"""Small scenarios shared by the test modules."""

import copy

ONE_PAIR = {
    "seed": 1,
    "duration": "2s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 1,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"kind": "droptail", "limit": "50pkt"},
        },
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "flows": [{"pairs": "all", "cc": "newreno"}],
}


def one_pair(**top):
    """A fresh copy of ONE_PAIR with top-level keys added or replaced."""
    return {**copy.deepcopy(ONE_PAIR), **top}
