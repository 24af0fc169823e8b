//! Congestion controls and queue disciplines written in Python (`kind =
//! "python"`; the engine side is `ccsim_core::cc::foreign` and
//! `ccsim_core::qdisc::foreign`, the user's side
//! `ccsim.extend`, the tutorial docs/extending.md).
//!
//! A loader reads the scenario table: `ccsim.extend._load` imports the class,
//! checks its hooks and constructor parameters and digests its source; the
//! resolved table gets the parameters with their defaults and `source` (the
//! digest, so a sweep point's id changes with the algorithm's code). The spec
//! builds one instance per flow (per link) and a module that calls it back.
//!
//! The state a hook sees is one Python object per module (`SenderState`,
//! `QueueState`, an `Ack`, a `Packet`), kept for the module's life: before a
//! hook the engine writes the current values into it, after it reads back what
//! the hook may set, checked (a NaN, negative or absurd window is refused
//! naming the hook). Only the hooks a class defines are called. The run holds
//! the GIL throughout when a Python model is in it (lib.rs `run`), so a hook
//! costs a call and the field copies, no lock.
//!
//! A hook that raises stops the run: the module unwinds out of the engine
//! with a [`HookFailed`] payload, which `run` turns into a `SimulationError`
//! naming the hook, the flow (or link) and the simulated time, whose
//! `__cause__` is the user's exception with its traceback; a
//! `KeyboardInterrupt` raised inside a hook passes through as itself.

use ccsim_core::cc::{AckSample, CaEvent, CcSpec, CcState, CongestionOps, Needs, Recovery};
use ccsim_core::cfg::{Res, ScenarioError, Tab};
use ccsim_core::packet::{Ecn, FlowId, Kind, Packet};
use ccsim_core::qdisc::{DropReason, Limit, LinkInfo, MarkReason, PacketFifo, Qdisc, QdiscCtx, QdiscSpec, TraceValue};
use ccsim_core::rng::Rng;
use ccsim_core::units::Time;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;
use std::cell::Cell;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// Largest window or rate a hook may set: 2^48 (256 TB, or 256 TB/s).
const ABSURD: f64 = (1u64 << 48) as f64;

thread_local! {
    /// A `kind = "python"` table was loaded on this thread since the last
    /// [`take_used`]: the run that follows calls Python, so holds the GIL.
    static USED: Cell<bool> = const { Cell::new(false) };
}

/// Whether a Python model was loaded since the last call (and clears it).
pub fn take_used() -> bool {
    USED.with(|u| u.replace(false))
}

/// Names that live as long as the process (module names, traced variables,
/// counters): the engine's tables take `&'static str`. Each distinct name is
/// leaked once.
fn intern(s: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = NAMES.get_or_init(Default::default).lock().expect("names");
    if let Some(n) = set.get(s) {
        return n;
    }
    let n: &'static str = Box::leak(s.to_owned().into_boxed_str());
    set.insert(n);
    n
}

/// A hook raised: the payload the engine unwinds with, to `run`.
pub struct HookFailed {
    pub err: PyErr,
    pub hook: &'static str,
    /// "flow 3" or "link R1->R2": filled in by `run` for flows (it knows names).
    pub flow: Option<u32>,
    pub link: Option<String>,
    pub now: Time,
}

fn fail(err: PyErr, hook: &'static str, flow: Option<u32>, link: Option<&str>, now: Time) -> ! {
    std::panic::resume_unwind(Box::new(HookFailed {
        err,
        hook,
        flow,
        link: link.map(str::to_owned),
        now,
    }))
}

/// A window, threshold or rate set by a hook, checked: a whole number of
/// bytes (a float is truncated) in 0..=2^48; `cap` (ssthresh's infinity)
/// takes any larger value.
fn amount(hook: &str, what: &str, v: &Bound<'_, PyAny>, cap: Option<u64>) -> PyResult<u64> {
    let x = match v.extract::<u64>() {
        Ok(i) if (i as f64) <= ABSURD => return Ok(i),
        Ok(i) => i as f64,
        Err(_) => v.extract::<f64>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{hook}: {what} = {} is not a number (accepted: bytes, an int or a float)",
                v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
            ))
        })?,
    };
    if x.is_finite() && x >= 0.0 {
        if x <= ABSURD {
            return Ok(x as u64);
        }
        if let Some(c) = cap {
            return Ok(c);
        }
    }
    Err(PyValueError::new_err(format!(
        "{hook}: {what} = {x} refused (accepted: bytes from 0 to 2^48, not NaN, infinite or negative)"
    )))
}

/// Calls `f` with positional `args` (at most two), without building an
/// argument tuple: CPython passes them on the stack to a bound method
/// (`PyObject_CallFunctionObjArgs`, vectorcall inside). A tuple per call
/// would be a container allocated per ACK or packet, and with those the
/// cyclic garbage collector's passes over every object of the process (pandas
/// and pyarrow included), which took a sixth of a Python module's run.
fn invoke<'py>(py: Python<'py>, f: &Py<PyAny>, args: &[&Bound<'py, PyAny>]) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::ffi;
    let end = std::ptr::null_mut::<ffi::PyObject>();
    // SAFETY: the GIL is held (`py`), every pointer is a live object borrowed
    // for the call, and the argument list ends with NULL as the C API asks.
    unsafe {
        let r = match args {
            [] => ffi::PyObject_CallFunctionObjArgs(f.as_ptr(), end),
            [a] => ffi::PyObject_CallFunctionObjArgs(f.as_ptr(), a.as_ptr(), end),
            [a, b] => ffi::PyObject_CallFunctionObjArgs(f.as_ptr(), a.as_ptr(), b.as_ptr(), end),
            _ => unreachable!("hooks take at most two arguments"),
        };
        Bound::from_owned_ptr_or_err(py, r)
    }
}

// ------------------------------------------------------------------ the state objects

/// The sender's state as a congestion control's hooks see it (`s`).
#[pyclass(module = "ccsim._ccsim", name = "SenderState")]
pub struct SenderState {
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    #[pyo3(get, set)]
    cwnd_cnt: u64,
    #[pyo3(get)]
    flight: u64,
    #[pyo3(get)]
    pipe: u64,
    #[pyo3(get)]
    delivered: u64,
    #[pyo3(get)]
    byte_counting: bool,
    #[pyo3(get)]
    srtt_ns: Option<u64>,
    #[pyo3(get)]
    min_rtt_ns: Option<u64>,
    pacing_rate: u64,
    #[pyo3(get, set)]
    stamp: f32,
    /// The hook being called (for the setters' errors).
    hook: &'static str,
    rng: Rng,
}

#[pymethods]
impl SenderState {
    /// Simulated time, seconds.
    #[getter]
    fn now(&self) -> f64 {
        self.now_ns as f64 * 1e-9
    }
    #[getter]
    fn srtt(&self) -> Option<f64> {
        self.srtt_ns.map(|t| t as f64 * 1e-9)
    }
    #[getter]
    fn min_rtt(&self) -> Option<f64> {
        self.min_rtt_ns.map(|t| t as f64 * 1e-9)
    }
    #[getter]
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    #[setter]
    fn set_cwnd(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.cwnd = amount(self.hook, "cwnd", v, None)?;
        Ok(())
    }
    #[getter]
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    #[setter]
    fn set_ssthresh(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.ssthresh = amount(self.hook, "ssthresh", v, Some(ccsim_core::tcp::INFINITE))?;
        Ok(())
    }
    #[getter]
    fn pacing_rate(&self) -> u64 {
        self.pacing_rate
    }
    #[setter]
    fn set_pacing_rate(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.pacing_rate = amount(self.hook, "pacing_rate", v, None)?;
        Ok(())
    }
    /// Uniform in [0, 1) from the flow's own stream.
    fn random(&mut self) -> f64 {
        self.rng.uniform()
    }
    /// Uniform in [a, b).
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        self.rng.range(a, b)
    }
    /// An integer in [0, n).
    fn integers(&mut self, n: u64) -> PyResult<u64> {
        draw_below(&mut self.rng, n)
    }
    fn __repr__(&self) -> String {
        format!(
            "SenderState(now={:.9}, cwnd={}, ssthresh={}, flight={}, pipe={}, srtt={:?})",
            self.now(),
            self.cwnd,
            self.ssthresh,
            self.flight,
            self.pipe,
            self.srtt()
        )
    }
}

/// An integer in [0, n) by rejection (no bias).
fn draw_below(rng: &mut Rng, n: u64) -> PyResult<u64> {
    if n == 0 {
        return Err(PyValueError::new_err("integers(n): n must be at least 1"));
    }
    let zone = u64::MAX - u64::MAX % n;
    loop {
        let x = rng.next_u64();
        if x < zone {
            return Ok(x % n);
        }
    }
}

impl SenderState {
    fn load(&mut self, s: &CcState, hook: &'static str) {
        self.now_ns = s.now.0;
        self.mss = s.mss;
        self.cwnd = s.cwnd;
        self.ssthresh = s.ssthresh;
        self.cwnd_cnt = s.cwnd_cnt;
        self.flight = s.flight;
        self.pipe = s.pipe;
        self.delivered = s.delivered;
        self.byte_counting = s.byte_counting;
        self.srtt_ns = s.srtt.map(|t| t.0);
        self.min_rtt_ns = s.min_rtt.map(|t| t.0);
        self.pacing_rate = s.pacing_rate;
        self.stamp = s.stamp;
        self.hook = hook;
    }
    fn store(&self, s: &mut CcState) {
        s.cwnd = self.cwnd;
        s.ssthresh = self.ssthresh;
        s.cwnd_cnt = self.cwnd_cnt;
        s.pacing_rate = self.pacing_rate;
        s.stamp = self.stamp;
    }
}

/// What one ACK told the sender (`a`).
#[pyclass(module = "ccsim._ccsim", name = "Ack", get_all)]
#[derive(Default)]
pub struct AckView {
    acked: u64,
    dup: bool,
    rtt_ns: Option<u64>,
    in_recovery: bool,
    ece: bool,
    load: Option<f64>,
    ce_seen: bool,
    stamp: f32,
    rate: Option<f64>,
    rate_delivered: u64,
    rate_interval_ns: Option<u64>,
    rate_app_limited: bool,
    rate_rtt_ns: Option<u64>,
    rate_prior_delivered: u64,
    rate_newly_delivered: u64,
    rate_lost: u64,
}

#[pymethods]
impl AckView {
    #[getter]
    fn rtt(&self) -> Option<f64> {
        self.rtt_ns.map(|t| t as f64 * 1e-9)
    }
    fn __repr__(&self) -> String {
        format!(
            "Ack(acked={}, dup={}, rtt_ns={:?}, in_recovery={}, ece={}, stamp={})",
            self.acked, self.dup, self.rtt_ns, self.in_recovery, self.ece, self.stamp
        )
    }
}

impl AckView {
    fn load_from(&mut self, a: &AckSample) {
        self.acked = a.acked;
        self.dup = a.dup;
        self.rtt_ns = a.rtt.map(|t| t.0);
        self.in_recovery = a.in_recovery;
        self.ece = a.ece;
        self.load = a.feedback.load_factor();
        self.ce_seen = a.feedback.ce_seen;
        self.stamp = a.stamp;
        match &a.rate {
            Some(r) => {
                self.rate = r.rate();
                self.rate_delivered = r.delivered;
                self.rate_interval_ns = r.interval.map(|t| t.0);
                self.rate_app_limited = r.is_app_limited;
                self.rate_rtt_ns = r.rtt.map(|t| t.0);
                self.rate_prior_delivered = r.prior_delivered;
                self.rate_newly_delivered = r.newly_delivered;
                self.rate_lost = r.lost;
            }
            None => {
                self.rate = None;
                self.rate_delivered = 0;
                self.rate_interval_ns = None;
                self.rate_app_limited = false;
                self.rate_rtt_ns = None;
                self.rate_prior_delivered = 0;
                self.rate_newly_delivered = 0;
                self.rate_lost = 0;
            }
        }
    }
}

/// A queue's state as a discipline's hooks see it (`q`).
#[pyclass(module = "ccsim._ccsim", name = "QueueState")]
pub struct QueueState {
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    backlog_packets: usize,
    #[pyo3(get)]
    backlog_bytes: u64,
    #[pyo3(get)]
    limit_packets: Option<u64>,
    #[pyo3(get)]
    limit_bytes: Option<u64>,
    #[pyo3(get)]
    full: bool,
    /// Packets this dequeue has dropped so far (0 for the first head it
    /// offers to the hook).
    #[pyo3(get)]
    dropped: usize,
    /// The link's rate, bit/s.
    #[pyo3(get)]
    rate: u64,
    #[pyo3(get)]
    name: String,
    rng: Rng,
}

#[pymethods]
impl QueueState {
    #[getter]
    fn now(&self) -> f64 {
        self.now_ns as f64 * 1e-9
    }
    fn random(&mut self) -> f64 {
        self.rng.uniform()
    }
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        self.rng.range(a, b)
    }
    fn integers(&mut self, n: u64) -> PyResult<u64> {
        draw_below(&mut self.rng, n)
    }
    fn __repr__(&self) -> String {
        format!(
            "QueueState(now={:.9}, backlog_packets={}, backlog_bytes={}, full={}, name={:?})",
            self.now(),
            self.backlog_packets,
            self.backlog_bytes,
            self.full,
            self.name
        )
    }
}

/// A packet as a discipline's hooks see it (`p`).
#[pyclass(module = "ccsim._ccsim", name = "Packet")]
pub struct PacketView {
    #[pyo3(get)]
    size: u32,
    #[pyo3(get)]
    flow: u32,
    kind: Kind,
    #[pyo3(get)]
    ect: bool,
    #[pyo3(get)]
    ce: bool,
    #[pyo3(get)]
    enq_ns: u64,
    #[pyo3(get)]
    sojourn_ns: u64,
    stamp: f32,
}

#[pymethods]
impl PacketView {
    #[getter]
    fn kind(&self) -> &'static str {
        match self.kind {
            Kind::Data => "data",
            Kind::Ack => "ack",
            Kind::Datagram => "datagram",
        }
    }
    #[getter]
    fn sojourn(&self) -> f64 {
        self.sojourn_ns as f64 * 1e-9
    }
    #[getter]
    fn stamp(&self) -> f32 {
        self.stamp
    }
    #[setter]
    fn set_stamp(&mut self, v: f64) -> PyResult<()> {
        if !v.is_finite() {
            return Err(PyValueError::new_err(format!(
                "p.stamp = {v} refused (accepted: a finite number)"
            )));
        }
        self.stamp = v as f32;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Packet(size={}, flow={}, kind={:?}, ect={}, ce={}, sojourn_ns={}, stamp={})",
            self.size,
            self.flow,
            self.kind(),
            self.ect,
            self.ce,
            self.sojourn_ns,
            self.stamp
        )
    }
}

impl PacketView {
    fn load(&mut self, p: &Packet, now: Time) {
        self.size = p.size;
        self.flow = p.flow.0;
        self.kind = p.kind;
        self.ect = p.ecn.is_ect();
        self.ce = p.ecn == Ecn::Ce;
        self.enq_ns = p.enq.0;
        self.sojourn_ns = now.0.saturating_sub(p.enq.0);
        self.stamp = p.stamp;
    }
}

// ------------------------------------------------------------------ loading

/// The class, its parameters and what the engine must know of it, as
/// `ccsim.extend._load` returned them.
struct Loaded {
    cls: Py<PyAny>,
    params: Py<PyDict>,
    /// `module:Class` as written.
    path: String,
    /// The class's `__qualname__` (the `cc` column).
    name: &'static str,
    hooks: Vec<(String, bool)>,
    flags: Py<PyDict>,
}

impl Loaded {
    fn hook(&self, h: &str) -> bool {
        self.hooks.iter().any(|(n, on)| n == h && *on)
    }
}

fn to_json(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = py.import("json")?.call_method1("dumps", (v,))?.extract()?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn from_json<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// Reads the table: `class` and every other key (the constructor's), through
/// `ccsim.extend._load`; writes back the parameters with their defaults and
/// the source digest.
fn load(t: &mut Tab, kind: &str) -> Res<Loaded> {
    let Some(path) = t.string("class")? else {
        return Err(t.missing("class", "\"module:Class\" (the class to load)"));
    };
    let later = if kind == "queue" {
        ccsim_core::qdisc::foreign::LATER
    } else {
        &[]
    };
    let mut given = t.rest(later);
    // (`source` is what a resolved table says of the class's code: always
    // recomputed, never a parameter)
    given.remove("source");
    let class_value = Value::from(path.clone());
    let got = Python::with_gil(|py| -> PyResult<Result<(Loaded, Value, String), ScenarioError>> {
        let ext = py.import("ccsim.extend")?;
        let r = ext.call_method1("_load", (kind, &path, from_json(py, &Value::Object(given))?));
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                let load_error = ext.getattr("ParameterError")?;
                if e.is_instance(py, &load_error) {
                    let v = e.value(py);
                    let key: String = v.getattr("key")?.extract()?;
                    let value = to_json(py, &v.getattr("value")?).unwrap_or(Value::Null);
                    let expected: String = v.getattr("expected")?.extract()?;
                    return Ok(Err(ScenarioError {
                        path: t.key_path(&key),
                        value: ccsim_core::cfg::show(&value),
                        expected,
                    }));
                }
                return Ok(Err(t.error(
                    "class",
                    &class_value,
                    format!("a class ccsim can load ({})", e.value(py)),
                )));
            }
        };
        let (cls, params, digest, flags): (Bound<PyAny>, Bound<PyDict>, String, Bound<PyDict>) = r.extract()?;
        let hooks: Vec<(String, bool)> = flags
            .get_item("hooks")?
            .map(|h| {
                h.extract::<std::collections::BTreeMap<String, bool>>()
                    .map(|m| m.into_iter().collect())
            })
            .transpose()?
            .unwrap_or_default();
        let name: String = cls.getattr("__qualname__")?.extract()?;
        let resolved = to_json(py, params.as_any())?;
        Ok(Ok((
            Loaded {
                cls: cls.unbind(),
                params: params.unbind(),
                path: path.clone(),
                name: intern(&name),
                hooks,
                flags: flags.unbind(),
            },
            resolved,
            digest,
        )))
    });
    let (loaded, resolved, digest) = match got {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err(e),
        Err(e) => {
            let msg = Python::with_gil(|py| e.value(py).to_string());
            return Err(t.error("class", &class_value, format!("a class ccsim can load ({msg})")));
        }
    };
    if let Value::Object(m) = resolved {
        for (k, v) in m {
            t.put(&k, v);
        }
    }
    t.put("source", Value::from(digest));
    USED.with(|u| u.set(true));
    Ok(loaded)
}

fn flag(py: Python<'_>, flags: &Py<PyDict>, name: &str) -> bool {
    flags
        .bind(py)
        .get_item(name)
        .ok()
        .flatten()
        .and_then(|v| v.extract::<bool>().ok())
        .unwrap_or(false)
}

/// Builds an instance; a constructor that raises now (it did not when the
/// table was read) stops the run.
fn instance(py: Python<'_>, l: &Loaded, now: Time, link: Option<&str>) -> Py<PyAny> {
    match l.cls.bind(py).call((), Some(l.params.bind(py))) {
        Ok(o) => o.unbind(),
        Err(e) => fail(e, "__init__", None, link, now),
    }
}

fn method(py: Python<'_>, obj: &Py<PyAny>, l: &Loaded, hook: &str) -> Option<Py<PyAny>> {
    if !l.hook(hook) {
        return None;
    }
    obj.bind(py).getattr(hook).ok().map(Bound::unbind)
}

// ------------------------------------------------------------------ congestion control

/// `cc = {kind = "python", class = ..., ...}` as read.
#[derive(Debug)]
struct CcPySpec {
    loaded: Arc<LoadedCc>,
}

struct LoadedCc {
    l: Loaded,
    recovery: Recovery,
    needs: Needs,
    grow_on_ece: bool,
    controls_window: bool,
    counts_acked: bool,
    rate_samples: bool,
    paces: bool,
}

impl std::fmt::Debug for LoadedCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "python cc {}", self.l.path)
    }
}

pub fn load_cc(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    let l = load(t, "cc")?;
    let loaded = Python::with_gil(|py| {
        let recovery: String = l
            .flags
            .bind(py)
            .get_item("recovery")
            .ok()
            .flatten()
            .and_then(|v| v.extract().ok())
            .unwrap_or_else(|| "newreno".into());
        let recovery = match recovery.as_str() {
            "tahoe" => Recovery::Tahoe,
            "reno" => Recovery::Reno,
            _ => Recovery::NewReno,
        };
        let mut needs = Needs::default();
        if let Ok(Some(n)) = l.flags.bind(py).get_item("needs") {
            if let Ok(n) = n.downcast::<PyDict>() {
                let get = |k: &str| n.get_item(k).ok().flatten();
                needs.sack = get("sack").and_then(|v| v.extract().ok()).unwrap_or(false);
                needs.timestamps = get("timestamps").and_then(|v| v.extract().ok()).unwrap_or(false);
                needs.accurate_ce = get("accurate_ce").and_then(|v| v.extract().ok()).unwrap_or(false);
                needs.reduces_cwnd = get("reduces_cwnd").and_then(|v| v.extract().ok()).unwrap_or(false);
                needs.ecn = get("ecn").and_then(|v| v.extract::<String>().ok()).map(|s| intern(&s));
            }
        }
        LoadedCc {
            recovery,
            needs,
            grow_on_ece: flag(py, &l.flags, "grow_on_ece"),
            controls_window: flag(py, &l.flags, "controls_window"),
            counts_acked: flag(py, &l.flags, "counts_acked"),
            rate_samples: flag(py, &l.flags, "rate_samples"),
            paces: flag(py, &l.flags, "paces"),
            l,
        }
    });
    Ok(Arc::new(CcPySpec {
        loaded: Arc::new(loaded),
    }))
}

impl CcSpec for CcPySpec {
    fn name(&self) -> &'static str {
        self.loaded.l.name
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Python::with_gil(|py| PyCc::new(py, self.loaded.clone())))
    }
    fn needs(&self) -> Needs {
        self.loaded.needs
    }
}

/// The bound methods of the hooks a class defines.
struct CcHooks {
    init: Option<Py<PyAny>>,
    ssthresh: Py<PyAny>,
    ssthresh_timeout: Option<Py<PyAny>>,
    cong_avoid: Py<PyAny>,
    pkts_acked: Option<Py<PyAny>>,
    cong_control: Option<Py<PyAny>>,
    ecn_echo: Option<Py<PyAny>>,
    cwnd_event: Option<Py<PyAny>>,
    trace: Option<Py<PyAny>>,
    stats: Option<Py<PyAny>>,
}

struct PyCc {
    spec: Arc<LoadedCc>,
    _obj: Py<PyAny>,
    hooks: CcHooks,
    state: Py<SenderState>,
    ack: Py<AckView>,
    /// Interned event names, in `CaEvent` order.
    events: [Py<PyString>; 5],
    flow: u32,
    /// `init` waits for the first hook, which brings the sender's state.
    started: bool,
}

impl PyCc {
    fn new(py: Python<'_>, spec: Arc<LoadedCc>) -> PyCc {
        let l = &spec.l;
        let obj = instance(py, l, Time::ZERO, None);
        let need = |h: &str| -> Py<PyAny> {
            match obj.bind(py).getattr(h) {
                Ok(m) => m.unbind(),
                Err(e) => fail(e, "__init__", None, None, Time::ZERO),
            }
        };
        let hooks = CcHooks {
            init: method(py, &obj, l, "init"),
            ssthresh: need("ssthresh"),
            ssthresh_timeout: method(py, &obj, l, "ssthresh_timeout"),
            cong_avoid: need("cong_avoid"),
            pkts_acked: method(py, &obj, l, "pkts_acked"),
            cong_control: method(py, &obj, l, "cong_control"),
            ecn_echo: method(py, &obj, l, "ecn_echo"),
            cwnd_event: method(py, &obj, l, "cwnd_event"),
            trace: method(py, &obj, l, "trace"),
            stats: method(py, &obj, l, "stats"),
        };
        let state = Py::new(
            py,
            SenderState {
                now_ns: 0,
                mss: 0,
                cwnd: 0,
                ssthresh: 0,
                cwnd_cnt: 0,
                flight: 0,
                pipe: 0,
                delivered: 0,
                byte_counting: false,
                srtt_ns: None,
                min_rtt_ns: None,
                pacing_rate: 0,
                stamp: 0.0,
                hook: "init",
                rng: Rng::new(0, 0),
            },
        )
        .expect("a SenderState");
        let ack = Py::new(py, AckView::default()).expect("an Ack");
        let events = ["timeout", "enter_recovery", "exit_recovery", "ecn_reduce", "exit_loss"]
            .map(|e| PyString::intern(py, e).unbind());
        PyCc {
            spec,
            _obj: obj,
            hooks,
            state,
            ack,
            events,
            flow: 0,
            started: false,
        }
    }

    /// Brings the state object up to date (and calls `init` first, once).
    fn enter(&mut self, py: Python<'_>, s: &CcState, hook: &'static str) {
        if !self.started {
            self.started = true;
            if let Some(init) = &self.hooks.init {
                self.state.bind(py).borrow_mut().load(s, "init");
                if let Err(e) = invoke(py, init, &[self.state.bind(py).as_any()]) {
                    self.fail(e, "init", s.now);
                }
                // (what init set stands: the hook that follows sees it)
                let st = self.state.bind(py).borrow();
                let mut s2 = s.clone();
                st.store(&mut s2);
                drop(st);
                self.state.bind(py).borrow_mut().load(&s2, hook);
                return;
            }
        }
        self.state.bind(py).borrow_mut().load(s, hook);
    }

    fn fail(&self, e: PyErr, hook: &'static str, now: Time) -> ! {
        fail(e, hook, Some(self.flow), None, now)
    }

    /// Calls `f` with the state loaded from `s`, then writes back what the
    /// hook set.
    fn call_mut<R>(
        &mut self,
        s: &mut CcState,
        hook: &'static str,
        f: impl FnOnce(Python<'_>, &Self) -> PyResult<R>,
    ) -> R {
        Python::with_gil(|py| {
            self.enter(py, s, hook);
            match f(py, self) {
                Ok(r) => {
                    self.state.bind(py).borrow().store(s);
                    r
                }
                Err(e) => self.fail(e, hook, s.now),
            }
        })
    }

    /// A hook that returns a threshold.
    fn threshold(&mut self, s: &CcState, hook: &'static str, m: &Py<PyAny>) -> Option<u64> {
        Python::with_gil(|py| {
            // (init's settings apply to the sender's state at the next hook
            // that may set it: a threshold hook reads them but does not set)
            self.enter(py, s, hook);
            let r = invoke(py, m, &[self.state.bind(py).as_any()]).and_then(|v| {
                if v.is_none() {
                    Ok(None)
                } else {
                    amount(hook, "the value returned", &v, Some(ccsim_core::tcp::INFINITE)).map(Some)
                }
            });
            r.unwrap_or_else(|e| self.fail(e, hook, s.now))
        })
    }
}

impl CongestionOps for PyCc {
    fn name(&self) -> &'static str {
        self.spec.l.name
    }
    fn init(&mut self, seed: u64, flow: FlowId) {
        self.flow = flow.0;
        Python::with_gil(|py| self.state.bind(py).borrow_mut().rng = Rng::new(seed, 0));
    }
    fn recovery(&self) -> Recovery {
        self.spec.recovery
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        let m = Python::with_gil(|py| self.hooks.ssthresh.clone_ref(py));
        match self.threshold(s, "ssthresh", &m) {
            Some(v) => v,
            None => self.fail(
                PyTypeError::new_err("ssthresh returned None (accepted: a number of bytes)"),
                "ssthresh",
                s.now,
            ),
        }
    }
    fn ssthresh_timeout(&mut self, s: &CcState) -> u64 {
        let Some(m) = Python::with_gil(|py| self.hooks.ssthresh_timeout.as_ref().map(|m| m.clone_ref(py))) else {
            return self.ssthresh(s);
        };
        match self.threshold(s, "ssthresh_timeout", &m) {
            Some(v) => v,
            None => self.fail(
                PyTypeError::new_err("ssthresh_timeout returned None (accepted: a number of bytes)"),
                "ssthresh_timeout",
                s.now,
            ),
        }
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        self.call_mut(s, "cong_avoid", |py, me| {
            invoke(
                py,
                &me.hooks.cong_avoid,
                &[me.state.bind(py).as_any(), acked.into_pyobject(py)?.as_any()],
            )
            .map(drop)
        })
    }
    fn pkts_acked(&mut self, s: &CcState, sample: &AckSample) {
        if self.hooks.pkts_acked.is_none() {
            return;
        }
        Python::with_gil(|py| {
            self.enter(py, s, "pkts_acked");
            self.ack.bind(py).borrow_mut().load_from(sample);
            let m = self.hooks.pkts_acked.as_ref().expect("checked");
            if let Err(e) = invoke(py, m, &[self.state.bind(py).as_any(), self.ack.bind(py).as_any()]) {
                self.fail(e, "pkts_acked", s.now);
            }
        })
    }
    fn cong_control(&mut self, s: &mut CcState, sample: &AckSample) -> bool {
        if self.hooks.cong_control.is_none() {
            return false;
        }
        self.call_mut(s, "cong_control", |py, me| {
            me.ack.bind(py).borrow_mut().load_from(sample);
            let m = me.hooks.cong_control.as_ref().expect("checked");
            invoke(py, m, &[me.state.bind(py).as_any(), me.ack.bind(py).as_any()]).and_then(|v| v.is_truthy())
        })
    }
    fn per_ack_hooks(&self) -> bool {
        self.hooks.pkts_acked.is_some() || self.hooks.cong_control.is_some()
    }
    fn ecn_echo(&mut self, s: &CcState) -> Option<u64> {
        match Python::with_gil(|py| self.hooks.ecn_echo.as_ref().map(|m| m.clone_ref(py))) {
            Some(m) => self.threshold(s, "ecn_echo", &m),
            None => Some(self.ssthresh(s)),
        }
    }
    fn grow_on_ece(&self) -> bool {
        self.spec.grow_on_ece
    }
    fn cwnd_event(&mut self, s: &mut CcState, ev: CaEvent) {
        if self.hooks.cwnd_event.is_none() {
            return;
        }
        let i = match ev {
            CaEvent::Timeout => 0,
            CaEvent::EnterRecovery => 1,
            CaEvent::ExitRecovery => 2,
            CaEvent::EcnReduce => 3,
            CaEvent::ExitLoss => 4,
        };
        self.call_mut(s, "cwnd_event", |py, me| {
            let m = me.hooks.cwnd_event.as_ref().expect("checked");
            invoke(py, m, &[me.state.bind(py).as_any(), me.events[i].bind(py).as_any()]).map(drop)
        })
    }
    fn controls_window(&self) -> bool {
        self.spec.controls_window
    }
    fn counts_acked(&self) -> bool {
        self.spec.counts_acked
    }
    fn rate_samples(&self) -> bool {
        self.spec.rate_samples
    }
    fn paces(&self) -> bool {
        self.spec.paces
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        let m = self.hooks.trace.as_ref()?;
        Python::with_gil(|py| {
            let now = Time(self.state.bind(py).borrow().now_ns);
            match m.bind(py).call0().and_then(|v| v.extract::<Option<f64>>()) {
                Ok(v) => v.map(|v| ("cc_state", v)),
                Err(e) => self.fail(e, "trace", now),
            }
        })
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        let Some(m) = &self.hooks.stats else {
            return Vec::new();
        };
        Python::with_gil(|py| {
            let now = Time(self.state.bind(py).borrow().now_ns);
            match m
                .bind(py)
                .call0()
                .and_then(|v| v.extract::<std::collections::BTreeMap<String, f64>>())
            {
                Ok(v) => v.into_iter().map(|(k, v)| (intern(&k), v)).collect(),
                Err(e) => self.fail(e, "stats", now),
            }
        })
    }
}

// ------------------------------------------------------------------ queue discipline

#[derive(Debug)]
struct QdiscPySpec {
    loaded: Arc<LoadedQ>,
}

struct LoadedQ {
    l: Loaded,
    passes_idle: bool,
}

impl std::fmt::Debug for LoadedQ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "python queue {}", self.l.path)
    }
}

pub fn load_qdisc(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    let l = load(t, "queue")?;
    let passes_idle = Python::with_gil(|py| flag(py, &l.flags, "passes_idle"));
    Ok(Arc::new(QdiscPySpec {
        loaded: Arc::new(LoadedQ { l, passes_idle }),
    }))
}

impl QdiscSpec for QdiscPySpec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(Python::with_gil(|py| PyQdisc::new(py, &self.loaded, link))?))
    }
}

struct PyQdisc {
    /// The class's `__qualname__` (the queue table's `kind` column).
    name: &'static str,
    /// The class declares `passes_idle`.
    passes_idle: bool,
    q: PacketFifo,
    limit: Limit,
    link: String,
    enqueue: Option<Py<PyAny>>,
    dequeue: Option<Py<PyAny>>,
    empty: Option<Py<PyAny>>,
    trace: Option<Py<PyAny>>,
    state: Py<QueueState>,
    pkt: Py<PacketView>,
    _obj: Py<PyAny>,
}

/// A verdict's number (ccsim.extend.Verdict).
const PASS: u8 = 0;
const DROP: u8 = 1;
const DROP_FORCED: u8 = 2;
const MARK: u8 = 3;
const MARK_FORCED: u8 = 4;

impl PyQdisc {
    /// The discipline of one link; its `setup` hook, if any, is called now, and
    /// a `ParameterError` it raises refuses the scenario naming the key.
    fn new(py: Python<'_>, l: &LoadedQ, link: &LinkInfo) -> Res<PyQdisc> {
        let obj = instance(py, &l.l, Time::ZERO, Some(&link.name));
        let (limit_packets, limit_bytes) = match link.limit {
            Limit::Packets(n) => (Some(n), None),
            Limit::Bytes(b) => (None, Some(b)),
            Limit::Unlimited => (None, None),
        };
        let state = Py::new(
            py,
            QueueState {
                now_ns: 0,
                backlog_packets: 0,
                backlog_bytes: 0,
                limit_packets,
                limit_bytes,
                full: false,
                dropped: 0,
                rate: link.rate.bits_per_sec(),
                name: link.name.clone(),
                rng: Rng::new(0, 0),
            },
        )
        .expect("a QueueState");
        let pkt = Py::new(
            py,
            PacketView {
                size: 0,
                flow: 0,
                kind: Kind::Data,
                ect: false,
                ce: false,
                enq_ns: 0,
                sojourn_ns: 0,
                stamp: 0.0,
            },
        )
        .expect("a Packet");
        if let Some(setup) = method(py, &obj, &l.l, "setup") {
            if let Err(e) = setup.bind(py).call1((state.bind(py),)) {
                return Err(setup_error(py, e, link));
            }
        }
        Ok(PyQdisc {
            name: l.l.name,
            passes_idle: l.passes_idle,
            q: PacketFifo::default(),
            limit: link.limit,
            link: link.name.clone(),
            enqueue: method(py, &obj, &l.l, "enqueue"),
            dequeue: method(py, &obj, &l.l, "dequeue"),
            empty: method(py, &obj, &l.l, "empty"),
            trace: method(py, &obj, &l.l, "trace"),
            state,
            pkt,
            _obj: obj,
        })
    }

    fn load_state(&self, py: Python<'_>, cx: &QdiscCtx, full: bool, dropped: usize) {
        let mut st = self.state.bind(py).borrow_mut();
        st.now_ns = cx.now.0;
        st.backlog_packets = self.q.len();
        st.backlog_bytes = self.q.bytes();
        st.full = full;
        st.dropped = dropped;
        st.rng = cx.rng.clone();
    }

    /// Calls a hook on `p`; returns its verdict and writes back the stamp and
    /// the random stream.
    fn verdict(&self, py: Python<'_>, hook: &'static str, m: &Py<PyAny>, p: &mut Packet, cx: &mut QdiscCtx) -> u8 {
        self.pkt.bind(py).borrow_mut().load(p, cx.now);
        let r = invoke(py, m, &[self.state.bind(py).as_any(), self.pkt.bind(py).as_any()]).and_then(|v| {
            v.extract::<u8>().ok().filter(|&v| v <= MARK_FORCED).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{hook} returned {} (accepted: a ccsim.Verdict: PASS, DROP, DROP_FORCED, MARK, MARK_FORCED)",
                    v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            })
        });
        let v = r.unwrap_or_else(|e| fail(e, hook, None, Some(&self.link), cx.now));
        *cx.rng = self.state.bind(py).borrow().rng.clone();
        p.stamp = self.pkt.bind(py).borrow().stamp;
        if v >= MARK && !p.ecn.is_ect() {
            fail(
                PyValueError::new_err(format!(
                    "{hook} returned {} for a packet that is not ECN-capable (p.ect is False): drop it instead",
                    if v == MARK { "MARK" } else { "MARK_FORCED" }
                )),
                hook,
                None,
                Some(&self.link),
                cx.now,
            );
        }
        v
    }
}

impl Qdisc for PyQdisc {
    fn kind(&self) -> &'static str {
        self.name
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QdiscCtx) -> Option<&Packet> {
        let full = !self.q.admits(self.limit, pkt.size);
        let v = match &self.enqueue {
            Some(m) => Python::with_gil(|py| {
                self.load_state(py, cx, full, 0);
                self.verdict(py, "enqueue", m, &mut pkt, cx)
            }),
            None => PASS,
        };
        match v {
            DROP => cx.drop(pkt, DropReason::Early),
            DROP_FORCED => cx.drop(pkt, DropReason::Forced),
            _ if full => cx.drop(pkt, DropReason::Overflow),
            _ => {
                if v == MARK || v == MARK_FORCED {
                    pkt.ecn = Ecn::Ce;
                    cx.mark(if v == MARK {
                        MarkReason::Early
                    } else {
                        MarkReason::Forced
                    });
                }
                return Some(self.q.push(pkt));
            }
        }
        None
    }
    fn dequeue(&mut self, cx: &mut QdiscCtx) -> Option<Packet> {
        let Some(m) = self.dequeue.as_ref().map(|m| Python::with_gil(|py| m.clone_ref(py))) else {
            let p = self.q.pop();
            if p.is_none() {
                if let Some(e) = &self.empty {
                    Python::with_gil(|py| {
                        self.load_state(py, cx, false, 0);
                        if let Err(err) = invoke(py, e, &[self.state.bind(py).as_any()]) {
                            fail(err, "empty", None, Some(&self.link), cx.now);
                        }
                        *cx.rng = self.state.bind(py).borrow().rng.clone();
                    });
                }
            }
            return p;
        };
        Python::with_gil(|py| {
            let mut dropped = 0;
            while let Some(mut p) = self.q.pop() {
                self.load_state(py, cx, false, dropped);
                match self.verdict(py, "dequeue", &m, &mut p, cx) {
                    PASS => return Some(p),
                    v @ (MARK | MARK_FORCED) => {
                        p.ecn = Ecn::Ce;
                        cx.mark(if v == MARK {
                            MarkReason::Early
                        } else {
                            MarkReason::Forced
                        });
                        return Some(p);
                    }
                    v => {
                        cx.drop(
                            p,
                            if v == DROP {
                                DropReason::Early
                            } else {
                                DropReason::Forced
                            },
                        );
                        dropped += 1;
                    }
                }
            }
            if let Some(e) = &self.empty {
                self.load_state(py, cx, false, dropped);
                if let Err(err) = invoke(py, e, &[self.state.bind(py).as_any()]) {
                    fail(err, "empty", None, Some(&self.link), cx.now);
                }
                *cx.rng = self.state.bind(py).borrow().rng.clone();
            }
            None
        })
    }
    fn peek(&self) -> Option<&Packet> {
        self.q.front()
    }
    fn passes_idle(&self) -> bool {
        self.passes_idle
    }
    fn backlog_packets(&self) -> usize {
        self.q.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    fn trace(&self, out: &mut Vec<TraceValue>) {
        let Some(m) = &self.trace else { return };
        Python::with_gil(|py| {
            let now = Time(self.state.bind(py).borrow().now_ns);
            let d = match m
                .bind(py)
                .call0()
                .and_then(|v| v.downcast_into::<PyDict>().map_err(PyErr::from))
            {
                Ok(d) => d,
                Err(e) => fail(e, "trace", None, Some(&self.link), now),
            };
            for (k, v) in d.iter() {
                let name = match k.extract::<String>() {
                    Ok(n) => intern(&n),
                    Err(e) => fail(e, "trace", None, Some(&self.link), now),
                };
                match v.extract::<f64>() {
                    Ok(x) => out.push(TraceValue::new(name, x)),
                    Err(e) => fail(e, "trace", None, Some(&self.link), now),
                }
            }
        });
    }
}

/// What a queue's `setup` raised, as a scenario error: a `ParameterError`
/// names its key of the queue table, anything else the table's `class`.
fn setup_error(py: Python<'_>, e: PyErr, link: &LinkInfo) -> ScenarioError {
    let v = e.value(py);
    let is_param = py
        .import("ccsim.extend")
        .and_then(|m| m.getattr("ParameterError"))
        .is_ok_and(|c| e.is_instance(py, &c));
    if is_param {
        let key: String = v
            .getattr("key")
            .and_then(|k| k.extract())
            .unwrap_or_else(|_| "class".into());
        let value = v
            .getattr("value")
            .and_then(|x| to_json(py, &x))
            .map_or_else(|_| "?".into(), |x| ccsim_core::cfg::show(&x));
        let expected: String = v.getattr("expected").and_then(|x| x.extract()).unwrap_or_default();
        return link.error(&key, value, format!("{expected} (on link {})", link.name));
    }
    let ty = v
        .get_type()
        .qualname()
        .map_or_else(|_| "Exception".into(), |q| q.to_string());
    link.error(
        "class",
        "(its setup hook)",
        format!("a setup that accepts link {} ({ty}: {v})", link.name),
    )
}

/// Registers the loaders with the engine (once per process).
pub fn register() {
    ccsim_core::cc::foreign::register(load_cc);
    ccsim_core::qdisc::foreign::register(load_qdisc);
}

/// The message of a failed hook, for `SimulationError`; `flow_name` names a
/// flow by its index.
pub fn describe(h: &HookFailed, py: Python<'_>, flow_name: impl Fn(u32) -> Option<String>) -> String {
    let who = match (&h.flow, &h.link) {
        (Some(f), _) => match flow_name(*f) {
            Some(n) => format!("of flow {n:?}"),
            None => format!("of flow {f}"),
        },
        (None, Some(l)) => format!("of the queue of link {l}"),
        (None, None) => String::new(),
    };
    let e = h.err.value(py);
    let ty = e
        .get_type()
        .qualname()
        .map(|q| q.to_string())
        .unwrap_or_else(|_| "Exception".into());
    format!(
        "Python hook {}() {who} raised at t={:.9} s: {ty}: {e}",
        h.hook,
        h.now.as_secs_f64()
    )
}
