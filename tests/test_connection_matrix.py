"""Connection matrices (``[[flows]] matrix = {...}``) through the Python API on a k = 4
fat-tree: a permutation sends from and to every host once and never to itself, is the
same for a seed and differs between seeds; incast, outcast and all-to-all give the pairs
they name; `count` and the transport keys apply to every pair; bad input names its key."""

import collections

import ccsim
import pytest

LINK = {"rate": "1Gbps", "delay": "1us"}
HOSTS = [f"h{p}_{e}_{i}" for p in range(4) for e in range(2) for i in range(2)]


def _run(matrix: dict, seed: int = 1, **flow):
    sc = {
        "seed": seed,
        "duration": "2ms",
        "topology": {"kind": "fat_tree", "k": 4, "host_link": LINK, "fabric_link": LINK},
        "flows": [{"matrix": matrix, "cc": "newreno", "size": "10KB", **flow}],
    }
    return ccsim.run(sc).flows


def _pairs(flows) -> list[tuple[str, str]]:
    return list(zip(flows["src"], flows["dst"]))


def test_a_permutation_sends_from_and_to_every_host_once():
    f = _run({"kind": "permutation"})
    pairs = _pairs(f)
    assert sorted(s for s, _ in pairs) == sorted(HOSTS)
    assert sorted(d for _, d in pairs) == sorted(HOSTS)
    assert all(s != d for s, d in pairs)
    assert (f["completion_s"] > 0).all()  # every 10-KB transfer finished


def test_a_permutation_is_the_seeds():
    assert _pairs(_run({"kind": "permutation"}, 1)) == _pairs(_run({"kind": "permutation"}, 1))
    drawn = {tuple(_pairs(_run({"kind": "permutation"}, s))) for s in range(1, 6)}
    assert len(drawn) == 5


def test_incast_outcast_and_all_to_all():
    f = _run({"kind": "incast", "receiver": "h2_1_0", "senders": 5})
    assert set(f["dst"]) == {"h2_1_0"} and len(set(f["src"])) == 5
    assert "h2_1_0" not in set(f["src"])
    every = _run({"kind": "incast", "receiver": "h2_1_0"})
    assert sorted(every["src"]) == sorted(h for h in HOSTS if h != "h2_1_0")
    out = _run({"kind": "outcast", "sender": "h0_0_0", "receivers": 3})
    assert set(out["src"]) == {"h0_0_0"} and len(set(out["dst"])) == 3
    a2a = _run({"kind": "all_to_all", "hosts": HOSTS[:4]})
    assert sorted(_pairs(a2a)) == sorted((s, d) for s in HOSTS[:4] for d in HOSTS[:4] if s != d)


def test_count_and_the_transport_apply_to_every_pair():
    f = _run({"kind": "incast", "receiver": "h0_0_0", "senders": 3}, count=2, cc="cubic", mss=1000)
    assert len(f) == 6 and set(f["cc"]) == {"cubic"}
    assert set(collections.Counter(f["src"]).values()) == {2}


@pytest.mark.parametrize(
    "matrix, flow, key, words",
    [
        ({"kind": "ring"}, {}, "matrix.kind", 'one of "permutation", "incast"'),
        ({"kind": "incast", "senders": 16}, {}, "matrix.senders", "at most the 15 other hosts"),
        (
            {"kind": "incast", "receiver": "core0"},
            {},
            "matrix.receiver",
            "one of the matrix's hosts",
        ),
        ({"kind": "permutation", "hosts": ["h0_0_0", "nowhere"]}, {}, "matrix.hosts", "node names"),
        ({"kind": "permutation", "hosts": ["h0_0_0"]}, {}, "matrix.hosts", "at least two hosts"),
        (  # a host twice would be paired with itself (the engine crashed on it)
            {"kind": "permutation", "hosts": ["h0_0_0", "h0_0_0", "h1_0_0"]},
            {},
            "matrix.hosts",
            "distinct host names (h0_0_0 is listed twice)",
        ),
        ({"kind": "permutation"}, {"src": "h0_0_0"}, "flows[0].src", "either `matrix` or"),
    ],
)
def test_bad_matrices_are_refused_naming_the_key(matrix, flow, key, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        _run(matrix, **flow)
    assert key in str(e.value) and words in str(e.value), str(e.value)
    assert "\n" not in str(e.value)  # one line
