"""The Python ports of CoDel, PIE and step marking in ``ccsim.examples`` give the built-in
disciplines' results to the last bit: flows, queues, every time series table (the
disciplines' traced state, ``ts_qdisc``, included) and the event count, on the four
scenarios of ``_ports`` (issue 43), with ECN (``ecn = true`` on the queue, ECN-capable
senders: DCTCP, or the ``ecn`` scenario's flows) and without, and with parameters away
from the defaults (CoDel's ``inv_sqrt = "newton"``, PIE's ``derandomize = false`` and
``burst = "ns3"``, step's ``non_ect = "pass"``).

Each scenario is given parameters under which the discipline acts there (a data-center
target on the leaf-spine, where the defaults' 5 ms or 15 ms of queue never build), and
each comparison checks that it did drop or mark, so that no comparison is vacuous; the
defaults are compared too. A run with a deep buffer drives CoDel through several drops
in one dequeue and PIE to p = 1 and a queue delay above 250 ms. Near misses (CoDel
without RFC 8289's count reuse, PIE measuring the delay of a packet that empties the
queue, step marking above K instead of at K) are told apart from the built-ins.

The ports read their units with the engine's parsers (``ccsim.extend.parse_time``,
``parse_size``) and refuse what the built-ins refuse with a ``ccsim.ParameterError``
(step's buffer of fewer than K packets from its ``setup`` hook): the scenario is refused
with a ``ScenarioError`` naming the same key path, mostly in the same words. Step
declares ``passes_idle``, as the built-in's is, with the same results.
"""

from __future__ import annotations

import warnings

import pytest
from _ports import SCENARIOS, assert_identical, scenario

import ccsim
from ccsim.examples.codel import CoDel
from ccsim.examples.pie import PIE
from ccsim.examples.step import Step
from ccsim.extend import parse_size, parse_time

CODEL = "ccsim.examples.codel:CoDel"
PIE_PATH = "ccsim.examples.pie:PIE"
STEP = "ccsim.examples.step:Step"

#: Per scenario, parameters under which each discipline drops or marks there (the
#: defaults on the 100 Mb/s dumbbells where they act; a target of tens of µs on the
#: 1 Gb/s fabric; a shorter one for the short flows of the workload).
CODEL_AT = {
    "bench8": {},
    "leaf_spine": {"target": "50us", "interval": "1ms"},
    "workload": {"target": "500us", "interval": "5ms"},
    "ecn": {},
}
PIE_AT = {
    "bench8": {"target": "2ms", "t_update": "5ms", "max_burst": "20ms"},
    "leaf_spine": {"target": "20us", "t_update": "100us", "max_burst": "1ms"},
    "workload": {"target": "500us", "t_update": "1ms", "max_burst": "0s", "alpha": 2, "beta": 20},
    "ecn": {"target": "2ms", "t_update": "5ms", "max_burst": "20ms"},
}
STEP_AT = {"bench8": {}, "leaf_spine": {}, "workload": {"threshold": 10}, "ecn": {}}

DROPS = ("drops_early", "drops_forced")
MARKS = ("marks_early", "marks_forced")


def _run(name: str, queue: dict, ecn: bool, limit: str | None = None):
    """Scenario ``name`` with ``queue``; ``ecn``: DCTCP on every TCP (the ``ecn``
    scenario's flows are ECN-capable already); ``limit``: the bottleneck's buffer."""
    top = {"cc": "dctcp"} if ecn and name != "ecn" else {}
    sc = scenario(name, queue=queue, **top)
    if limit is not None:
        sc["topology"]["bottleneck"]["queue"]["limit"] = limit
    with warnings.catch_warnings():
        # (the ecn scenario's ECN-capable flows over a queue with ecn = false: as meant)
        warnings.filterwarnings("ignore", "flows.*no queue of the topology marks")
        return ccsim.run(sc)


def _pair(name: str, kind: str, cls: str, params: dict, ecn: bool, limit: str | None = None):
    a = _run(name, {"kind": kind, **params}, ecn, limit)
    b = _run(name, {"kind": "python", "class": cls, **params}, ecn, limit)
    return a, b


def _count(r, cols) -> int:
    return int(r.queues[list(cols)].to_numpy().sum())


def _check(a, b, *, acts: tuple[str, ...] = ()) -> None:
    assert_identical(a, b)
    if acts:
        assert _count(b, acts) > 0, f"the discipline never acted ({', '.join(acts)})"


# -------------------------------------------------------------------------------- CoDel


@pytest.mark.parametrize("inv_sqrt", ["exact", "newton"])
@pytest.mark.parametrize("ecn", [False, True], ids=["drop", "ecn"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_codel_port_is_the_builtin(name, ecn, inv_sqrt):
    params = {**CODEL_AT[name], "ecn": ecn, "inv_sqrt": inv_sqrt}
    a, b = _pair(name, "codel", CODEL, params, ecn)
    _check(a, b, acts=MARKS if ecn else DROPS)
    assert (b.queues.kind == "CoDel").any()
    names = b.timeseries["qdisc"].name.unique().tolist()
    assert names == ["count", "dropping", "ldelay_s"]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_codel_port_with_the_defaults(name):
    a, b = _pair(name, "codel", CODEL, {}, False)
    _check(a, b)


@pytest.mark.parametrize("ecn", [False, True], ids=["drop", "ecn"])
def test_codel_port_over_a_deep_buffer(ecn):
    """5000 packets of buffer (0.6 s at 100 Mb/s): long dropping states, several drops
    in one dequeue, re-entries that reuse the last cycle's count; a larger mtu."""
    params = {"ecn": ecn, "mtu": "3000B", "interval": "50ms", "target": "2ms"}
    a, b = _pair("bench8", "codel", CODEL, params, ecn, limit="5000pkt")
    _check(a, b, acts=MARKS if ecn else DROPS)


# ---------------------------------------------------------------------------------- PIE

PIE_VARIANTS = {"rfc8033": {}, "ns3": {"derandomize": False, "burst": "ns3"}}


@pytest.mark.parametrize("variant", list(PIE_VARIANTS))
@pytest.mark.parametrize("ecn", [False, True], ids=["drop", "ecn"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_pie_port_is_the_builtin(name, ecn, variant):
    params = {**PIE_AT[name], "ecn": ecn, **PIE_VARIANTS[variant]}
    a, b = _pair(name, "pie", PIE_PATH, params, ecn)
    # (with ECN a drop still comes above p = 10 %, and to Not-ECT packets)
    _check(a, b, acts=MARKS if ecn else DROPS)
    names = b.timeseries["qdisc"].name.unique().tolist()
    assert names == ["prob", "qdelay_s", "burst_s"]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_pie_port_with_the_defaults(name):
    """(The 15 ms target is not reached on these scenarios: no early drop, but the
    probability's updates and the burst allowance are compared.)"""
    a, b = _pair(name, "pie", PIE_PATH, {}, False)
    _check(a, b)


@pytest.mark.parametrize("variant", list(PIE_VARIANTS))
@pytest.mark.parametrize("ecn", [False, True], ids=["drop", "ecn"])
def test_pie_port_over_a_deep_buffer(ecn, variant):
    """5000 packets of buffer and a 1 s burst allowance: the queue delay passes 250 ms,
    p is capped at 1 and its increase at 2 % per update; with ECN, drops above 10 %."""
    params = {"max_burst": "1s", "ecn": ecn, "alpha": 0.25, "beta": 2.5, "mtu": "3000B",
              **PIE_VARIANTS[variant]}  # fmt: skip
    a, b = _pair("bench8", "pie", PIE_PATH, params, ecn, limit="5000pkt")
    _check(a, b, acts=DROPS)
    ts = b.timeseries["qdisc"]
    assert ts[ts.name == "prob"].value.max() == 1.0
    assert ts[ts.name == "qdelay_s"].value.max() > 0.25


# --------------------------------------------------------------------------------- step


@pytest.mark.parametrize("ecn", [False, True], ids=["drop", "ecn"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_step_port_is_the_builtin(name, ecn):
    """Without ECN a Not-ECT arrival at K is dropped (forced); with it, marked."""
    a, b = _pair(name, "step", STEP, STEP_AT[name], ecn)
    _check(a, b, acts=("marks_forced",) if ecn or name == "ecn" else ("drops_forced",))
    assert "qdisc" not in b.timeseries or b.timeseries["qdisc"].empty


@pytest.mark.parametrize("name", ["bench8", "ecn"])
def test_step_port_non_ect_pass(name):
    a, b = _pair(name, "step", STEP, {"threshold": 10, "non_ect": "pass"}, False)
    _check(a, b)
    assert _count(b, ("drops_forced",)) == 0


class _CountingStep(Step):
    """Step counting its ``enqueue`` calls (per class)."""

    calls = 0

    def enqueue(self, q, p):
        type(self).calls += 1
        return super().enqueue(q, p)


class _CountingStepEveryArrival(_CountingStep):
    """The same without ``passes_idle``: ``enqueue`` sees every arrival."""

    passes_idle = False
    calls = 0


@pytest.mark.parametrize("name", ["bench8", "workload"])
def test_step_port_passes_idle(name):
    """Step declares ``passes_idle``, as the built-in's is: arrivals to an empty queue
    and an idle link go straight to the transmitter without an ``enqueue`` call, and the
    results are the built-in's, and those of the port without the declaration."""
    assert Step.passes_idle is True
    _CountingStep.calls = _CountingStepEveryArrival.calls = 0
    params = STEP_AT[name]
    a = _run(name, {"kind": "step", **params}, True)
    b = _run(name, {"kind": "python", "class": _CountingStep, **params}, True)
    c = _run(name, {"kind": "python", "class": _CountingStepEveryArrival, **params}, True)
    _check(a, b, acts=("marks_forced",))
    _check(a, c)
    assert 0 < _CountingStep.calls < _CountingStepEveryArrival.calls


# ---------------------------------------------------------------------------- near misses


class _CoDelNoReuse(CoDel):
    """RFC 8289 without §5.3's reuse of the last cycle's count: count restarts at 1."""

    def dequeue(self, q, p):
        self.lastcount = self.count
        return super().dequeue(q, p)


class _PIESojournAlways(PIE):
    """The delay of the packet that leaves the queue empty taken as its sojourn (Linux
    and the built-in take 0)."""

    def dequeue(self, q, p):
        super().dequeue(q, p)
        self.qdelay = p.sojourn_ns
        return 0


class _StepAbove(Step):
    """Marks above K (> K waiting) instead of at K."""

    def enqueue(self, q, p):
        if q.backlog_packets == self.threshold and not q.full:
            return 0
        return super().enqueue(q, p)


@pytest.mark.parametrize(
    "kind,near,params,ecn",
    [
        ("codel", _CoDelNoReuse, {}, False),
        ("pie", _PIESojournAlways, PIE_AT["bench8"], False),
        ("step", _StepAbove, {}, True),
    ],
    ids=["codel", "pie", "step"],
)
def test_the_comparison_tells_near_misses_apart(kind, near, params, ecn):
    a = _run("bench8", {"kind": kind, **params}, ecn)
    b = _run("bench8", {"kind": "python", "class": near, **params}, ecn)
    with pytest.raises(AssertionError):
        assert_identical(a, b)


# ------------------------------------------------------------------------ parameters


def test_ports_read_the_scenarios_units():
    """Times and sizes as the scenario reader reads them (the engine's parsers,
    ``ccsim.extend.parse_time`` and ``parse_size``), and numbers of seconds."""
    c = CoDel(target="1.5e-3s", interval="0.1s", mtu="1.5KB")
    assert (c.target, c.interval, c.mtu) == (1_500_000, 100_000_000, 1500)
    assert CoDel(target=0.005, interval=0.1, mtu=9000).target == 5_000_000
    assert CoDel(target="250us").target == CoDel(target="250 µs").target == 250_000
    p = PIE()
    assert (p.target, p.t_update, p.max_burst, p.mtu) == (15_000_000,) * 2 + (150_000_000, 1500)
    for t in ("3.7ms", "1e-6s", "12345ns", "0.5us", ".25s", "2min", 0.0125, 3):
        assert CoDel(target=t, interval="1h").target == parse_time(t)
        assert PIE(max_burst=t).max_burst == parse_time(t)
    for b in ("9000B", "1.5KB", "64KiB", "12000bit", "0.5MB", 1500):
        assert CoDel(mtu=b).mtu == PIE(mtu=b).mtu == parse_size(b)
    for bad in ("5", "5 parsecs", "0.4ns", "-1ms", "2e9s", True, None):
        with pytest.raises(ccsim.ParameterError) as e:
            CoDel(target=bad)
        assert (e.value.key, e.value.value) == ("target", bad)
    for bad in ("1500 furlongs", "2PB", -1, 1500.5):
        with pytest.raises(ccsim.ParameterError) as e:
            PIE(mtu=bad)
        assert (e.value.key, e.value.value) == ("mtu", bad)


#: Parameters each built-in refuses, as the scenario is read: the port refuses them with
#: a ScenarioError naming the same key path; ``same``: with the built-in's value and
#: wording too (the unit parsers' own wording for a value of the wrong form differs: the
#: ports also take numbers of seconds).
REFUSED = [
    ("codel", CODEL, {"target": "100ms"}, True),  # target >= interval
    ("codel", CODEL, {"target": "1s", "interval": "250ms"}, True),
    ("codel", CODEL, {"target": "0s"}, True),
    ("codel", CODEL, {"interval": "0s"}, True),
    ("codel", CODEL, {"target": "0.4ns"}, True),
    ("codel", CODEL, {"interval": "2e9s"}, True),
    ("codel", CODEL, {"target": "5 parsecs"}, False),
    ("codel", CODEL, {"mtu": "1500 furlongs"}, False),
    ("codel", CODEL, {"ecn": 1}, True),
    ("codel", CODEL, {"inv_sqrt": "halley"}, True),
    ("pie", PIE_PATH, {"alpha": 40}, True),
    ("pie", PIE_PATH, {"beta": -1}, True),
    ("pie", PIE_PATH, {"beta": True}, True),
    ("pie", PIE_PATH, {"target": "0s"}, True),
    ("pie", PIE_PATH, {"t_update": "0s"}, True),
    ("pie", PIE_PATH, {"max_burst": "-1ms"}, False),
    ("pie", PIE_PATH, {"mtu": -1}, False),
    ("pie", PIE_PATH, {"ecn": "yes"}, True),
    ("pie", PIE_PATH, {"derandomize": 0}, True),
    ("pie", PIE_PATH, {"burst": "linux"}, True),
    ("step", STEP, {"threshold": 0}, True),
    ("step", STEP, {"threshold": 1_000_001}, True),
    ("step", STEP, {"threshold": 2.0}, True),
    ("step", STEP, {"non_ect": "mark"}, True),
]


def _refusal(name: str, queue: dict, limit: str | None = None) -> ccsim.ScenarioError:
    with pytest.raises(ccsim.ScenarioError) as e:
        _run(name, queue, False, limit)
    return e.value


@pytest.mark.parametrize(
    "kind,cls,params,same",
    REFUSED,
    ids=[f"{k}-{next(iter(p))}={p[next(iter(p))]}" for k, _, p, _ in REFUSED],
)
@pytest.mark.parametrize("name", ["bench8", "leaf_spine"])
def test_ports_refuse_what_the_builtins_refuse(name, kind, cls, params, same):
    a = _refusal(name, {"kind": kind, **params})
    b = _refusal(name, {"kind": "python", "class": cls, **params})
    key = next(iter(params))
    queue = "topology.bottleneck.queue" if name == "bench8" else "topology.host_link.queue"
    assert a.path == b.path == f"{queue}.{key}"
    if same:
        assert (b.value, b.expected) == (a.value, a.expected)
        assert str(b) == str(a)


@pytest.mark.parametrize("limit", ["100pkt", "199pkt"])
def test_step_port_refuses_a_buffer_below_k(limit):
    """Both refuse a buffer of fewer than K packets as the scenario is built (the port
    in its ``setup`` hook), naming the queue's ``limit``."""
    a = _refusal("bench8", {"kind": "step", "threshold": 200}, limit)
    b = _refusal("bench8", {"kind": "python", "class": STEP, "threshold": 200}, limit)
    assert a.path == b.path == "topology.bottleneck.queue.limit"
    assert a.value == b.value == f'"{limit}"'
    assert a.expected == "a buffer of at least threshold = 200 packets"
    # (the engine adds the link to what a setup hook's ParameterError says)
    assert b.expected == f"{a.expected} (on link R1->R2)"


@pytest.mark.parametrize("limit", ["200pkt", "150KB"])
def test_step_port_accepts_what_the_builtin_accepts(limit):
    """A buffer of exactly K packets, or one in bytes (the check is on packets only)."""
    a, b = _pair("bench8", "step", STEP, {"threshold": 200}, True, limit)
    _check(a, b)
