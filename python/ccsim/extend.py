"""Congestion controls and queue disciplines of your own, written in Python.

A class derived from :class:`CongestionControl` or :class:`QueueDiscipline` runs inside
the engine wherever a built-in module would, named in a scenario by its import path::

    [[flows]]
    cc = {kind = "python", class = "mycc:Scalable", a = 0.01}

    [topology.bottleneck]
    queue = {kind = "python", class = "myaqm:Threshold", limit = "100pkt", k = 20}

(in a dict, the class object itself may stand for the string). Every other key of the
table is a keyword argument of the class's constructor; the engine builds one instance
per flow (per link for a queue) and calls its hooks, which read the state the engine
hands them and set what they decide. docs/extending.md is the tutorial; the examples in
``ccsim.examples`` are ports of built-in modules written only against this API, and give
the built-in modules' results to the last bit.

The hooks of a congestion control follow Linux's ``tcp_congestion_ops`` (the engine's
``CongestionOps``, crates/ccsim-core/src/cc/mod.rs); those of a queue discipline decide,
for the first-in first-out buffer the engine keeps, what becomes of each packet at
enqueue and at dequeue. Schedulers with several queues (fair queueing, DRR) are not
expressible this way; they are built-in only.
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import inspect
import math
import os
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "CongestionControl",
    "QueueDiscipline",
    "Verdict",
    "PASS",
    "DROP",
    "DROP_FORCED",
    "MARK",
    "MARK_FORCED",
    "ParameterError",
    "class_path",
    "importable",
    "parse_rate",
    "parse_size",
    "parse_time",
]


class Verdict(enum.IntEnum):
    """What a queue discipline's hook decides for a packet.

    ``PASS`` lets it in (at enqueue) or out (at dequeue). ``DROP`` and ``MARK`` are an
    AQM's own ("early", probabilistic) decisions, ``DROP_FORCED`` and ``MARK_FORCED``
    deterministic ones (a threshold, an overload): the queue table counts them apart
    (``drops_early``, ``drops_forced``, ``marks_early``, ``marks_forced``). A mark sets
    CE and may only be given to an ECN-capable packet (``p.ect``).
    """

    PASS = 0
    DROP = 1
    DROP_FORCED = 2
    MARK = 3
    MARK_FORCED = 4


PASS, DROP, DROP_FORCED, MARK, MARK_FORCED = (
    Verdict.PASS,
    Verdict.DROP,
    Verdict.DROP_FORCED,
    Verdict.MARK,
    Verdict.MARK_FORCED,
)


class CongestionControl:
    """Base class of a congestion control (Linux ``tcp_congestion_ops``).

    Override ``ssthresh`` and ``cong_avoid``; the other hooks are optional, and the
    engine calls only the ones a class defines (a constructor may set one to None on
    the instance when its parameters make it needless: ``self.pkts_acked = None``). Each hook gets ``s``, the sender's
    state (the same object on every call, brought up to date before each):

    - read-only: ``now`` and ``now_ns`` (seconds, integer nanoseconds), ``mss``,
      ``flight`` (the window a loss response halves), ``pipe`` (bytes in the network),
      ``srtt``/``srtt_ns`` and ``min_rtt``/``min_rtt_ns`` (``None`` before the first
      sample), ``delivered`` (with ``rate_samples``), ``byte_counting``;
    - read and set: ``cwnd`` and ``ssthresh`` (bytes), ``cwnd_cnt`` (Linux
      ``snd_cwnd_cnt``, a byte counter for additive increase), ``pacing_rate``
      (payload bytes per second, with ``paces``), ``stamp`` (a number the flow's data
      segments carry, for routers to rewrite: explicit feedback);
    - a random stream of the flow's own, seeded from the scenario's seed:
      ``s.random()`` (uniform in [0, 1)), ``s.uniform(a, b)``, ``s.integers(n)`` (an
      integer in [0, n)). Draw from nothing else, and runs repeat exactly.

    Windows are whole bytes: a float is truncated; NaN, infinity, a negative value or
    one above 2^48 is refused, naming the hook.

    Per-ACK hooks get ``a``, what the ACK told: ``acked`` (bytes newly acknowledged),
    ``dup``, ``rtt``/``rtt_ns`` (``None`` without a sample), ``in_recovery``, ``ece``,
    ``load`` (the receiver's load-factor feedback, ``None`` without), ``ce_seen``,
    ``stamp`` (the number the receiver echoed) and, with ``rate_samples``, the
    delivery-rate sample: ``rate`` (payload bytes per second, ``None`` if not valid),
    ``rate_delivered``, ``rate_interval_ns``, ``rate_app_limited``, ``rate_rtt_ns``,
    ``rate_prior_delivered``, ``rate_newly_delivered``, ``rate_lost``
    (draft-cheng-iccrg-delivery-rate-estimation §3.3).
    """

    #: Loss recovery the sender runs: "newreno", "reno" or "tahoe".
    recovery = "newreno"
    #: What the flow needs of TCP: {"sack": True} (SACK recovery by default),
    #: {"ecn": "why"} (ECN required), {"timestamps": True} (RTT samples from every
    #: ACK's timestamp echo), {"accurate_ce": True} (the receiver echoes each
    #: segment's CE state, RFC 8257 §3.2), {"reduces_cwnd": True} (the loss response
    #: reduces from cwnd: under ns-3 conventions ``loss_window`` defaults to "cwnd").
    #:
    #: These attributes (``recovery``, ``needs`` and the flags below) are read from an
    #: instance built with the scenario's parameters, so a constructor may set them
    #: (``self.needs = {"timestamps": True}`` when a parameter asks for HyStart++).
    needs: dict = {}
    #: Grow the window on an ACK of new data that carries ECN-Echo (DCTCP).
    grow_on_ece = False
    #: ``cong_control`` sets the window on every ACK, recovery included (BBR): the
    #: sender's own reduction (PRR) stays out.
    controls_window = False
    #: ``cong_avoid`` gets the bytes each ACK delivered (RFC 9937 DeliveredData),
    #: whatever the sender's byte counting.
    counts_acked = False
    #: Keep the delivery-rate estimator and hand its samples to the per-ACK hooks.
    rate_samples = False
    #: The module sets ``s.pacing_rate`` itself.
    paces = False

    def init(self, s) -> None:
        """Once, when the flow's sender is built (before its first segment)."""

    def ssthresh(self, s) -> int:
        """Slow-start threshold (bytes) after a loss found by duplicate ACKs or an
        ECN echo."""
        raise NotImplementedError

    def ssthresh_timeout(self, s) -> int:
        """Slow-start threshold (bytes) after a retransmission timeout (default:
        ``ssthresh``)."""
        return self.ssthresh(s)

    def cong_avoid(self, s, acked: int) -> None:
        """Window growth on an ACK of ``acked`` new bytes outside loss recovery: set
        ``s.cwnd`` (and ``s.cwnd_cnt``)."""
        raise NotImplementedError

    def pkts_acked(self, s, a) -> None:
        """Every ACK, new or duplicate, before the sender reacts to it."""

    def cong_control(self, s, a) -> bool:
        """Window control on every ACK: return True after setting ``s.cwnd`` (and
        ``s.ssthresh``, ``s.pacing_rate``) to take over the window for this ACK."""
        return False

    def ecn_echo(self, s) -> int | None:
        """An ACK carried ECN-Echo and no reduction was made in this window yet: the new
        ssthresh (cwnd is set to it), or None to ignore the echo (default: RFC 3168, as
        after a loss)."""
        return self.ssthresh(s)

    def cwnd_event(self, s, event: str) -> None:
        """``event`` is "timeout", "enter_recovery", "exit_recovery", "ecn_reduce" or
        "exit_loss" (after the sender has set the window for it)."""

    def trace(self) -> float | None:
        """The value of the flow time series' ``cc_state`` column (``[monitor]``)."""
        return None

    def stats(self) -> dict[str, float]:
        """Counters for the run summary (``summary["cc"][flow]``), read at the end."""
        return {}


class QueueDiscipline:
    """Base class of a queue discipline (an AQM) over the engine's FIFO buffer.

    The engine keeps the packets, in arrival order, and the buffer's ``limit``. Each
    hook gets ``q``, the queue's state: ``now``/``now_ns``, ``backlog_packets`` and
    ``backlog_bytes`` (the packets waiting: at enqueue without the arrival, at dequeue
    without the packet just taken out), ``limit_packets`` or ``limit_bytes`` (the other
    ``None``), ``full`` (at enqueue: the arrival does not fit, and is dropped as an
    overflow whatever the hook says), ``rate`` (the link's, bit/s), the link's
    ``name``, and a random stream of the queue's own, seeded from the scenario's seed
    (``q.random()``, ``q.uniform(a, b)``, ``q.integers(n)``); and ``p``, the packet:
    ``size`` (bytes on the wire), ``flow`` (the flow's index), ``kind`` ("data", "ack"
    or "datagram"), ``ect`` (ECN-capable), ``ce``, ``enq_ns`` (when it entered the
    queue), ``sojourn``/``sojourn_ns`` (at dequeue: the time it waited), ``stamp`` (a
    number to read or rewrite: explicit feedback, echoed to the sender in its ACKs).

    ``enqueue`` and ``dequeue`` return a :class:`Verdict`; the engine calls only the
    hooks a class defines. At dequeue ``q.dropped`` counts the packets this dequeue has
    dropped so far (0 for the first head it offers), which tells a discipline that drops
    several packets in one dequeue (CoDel) the first head from the next ones.

    ``trace`` values are per queue, not per flow (fair-queueing disciplines, which trace
    per flow, are built-in only).
    """

    #: An arrival that finds the queue empty and the link idle only passes through:
    #: ``enqueue`` and ``dequeue`` would return PASS and change nothing (no draw from
    #: ``q.random()``, no state kept per arrival). Declaring it lets the engine hand such
    #: a packet straight to the transmitter without calling either hook (step marking,
    #: not PIE or CoDel, whose state follows every packet). The results are the same;
    #: only the cost differs.
    passes_idle = False

    def setup(self, q) -> None:
        """Once per link, when the scenario is built: ``q`` has the link's ``name``,
        ``rate`` and ``limit_packets``/``limit_bytes``. Raise :class:`ParameterError`
        for a parameter that does not suit this link (a threshold above the buffer): the
        run stops before it starts, with a ``ScenarioError`` naming the key."""

    def enqueue(self, q, p) -> int:
        """An arrival: PASS to queue it, DROP or MARK (sets CE, then queues it)."""
        return PASS

    def dequeue(self, q, p) -> int:
        """The head, just taken out for the transmitter: PASS to send it, MARK to send
        it with CE, DROP to drop it (the engine then takes the next head and asks
        again)."""
        return PASS

    def empty(self, q) -> None:
        """The queue was found empty when the transmitter asked for a packet (after
        dropping every packet it held, or with nothing waiting)."""

    def trace(self) -> dict[str, float]:
        """Named values for the ``ts_qdisc`` time series (``[monitor]``)."""
        return {}


def importable(directory: str | Path) -> None:
    """Make the modules in ``directory`` importable here and in worker processes started
    from here: appended to ``sys.path`` (after the standard library and installed
    packages, so it shadows none of them) and to ``PYTHONPATH``. ``ccsim`` on the
    command line does this for the working directory and the scenario file's."""
    d = str(Path(directory).resolve())
    if d not in sys.path:
        sys.path.append(d)
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if d not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([*parts, d])


def class_path(cls: type) -> str:
    """The ``"module:qualname"`` naming ``cls`` in a scenario."""
    if not isinstance(cls, type):
        raise TypeError(f"{cls!r} is not a class")
    return f"{cls.__module__}:{cls.__qualname__}"


# ---------------------------------------------------------------- loading (the engine's)

_BASES = {"cc": CongestionControl, "queue": QueueDiscipline}
_REQUIRED = {"cc": ("ssthresh", "cong_avoid"), "queue": ()}
_OPTIONAL: dict[str, tuple[str, ...]] = {
    "cc": (
        "init",
        "ssthresh_timeout",
        "pkts_acked",
        "cong_control",
        "ecn_echo",
        "cwnd_event",
        "trace",
        "stats",
    ),
    "queue": ("setup", "enqueue", "dequeue", "empty", "trace"),
}
_RECOVERIES = ("newreno", "reno", "tahoe")
_NEEDS = {
    "sack": bool,
    "ecn": str,
    "timestamps": bool,
    "accurate_ce": bool,
    "reduces_cwnd": bool,
}


class ParameterError(ValueError):
    """A parameter of a class of yours that it cannot take: raise it from the
    constructor (or a queue's ``setup``) with the key, the value and what is accepted,
    and the scenario is refused with a ``ScenarioError`` naming the key's path
    (``flows[0].cc.beta``), as for a built-in module::

        if not 0 < beta < 1:
            raise ccsim.ParameterError("beta", beta, "a number between 0 and 1")
    """

    def __init__(self, key: str, value: Any, expected: str):
        super().__init__(f"{key}: got {value!r}, expected {expected}")
        self.key, self.value, self.expected = key, value, expected


def _number(v: Any, what: str, example: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"invalid {what} {v!r}: expected a string such as {example!r} or a number")
    try:
        return float(v)
    except OverflowError:
        raise ValueError(f"invalid {what}: {str(v)[:20]}... is too large") from None


def _read(parse: Any, v: Any, key: str | None) -> int:
    """``parse(v)``; with ``key``, a bad value is a :class:`ParameterError` naming it,
    with what the engine's parser accepts (the text after "expected" of its error)."""
    try:
        return parse(v)
    except ValueError as e:
        if key is None:
            raise
        raise ParameterError(key, v, str(e).partition(": expected ")[2] or str(e)) from None


def _time_ns(v: Any) -> int:
    from ccsim import _ccsim

    if isinstance(v, str):
        return _ccsim.parse_time(v)
    return _ccsim.parse_time(repr(_number(v, "time", "5ms")) + "s")


def _bytes(v: Any) -> int:
    from ccsim import _ccsim

    if isinstance(v, str):
        return _ccsim.parse_size(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return _ccsim.parse_size(f"{v}B")
    raise ValueError(f"invalid size {v!r}: expected a string such as '1500B' or whole bytes")


def _bps(v: Any) -> int:
    from ccsim import _ccsim

    if isinstance(v, str):
        return _ccsim.parse_rate(v)
    return _ccsim.parse_rate(repr(_number(v, "rate", "10Mbps")) + "bps")


def parse_time(v: str | float, key: str | None = None) -> int:
    """A time as a scenario's time keys take it (``"5ms"``, ``"1.5s"``; a number is
    seconds) in integer nanoseconds, as the engine reads it (its rounding and limits):
    the unit of ``q.now_ns``, ``p.sojourn_ns``, ``s.srtt_ns``. ``ValueError`` if invalid;
    with ``key`` (the parameter's name, in a constructor), a :class:`ParameterError`
    naming it, so that the scenario is refused at that key."""
    return _read(_time_ns, v, key)


def parse_size(v: str | int, key: str | None = None) -> int:
    """A size as a scenario's size keys take it (``"1500B"``, ``"64KB"``, or a whole
    number of bytes), in bytes. Errors as :func:`parse_time`."""
    return _read(_bytes, v, key)


def parse_rate(v: str | float, key: str | None = None) -> int:
    """A rate as a scenario's rate keys take it (``"10Mbps"``, or bit/s), in bit/s.
    Errors as :func:`parse_time`."""
    return _read(_bps, v, key)


def _import(path: str) -> type:
    module, sep, name = path.partition(":")
    if not sep:
        module, _, name = path.rpartition(".")
    if not module or not name:
        raise ParameterError(
            "class", path, '"module:Class" (an importable module and a class in it)'
        )
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        where = ", ".join(p or "." for p in sys.path[:4])
        raise ParameterError(
            "class",
            path,
            f"an importable module: {e} (searched {where}, ...; `ccsim run` adds the "
            "scenario file's directory, a script its own)",
        ) from None
    except Exception as e:  # the module itself raised while importing
        raise ParameterError(
            "class", path, f"a module that imports: {type(e).__name__}: {e}"
        ) from e
    obj: Any = mod
    for part in name.split("."):
        if not hasattr(obj, part):
            raise ParameterError("class", path, f"a class defined in module {module!r}") from None
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ParameterError("class", path, f"a class ({name} is a {type(obj).__name__})")
    return obj


def _defines(obj: Any, base: type, hook: str) -> bool:
    """Whether ``obj`` (an instance) has ``hook`` of its own: a method its class
    defines, not the base class's default, and not set to None on the instance (which
    is how a constructor turns off a hook its parameters make needless)."""
    f = getattr(obj, hook, None)
    return callable(f) and getattr(f, "__func__", f) is not getattr(base, hook, None)


def _digest(cls: type) -> str:
    """sha256 of the source the class comes from (its module's file; where there is no
    file, as for a class defined in a notebook, the source of the class or of each of
    its methods, as the interpreter keeps it), so that results computed by two versions
    of it are told apart (a sweep's fingerprint includes it)."""
    data = None
    try:
        f = inspect.getsourcefile(cls)
        if f and Path(f).is_file():
            data = Path(f).read_bytes()
    except (OSError, TypeError):
        pass
    if data is None:
        try:
            data = inspect.getsource(cls).encode()
        except (OSError, TypeError):
            parts = [f"{cls.__module__}:{cls.__qualname__}"]
            for klass in cls.__mro__:
                for name, v in sorted(vars(klass).items()):
                    if inspect.isfunction(v):
                        try:
                            parts.append(inspect.getsource(v))
                        except (OSError, TypeError):
                            parts.append(f"{name}:{v.__code__.co_code.hex()}")
            data = "\n".join(parts).encode()
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _jsonable(v: Any) -> bool:
    if v is None or isinstance(v, (bool, int, str)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, (list, tuple)):
        return all(_jsonable(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _jsonable(x) for k, x in v.items())
    return False


def _params(cls: type, given: dict) -> dict:
    """The constructor's parameters: those given, checked against its signature, and
    its defaults for the others (where they can be written in a scenario)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return dict(given)
    ps = sig.parameters
    named = {n: p for n, p in ps.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if not any(p.kind == p.VAR_KEYWORD for p in ps.values()):
        for k in given:
            if k not in named:
                accepted = ", ".join(named) or "none"
                raise ParameterError(
                    k,
                    given[k],
                    f"a parameter of {cls.__qualname__}(); its parameters: {accepted}",
                )
    out = {}
    for n, p in named.items():
        if n in given:
            out[n] = given[n]
        elif p.default is p.empty:
            raise ParameterError(n, None, f"a value: required parameter of {cls.__qualname__}()")
        elif _jsonable(p.default):
            out[n] = p.default
    for k, v in given.items():
        out.setdefault(k, v)
    return out


def _flags(kind: str, cls: type, obj: Any) -> dict:
    """Which hooks the class defines, and (congestion control) what ``obj``, an instance
    built with the scenario's parameters, says of itself."""
    base = _BASES[kind]
    missing = [h for h in _REQUIRED[kind] if not _defines(obj, base, h)]
    if missing:
        raise ParameterError(
            "class",
            class_path(cls),
            f"a class with the hooks {', '.join(_REQUIRED[kind])} "
            f"({', '.join(missing)} not defined; derive from ccsim.{base.__name__})",
        )
    hooks = {h: _defines(obj, base, h) for h in _OPTIONAL[kind]}
    if kind == "queue" and not (hooks["enqueue"] or hooks["dequeue"]):
        raise ParameterError(
            "class",
            class_path(cls),
            "a class that defines enqueue or dequeue (derive from ccsim.QueueDiscipline)",
        )

    def attr(name: str) -> Any:
        return getattr(obj, name, getattr(base, name, None))

    if kind == "queue":
        return {"hooks": hooks, "passes_idle": bool(attr("passes_idle"))}
    recovery = attr("recovery")
    if recovery not in _RECOVERIES:
        raise ParameterError(
            "class", class_path(cls), f"recovery in {_RECOVERIES} (got {recovery!r})"
        )
    needs = attr("needs") or {}
    if not isinstance(needs, dict) or any(
        k not in _NEEDS or not isinstance(v, _NEEDS[k]) for k, v in needs.items()
    ):
        raise ParameterError(
            "class",
            class_path(cls),
            'needs as a dict of "sack": bool, "ecn": reason (str), "timestamps": bool, '
            f'"accurate_ce": bool, "reduces_cwnd": bool (got {needs!r})',
        )
    flags = {
        name: bool(attr(name))
        for name in ("grow_on_ece", "controls_window", "counts_acked", "rate_samples", "paces")
    }
    return {"hooks": hooks, "recovery": recovery, "needs": dict(needs), **flags}


def _load(kind: str, path: str, given: dict) -> tuple[type, dict, str, dict]:
    """The engine's loader: the class named by ``path``, its constructor's parameters
    (``given`` checked and completed), the digest of its source, and what the engine
    needs to know of it. One instance is built here, so that a constructor that fails
    does so as the scenario is read, and what it says of itself is read from it."""
    cls = _import(path)
    params = _params(cls, given)
    try:
        obj = cls(**params)
    except ParameterError:
        raise
    except Exception as e:
        raise ParameterError(
            "class",
            path,
            f"a class whose constructor accepts the parameters given ({type(e).__name__}: {e})",
        ) from e
    return cls, params, _digest(cls), _flags(kind, cls, obj)
