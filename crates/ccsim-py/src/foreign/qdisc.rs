//! A queue discipline written in Python: `Qdisc` over the engine's FIFO,
//! asking the class for a verdict per packet.

use super::load::*;
use super::state::*;
use super::*;

#[derive(Debug)]
pub(super) struct QdiscPySpec {
    pub(super) loaded: Arc<LoadedQ>,
}

pub(super) struct LoadedQ {
    pub(super) l: Loaded,
    pub(super) passes_idle: bool,
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

pub(super) struct PyQdisc {
    /// The class's `__qualname__` (the queue table's `kind` column).
    pub(super) name: &'static str,
    /// The class declares `passes_idle`.
    pub(super) passes_idle: bool,
    pub(super) q: PacketFifo,
    pub(super) limit: Limit,
    pub(super) link: String,
    pub(super) enqueue: Option<Py<PyAny>>,
    pub(super) dequeue: Option<Py<PyAny>>,
    pub(super) empty: Option<Py<PyAny>>,
    pub(super) trace: Option<Py<PyAny>>,
    pub(super) state: Py<QueueState>,
    pub(super) pkt: Py<PacketView>,
    pub(super) _obj: Py<PyAny>,
}

/// A verdict's number (ccsim.extend.Verdict).
pub(super) const PASS: u8 = 0;
pub(super) const DROP: u8 = 1;
pub(super) const DROP_FORCED: u8 = 2;
pub(super) const MARK: u8 = 3;
pub(super) const MARK_FORCED: u8 = 4;

impl PyQdisc {
    /// The discipline of one link; its `setup` hook, if any, is called now, and
    /// a `ParameterError` it raises refuses the scenario naming the key.
    pub(super) fn new(py: Python<'_>, l: &LoadedQ, link: &LinkInfo) -> Res<PyQdisc> {
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

    pub(super) fn load_state(&self, py: Python<'_>, cx: &QdiscCtx, full: bool, dropped: usize) {
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
    pub(super) fn verdict(
        &self,
        py: Python<'_>,
        hook: &'static str,
        m: &Py<PyAny>,
        p: &mut Packet,
        cx: &mut QdiscCtx,
    ) -> u8 {
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
pub(super) fn setup_error(py: Python<'_>, e: PyErr, link: &LinkInfo) -> ScenarioError {
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
