//! `Session`: a run stopped at decision points (`ccsim_core::session`), for
//! the Gymnasium environments of `ccsim.gym` (docs/gym.md). Built from a
//! scenario whose controlled flows have `cc = "agent"`; `advance()` runs to
//! the next decision point of any agent and returns; the agents' last
//! observation rows cross as little-endian f64 bytes. Errors are
//! `ScenarioError` (building) or `SimulationError` (running, a bad action);
//! a panic is caught and never reaches Python as one.

use crate::{foreign, limits, output_to_py, panic_to_py, to_py_err, SimulationError};
use ccsim_core::cc::agent::Action;
use ccsim_core::session::{self, Decide, FIELDS};
use ccsim_core::units::Time;
use ccsim_core::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Bound to the thread that made it (`unsendable`: the run holds models
/// that are `Send` but not `Sync`); another thread touching it gets an error.
#[pyclass(module = "ccsim._ccsim", unsendable)]
pub struct Session {
    inner: Option<session::Session>,
    /// A model written in Python runs in the loop: keep the GIL.
    python_models: bool,
    /// The names of a row's columns: `FIELDS`, then `queue_delay:LINK`.
    fields: Vec<String>,
}

fn positive(name: &str, x: f64) -> PyResult<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(PyValueError::new_err(format!("{name} = {x}: a finite number > 0")))
    }
}

impl Session {
    fn live(&mut self) -> PyResult<&mut session::Session> {
        self.inner
            .as_mut()
            .ok_or_else(|| SimulationError::new_err("the session is closed"))
    }
}

#[pymethods]
impl Session {
    /// `text`: the scenario (JSON). Decisions every `interval_s` seconds, or
    /// with `rtt_bounds_s = (min, max)` every smoothed RTT of the agent's
    /// flow within these bounds (exactly one of the two), every `initial_s`
    /// (default: the lower bound) until the flow's first RTT sample. `queues`:
    /// links whose queue delay each row carries.
    #[new]
    #[pyo3(signature = (text, interval_s=None, rtt_bounds_s=None, initial_s=None, queues=Vec::new(), memory_limit=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        text: &str,
        interval_s: Option<f64>,
        rtt_bounds_s: Option<(f64, f64)>,
        initial_s: Option<f64>,
        queues: Vec<String>,
        memory_limit: Option<u64>,
    ) -> PyResult<Self> {
        let decide = match (interval_s, rtt_bounds_s) {
            (Some(i), None) => Decide::Every(Time::from_secs_f64(positive("interval_s", i)?)),
            (None, Some((lo, hi))) => {
                let (lo, hi) = (positive("rtt_bounds_s[0]", lo)?, positive("rtt_bounds_s[1]", hi)?);
                if lo > hi {
                    return Err(PyValueError::new_err(format!(
                        "rtt_bounds_s = ({lo}, {hi}): min <= max"
                    )));
                }
                let initial = match initial_s {
                    Some(x) => positive("initial_s", x)?,
                    None => lo,
                };
                Decide::Rtt {
                    min: Time::from_secs_f64(lo),
                    max: Time::from_secs_f64(hi),
                    initial: Time::from_secs_f64(initial),
                }
            }
            _ => return Err(PyValueError::new_err("give exactly one of interval_s and rtt_bounds_s")),
        };
        foreign::take_used();
        let built = catch_unwind(|| session::Session::new(text, &limits(memory_limit), decide, &queues));
        let python_models = foreign::take_used();
        match built {
            Ok(Ok(s)) => Ok(Session {
                inner: Some(s),
                python_models,
                fields: FIELDS
                    .iter()
                    .map(|f| f.to_string())
                    .chain(queues.iter().map(|q| format!("queue_delay:{q}")))
                    .collect(),
            }),
            Ok(Err(e)) => Err(to_py_err(e)),
            Err(p) => Err(panic_to_py(py, p, "while building", None)),
        }
    }

    /// The names of the columns of a row.
    #[getter]
    fn fields(&self) -> Vec<String> {
        self.fields.clone()
    }

    /// Columns per row.
    #[getter]
    fn width(&self) -> usize {
        self.fields.len()
    }

    /// The agents' flow names, in order.
    #[getter]
    fn agents(&mut self) -> PyResult<Vec<String>> {
        Ok(self.live()?.agent_names())
    }

    /// Simulated seconds where the session stopped.
    #[getter]
    fn now(&mut self) -> PyResult<f64> {
        Ok(self.live()?.now().as_secs_f64())
    }

    /// The run's end time (s).
    #[getter]
    fn end(&mut self) -> PyResult<f64> {
        Ok(self.live()?.sim.end.as_secs_f64())
    }

    /// True once the run reached its end.
    #[getter]
    fn done(&mut self) -> PyResult<bool> {
        Ok(self.live()?.done())
    }

    /// Events processed so far.
    #[getter]
    fn events(&mut self) -> PyResult<u64> {
        Ok(self.live()?.events)
    }

    /// Runs to the next decision point; returns the indices of the agents due.
    fn advance(&mut self, py: Python<'_>) -> PyResult<Vec<usize>> {
        let python_models = self.python_models;
        let s = self.live()?;
        let mut go = || catch_unwind(AssertUnwindSafe(|| s.advance()));
        let r = if python_models { go() } else { py.allow_threads(go) };
        match r {
            Ok(Ok(due)) => Ok(due),
            Ok(Err(e)) => Err(to_py_err(Error::Sim(e))),
            Err(p) => {
                let at = format!("at t={}", s.sim.now());
                let err = panic_to_py(py, p, &at, Some(&s.sim));
                self.inner = None;
                Err(err)
            }
        }
    }

    /// Every agent's last row, agent after agent, as little-endian f64 bytes.
    fn rows<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let s = self.live()?;
        let n = s.agent_names().len();
        let bytes: Vec<u8> = (0..n)
            .flat_map(|i| s.row(i).to_vec())
            .flat_map(|x| x.to_le_bytes())
            .collect();
        Ok(PyBytes::new(py, &bytes))
    }

    /// Sets agent `i`'s congestion window (bytes), from its next ACK on.
    fn set_cwnd(&mut self, i: usize, bytes: f64) -> PyResult<()> {
        let b = positive("cwnd", bytes)?;
        self.live()?
            .act(i, Action::Window(b.round().max(1.0) as u64))
            .map_err(|e| to_py_err(Error::Sim(e)))
    }

    /// Sets agent `i`'s pacing rate (payload bytes/s), from its next ACK on.
    fn set_rate(&mut self, i: usize, bytes_per_s: f64) -> PyResult<()> {
        let r = positive("pacing rate", bytes_per_s)?;
        self.live()?
            .act(i, Action::Rate(r.round().max(1.0) as u64))
            .map_err(|e| to_py_err(Error::Sim(e)))
    }

    /// Ends the run where the session stopped and returns its results as
    /// `run` does (the dict `ccsim.Results` is made from); the session is
    /// closed after it.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let Some(s) = self.inner.take() else {
            return Err(SimulationError::new_err("the session is closed"));
        };
        let r = catch_unwind(AssertUnwindSafe(move || s.finish()));
        ccsim_core::alloc::release();
        match r {
            Ok(Ok(o)) => output_to_py(py, o),
            Ok(Err(e)) => Err(to_py_err(Error::Sim(e))),
            Err(p) => Err(panic_to_py(py, p, "while collecting results", None)),
        }
    }

    /// Ends the session: checks the run's invariants (packet conservation,
    /// queue bounds) at the time it stopped and lets the run go.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(s) = self.inner.take() else { return Ok(()) };
        let r = catch_unwind(AssertUnwindSafe(|| s.sim.check_invariants()));
        drop(s);
        ccsim_core::alloc::release();
        match r {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(to_py_err(Error::Sim(e))),
            Err(p) => Err(panic_to_py(py, p, "while closing", None)),
        }
    }
}
