//! Swift (G. Kumar, N. Dukkipati, K. Jang, H. M. G. Wassel, X. Wu, B. Montazeri,
//! Y. Wang, K. Springborn, C. Alfeld, M. Ryan, D. Wetherall, A. Vahdat, "Swift:
//! Delay is Simple and Effective for Congestion Control in the Datacenter",
//! SIGCOMM 2020), the sender's window, as a module of the TCP sender
//! (`cc = "swift"`). Model page: docs/models/swift.md.
//!
//! * §3.1, Algorithm 1, on each ACK with a delay sample: if delay < target,
//!   additive increase, `cwnd += ai·num_acked/cwnd` (cwnd ≥ 1) or
//!   `cwnd += ai·num_acked` (cwnd < 1), num_acked in packets; else, at most
//!   once per RTT (`now − t_last_decrease ≥ rtt`, the smoothed RTT),
//!   `cwnd ·= max(1 − β·(delay − target)/delay, 1 − max_mdf)`.
//! * §3.2: two windows. The fabric window `fcwnd` compares the fabric delay
//!   (the RTT less the endpoint delay) with the fabric target; the endpoint
//!   window `ecwnd` compares the endpoint delay with `endpoint_target`;
//!   `cwnd = min(fcwnd, ecwnd)`. Here the endpoint delay is the time the
//!   receiver held the acknowledged segment before its ACK left (delayed
//!   ACKs), which the receiver reports in the ACK ([`Needs::ack_hold`]);
//!   ccsim models no host processing or NIC queueing, so without delayed
//!   ACKs it is zero and `ecwnd` only grows to `max_cwnd`.
//! * §3.4–3.5, the fabric target: `base_target + hops·h + fs(fcwnd)`, where
//!   `hops` is the number of switches the flow's data crosses (known when the
//!   flow is built: [`CongestionOps::set_hops`]) and flow-based scaling
//!   `fs = fs_range·(1/√cwnd − 1/√fs_max_cwnd)/(1/√fs_min_cwnd −
//!   1/√fs_max_cwnd)`, clamped to [0, fs_range].
//! * §3.3, below one packet: the window (at least one packet for the TCP
//!   sender) is paced at `cwnd·mss/srtt`, i.e. a gap of `srtt/cwnd` between
//!   packets; at or above one packet the sender is not paced.
//! * Algorithm 1, losses: a retransmission timeout counts `retransmit_cnt`;
//!   at `retx_reset` timeouts in a row `cwnd = min_cwnd`, else (once per RTT)
//!   `cwnd ·= 1 − max_mdf`; a fast recovery sets `retransmit_cnt = 0` and
//!   (once per RTT) `cwnd ·= 1 − max_mdf`. An ACK with a sample resets the
//!   count. Both windows are reduced.
//! * Both windows stay within [min_cwnd, max_cwnd] (packets).
//!
//! Parameter defaults are htsim's (Broadcom/csg-htsim, sim/swift.cpp, which
//! marks several as guesses); the paper gives no complete set. There is no
//! slow start (Algorithm 1 has none): the window starts at the sender's
//! `init_cwnd`.

use super::{AckSample, CaEvent, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// Base fabric target delay (htsim: 20 µs).
    pub base_target: Time,
    /// Target added per switch crossed, h (htsim: base_target/6.55).
    pub hop_scale: Time,
    /// Flow-scaling range, fs_range (htsim: 5·base_target).
    pub fs_range: Time,
    /// Windows (packets) at which flow scaling is fs_range and 0.
    pub fs_min_cwnd: f64,
    pub fs_max_cwnd: f64,
    /// Endpoint target delay (the endpoint window's).
    pub endpoint_target: Time,
    /// Additive increase, packets per RTT (ai).
    pub ai: f64,
    /// Multiplicative decrease factor (β).
    pub beta: f64,
    /// Largest decrease at once (max_mdf).
    pub max_mdf: f64,
    /// Window bounds, packets.
    pub min_cwnd: f64,
    pub max_cwnd: f64,
    /// Timeouts in a row that reset the window to min_cwnd.
    pub retx_reset: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            base_target: Time::from_micros(20),
            hop_scale: Time(3_053),
            fs_range: Time::from_micros(100),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            endpoint_target: Time::from_micros(20),
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            min_cwnd: 0.001,
            max_cwnd: 1000.0,
            retx_reset: 5,
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("base_target", "Swift: base fabric target delay, positive (htsim: 20us)"),
    (
        "hop_scale",
        "Swift: fabric target added per switch the data crosses, h (htsim: base_target/6.55)",
    ),
    (
        "fs_range",
        "Swift: flow-scaling range added to the target at fs_min_cwnd (htsim: 5 x base_target)",
    ),
    (
        "fs_min_cwnd",
        "Swift: window (packets) at which flow scaling adds fs_range, positive, below fs_max_cwnd (0.1)",
    ),
    (
        "fs_max_cwnd",
        "Swift: window (packets) at which flow scaling adds nothing (100)",
    ),
    (
        "endpoint_target",
        "Swift: endpoint target delay, positive (the endpoint delay is the receiver's ACK hold) (20us)",
    ),
    ("ai", "Swift: additive increase, packets per RTT, positive (1)"),
    ("beta", "Swift: multiplicative decrease factor β, in (0, 1] (0.8)"),
    (
        "max_mdf",
        "Swift: largest multiplicative decrease at once, in (0, 1) (0.5)",
    ),
    ("min_cwnd", "Swift: smallest window, packets, positive (0.001)"),
    (
        "max_cwnd",
        "Swift: largest window, packets, at least min_cwnd and 1 (1000)",
    ),
    (
        "retx_reset",
        "Swift: retransmission timeouts in a row that reset the window to min_cwnd, at least 1 (5)",
    ),
];

impl Params {
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let positive = |t: &mut Tab, key: &'static str, d: Time| -> Res<Time> {
            let v = t.time(key, Some(&crate::cfg::time_str(d)))?;
            if v == Time::ZERO {
                return Err(t.error(key, &Value::from("0s"), "a positive time"));
            }
            Ok(v)
        };
        let base_target = positive(t, "base_target", d.base_target)?;
        let hop_scale = t.time(
            "hop_scale",
            Some(&crate::cfg::time_str(Time(base_target.0 * 100 / 655))),
        )?;
        let fs_range = t.time("fs_range", Some(&crate::cfg::time_str(Time(base_target.0 * 5))))?;
        let fs_min_cwnd = t.float("fs_min_cwnd", Some(d.fs_min_cwnd), 0.0, 1e6)?;
        if fs_min_cwnd <= 0.0 {
            return Err(t.error("fs_min_cwnd", &Value::from(fs_min_cwnd), "a positive window (packets)"));
        }
        let fs_max_cwnd = t.float("fs_max_cwnd", Some(d.fs_max_cwnd), 0.0, 1e6)?;
        if fs_max_cwnd <= fs_min_cwnd {
            return Err(t.error(
                "fs_max_cwnd",
                &Value::from(fs_max_cwnd),
                format!("a window (packets) above fs_min_cwnd = {fs_min_cwnd}"),
            ));
        }
        let endpoint_target = positive(t, "endpoint_target", d.endpoint_target)?;
        let ai = t.float("ai", Some(d.ai), 0.0, 1e6)?;
        if ai <= 0.0 {
            return Err(t.error("ai", &Value::from(ai), "a positive number of packets per RTT"));
        }
        let beta = t.float("beta", Some(d.beta), 0.0, 1.0)?;
        if beta <= 0.0 {
            return Err(t.error("beta", &Value::from(beta), "a number in (0, 1]"));
        }
        let max_mdf = t.float("max_mdf", Some(d.max_mdf), 0.0, 1.0)?;
        if max_mdf <= 0.0 || max_mdf >= 1.0 {
            return Err(t.error("max_mdf", &Value::from(max_mdf), "a number in (0, 1)"));
        }
        let min_cwnd = t.float("min_cwnd", Some(d.min_cwnd), 0.0, 1e9)?;
        if min_cwnd <= 0.0 {
            return Err(t.error("min_cwnd", &Value::from(min_cwnd), "a positive window (packets)"));
        }
        let max_cwnd = t.float("max_cwnd", Some(d.max_cwnd), 0.0, 1e9)?;
        if max_cwnd < min_cwnd.max(1.0) {
            return Err(t.error(
                "max_cwnd",
                &Value::from(max_cwnd),
                format!("a window (packets) of at least 1 and min_cwnd = {min_cwnd}"),
            ));
        }
        let retx_reset = t.uint("retx_reset", Some(d.retx_reset as u64), 1, 1_000_000)? as u32;
        Ok(Params {
            base_target,
            hop_scale,
            fs_range,
            fs_min_cwnd,
            fs_max_cwnd,
            endpoint_target,
            ai,
            beta,
            max_mdf,
            min_cwnd,
            max_cwnd,
            retx_reset,
        })
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "swift"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Swift::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            sack: true,
            // a delay sample from every ACK (Swift's per-ACK timestamps)
            timestamps: true,
            ack_hold: true,
            hops: true,
            ..Needs::default()
        }
    }
}

pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

/// Counters of Swift's decisions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwiftStats {
    pub increases: u64,
    pub decreases: u64,
    /// Samples above target while a decrease was held (once per RTT).
    pub held: u64,
    pub loss_decreases: u64,
    pub resets: u64,
}

pub struct Swift {
    p: Params,
    /// Switches the flow's data crosses.
    hops: u32,
    /// Fabric and endpoint windows, packets (None until the first ACK: the
    /// sender's initial window).
    fcwnd: f64,
    ecwnd: f64,
    started: bool,
    last_decrease: Option<Time>,
    retransmit_cnt: u32,
    /// The last fabric delay and target, for the trace.
    last_delay: Time,
    pub stats: SwiftStats,
}

impl Swift {
    pub fn new(p: Params) -> Swift {
        Swift {
            p,
            hops: 0,
            fcwnd: 1.0,
            ecwnd: p.max_cwnd,
            started: false,
            last_decrease: None,
            retransmit_cnt: 0,
            last_delay: Time::ZERO,
            stats: SwiftStats::default(),
        }
    }
    /// The window, packets: min(fcwnd, ecwnd).
    pub fn cwnd(&self) -> f64 {
        self.fcwnd.min(self.ecwnd)
    }
    pub fn fcwnd(&self) -> f64 {
        self.fcwnd
    }
    pub fn ecwnd(&self) -> f64 {
        self.ecwnd
    }

    /// Flow-based scaling (§3.5) at window `cwnd` (packets).
    pub fn flow_scaling(&self, cwnd: f64) -> f64 {
        let p = &self.p;
        let (lo, hi) = (1.0 / p.fs_min_cwnd.sqrt(), 1.0 / p.fs_max_cwnd.sqrt());
        let range = p.fs_range.0 as f64;
        (range * (1.0 / cwnd.sqrt() - hi) / (lo - hi)).clamp(0.0, range)
    }

    /// The fabric target delay (§3.4–3.5) at the current fabric window, ns.
    pub fn target(&self) -> f64 {
        self.p.base_target.0 as f64 + self.hops as f64 * self.p.hop_scale.0 as f64 + self.flow_scaling(self.fcwnd)
    }

    fn can_decrease(&self, now: Time, rtt: Time) -> bool {
        self.last_decrease.is_none_or(|t| now.saturating_sub(t) >= rtt)
    }

    /// Algorithm 1's update of one window `w` for `delay` against `target`.
    fn update(p: &Params, w: f64, acked: f64, delay: f64, target: f64, can_decrease: bool) -> (f64, bool) {
        if delay < target {
            let w = if w >= 1.0 {
                w + p.ai * acked / w
            } else {
                w + p.ai * acked
            };
            (w, false)
        } else if can_decrease {
            let f = (1.0 - p.beta * (delay - target) / delay).max(1.0 - p.max_mdf);
            (w * f, true)
        } else {
            (w, false)
        }
    }

    fn clamp(&mut self) {
        self.fcwnd = self.fcwnd.clamp(self.p.min_cwnd, self.p.max_cwnd);
        self.ecwnd = self.ecwnd.clamp(self.p.min_cwnd, self.p.max_cwnd);
    }

    /// One ACK of `acked` packets with RTT `rtt`, of which the receiver held
    /// the segment `hold`, at `now`; `srtt` times the once-per-RTT decrease.
    pub fn on_sample(&mut self, now: Time, acked: f64, rtt: Time, hold: Time, srtt: Time) {
        self.retransmit_cnt = 0;
        let can = self.can_decrease(now, srtt);
        let fabric = rtt.saturating_sub(hold);
        self.last_delay = fabric;
        let target = self.target();
        let (f, fd) = Self::update(&self.p, self.fcwnd, acked, fabric.0 as f64, target, can);
        let et = self.p.endpoint_target.0 as f64;
        let (e, ed) = Self::update(&self.p, self.ecwnd, acked, hold.0 as f64, et, can);
        (self.fcwnd, self.ecwnd) = (f, e);
        self.clamp();
        if fd || ed {
            self.stats.decreases += 1;
            self.last_decrease = Some(now);
        } else if fabric.0 as f64 >= target && !can {
            self.stats.held += 1;
        } else {
            self.stats.increases += 1;
        }
    }

    /// A retransmission timeout (Algorithm 1).
    pub fn on_timeout(&mut self, now: Time, srtt: Time) {
        self.retransmit_cnt += 1;
        if self.retransmit_cnt >= self.p.retx_reset {
            self.stats.resets += 1;
            self.fcwnd = self.p.min_cwnd;
            self.ecwnd = self.ecwnd.min(self.p.min_cwnd);
        } else {
            self.loss_decrease(now, srtt);
        }
        self.clamp();
    }

    /// A fast recovery (Algorithm 1).
    pub fn on_fast_recovery(&mut self, now: Time, srtt: Time) {
        self.retransmit_cnt = 0;
        self.loss_decrease(now, srtt);
        self.clamp();
    }

    fn loss_decrease(&mut self, now: Time, srtt: Time) {
        if self.can_decrease(now, srtt) {
            self.stats.loss_decreases += 1;
            self.fcwnd *= 1.0 - self.p.max_mdf;
            self.ecwnd *= 1.0 - self.p.max_mdf;
            self.last_decrease = Some(now);
        }
    }

    /// Writes the window into the sender's state: at least one segment, and
    /// below one packet a pacing rate of cwnd·mss per srtt.
    fn write(&self, s: &mut CcState) {
        let w = self.cwnd();
        s.cwnd = ((w.max(1.0) * s.mss as f64) as u64).max(s.mss);
        s.pacing_rate = match s.srtt.filter(|t| *t > Time::ZERO) {
            Some(srtt) if w < 1.0 => ((w * s.mss as f64 / srtt.as_secs_f64()) as u64).max(1),
            _ => 0,
        };
    }

    fn start(&mut self, s: &CcState) {
        if !self.started {
            self.started = true;
            self.fcwnd = (s.cwnd as f64 / s.mss as f64).clamp(self.p.min_cwnd, self.p.max_cwnd);
        }
    }
}

fn srtt_or(s: &CcState, rtt: Time) -> Time {
    s.srtt.unwrap_or(rtt)
}

impl CongestionOps for Swift {
    fn name(&self) -> &'static str {
        "swift"
    }
    fn set_hops(&mut self, hops: u32) {
        self.hops = hops;
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        // The window after a loss is set in `cwnd_event` (EnterRecovery).
        s.cwnd
    }
    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {}
    fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
        self.start(s);
        let Some(rtt) = a.rtt.filter(|_| a.acked > 0) else {
            return false;
        };
        let acked = a.acked as f64 / s.mss as f64;
        self.on_sample(s.now, acked, rtt, a.hold, srtt_or(s, rtt));
        self.write(s);
        true
    }
    fn cwnd_event(&mut self, s: &mut CcState, ev: CaEvent) {
        self.start(s);
        let srtt = s.srtt.unwrap_or(Time::ZERO);
        match ev {
            CaEvent::Timeout => self.on_timeout(s.now, srtt),
            CaEvent::EnterRecovery => self.on_fast_recovery(s.now, srtt),
            _ => {}
        }
        self.write(s);
    }
    fn controls_window(&self) -> bool {
        true
    }
    fn paces(&self) -> bool {
        true
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("swift_cwnd", self.cwnd()))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("increases", self.stats.increases as f64),
            ("decreases", self.stats.decreases as f64),
            ("held", self.stats.held as f64),
            ("loss_decreases", self.stats.loss_decreases as f64),
            ("resets", self.stats.resets as f64),
            ("hops", self.hops as f64),
            ("target_us", self.target() / 1e3),
            ("fcwnd", self.fcwnd),
            ("ecwnd", self.ecwnd),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    fn us(x: u64) -> Time {
        Time::from_micros(x)
    }
    fn swift(cwnd: f64, hops: u32) -> Swift {
        let mut s = Swift::new(Params::default());
        s.started = true;
        s.fcwnd = cwnd;
        s.hops = hops;
        s
    }

    /// Target = 20 µs + hops·3.053 µs + fs(cwnd): fs = 100 µs at 0.1
    /// packets (and below), 0 at 100 (and above); at 1 packet
    /// 100·(1 − 0.1)/(√10 − 0.1) = 29.39 µs; at 25 packets
    /// 100·(0.2 − 0.1)/(√10 − 0.1) = 3.266 µs.
    #[test]
    fn target_scales_with_hops_and_window() {
        let k = 100_000.0 / (10f64.sqrt() - 0.1);
        let cases = [
            (0.05, 0, 20_000.0 + 100_000.0),
            (0.1, 0, 120_000.0),
            (1.0, 0, 20_000.0 + 0.9 * k),
            (25.0, 3, 20_000.0 + 3.0 * 3_053.0 + 0.1 * k),
            (100.0, 5, 20_000.0 + 5.0 * 3_053.0),
            (400.0, 1, 23_053.0),
        ];
        for (cwnd, hops, want) in cases {
            let t = swift(cwnd, hops).target();
            assert!((t - want).abs() < 1e-6, "cwnd {cwnd} hops {hops}: {t} vs {want}");
        }
        assert!((0.9 * k - 29_390.0).abs() < 1.0);
    }

    /// Below target: +ai·acked/cwnd (cwnd ≥ 1), +ai·acked (cwnd < 1).
    #[test]
    fn additive_increase_per_ack() {
        let mut s = swift(50.0, 0);
        s.on_sample(us(100), 1.0, us(10), Time::ZERO, us(10));
        assert!((s.fcwnd() - 50.02).abs() < 1e-12);
        // A window's worth of ACKs: about one packet more.
        let mut s = swift(10.0, 0);
        for k in 0..10 {
            s.on_sample(us(100 + k), 1.0, us(10), Time::ZERO, us(10));
        }
        assert!((s.fcwnd() - 10.0).abs() > 0.9 && s.fcwnd() < 11.0, "{}", s.fcwnd());
        let mut s = swift(0.5, 0);
        s.on_sample(us(100), 1.0, us(10), Time::ZERO, us(10));
        assert_eq!(s.fcwnd(), 1.5);
        assert_eq!(s.stats.increases, 1);
    }

    /// Above target: cwnd ·= 1 − β(delay − target)/delay, once per RTT. At
    /// 100 packets, 0 hops, target 20 µs; delay 25 µs: 1 − 0.8·5/25 = 0.84.
    #[test]
    fn multiplicative_decrease_once_per_rtt() {
        let mut s = swift(100.0, 0);
        s.on_sample(us(1000), 1.0, us(25), Time::ZERO, us(30));
        assert!((s.fcwnd() - 84.0).abs() < 1e-9, "{}", s.fcwnd());
        // Within the RTT (30 µs) of that decrease: held.
        s.on_sample(us(1029), 1.0, us(25), Time::ZERO, us(30));
        assert!((s.fcwnd() - 84.0).abs() < 1e-9);
        assert_eq!(s.stats.held, 1);
        // One RTT later: decreases again (target at 84 packets: fs > 0).
        let t = s.target();
        s.on_sample(us(1030), 1.0, us(25), Time::ZERO, us(30));
        let f = 1.0 - 0.8 * (25_000.0 - t) / 25_000.0;
        assert!((s.fcwnd() - 84.0 * f).abs() < 1e-9);
        assert_eq!(s.stats.decreases, 2);
    }

    /// A delay far above target is cut by at most max_mdf: 1 − 0.8·(1000 −
    /// 20)/1000 = 0.216 < 0.5, so the factor is 0.5.
    #[test]
    fn decrease_is_clamped_by_max_mdf() {
        let mut s = swift(100.0, 0);
        s.on_sample(us(1000), 1.0, us(1000), Time::ZERO, us(30));
        assert_eq!(s.fcwnd(), 50.0);
    }

    /// The endpoint window follows the receiver's hold against its own
    /// target; the fabric delay is the RTT less the hold; cwnd is the min.
    #[test]
    fn endpoint_window_and_fabric_delay_are_separate() {
        let mut s = swift(100.0, 0);
        s.ecwnd = 100.0;
        // RTT 60 µs of which 50 µs held: fabric 10 µs < 20 µs (grow),
        // endpoint 50 µs > 20 µs: 1 − 0.8·30/50 = 0.52.
        s.on_sample(us(1000), 1.0, us(60), us(50), us(30));
        assert!((s.fcwnd() - 100.01).abs() < 1e-12);
        assert!((s.ecwnd() - 52.0).abs() < 1e-9);
        assert_eq!(s.cwnd(), s.ecwnd());
    }

    /// Below one packet the sender's window is one segment, paced at
    /// cwnd·mss/srtt: cwnd 0.25 and srtt 100 µs → 2.5 MB/s, one 1000-B
    /// packet per 400 µs = srtt/cwnd.
    #[test]
    fn below_one_packet_the_window_is_paced() {
        let s = swift(0.25, 0);
        let mut st = CcState::for_test(MSS, 5 * MSS, u64::MAX);
        st.srtt = Some(us(100));
        s.write(&mut st);
        assert_eq!((st.cwnd, st.pacing_rate), (MSS, 2_500_000));
        assert_eq!(Time::from_secs_f64(MSS as f64 / st.pacing_rate as f64), us(400));
        let s = swift(3.5, 0);
        s.write(&mut st);
        assert_eq!((st.cwnd, st.pacing_rate), (3500, 0));
    }

    /// Timeouts: (1 − max_mdf) once per RTT, min_cwnd at the fifth in a
    /// row; a sample resets the count; fast recovery halves once per RTT.
    #[test]
    fn losses_follow_algorithm_1() {
        let mut s = swift(40.0, 0);
        s.on_timeout(us(100), us(30));
        assert_eq!(s.fcwnd(), 20.0);
        s.on_timeout(us(110), us(30)); // within the RTT: held
        assert_eq!(s.fcwnd(), 20.0);
        s.on_timeout(us(200), us(30));
        s.on_timeout(us(300), us(30));
        assert_eq!(s.fcwnd(), 5.0);
        s.on_timeout(us(400), us(30));
        assert_eq!(s.fcwnd(), 0.001);
        assert_eq!(s.stats.resets, 1);
        let mut s = swift(40.0, 0);
        for k in 0..4 {
            s.on_timeout(us(100 * (k + 1)), us(30));
        }
        s.on_sample(us(500), 1.0, us(5), Time::ZERO, us(30));
        s.on_timeout(us(600), us(30));
        assert_eq!(s.stats.resets, 0, "the sample reset the count");
        let mut s = swift(40.0, 0);
        s.on_fast_recovery(us(100), us(30));
        s.on_fast_recovery(us(120), us(30));
        assert_eq!(s.fcwnd(), 20.0);
    }

    #[test]
    fn windows_stay_within_bounds() {
        let mut s = swift(999.9, 0);
        for k in 0..100 {
            s.on_sample(us(k), 10.0, us(1), Time::ZERO, us(30));
        }
        assert_eq!(s.fcwnd(), 1000.0);
        let mut s = swift(0.0011, 0);
        s.on_sample(us(100), 1.0, us(10_000), Time::ZERO, us(30));
        assert_eq!(s.fcwnd(), 0.001);
    }
}
