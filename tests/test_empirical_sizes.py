"""Empirical flow-size distributions (``size = {dist = "empirical", cdf = ...}``) through
the Python API: the shipped web-search, data-mining and Hadoop CDFs, inline points and a
CDF file (fractions or HPCC's percent), the resolved scenario holding the points, the
realised sizes against the CDF, and bad CDFs refused naming the key."""

import ccsim
import numpy as np
import pytest

LINK = {"rate": "10Gbps", "delay": "1us"}


def _run(size, duration="20ms", rate=20000, seed=1):
    return ccsim.run(
        {
            "seed": seed,
            "duration": duration,
            "topology": {"kind": "fat_tree", "k": 4, "host_link": LINK, "fabric_link": LINK},
            "workloads": [
                {
                    "name": "w",
                    "sources": ["h0_0_0", "h1_0_0", "h2_0_0"],
                    "destinations": ["h3_1_1"],
                    "arrival_rate": rate,
                    "size": size,
                    "transport": {"kind": "tcp", "init_cwnd": 10},
                }
            ],
        }
    )


@pytest.mark.parametrize(
    "name, mean", [("web_search", 1711250.0), ("data_mining", 12658198.6), ("hadoop", 120420.75)]
)
def test_shipped_cdfs_have_their_means_and_stay_named(name, mean):
    r = _run({"dist": "empirical", "cdf": name}, duration="2ms", rate=5000)
    assert r.scenario["workloads"][0]["size"] == {"dist": "empirical", "cdf": name}
    assert r.workloads["mean_size_requested"].iloc[0] == pytest.approx(mean)


def test_sizes_follow_the_cdf():
    # 20 % exactly 1 KB, then uniform up to 41 KB: the realised sizes' quantiles and mean
    pts = [[1000, 0.2], [41000, 1.0]]
    r = _run({"dist": "empirical", "cdf": pts}, duration="100ms", rate=20000)
    sizes = r.connections["size_bytes"].to_numpy()
    assert len(sizes) > 1500
    assert abs(np.mean(sizes == 1000) - 0.2) < 0.03
    assert abs(np.median(sizes) - 16000) < 1500  # 1000 + 40000 · (0.5 - 0.2) / 0.8
    assert r.workloads["mean_size_requested"].iloc[0] == pytest.approx(0.2 * 1000 + 0.8 * 21000)
    assert r.scenario["workloads"][0]["size"]["cdf"] == [[1000.0, 0.2], [41000.0, 1.0]]


def test_a_cdf_file_in_percent_or_fractions_resolves_to_its_points(tmp_path):
    f = tmp_path / "cdf.txt"
    f.write_text("# size percent\n0 0\n10000 50\n20000 100\n")
    r = _run({"dist": "empirical", "cdf": str(f)}, duration="2ms", rate=5000)
    assert r.scenario["workloads"][0]["size"]["cdf"] == [[0.0, 0.0], [10000.0, 0.5], [20000.0, 1.0]]
    # the resolved scenario runs again without the file, to the same result
    f.unlink()
    again = ccsim.run(r.scenario)
    assert again.connections.equals(r.connections)


@pytest.mark.parametrize(
    "cdf, words",
    [
        ("nowhere.txt", "reading the file"),
        ([[10, 0.5], [5, 1.0]], "non-decreasing"),
        ([[10, 0.5], [20, 0.9]], "ends at probability 1"),
        ([[10, 0.6], [20, 0.5], [30, 1.0]], "point 1: sizes and probabilities non-decreasing"),
        ([[10, 0.5], [20, 1.5]], "a probability in [0, 1]"),
        ([[10]], "points"),
        (3, "one of"),
    ],
)
def test_bad_cdfs_are_refused_naming_the_key(cdf, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        _run({"dist": "empirical", "cdf": cdf}, duration="1ms")
    assert "workloads[0].size.cdf" in str(e.value) and words in str(e.value), str(e.value)
    assert "\n" not in str(e.value)  # one line


def _load_run(load, **extra):
    hosts = [f"h{p}_{e}_{i}" for p in range(4) for e in range(2) for i in range(2)]
    w = {
        "name": "w",
        "sources": hosts,
        "destinations": hosts,
        "load": load,
        "size": {"dist": "empirical", "cdf": "web_search"},
        **extra,
    }
    return ccsim.run(
        {
            "seed": 1,
            "duration": "5ms",
            "topology": {"kind": "fat_tree", "k": 4, "host_link": LINK, "fabric_link": LINK},
            "workloads": [w],
        }
    )


def test_a_load_is_a_fraction_of_the_sources_links():
    # 16 hosts of 10 Gb/s at 50 %: 80 Gb/s of web search (mean 1 711 250 B), as the
    # pFabric and HPCC generators set their loads
    w = _load_run(0.5).workloads.iloc[0]
    assert w["load_requested_bps"] == pytest.approx(0.5 * 16 * 10e9)
    assert w["rate_requested"] == pytest.approx(0.5 * 16 * 10e9 / (8 * 1711250.0))


@pytest.mark.parametrize(
    "load, extra, words",
    [
        (0, {}, "a positive fraction"),
        (0.5, {"process": "per_pair"}, 'unless process = "shared"'),
        (0.5, {"direction": "both"}, 'direction = "forward"'),
        (0.5, {"arrival_rate": 10}, "not two"),
    ],
)
def test_a_bad_load_is_refused_naming_the_key(load, extra, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        _load_run(load, **extra)
    assert "workloads[0].load" in str(e.value) and words in str(e.value), str(e.value)
