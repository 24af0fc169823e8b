//! The objects a hook sees: the sender's state (`s`), an ACK (`a`), a
//! queue's state (`q`), a packet (`p`); one of each per module, kept for its
//! life, written before each hook and read back after it.

use super::*;

/// The sender's state as a congestion control's hooks see it (`s`).
#[pyclass(module = "ccsim._ccsim", name = "SenderState")]
pub struct SenderState {
    #[pyo3(get)]
    pub(super) now_ns: u64,
    #[pyo3(get)]
    pub(super) mss: u64,
    pub(super) cwnd: u64,
    pub(super) ssthresh: u64,
    #[pyo3(get, set)]
    pub(super) cwnd_cnt: u64,
    #[pyo3(get)]
    pub(super) flight: u64,
    #[pyo3(get)]
    pub(super) pipe: u64,
    #[pyo3(get)]
    pub(super) delivered: u64,
    #[pyo3(get)]
    pub(super) byte_counting: bool,
    #[pyo3(get)]
    pub(super) srtt_ns: Option<u64>,
    #[pyo3(get)]
    pub(super) min_rtt_ns: Option<u64>,
    pub(super) pacing_rate: u64,
    #[pyo3(get, set)]
    pub(super) stamp: f32,
    /// The hook being called (for the setters' errors).
    pub(super) hook: &'static str,
    pub(super) rng: Rng,
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
pub(super) fn draw_below(rng: &mut Rng, n: u64) -> PyResult<u64> {
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
    pub(super) fn load(&mut self, s: &CcState, hook: &'static str) {
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
    pub(super) fn store(&self, s: &mut CcState) {
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
    pub(super) acked: u64,
    pub(super) dup: bool,
    pub(super) rtt_ns: Option<u64>,
    pub(super) in_recovery: bool,
    pub(super) ece: bool,
    pub(super) load: Option<f64>,
    pub(super) ce_seen: bool,
    pub(super) stamp: f32,
    pub(super) rate: Option<f64>,
    pub(super) rate_delivered: u64,
    pub(super) rate_interval_ns: Option<u64>,
    pub(super) rate_app_limited: bool,
    pub(super) rate_rtt_ns: Option<u64>,
    pub(super) rate_prior_delivered: u64,
    pub(super) rate_newly_delivered: u64,
    pub(super) rate_lost: u64,
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
    pub(super) fn load_from(&mut self, a: &AckSample) {
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
    pub(super) now_ns: u64,
    #[pyo3(get)]
    pub(super) backlog_packets: usize,
    #[pyo3(get)]
    pub(super) backlog_bytes: u64,
    #[pyo3(get)]
    pub(super) limit_packets: Option<u64>,
    #[pyo3(get)]
    pub(super) limit_bytes: Option<u64>,
    #[pyo3(get)]
    pub(super) full: bool,
    /// Packets this dequeue has dropped so far (0 for the first head it
    /// offers to the hook).
    #[pyo3(get)]
    pub(super) dropped: usize,
    /// The link's rate, bit/s.
    #[pyo3(get)]
    pub(super) rate: u64,
    #[pyo3(get)]
    pub(super) name: String,
    pub(super) rng: Rng,
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
    pub(super) size: u32,
    #[pyo3(get)]
    pub(super) flow: u32,
    pub(super) kind: Kind,
    #[pyo3(get)]
    pub(super) ect: bool,
    #[pyo3(get)]
    pub(super) ce: bool,
    #[pyo3(get)]
    pub(super) enq_ns: u64,
    #[pyo3(get)]
    pub(super) sojourn_ns: u64,
    pub(super) stamp: f32,
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
    pub(super) fn load(&mut self, p: &Packet, now: Time) {
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
