//! Thin PyO3 bindings for ccsim-core (private module `ccsim._ccsim`).
//!
//! Two calls: `resolve(json) -> json` and `run(json, progress, slice_s) -> dict`.
//! Numeric result columns cross as little-endian bytes (NumPy reads them
//! without copying element by element); string columns as lists. Every error
//! becomes `ScenarioError` or `SimulationError`; a Rust panic is caught here and
//! never reaches Python as a panic.

use ccsim_core::output::{Column, Output};
use ccsim_core::units::Time;
use ccsim_core::{scenario, Error};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};

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

/// Validates a scenario (JSON text) and returns the fully resolved scenario as JSON text.
#[pyfunction]
fn resolve(text: &str) -> PyResult<String> {
    match catch_unwind(|| ccsim_core::resolve(text)) {
        Ok(Ok(v)) => Ok(v.to_string()),
        Ok(Err(e)) => Err(to_py_err(Error::Scenario(e))),
        Err(p) => Err(SimulationError::new_err(format!(
            "internal error: {}",
            panic_message(p)
        ))),
    }
}

fn output_to_py<'py>(py: Python<'py>, out: Output) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("summary", out.summary.to_string())?;
    d.set_item("resolved", out.resolved.to_string())?;
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
            }
        }
        tables.set_item(t.name, cols)?;
    }
    d.set_item("tables", tables)?;
    Ok(d)
}

/// Runs a scenario (JSON text). `progress(now_s, end_s)` is called between
/// slices of `slice_s` simulated seconds (default: 1/200 of the run when
/// `progress` is given); Ctrl-C is honoured between slices.
#[pyfunction]
#[pyo3(signature = (text, progress=None, slice_s=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    progress: Option<PyObject>,
    slice_s: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let built = catch_unwind(|| scenario::build(text));
    let (mut sim, resolved) = match built {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err(to_py_err(Error::Scenario(e))),
        Err(p) => {
            return Err(SimulationError::new_err(format!(
                "internal error while building: {}",
                panic_message(p)
            )))
        }
    };
    let end = sim.end;
    // Default: 200 slices when someone watches progress, else one.
    let default_slice = if progress.is_some() {
        Time((end.0 / 200).max(1))
    } else {
        end
    };
    let slice = slice_s
        .map(Time::from_secs_f64)
        .filter(|s| s.0 > 0)
        .unwrap_or(default_slice);
    let mut events = 0u64;
    let mut t = Time::ZERO;
    while !sim.done() {
        t = (t + slice).min(end);
        let r = py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| sim.run_until(t))));
        match r {
            Ok(n) => events += n,
            Err(p) => {
                return Err(SimulationError::new_err(format!(
                    "internal error at t={}: {}",
                    t,
                    panic_message(p)
                )))
            }
        }
        py.check_signals()?;
        if let Some(cb) = &progress {
            cb.call1(py, (t.as_secs_f64(), end.as_secs_f64()))?;
        }
    }
    let out = catch_unwind(AssertUnwindSafe(|| {
        sim.close();
        sim.check_invariants()
            .map(|_| ccsim_core::output::collect(&sim, resolved, events))
    }));
    match out {
        Ok(Ok(o)) => output_to_py(py, o),
        Ok(Err(e)) => Err(to_py_err(Error::Sim(e))),
        Err(p) => Err(SimulationError::new_err(format!(
            "internal error while collecting results: {}",
            panic_message(p)
        ))),
    }
}

#[pymodule]
fn _ccsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", ccsim_core::VERSION)?;
    Ok(())
}
