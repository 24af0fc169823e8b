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

mod cc;
mod load;
mod qdisc;
mod state;

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

/// Registers the loaders with the engine (once per process).
pub fn register() {
    ccsim_core::cc::foreign::register(cc::load_cc);
    ccsim_core::qdisc::foreign::register(qdisc::load_qdisc);
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
