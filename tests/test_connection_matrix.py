"""Connection matrices (``[[flows]] matrix = {...}``) through the Python API on a k = 4
fat-tree: a permutation sends from and to every host once and never to itself, is the
same for a seed and differs between seeds; incast, outcast and all-to-all give the pairs
they name; `count` and the transport keys apply to every pair; bad input names its key."""

import collections

import pandas

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


# htsim's connection-matrix format (`matrix = {kind = "file"}`): one flow a line


def _cm(tmp_path, lines: list[str], nodes: int = 16, connections: int | None = None) -> str:
    path = tmp_path / "flows.cm"
    n = len([ln for ln in lines if "->" in ln]) if connections is None else connections
    path.write_text("\n".join([f"Nodes {nodes}", f"Connections {n}", *lines]) + "\n")
    return str(path)


def _file_scenario(path: str, **flow) -> dict:
    return {
        "duration": "2ms",
        "topology": {"kind": "fat_tree", "k": 4, "host_link": LINK, "fabric_link": LINK},
        "flows": [{"matrix": {"kind": "file", "path": path}, "cc": "newreno", **flow}],
    }


def test_a_file_matrix_gives_each_flow_its_ends_start_and_size(tmp_path):
    # hosts by index in the fat-tree's order (pod, edge switch, host), starts in ps
    path = _cm(
        tmp_path,
        [
            "0->15 id 1 start 0 size 20000",
            "# a comment, then a blank line",
            "",
            "3->15 id 2 start 5000000 size 30000",
            "15->4 start 1500 size 1000",
        ],
    )
    f = ccsim.run(_file_scenario(path, start="1ms")).flows
    assert _pairs(f) == [(HOSTS[0], HOSTS[15]), (HOSTS[3], HOSTS[15]), (HOSTS[15], HOSTS[4])]
    # the table's start, then the line's own: 1 ms + 0, + 5 us, + 1.5 ns (to the ns: 2)
    assert list(f["start_s"]) == pytest.approx([1e-3, 1e-3 + 5e-6, 1e-3 + 2e-9], abs=1e-15)
    assert list(f["bytes_delivered"]) == [20000, 30000, 1000]


def test_a_file_matrix_runs_as_the_same_flows_written_out(tmp_path):
    path = _cm(tmp_path, ["0->15 start 0 size 200000", "1->15 start 1000000 size 100000"])
    by_file = ccsim.run(_file_scenario(path)).flows
    sc = _file_scenario(path)
    sc["flows"] = [
        {"src": HOSTS[0], "dst": HOSTS[15], "size": "200000B", "cc": "newreno"},
        {"src": HOSTS[1], "dst": HOSTS[15], "size": "100000B", "start": "1us", "cc": "newreno"},
    ]
    written = ccsim.run(sc).flows
    pandas.testing.assert_frame_equal(by_file, written)


def test_a_resolved_file_matrix_runs_again_and_refuses_a_changed_file(tmp_path):
    path = _cm(tmp_path, ["0->15 start 0 size 20000"])
    resolved = ccsim.resolve(_file_scenario(path))
    assert len(resolved["flows"][0]["matrix"]["digest"]) == 16
    assert "size" not in resolved["flows"][0] and "count" not in resolved["flows"][0]
    assert ccsim.run(resolved).flows["bytes_delivered"].tolist() == [20000]
    _cm(tmp_path, ["0->15 start 0 size 20001"])
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.matrix\.digest.*file changed"):
        ccsim.run(resolved)


@pytest.mark.parametrize(
    "lines, extra, key, words",
    [
        (["0->16 start 0 size 1"], {}, "matrix.path", 'line 3 ("0->16 start 0 size 1"): host "16"'),
        (["0->0 start 0 size 1"], {}, "matrix.path", "from a host to itself"),
        (["0->1 size 1"], {}, "matrix.path", "`start PICOSECONDS` missing"),
        (["0->1 start 0 size 0"], {}, "matrix.path", "bytes (> 0) expected"),
        (["0->1 start 0 size 1 prio 3"], {}, "matrix.path", 'unknown word "prio"'),
        (["0->1 start 0 size 1"], {"nodes": 8}, "matrix.path", '("Nodes 8"): the matrix has 16'),
        (["0->1 start 0 size 1"], {"connections": 2}, "matrix.path", "`Connections 2` but"),
        (["trigger id 1 oneshot"], {}, "matrix.path", "triggers and failures are not"),
        (["0->1 start 0 size 1"], {"size": "1KB"}, "flows[0].size", "no `size` with a `file`"),
        (["0->1 start 0 size 1"], {"count": 2}, "flows[0].count", "no `count` with"),
        (["0->1 start 0 size 1"], {"start": ["0s"]}, "flows[0].start", "one time with a `file`"),
        (["0->1 start 0 size 1"], {"path": "/nonexistent.cm"}, "matrix.path", "reading it"),
    ],
)
def test_bad_matrix_files_are_refused_naming_the_key_and_line(tmp_path, lines, extra, key, words):
    files = {k: extra.pop(k) for k in ("nodes", "connections") if k in extra}
    path = extra.pop("path", None) or _cm(tmp_path, lines, **files)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(_file_scenario(path, **extra))
    assert key in str(e.value) and words in str(e.value), str(e.value)
    assert "\n" not in str(e.value)  # one line


def test_a_file_matrix_needs_a_transport_that_transfers_a_size(tmp_path):
    sc = _file_scenario(_cm(tmp_path, ["0->1 start 0 size 1"]))
    sc["flows"][0] = {"matrix": sc["flows"][0]["matrix"], "kind": "cbr", "rate": "1Mbps"}
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.kind.*transfers a size"):
        ccsim.run(sc)
