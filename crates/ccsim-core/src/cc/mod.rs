//! Congestion control as a plug-in, shaped like Linux `tcp_congestion_ops`.
//!
//! The sender machine ([`crate::tcp::TcpSender`]) owns the state and the loss
//! recovery mechanics (fast retransmit, fast recovery, SACK, RTO); an
//! algorithm decides window values: `ssthresh` on a loss indication,
//! `cong_avoid` on an ACK of new data, `ecn_echo` on an ECN-Echo (RFC 3168 by
//! default), or the whole window per ACK (`cong_control`, for model-based
//! algorithms fed by the receiver's feedback); it may observe every ACK
//! (`pkts_acked`, with the ECN echo and the receiver's feedback) and events
//! (`cwnd_event`). Algorithms never schedule events: per-RTT logic finds round
//! boundaries from ACK arrivals, as in Linux. Shared helpers
//! ([`slow_start`], [`cong_avoid_ai`]) keep each algorithm short.

pub mod agent;
pub mod bbr;
pub mod bmcc;
pub mod cubic;
pub mod dctcp;
pub mod foreign;
pub mod hystart;
pub mod load_factor;
pub mod rate;
pub mod reno;
pub mod scalable;
pub mod swift;
pub mod vcp;
pub mod vegas;
pub mod westwood;

use crate::cfg::{Res, Tab};
use crate::feedback::FeedbackSpec;
use crate::packet::Feedback;
use crate::units::Time;
use serde_json::Value;
use std::fmt::Debug;
use std::sync::Arc;

pub use rate::{RateEstimator, RateSample};
pub use reno::Reno;

/// How the sender recovers from a loss indication by duplicate ACKs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Tahoe: cwnd = 1 segment and go-back-N on the dupthresh-th dupack.
    Tahoe,
    /// Reno fast recovery (RFC 5681 §3.2): exits on the first new ACK.
    Reno,
    /// NewReno (RFC 6582): stays in recovery across partial ACKs.
    NewReno,
}

/// The sender state an algorithm may read and (for the window) change.
#[derive(Clone, Debug)]
pub struct CcState {
    pub now: Time,
    /// Sender maximum segment size in bytes.
    pub mss: u64,
    /// Congestion window in bytes.
    pub cwnd: u64,
    /// Slow-start threshold in bytes.
    pub ssthresh: u64,
    /// The window a loss response halves. Normally FlightSize: bytes sent and
    /// not yet acknowledged, from the go-back-N point after a timeout
    /// (`snd_nxt − snd_una`), without limited-transmit segments on a fast
    /// retransmit (RFC 5681 §3.2 step 2). With the sender's `loss_window =
    /// "cwnd"`, and at a timeout under `rto_ssthresh = "window"`, it is
    /// min(cwnd, rwnd) without fast-recovery inflation (ns-2's `window()`).
    pub flight: u64,
    /// Byte counter for additive increase (Linux `snd_cwnd_cnt`, in bytes).
    pub cwnd_cnt: u64,
    /// Congestion avoidance counts acknowledged bytes (RFC 3465); if false,
    /// each ACK adds SMSS²/cwnd (RFC 5681 eq. 3), see [`cong_avoid_ai`].
    pub byte_counting: bool,
    /// Smoothed RTT and minimum RTT observed, if any sample exists.
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
    /// Bytes in the network: RFC 6675 `pipe` with SACK (SACKed and lost
    /// bytes out, retransmitted ones in), else FlightSize less one segment
    /// per duplicate ACK (Linux `tcp_packets_in_flight`).
    pub pipe: u64,
    /// Payload bytes delivered so far (`C.delivered` of the delivery-rate
    /// estimator, [`rate`]); 0 unless the module asks for rate samples
    /// ([`CongestionOps::rate_samples`]).
    pub delivered: u64,
    /// The sender's pacing rate in payload bytes per second (0: unpaced), as
    /// Linux `sk_pacing_rate`: a module that [`CongestionOps::paces`] sets it;
    /// the sender spaces segments len/rate apart with its one timer.
    pub pacing_rate: u64,
    /// The number the flow's data segments carry from now on
    /// ([`crate::packet::Packet::stamp`]: explicit feedback from routers); a
    /// module may set it, 0 until one does.
    pub stamp: f32,
}

/// What one ACK told the sender.
#[derive(Clone, Debug, Default)]
pub struct AckSample {
    /// Bytes newly acknowledged by the cumulative ACK (0 for a duplicate).
    pub acked: u64,
    /// True for a duplicate ACK.
    pub dup: bool,
    /// RTT sample taken from this ACK, if any (Karn's rule applied).
    pub rtt: Option<Time>,
    pub in_recovery: bool,
    /// The ACK carried ECN-Echo (and ECN is in use, RFC 3168 §6.1.2).
    pub ece: bool,
    /// What the receiver's feedback mechanism attached to the ACK.
    pub feedback: Feedback,
    /// The stamp of the data segment the receiver last received, which it
    /// echoes in every ACK ([`crate::packet::Packet::stamp`]).
    pub stamp: f32,
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-
    /// estimation §3.3), if it delivered data (cumulatively or by SACK) and
    /// the module asks for samples ([`CongestionOps::rate_samples`]).
    pub rate: Option<RateSample>,
    /// How long the receiver held the acknowledged segment before this ACK
    /// left (delayed ACKs), as it reports it for a module that asks
    /// ([`Needs::ack_hold`]); zero otherwise.
    pub hold: Time,
}

/// Congestion-avoidance events (Linux `tcp_ca_event` subset).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// Retransmission timeout (after ssthresh/cwnd were set).
    Timeout,
    /// Entered fast recovery (after ssthresh/cwnd were set).
    EnterRecovery,
    /// Left fast recovery (after cwnd was deflated).
    ExitRecovery,
    /// Window reduced in response to an ECN echo.
    EcnReduce,
    /// The loss state after a timeout ended: the cumulative ACK reached
    /// `recover` (Linux leaves `TCP_CA_Loss`).
    ExitLoss,
}

/// A congestion-control algorithm (Linux `tcp_congestion_ops`).
pub trait CongestionOps: Send {
    fn name(&self) -> &'static str;
    /// Seeds the algorithm's own random choices (BBR's start phase), once,
    /// from the flow's random stream, when the sender of `flow` is built.
    fn init(&mut self, _seed: u64, _flow: crate::packet::FlowId) {}
    /// The number of switches the flow's data crosses (its path, known when
    /// the flow is built), once, before the sender starts (Swift's
    /// hop-scaled target).
    fn set_hops(&mut self, _hops: u32) {}
    /// Loss-recovery mechanics this algorithm runs with.
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    /// Slow-start threshold (bytes) after a loss indication by duplicate ACKs
    /// or an ECN echo.
    fn ssthresh(&mut self, s: &CcState) -> u64;
    /// Slow-start threshold (bytes) after a retransmission timeout.
    fn ssthresh_timeout(&mut self, s: &CcState) -> u64 {
        self.ssthresh(s)
    }
    /// Window growth on an ACK of `acked` new bytes outside loss recovery.
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64);
    /// Every ACK, new or duplicate, before the sender reacts to it.
    fn pkts_acked(&mut self, _s: &CcState, _sample: &AckSample) {}
    /// Window control on every ACK for model-based algorithms (Linux
    /// `cong_control`): return true after setting `s.cwnd` (and `s.ssthresh`)
    /// to take over the window for this ACK; false (the default) leaves it to
    /// `cong_avoid` and the loss responses. Called after `pkts_acked`, in every
    /// loss state, so a window that replaces cwnd during recovery is possible.
    fn cong_control(&mut self, _s: &mut CcState, _sample: &AckSample) -> bool {
        false
    }
    /// Whether the sender calls `pkts_acked` and `cong_control` (as Linux
    /// calls only the hooks a `tcp_congestion_ops` sets). True by default, so
    /// an algorithm that overrides either needs nothing more; one that
    /// overrides neither may answer false to spare the sender a view of its
    /// state on every ACK. Asked once, when the sender is built.
    fn per_ack_hooks(&self) -> bool {
        true
    }
    /// An ACK carried ECN-Echo and no reduction was made in this window yet
    /// (RFC 3168 §6.1.2). Returns the new ssthresh (cwnd is set to it and CWR
    /// sent), or `None` to ignore the echo. Default: RFC 3168, the response to
    /// a loss by duplicate ACKs, `ssthresh(s)`.
    fn ecn_echo(&mut self, s: &CcState) -> Option<u64> {
        Some(self.ssthresh(s))
    }
    /// Whether the window grows on an ACK of new data that carries ECN-Echo.
    /// False by default: RFC 3168 §6.1.2 ("SHOULD NOT increase the congestion
    /// window in response to the receipt of an ECN-Echo ACK"), as ns-2 does.
    /// DCTCP answers true: its echo reports the marking fraction, not a
    /// congestion event, and Linux grows on such ACKs (`tcp_may_raise_cwnd`
    /// asks only for data acked) before its once-per-window reduction.
    /// Asked once, when the sender is built.
    fn grow_on_ece(&self) -> bool {
        false
    }
    /// Whether a loss found by duplicate ACKs in a window that an ECN echo
    /// already reduced reduces the window again. False by default: RFC 3168
    /// §6.1.2 reduces "only once in response to a series of dropped and/or CE
    /// packets from a single window of data", the echo's reduction being a
    /// loss's. DCTCP's RFC 8257 variant answers true: its echo cuts by α/2
    /// only, and RFC 8257 §3.5 has a loss change cwnd and ssthresh "in the
    /// same way that a conventional TCP would have" (Linux `dctcp_state`
    /// halves on entering Recovery, from CWR as well). Asked once, when the
    /// sender is built.
    fn loss_after_ecn_reduces(&self) -> bool {
        false
    }
    fn cwnd_event(&mut self, _s: &mut CcState, _ev: CaEvent) {}
    /// Whether `cong_control` sets the window on every ACK, recovery included
    /// (BBR; Linux: the module has `cong_control`). The sender's own
    /// reduction, PRR, then stays out: Linux's `tcp_cong_control` calls only
    /// the module's hook, ns-3 skips the recovery ops when `HasCongControl`.
    /// Asked once, when the sender is built.
    fn controls_window(&self) -> bool {
        false
    }
    /// Whether the module counts what each ACK delivered itself, as Linux
    /// passes `acked` (packets newly acknowledged or SACKed) to every module
    /// and ns-3 `segmentsAcked` (CUBIC's `"linux"` and `"ns3"` variants):
    /// `cong_avoid` then gets the bytes the ACK delivered (RFC 9937
    /// DeliveredData), whatever the sender's `byte_counting`. Otherwise it
    /// gets the bytes cumulatively acknowledged, at most one segment without
    /// byte counting. Asked once, when the sender is built.
    fn counts_acked(&self) -> bool {
        false
    }
    /// Whether the module reads delivery-rate samples ([`AckSample::rate`])
    /// and the delivered count ([`CcState::delivered`]). The sender keeps the
    /// estimator's per-segment state only for a module that answers true
    /// (BBR); for the others `rate` is `None` and `delivered` 0, and no run
    /// pays for it. Asked once, when the sender is built.
    fn rate_samples(&self) -> bool {
        false
    }
    /// Whether the module sets `CcState::pacing_rate` itself (BBR); if not,
    /// the sender's `pacing` option may pace it from cwnd/srtt (Linux
    /// `tcp_update_pacing_rate`).
    fn paces(&self) -> bool {
        false
    }
    /// Mechanism state worth tracing (e.g. Westwood+'s bandwidth estimate).
    fn trace(&self) -> Option<(&'static str, f64)> {
        None
    }
    /// Counters of the algorithm's own events, for the run summary
    /// (`summary["cc"][flow]`; e.g. BMCC's MDs and mode switches).
    fn stats(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// The state shared with a controller outside the run, for the module
    /// driven from outside ([`agent`], `cc = "agent"`); `None` for the others.
    fn external(&self) -> Option<agent::Handle> {
        None
    }
}

/// Slow start (RFC 5681 §3.1 with RFC 3465 L = 1 SMSS): cwnd grows by
/// min(acked, mss), not past ssthresh. Returns the acked bytes left over once
/// ssthresh is reached (to be used by congestion avoidance).
pub fn slow_start(s: &mut CcState, acked: u64) -> u64 {
    let inc = acked.min(s.mss);
    let room = s.ssthresh.saturating_sub(s.cwnd);
    if inc <= room {
        s.cwnd += inc;
        0
    } else {
        s.cwnd += room;
        acked - room
    }
}

/// Additive increase. With byte counting (RFC 3465 §2.1 / RFC 5681 §3.1):
/// one MSS per window of acknowledged bytes, i.e. +1 segment per RTT. Without
/// (`s.byte_counting` false): RFC 5681 eq. 3, cwnd += SMSS·SMSS/cwnd on each
/// ACK whatever it acknowledges, ns-2's `cwnd_ += 1/cwnd_` (+½ segment per
/// RTT with delayed ACKs). The increment is exact: the fraction of a byte it
/// leaves is carried in `cwnd_cnt` (in units of 1/cwnd byte) to the next ACK,
/// as ns-2's floating-point window keeps it; rounded down to whole bytes it
/// was 1-6 % short at windows of 50-100 segments, and at least one byte per
/// ACK beyond SMSS segments (too fast).
pub fn cong_avoid_ai(s: &mut CcState, acked: u64) {
    if !s.byte_counting {
        let cwnd = s.cwnd.max(1);
        s.cwnd_cnt += s.mss * s.mss;
        let inc = s.cwnd_cnt / cwnd;
        s.cwnd_cnt -= inc * cwnd;
        s.cwnd += inc;
        return;
    }
    s.cwnd_cnt += acked;
    while s.cwnd_cnt >= s.cwnd && s.cwnd > 0 {
        s.cwnd_cnt -= s.cwnd;
        s.cwnd += s.mss;
    }
}

/// Linux's `tcp_cong_avoid_ai(tp, w, acked)` in bytes: one segment per `w`
/// segments acknowledged, counted in `cnt` (the sender's `cwnd_cnt`, which
/// every reduction clears, as Linux's `snd_cwnd_cnt`; or a module's own count,
/// as ns-3's `TcpLinuxReno` keeps one).
pub fn cong_avoid_ai_w(cwnd: &mut u64, cnt: &mut u64, mss: u64, w: u64, acked: u64) {
    let w = w.max(1) * mss;
    if *cnt >= w {
        *cnt = 0;
        *cwnd += mss;
    }
    *cnt += acked;
    if *cnt >= w {
        let delta = *cnt / w;
        *cnt -= delta * w;
        *cwnd += delta * mss;
    }
}

/// Reno window growth (Linux `tcp_reno_cong_avoid`): slow start below ssthresh,
/// then additive increase with whatever the ACK had left over.
pub fn reno_cong_avoid(s: &mut CcState, acked: u64) {
    let acked = if s.cwnd < s.ssthresh {
        slow_start(s, acked)
    } else {
        acked
    };
    if acked > 0 && s.cwnd >= s.ssthresh {
        cong_avoid_ai(s, acked);
    }
}

/// Standard loss response (RFC 5681 eq. 4): max(FlightSize/2, 2·SMSS) bytes,
/// where the sender's `loss_window` decides what `s.flight` holds.
pub fn halve_flight(s: &CcState) -> u64 {
    (s.flight / 2).max(2 * s.mss)
}

/// What a module asks of the TCP it runs in (tcp/params.rs applies it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Needs {
    /// ECN-capable packets: `ecn` defaults to true and false is refused
    /// (also for retransmissions), for this reason.
    pub ecn: Option<&'static str>,
    /// Its ECN-capable packets leave as ECT(1) instead of ECT(0) (VCP: `01`
    /// is the low-load code its routers raise).
    pub ect1: bool,
    /// SACK recovery by default.
    pub sack: bool,
    /// The receiver feedback it needs (`feedback = {kind = ...}` is required):
    /// the kind and the reason.
    pub feedback: Option<(&'static str, &'static str)>,
    /// RTT samples from every ACK's timestamp echo by default (`rtt_samples =
    /// "timestamps"`): per-round RTT minima need more than one timed segment
    /// per RTT (HyStart++, Vegas).
    pub timestamps: bool,
    /// The receiver echoes each segment's CE state exactly (RFC 8257 §3.2,
    /// DCTCP) instead of holding ECE until CWR (RFC 3168 §6.1.3).
    pub accurate_ce: bool,
    /// Its loss response reduces from cwnd even where the conventions hand
    /// modules the pipe (ns-3's `TcpCubic`, as Linux's
    /// `bictcp_recalc_ssthresh`, reduces whole segments of cwnd): the
    /// sender's `loss_window` then defaults to `"cwnd"` instead of `"pipe"`.
    pub reduces_cwnd: bool,
    /// The receiver reports in each ACK how long it held the acknowledged
    /// segment (Swift's endpoint delay, [`AckSample::hold`]): the ACK's
    /// timestamp value is then the echoed one plus the hold.
    pub ack_hold: bool,
    /// The number of switches on the flow's path ([`CongestionOps::set_hops`];
    /// otherwise the module is told 0 and no path is walked).
    pub hops: bool,
}

/// A congestion-control module as configured: what a flow's `cc` key names
/// (shared by the senders of a flow spec; built once per sender).
pub trait CcSpec: Send + Sync + Debug {
    /// The module's name (the `cc` key's value, and the `cc` column).
    fn name(&self) -> &'static str;
    fn build(&self) -> Box<dyn CongestionOps>;
    /// What it asks of its TCP (nothing by default).
    fn needs(&self) -> Needs {
        Needs::default()
    }
    /// The spec adjusted to the flow's receiver feedback (the kind
    /// [`Needs::feedback`] asked for), or `None` to keep it as it is.
    fn with_feedback(&self, _feedback: &dyn FeedbackSpec) -> Option<Arc<dyn CcSpec>> {
        None
    }
}

/// A module without parameters.
#[derive(Debug)]
struct Plain(&'static str, fn() -> Box<dyn CongestionOps>);

impl CcSpec for Plain {
    fn name(&self) -> &'static str {
        self.0
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        (self.1)()
    }
}

type Reader = fn(&mut Tab) -> Res<Arc<dyn CcSpec>>;

/// The modules a flow's `cc` key may name, each with the reader of its own
/// keys (in a table `cc = {kind = name, ...}`; the name alone reads an empty
/// table: the defaults).
pub const MODULES: &[(&str, Reader)] = &[
    ("tahoe", |_| {
        Ok(Arc::new(Plain("tahoe", || Box::new(Reno::new(Recovery::Tahoe)))))
    }),
    ("reno", |_| {
        Ok(Arc::new(Plain("reno", || Box::new(Reno::new(Recovery::Reno)))))
    }),
    ("newreno", |_| {
        Ok(Arc::new(Plain("newreno", || Box::new(Reno::new(Recovery::NewReno)))))
    }),
    ("westwood", |_| {
        Ok(Arc::new(Plain("westwood", || Box::new(westwood::Westwood::new()))))
    }),
    ("westwood-linux", |_| {
        Ok(Arc::new(Plain("westwood-linux", || {
            Box::new(westwood::Westwood::with_params(westwood::Params::LINUX))
        })))
    }),
    ("bmcc", |t| Ok(Arc::new(bmcc::Params::read(t)?))),
    ("cubic", cubic::read),
    ("dctcp", dctcp::read),
    ("vegas", vegas::read),
    ("bbr", bbr::read),
    ("scalable", scalable::read),
    ("swift", swift::read),
    ("vcp", vcp::read),
    ("agent", agent::read),
    ("python", foreign::read),
];

/// Names accepted by [`by_name`] and a flow's `cc` key.
/// The modules a bare name selects (`cc = "cubic"`): all but `python`, which
/// needs its `class` (a table; `MODULES` lists it last).
const NAMED: &[(&str, Reader)] = match MODULES.split_last() {
    Some((_, named)) => named,
    None => MODULES,
};

pub fn names() -> Vec<&'static str> {
    MODULES.iter().map(|m| m.0).collect()
}

/// Reads a flow's `cc` key: a module's name, or a table `{kind = name, ...}`
/// with the module's own keys (default "newreno").
pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    let Some(mut sub) = (match t.get("cc") {
        Some(Value::Object(_)) => t.table("cc")?,
        _ => None,
    }) else {
        let (name, reader) = t.pick("cc", Some("newreno"), NAMED)?;
        // the module's defaults, read as from `{kind = name}` (so the schema
        // recorder files them under that kind)
        let named = serde_json::json!({ "kind": name });
        let mut defaults = Tab::new(t.key_path("cc"), &named)?;
        defaults.pick("kind", None, MODULES)?;
        return reader(&mut defaults);
    };
    let (_, reader) = sub.pick("kind", None, MODULES)?;
    let spec = reader(&mut sub)?;
    let resolved = sub.finish()?;
    t.put("cc", resolved);
    Ok(spec)
}

/// Builds an algorithm by name, with its default parameters; the error lists
/// the accepted names.
pub fn by_name(name: &str) -> Result<Box<dyn CongestionOps>, String> {
    let accepted = || {
        let quoted: Vec<String> = names().iter().map(|n| format!("{n:?}")).collect();
        format!("one of {}", quoted.join(", "))
    };
    let module = MODULES.iter().find(|m| m.0 == name).ok_or_else(accepted)?;
    let empty = Value::Object(Default::default());
    let mut defaults = Tab::new(String::new(), &empty).map_err(|e| e.to_string())?;
    Ok((module.1)(&mut defaults).map_err(|e| e.to_string())?.build())
}

/// The sender's view the modules' unit tests start from: `cwnd` and `ssthresh`
/// bytes of `mss`-byte segments, cwnd in flight, no RTT sample yet, byte counting.
#[cfg(test)]
impl CcState {
    pub(crate) fn for_test(mss: u64, cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            now: Time::ZERO,
            mss,
            cwnd,
            ssthresh,
            flight: cwnd,
            cwnd_cnt: 0,
            byte_counting: true,
            srtt: None,
            min_rtt: None,
            pipe: 0,
            delivered: 0,
            pacing_rate: 0,
            stamp: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module reads its own keys from the registry; a name alone gives
    /// the module's defaults (`cc = "bmcc"` is BMCC with `Params::default()`).
    #[test]
    fn registry_names_read_their_defaults() {
        assert_eq!(MODULES.last().map(|m| m.0), Some("python"), "NAMED leaves out the last");
        for (name, _) in NAMED {
            let v = serde_json::json!({ "cc": name });
            let mut t = Tab::new("flows[0]".into(), &v).unwrap();
            let spec = read(&mut t).unwrap();
            assert_eq!(spec.name(), *name);
            assert_eq!(spec.build().name(), by_name(name).unwrap().name());
        }
        let v = serde_json::json!({ "cc": "bmcc" });
        let mut t = Tab::new("flows[0]".into(), &v).unwrap();
        let spec = read(&mut t).unwrap();
        assert_eq!(spec.needs().feedback.map(|f| f.0), Some("bmcc"));
        let v = serde_json::json!({});
        let mut t = Tab::new("cc".into(), &v).unwrap();
        assert_eq!(bmcc::Params::read(&mut t).unwrap(), bmcc::Params::default());
        let e = by_name("no-such-module").err().unwrap();
        assert!(e.contains("\"newreno\"") && e.contains("\"bmcc\""), "{e}");
    }

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            pipe: cwnd,
            ..CcState::for_test(1000, cwnd, ssthresh)
        }
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut s = st(3000, 3500);
        assert_eq!(slow_start(&mut s, 1000), 500);
        assert_eq!(s.cwnd, 3500);
    }

    #[test]
    fn additive_increase_is_one_mss_per_window() {
        let mut s = st(10_000, 0);
        for _ in 0..10 {
            cong_avoid_ai(&mut s, 1000);
        }
        assert_eq!(s.cwnd, 11_000);
        assert_eq!(s.cwnd_cnt, 0);
    }

    #[test]
    fn rfc5681_eq3_per_ack_increase() {
        // cwnd = 4 MSS: each ACK adds 10⁶/cwnd: 250, 235.29…, 222.95…, 212.39…:
        // 4000 → 4250 → 4485.3 → 4708.2 → 4920.6, whole bytes with the fractions carried.
        let mut s = st(4_000, 0);
        s.byte_counting = false;
        let mut exact = 4_000f64;
        for _ in 0..4 {
            cong_avoid_ai(&mut s, 2_000);
            exact += 1e6 / exact;
        }
        assert_eq!(s.cwnd, 4_920);
        assert!((s.cwnd as f64 - exact).abs() < 1.0, "{exact}");
        // A large window: 2000 segments of 1000 B gain ½ B per ACK, one MSS per
        // window of ACKs (not one byte per ACK, twice that).
        let mut s = st(2_000_000, 0);
        s.byte_counting = false;
        for _ in 0..2_000 {
            cong_avoid_ai(&mut s, 1_000);
        }
        assert!((s.cwnd as i64 - 2_001_000).abs() <= 1, "{}", s.cwnd);
    }

    /// Reno answers `per_ack_hooks() == false`: its hooks are the defaults,
    /// which change nothing, so skipping them changes nothing.
    #[test]
    fn reno_per_ack_hooks_are_the_defaults() {
        for recovery in [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno] {
            let mut r = Reno::new(recovery);
            assert!(!r.per_ack_hooks());
            let mut s = st(10_000, 5_000);
            let a = AckSample::default();
            r.pkts_acked(&s, &a);
            assert!(!r.cong_control(&mut s, &a));
            assert_eq!((s.cwnd, s.ssthresh, s.cwnd_cnt), (10_000, 5_000, 0));
        }
    }

    #[test]
    fn halving_floors_at_two_segments() {
        assert_eq!(halve_flight(&st(10_000, 0)), 5_000);
        assert_eq!(halve_flight(&st(1_000, 0)), 2_000);
    }
}
