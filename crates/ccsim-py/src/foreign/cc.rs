//! A congestion control written in Python: `CongestionOps` calling the
//! class's hooks.

use super::load::*;
use super::state::*;
use super::*;

/// `cc = {kind = "python", class = ..., ...}` as read.
#[derive(Debug)]
pub(super) struct CcPySpec {
    pub(super) loaded: Arc<LoadedCc>,
}

pub(super) struct LoadedCc {
    pub(super) l: Loaded,
    pub(super) recovery: Recovery,
    pub(super) needs: Needs,
    pub(super) grow_on_ece: bool,
    pub(super) controls_window: bool,
    pub(super) counts_acked: bool,
    pub(super) rate_samples: bool,
    pub(super) paces: bool,
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
pub(super) struct CcHooks {
    pub(super) init: Option<Py<PyAny>>,
    pub(super) ssthresh: Py<PyAny>,
    pub(super) ssthresh_timeout: Option<Py<PyAny>>,
    pub(super) cong_avoid: Py<PyAny>,
    pub(super) pkts_acked: Option<Py<PyAny>>,
    pub(super) cong_control: Option<Py<PyAny>>,
    pub(super) ecn_echo: Option<Py<PyAny>>,
    pub(super) cwnd_event: Option<Py<PyAny>>,
    pub(super) trace: Option<Py<PyAny>>,
    pub(super) stats: Option<Py<PyAny>>,
}

pub(super) struct PyCc {
    pub(super) spec: Arc<LoadedCc>,
    pub(super) _obj: Py<PyAny>,
    pub(super) hooks: CcHooks,
    pub(super) state: Py<SenderState>,
    pub(super) ack: Py<AckView>,
    /// Interned event names, in `CaEvent` order.
    pub(super) events: [Py<PyString>; 5],
    pub(super) flow: u32,
    /// `init` waits for the first hook, which brings the sender's state.
    pub(super) started: bool,
}

impl PyCc {
    pub(super) fn new(py: Python<'_>, spec: Arc<LoadedCc>) -> PyCc {
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
    pub(super) fn enter(&mut self, py: Python<'_>, s: &CcState, hook: &'static str) {
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

    pub(super) fn fail(&self, e: PyErr, hook: &'static str, now: Time) -> ! {
        fail(e, hook, Some(self.flow), None, now)
    }

    /// Calls `f` with the state loaded from `s`, then writes back what the
    /// hook set.
    pub(super) fn call_mut<R>(
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
    pub(super) fn threshold(&mut self, s: &CcState, hook: &'static str, m: &Py<PyAny>) -> Option<u64> {
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
