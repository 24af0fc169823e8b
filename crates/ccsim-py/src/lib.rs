//! Thin PyO3 bindings for ccsim-core (private module `ccsim._ccsim`).
//!
//! Two calls: `resolve(json, memory_limit) -> json` and
//! `run(json, progress, slice_s, memory_limit) -> dict`, plus `parse_size` for
//! the Python layer's own options, `scenario_schema` (the format as JSON Schema)
//! and `parquet(name, columns, metadata)`, which writes a table in the form
//! `run` returned it as a Parquet file (the engine's writer,
//! `ccsim_core::table::parquet`), so saving a run needs neither pandas nor pyarrow.
//! Numeric result columns cross as little-endian bytes (NumPy reads them
//! without copying element by element); string columns as lists. Every error
//! becomes `ScenarioError` or `SimulationError`; a Rust panic is caught here and
//! never reaches Python as a panic.

use ccsim_core::budget::Limits;
use ccsim_core::output::{Column, Output};
use ccsim_core::units::Time;
use ccsim_core::{scenario, Error, STEP_EVENTS};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

mod foreign;
mod session;

/// The engine's memory comes from mimalloc (the Rust side only; Python keeps
/// its own allocator). With thousands of flows the engine's working set is tens
/// of megabytes read in no particular order, and mimalloc's layout (objects of
/// one size together, in large segments) ran the 10 000-flow dumbbell about a
/// fifth faster than the C library's allocator (docs/performance.md); results
/// do not depend on the allocator. Its memory is committed on demand
/// ([`ccsim_core::alloc`]).
#[global_allocator]
static ALLOC: ccsim_core::alloc::Allocator = ccsim_core::alloc::Allocator;

/// Progress is reported this often (wall time) when no `slice_s` is given.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

fn limits(memory_limit: Option<u64>) -> Limits {
    memory_limit.map_or_else(Limits::default, |memory| Limits { memory })
}

create_exception!(
    _ccsim,
    ScenarioError,
    PyValueError,
    "Invalid scenario: names the key path, the value and what is accepted."
);
create_exception!(
    _ccsim,
    SimulationError,
    PyRuntimeError,
    "A run failed: a model invariant was violated, or it was interrupted."
);

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// A panic caught at the boundary as a Python error: a Python hook that
/// raised ([`foreign::HookFailed`]) becomes a `SimulationError` caused by the
/// user's exception (a `KeyboardInterrupt` stays itself); anything else is an
/// internal error, `what` saying where.
fn panic_to_py(py: Python<'_>, p: Box<dyn std::any::Any + Send>, what: &str, sim: Option<&ccsim_core::Sim>) -> PyErr {
    match p.downcast::<foreign::HookFailed>() {
        Ok(h) => {
            if h.err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                return h.err;
            }
            let names = |f: u32| sim.and_then(|s| s.flows.get(f as usize)).map(|f| f.name.clone());
            let err = SimulationError::new_err(foreign::describe(&h, py, names));
            err.set_cause(py, Some(h.err));
            err
        }
        Err(p) => SimulationError::new_err(format!("internal error {what}: {}", panic_message(p))),
    }
}

fn to_py_err(e: Error) -> PyErr {
    match e {
        Error::Scenario(s) => {
            let err = ScenarioError::new_err(s.to_string());
            Python::with_gil(|py| {
                let v = err.value(py);
                let _ = v.setattr("path", s.path.clone());
                let _ = v.setattr("value", s.value.clone());
                let _ = v.setattr("expected", s.expected.clone());
            });
            err
        }
        Error::Sim(s) => SimulationError::new_err(s.0),
    }
}

/// Validates a scenario (JSON text) and returns the fully resolved scenario as JSON
/// text; a scenario whose estimated memory exceeds `memory_limit` bytes is invalid.
#[pyfunction]
#[pyo3(signature = (text, memory_limit=None))]
fn resolve(py: Python<'_>, text: &str, memory_limit: Option<u64>) -> PyResult<String> {
    let r = catch_unwind(|| ccsim_core::resolve_limited(text, &limits(memory_limit)));
    foreign::take_used();
    match r {
        Ok(Ok(v)) => Ok(v.to_string()),
        Ok(Err(e)) => Err(to_py_err(Error::Scenario(e))),
        Err(p) => Err(panic_to_py(py, p, "while resolving", None)),
    }
}

/// The scenario format as a JSON Schema (draft-07, pretty JSON text), generated
/// from the engine's key reads (`ccsim_core::schema`).
#[pyfunction]
fn scenario_schema() -> PyResult<String> {
    catch_unwind(ccsim_core::schema::schema_text)
        .map_err(|p| SimulationError::new_err(format!("internal error: {}", panic_message(p))))
}

/// Parses a size such as "8GB" or "512MiB" into bytes (`ValueError` if invalid).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    ccsim_core::units::parse_size(text).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Parses a time such as "5ms" into integer nanoseconds, as a scenario's
/// time keys do (`ValueError` if invalid).
#[pyfunction]
fn parse_time(text: &str) -> PyResult<u64> {
    ccsim_core::units::parse_time(text)
        .map(|t| t.0)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Parses a rate such as "10Mbps" into bit/s, as a scenario's rate keys do
/// (`ValueError` if invalid).
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<u64> {
    ccsim_core::units::parse_rate(text)
        .map(|r| r.bits_per_sec())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The points (bytes, P(X ≤ bytes)) of a shipped flow-size distribution
/// (`"web_search"`, `"data_mining"`, `"hadoop"`: docs/models/workloads.md),
/// as a scenario's `cdf = "<name>"` uses them (`ValueError` for another name).
#[pyfunction]
fn shipped_cdf(name: &str) -> PyResult<Vec<(f64, f64)>> {
    ccsim_core::workload::shipped_points(name)
        .map(<[(f64, f64)]>::to_vec)
        .ok_or_else(|| PyValueError::new_err(format!("{name:?}: one of {:?}", ccsim_core::workload::shipped())))
}

/// Numbers of a column that crossed to Python as little-endian bytes, back.
fn le_numbers<T, const N: usize>(key: &str, bytes: &[u8], from: fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    if !bytes.len().is_multiple_of(N) {
        return Err(PyValueError::new_err(format!(
            "column {key:?}: {} bytes is not a whole number of {N}-byte values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(N)
        .map(|c| from(c.try_into().expect("N bytes")))
        .collect())
}

/// A result table given as `run` returns it (`{column: (dtype, payload)}`, dtypes
/// `"<f8"`, `"<i8"`, `"str"`, `"cat"`) as the bytes of a Parquet file with
/// `metadata` as its key-value metadata (`ccsim_core::table::parquet`).
#[pyfunction]
#[pyo3(signature = (name, columns, metadata=Vec::new()))]
fn parquet<'py>(
    py: Python<'py>,
    name: &str,
    columns: &Bound<'py, PyDict>,
    metadata: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut cols = Vec::with_capacity(columns.len());
    let mut names: Vec<String> = Vec::with_capacity(columns.len());
    for (k, v) in columns.iter() {
        let key: String = k.extract()?;
        let (dtype, payload): (String, Bound<'py, PyAny>) = v.extract()?;
        let col = match dtype.as_str() {
            "<f8" => Column::F64(le_numbers(&key, payload.extract::<&[u8]>()?, f64::from_le_bytes)?),
            "<i8" => Column::I64(le_numbers(&key, payload.extract::<&[u8]>()?, i64::from_le_bytes)?),
            "str" => Column::Str(payload.extract()?),
            "cat" => {
                let (codes, labels): (Vec<u8>, Vec<String>) = payload.extract()?;
                let codes = le_numbers(&key, &codes, u32::from_le_bytes)?;
                if let Some(c) = codes.iter().find(|&&c| c as usize >= labels.len()) {
                    return Err(PyValueError::new_err(format!(
                        "column {key:?}: code {c} but {} labels",
                        labels.len()
                    )));
                }
                Column::Cat(codes, labels)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "column {key:?}: dtype {other:?}; accepted: \"<f8\", \"<i8\", \"str\", \"cat\""
                )))
            }
        };
        names.push(key);
        cols.push(col);
    }
    let rows: Vec<usize> = cols.iter().map(Column::len).collect();
    if rows.windows(2).any(|w| w[0] != w[1]) {
        return Err(PyValueError::new_err(format!(
            "table {name:?}: columns of different lengths ({rows:?})"
        )));
    }
    let meta: Vec<(&str, &str)> = metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let bytes = py.allow_threads(|| ccsim_core::table::parquet::write(&names, &cols, &meta));
    Ok(PyBytes::new(py, &bytes))
}

fn output_to_py<'py>(py: Python<'py>, out: Output) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("summary", out.summary.to_string())?;
    d.set_item("resolved", out.resolved)?;
    let tables = PyDict::new(py);
    for t in out.tables {
        let cols = PyDict::new(py);
        for (name, col) in t.columns {
            match col {
                Column::F64(v) => {
                    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    cols.set_item(name, ("<f8", PyBytes::new(py, &bytes)))?;
                }
                Column::I64(v) => {
                    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    cols.set_item(name, ("<i8", PyBytes::new(py, &bytes)))?;
                }
                Column::Str(v) => {
                    cols.set_item(name, ("str", PyList::new(py, v)?))?;
                }
                Column::Cat(codes, labels) => {
                    let bytes: Vec<u8> = codes.iter().flat_map(|x| x.to_le_bytes()).collect();
                    cols.set_item(name, ("cat", (PyBytes::new(py, &bytes), PyList::new(py, labels)?)))?;
                }
            }
        }
        tables.set_item(t.name, cols)?;
    }
    d.set_item("tables", tables)?;
    let files = PyDict::new(py);
    for (name, bytes) in out.files {
        files.set_item(name, PyBytes::new(py, &bytes))?;
    }
    d.set_item("files", files)?;
    Ok(d)
}

/// Runs a scenario (JSON text) within `memory_limit` bytes. The run advances in
/// steps of a few milliseconds; between steps Ctrl-C is honoured (`KeyboardInterrupt`)
/// and `progress(now_s, end_s)` is called: every `slice_s` simulated seconds if given,
/// else about five times per wall-clock second.
#[pyfunction]
#[pyo3(signature = (text, progress=None, slice_s=None, memory_limit=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    progress: Option<PyObject>,
    slice_s: Option<f64>,
    memory_limit: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let limits = limits(memory_limit);
    // (The resolved tree is dropped at once: only its text is kept.)
    foreign::take_used();
    let built = catch_unwind(|| scenario::build_limited(text, &limits).map(|(sim, r)| (sim, r.to_string())));
    // A model written in Python runs in the engine's loop: the run then keeps
    // the GIL (its hooks are called without taking it again), and Python's
    // signal handlers run inside them (Ctrl-C stops it as promptly as any run).
    let python_models = foreign::take_used();
    let (mut sim, resolved) = match built {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err(to_py_err(Error::Scenario(e))),
        Err(p) => return Err(panic_to_py(py, p, "while building", None)),
    };
    let end = sim.end;
    let slice = slice_s.map(Time::from_secs_f64).filter(|s| s.0 > 0);
    let mut target = slice.map_or(end, |s| s.min(end));
    let mut reported = Instant::now();
    let mut events = 0u64;
    while !sim.done() {
        let mut step = || catch_unwind(AssertUnwindSafe(|| sim.step(target, STEP_EVENTS)));
        let r = if python_models { step() } else { py.allow_threads(step) };
        match r {
            Ok(Ok(n)) => events += n,
            Ok(Err(e)) => return Err(to_py_err(Error::Sim(e))),
            Err(p) => {
                let at = format!("at t={}", sim.now());
                return Err(panic_to_py(py, p, &at, Some(&sim)));
            }
        }
        py.check_signals()?;
        match (slice, &progress) {
            (Some(s), cb) if sim.reached(target) => {
                if let Some(cb) = cb {
                    cb.call1(py, (target.as_secs_f64(), end.as_secs_f64()))?;
                }
                target = (target + s).min(end);
            }
            (None, Some(cb)) if sim.done() || reported.elapsed() >= PROGRESS_EVERY => {
                let now = if sim.done() { end } else { sim.now() };
                cb.call1(py, (now.as_secs_f64(), end.as_secs_f64()))?;
                reported = Instant::now();
            }
            _ => {}
        }
    }
    let out = catch_unwind(AssertUnwindSafe(move || {
        sim.close();
        sim.check_invariants()
            .map(|_| ccsim_core::output::collect(sim, resolved, events))
    }));
    // The run's memory goes back to the system before the results become
    // Python objects, which take theirs from Python's allocator.
    ccsim_core::alloc::release();
    match out {
        Ok(Ok(o)) => output_to_py(py, o),
        Ok(Err(e)) => Err(to_py_err(Error::Sim(e))),
        Err(p) => Err(panic_to_py(py, p, "while collecting results", None)),
    }
}

#[pymodule]
fn _ccsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    foreign::register();
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(shipped_cdf, m)?)?;
    m.add_function(wrap_pyfunction!(parquet, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_class::<session::Session>()?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", ccsim_core::VERSION)?;
    m.add("__engine_source__", env!("CCSIM_ENGINE_SOURCE"))?;
    Ok(())
}
