//! BBR v1 (N. Cardwell, Y. Cheng, C. S. Gunn, S. Hassas Yeganeh,
//! V. Jacobson, "BBR: Congestion-Based Congestion Control", ACM Queue 14(5),
//! 2016 / CACM 60(2), 2017; draft-cardwell-iccrg-bbr-congestion-control-00;
//! reference implementations Linux `net/ipv4/tcp_bbr.c` (v1) and ns-3
//! `TcpBbr`). Spec of what is modelled: docs/models/bbr.md.
//!
//! * Model: BtlBw is a windowed max of the delivery-rate samples
//!   ([`super::rate`]) over `bw_window` = 10 round trips after the sample's
//!   own, as Linux's filter counts them (app-limited samples
//!   only when they raise it); RTprop the min RTT over `min_rtt_window` = 10 s.
//!   Rounds are counted from the samples' `prior_delivered` (Linux
//!   `next_rtt_delivered`).
//! * STARTUP: pacing and cwnd gain 2/ln 2 ≈ 2.885 until the pipe is full
//!   (BtlBw grew < 25 % for 3 non-app-limited rounds); DRAIN: pacing gain
//!   1/2.885 until in flight ≤ BDP; PROBE_BW: pacing gain cycling through
//!   [1.25, 0.75, 1, 1, 1, 1, 1, 1], one phase per RTprop (the 1.25 phase
//!   lasts until in flight reaches 1.25·BDP, the 0.75 phase ends early once
//!   in flight ≤ BDP; each "BDP" here with the quantization budget below, as
//!   Linux's `bbr_inflight`), starting at a random phase other than 0.75 (seeded),
//!   cwnd gain 2; PROBE_RTT: when RTprop has not been refreshed for 10 s,
//!   cwnd = 4 segments for max(200 ms, one round) once in flight has
//!   dropped to it, then back to PROBE_BW (or STARTUP without a full pipe).
//! * Pacing rate = pacing_gain × BtlBw × (1 − `pacing_margin`, 1 %: Linux
//!   `bbr_pacing_margin_percent`) (raised only, before the pipe is full;
//!   before any sample, high_gain × cwnd / srtt, with the margin, as Linux
//!   `bbr_init_pacing_rate_from_rtt`).
//! * cwnd = cwnd_gain × BDP + 3 segments (Linux `bbr_quantization_budget`
//!   with one-segment TSO bursts), rounded up to an even number of segments,
//!   plus 2 segments in the 1.25 phase; grows by the bytes each ACK delivers
//!   towards that target (freely until the pipe is full), at least 4
//!   segments.
//! * Loss (Linux `bbr_set_cwnd_to_recover_or_restore`): an ACK that marks
//!   segments lost takes them off cwnd; on entering
//!   recovery cwnd is saved and set to in flight + one segment, packet
//!   conservation (cwnd ≥ in flight + newly delivered) holds for one round,
//!   then the model's cwnd applies again; leaving recovery, or the loss
//!   state of a timeout (cwnd = 1 segment, regrowing by the delivered
//!   bytes), restores max(cwnd, saved cwnd). ssthresh is not lowered.
//!
//! Deviations: BtlBw's window max is exact (a monotonic deque) where Linux
//! keeps Nichols' three-sample approximation; no long-term (policer) bandwidth model
//! (`lt_bw`), no idle restart (ccsim's bulk senders never go idle). The
//! rate sample's `lost` (Linux `rs->losses`) ends a full-length 1.25 phase;
//! packet conservation enters with recovery, as in Linux. (ns-3's `TcpBbr`
//! reads a `m_bytesLoss` that is |Δ lost|, so there also a lost segment's
//! retransmission ends the probe.) ECN echoes are ignored (BBR v1).

use super::{AckSample, CaEvent, CcSpec, CcState, CongestionOps, Needs, RateSample};
use crate::cfg::{Res, Tab};
use crate::rng::Rng;
use crate::units::Time;
use std::collections::VecDeque;
use std::sync::Arc;

/// The PROBE_BW phase with the 0.75 gain (skipped as a start phase).
const DRAIN_PHASE: usize = 1;
const CYCLE_LEN: usize = 8;

/// Configuration (the scenario's `cc = {kind = "bbr", ...}` keys).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// STARTUP pacing and cwnd gain; 2/ln 2 (Linux `bbr_high_gain`).
    pub high_gain: f64,
    /// DRAIN pacing gain; ln 2 / 2 (Linux `bbr_drain_gain`).
    pub drain_gain: f64,
    /// cwnd gain in PROBE_BW; 2.
    pub cwnd_gain: f64,
    /// PROBE_BW's probing and draining gains; 1.25 and 0.75.
    pub probe_gain: f64,
    pub probe_drain_gain: f64,
    /// Rounds of the BtlBw max filter; 10.
    pub bw_window: u64,
    /// Length of the RTprop min filter; 10 s.
    pub min_rtt_window: Time,
    /// Minimum PROBE_RTT duration; 200 ms.
    pub probe_rtt_time: Time,
    /// Growth (factor) of BtlBw that counts as "still growing"; 1.25.
    pub full_bw_thresh: f64,
    /// Rounds without that growth that declare the pipe full; 3.
    pub full_bw_rounds: u64,
    /// The pacing rate is this fraction below gain × BtlBw; 0.01 (Linux
    /// `bbr_pacing_margin_percent`, ns-3 `m_pacingMargin`): it drains what a
    /// BtlBw sample above the bottleneck's rate (ACKs bunched by jitter or
    /// an access link) would otherwise queue for the filter's ten rounds.
    pub pacing_margin: f64,
}

impl Default for Params {
    fn default() -> Self {
        let high = 2.0 / std::f64::consts::LN_2;
        Params {
            high_gain: high,
            drain_gain: 1.0 / high,
            cwnd_gain: 2.0,
            probe_gain: 1.25,
            probe_drain_gain: 0.75,
            bw_window: 10,
            min_rtt_window: Time::from_secs(10),
            probe_rtt_time: Time::from_millis(200),
            full_bw_thresh: 1.25,
            full_bw_rounds: 3,
            pacing_margin: 0.01,
        }
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    ("high_gain", "BBR STARTUP pacing and cwnd gain (> 0; 2/ln 2)"),
    ("drain_gain", "BBR DRAIN pacing gain (> 0; ln 2 / 2)"),
    ("cwnd_gain", "BBR PROBE_BW cwnd gain (> 0; 2)"),
    ("probe_gain", "BBR PROBE_BW probing pacing gain (> 0; 1.25)"),
    ("probe_drain_gain", "BBR PROBE_BW draining pacing gain (> 0; 0.75)"),
    ("bw_window", "BBR BtlBw max-filter window, round trips (10)"),
    ("min_rtt_window", "BBR RTprop min-filter window (10 s)"),
    ("probe_rtt_time", "BBR PROBE_RTT minimum duration (200 ms)"),
    (
        "full_bw_thresh",
        "BBR full pipe: BtlBw growth factor per round still counted as growth (1.25)",
    ),
    ("full_bw_rounds", "BBR full pipe: rounds without that growth (3)"),
    (
        "pacing_margin",
        "BBR paces this fraction below gain × BtlBw (0.01, Linux bbr_pacing_margin_percent)",
    ),
];

impl Params {
    /// Reads the module's keys; every gain must be > 0 (in [0.01, 100]).
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(DOCS);
        let d = Params::default();
        let gain = |t: &mut Tab, key, v| t.float(key, Some(v), 0.01, 100.0);
        let p = Params {
            high_gain: gain(t, "high_gain", d.high_gain)?,
            drain_gain: gain(t, "drain_gain", d.drain_gain)?,
            cwnd_gain: gain(t, "cwnd_gain", d.cwnd_gain)?,
            probe_gain: gain(t, "probe_gain", d.probe_gain)?,
            probe_drain_gain: gain(t, "probe_drain_gain", d.probe_drain_gain)?,
            bw_window: t.uint("bw_window", Some(d.bw_window), 1, 1000)?,
            min_rtt_window: t.time("min_rtt_window", Some("10s"))?,
            probe_rtt_time: t.time("probe_rtt_time", Some("200ms"))?,
            full_bw_thresh: t.float("full_bw_thresh", Some(d.full_bw_thresh), 1.0, 10.0)?,
            full_bw_rounds: t.uint("full_bw_rounds", Some(d.full_bw_rounds), 1, 100)?,
            pacing_margin: t.float("pacing_margin", Some(d.pacing_margin), 0.0, 0.5)?,
        };
        if p.min_rtt_window == Time::ZERO {
            return Err(t.error(
                "min_rtt_window",
                &serde_json::Value::from("0s"),
                "a positive time such as \"10s\"",
            ));
        }
        Ok(p)
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Bbr::new(self.clone()))
    }
    /// SACK by default, as Linux and ns-3 run BBR (recovery sees in flight).
    fn needs(&self) -> Needs {
        Needs {
            sack: true,
            ..Needs::default()
        }
    }
}

/// BBR's state machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    /// The number the `cc` statistics and tests use (Linux `bbr_mode`).
    pub fn code(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// Sliding-window maximum of (round, value): a sample of round r counts
/// through round r + `window` (Linux `minmax_running_max` and ns-3's
/// `WindowedFilter` expire it once `round − r > window`). Exact, where
/// Linux keeps Nichols' three-sample approximation.
#[derive(Clone, Debug, Default)]
struct MaxFilter {
    q: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    fn update(&mut self, round: u64, v: f64, window: u64) {
        while self.q.back().is_some_and(|&(_, x)| x <= v) {
            self.q.pop_back();
        }
        self.q.push_back((round, v));
        self.expire(round, window);
    }
    fn expire(&mut self, round: u64, window: u64) {
        while self.q.front().is_some_and(|&(r, _)| round.saturating_sub(r) > window) {
            self.q.pop_front();
        }
    }
    fn get(&self) -> f64 {
        self.q.front().map_or(0.0, |&(_, v)| v)
    }
}

pub struct Bbr {
    p: Params,
    mode: Mode,
    bw: MaxFilter,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    round_count: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_cnt: u64,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    pacing_gain: f64,
    cwnd_gain: f64,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    packet_conservation: bool,
    in_recovery: bool,
    has_seen_rtt: bool,
    rng: Rng,
    // statistics
    probe_rtts: u64,
    pacing_rate: u64,
}

impl Bbr {
    pub fn new(p: Params) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            round_count: 0,
            next_rtt_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            packet_conservation: false,
            in_recovery: false,
            has_seen_rtt: false,
            rng: Rng::new(0, 0),
            probe_rtts: 0,
            pacing_rate: 0,
            p,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// BtlBw in payload bytes/s (0 before the first sample).
    pub fn btl_bw(&self) -> f64 {
        self.bw.get()
    }
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    fn cycle_gain(&self, idx: usize) -> f64 {
        match idx {
            0 => self.p.probe_gain,
            DRAIN_PHASE => self.p.probe_drain_gain,
            _ => 1.0,
        }
    }

    /// gain × BtlBw × RTprop in bytes (Linux `bbr_bdp` without the budget);
    /// 10 segments before RTprop is known (`TCP_INIT_CWND`).
    fn bdp(&self, mss: u64, gain: f64) -> u64 {
        match self.min_rtt {
            Some(rtt) if self.bw.get() > 0.0 => (gain * self.bw.get() * rtt.as_secs_f64()).ceil() as u64,
            _ => 10 * mss,
        }
    }

    /// Linux `bbr_quantization_budget`: + 3 segments, an even number of
    /// segments, + 2 in the probing phase.
    fn target(&self, mss: u64, gain: f64) -> u64 {
        let mut segs = self.bdp(mss, gain).div_ceil(mss) + 3;
        segs += segs % 2;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            segs += 2;
        }
        segs * mss
    }

    /// Linux `bbr_update_bw`: a sample without a valid rate (an interval
    /// below the minimum RTT) neither counts a round nor enters the filter.
    fn update_bw(&mut self, s: &CcState, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate() else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = s.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.bw.expire(self.round_count, self.p.bw_window);
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(self.round_count, bw, self.p.bw_window);
        }
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
        self.pacing_gain = self.cycle_gain(self.cycle_idx);
    }

    /// Linux `bbr_is_next_cycle_phase`; `inflight`: bytes in flight before
    /// this ACK. The thresholds are `bbr_inflight`'s, with the quantization
    /// budget ([`Self::target`]), as in Linux and ns-3's `InFlight`: the
    /// probe runs until 1.25·BDP + 5 segments are in flight, the drain ends
    /// at BDP + 3.
    fn update_cycle_phase(&mut self, s: &CcState, rs: &RateSample, inflight: u64) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self.min_rtt.is_some_and(|m| s.now - self.cycle_stamp > m);
        let next = if self.pacing_gain > 1.0 {
            // "perhaps pacing_gain × BDP won't fit": a loss also ends the probe.
            full_length && (rs.lost > 0 || inflight >= self.target(s.mss, self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            full_length || inflight <= self.target(s.mss, 1.0)
        } else {
            full_length
        };
        if next {
            self.advance_cycle(s.now);
        }
    }

    fn reset_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.p.cwnd_gain;
        // Linux: cycle_idx = CYCLE_LEN − 1 − rand(CYCLE_LEN − 1), then one
        // advance: a start phase among all but the 0.75 one.
        let r = (self.rng.next_u64() % (CYCLE_LEN as u64 - 1)) as usize;
        self.cycle_idx = CYCLE_LEN - 1 - r;
        self.advance_cycle(now);
    }

    fn check_full_bw(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw = self.bw.get();
        if bw >= self.full_bw * self.p.full_bw_thresh {
            self.full_bw = bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_rounds;
    }

    fn check_drain(&mut self, s: &CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = self.p.drain_gain;
            self.cwnd_gain = self.p.high_gain;
        }
        // Linux `bbr_check_drain`: in flight ≤ `bbr_inflight(bw, 1)`, budget included.
        if self.mode == Mode::Drain && s.pipe <= self.target(s.mss, 1.0) {
            self.reset_probe_bw(s.now);
        }
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        self.prior_cwnd = if self.in_recovery || self.mode == Mode::ProbeRtt {
            self.prior_cwnd.max(cwnd)
        } else {
            cwnd
        };
    }

    fn update_min_rtt(&mut self, s: &mut CcState, rtt: Option<Time>) {
        if self.min_rtt.is_none() && s.min_rtt.is_some() {
            // The filter starts from the connection's minimum RTT so far (Linux
            // `bbr_init`: `tcp_min_rtt`; ns-3: the SRTT at the first CA_OPEN): with
            // a `handshake`, the SYN's, which no full-sized segment's RTT renews.
            // (Linux and ns-3 stamp it when the connection opens, here at the
            // first ACK, a round trip later.)
            self.min_rtt = s.min_rtt;
            self.min_rtt_stamp = s.now;
        }
        let expired = s.now > self.min_rtt_stamp + self.p.min_rtt_window;
        if let Some(r) = rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = s.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.save_cwnd(s.cwnd);
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done = None;
            self.probe_rtts += 1;
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done {
                None if s.pipe <= 4 * s.mss => {
                    self.probe_rtt_done = Some(s.now + self.p.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = s.delivered;
                }
                None => {}
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && s.now > done {
                        self.min_rtt_stamp = s.now;
                        s.cwnd = s.cwnd.max(self.prior_cwnd);
                        if self.full_bw_reached {
                            self.reset_probe_bw(s.now);
                        } else {
                            self.mode = Mode::Startup;
                            self.pacing_gain = self.p.high_gain;
                            self.cwnd_gain = self.p.high_gain;
                        }
                    }
                }
            }
        }
    }

    fn set_pacing_rate(&mut self, s: &mut CcState) {
        if !self.has_seen_rtt {
            if let Some(srtt) = s.srtt.filter(|t| *t > Time::ZERO) {
                self.has_seen_rtt = true;
                let r = self.p.high_gain * s.cwnd.max(s.mss) as f64 / srtt.as_secs_f64();
                self.pacing_rate = (r * (1.0 - self.p.pacing_margin)) as u64;
            }
        }
        let rate = (self.pacing_gain * self.bw.get() * (1.0 - self.p.pacing_margin)) as u64;
        if rate > 0 && (self.full_bw_reached || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
        s.pacing_rate = self.pacing_rate;
    }

    /// Linux `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`'s
    /// per-ACK part: an ACK that marks `lost` bytes lost takes them off cwnd
    /// (at least one segment stays).
    fn set_cwnd(&mut self, s: &mut CcState, acked: u64, lost: u64) {
        let min_cwnd = 4 * s.mss;
        if acked > 0 {
            if lost > 0 {
                s.cwnd = s.cwnd.saturating_sub(lost).max(s.mss);
            }
            if self.packet_conservation {
                s.cwnd = s.cwnd.max(s.pipe + acked);
            } else {
                let target = self.target(s.mss, self.cwnd_gain);
                if self.full_bw_reached {
                    s.cwnd = (s.cwnd + acked).min(target);
                } else if s.cwnd < target || s.delivered < 10 * s.mss {
                    s.cwnd += acked;
                }
                s.cwnd = s.cwnd.max(min_cwnd);
            }
        }
        if self.mode == Mode::ProbeRtt {
            s.cwnd = s.cwnd.min(min_cwnd);
        }
    }
}

impl CongestionOps for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn init(&mut self, seed: u64, _flow: crate::packet::FlowId) {
        self.rng = Rng::new(seed, 0);
    }
    /// BBR does not lower ssthresh on loss (Linux `bbr_undo_cwnd` /
    /// `tcp_bbr_ssthresh` keep it); it saves cwnd for the end of recovery.
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        self.save_cwnd(s.cwnd);
        s.cwnd
    }
    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {}
    fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
        let acked = a.rate.map_or(a.acked, |r| r.newly_delivered);
        if let Some(rs) = a.rate.as_ref() {
            self.update_bw(s, rs);
            self.update_cycle_phase(s, rs, s.pipe + acked);
            self.check_full_bw(rs);
            self.check_drain(s);
        }
        let rtt = a.rate.and_then(|r| r.rtt).or(a.rtt);
        self.update_min_rtt(s, rtt);
        self.set_pacing_rate(s);
        self.set_cwnd(s, acked, a.rate.map_or(0, |r| r.lost));
        true
    }
    fn ecn_echo(&mut self, _s: &CcState) -> Option<u64> {
        None
    }
    fn cwnd_event(&mut self, s: &mut CcState, ev: CaEvent) {
        match ev {
            CaEvent::EnterRecovery => {
                // Packet conservation for one round (Linux
                // `bbr_set_cwnd_to_recover_or_restore`).
                self.in_recovery = true;
                self.packet_conservation = true;
                self.next_rtt_delivered = s.delivered;
                s.cwnd = (s.pipe + s.mss).max(s.mss);
            }
            CaEvent::ExitRecovery | CaEvent::ExitLoss => {
                self.in_recovery = false;
                self.packet_conservation = false;
                s.cwnd = s.cwnd.max(self.prior_cwnd);
            }
            CaEvent::Timeout => {
                self.in_recovery = false;
                self.packet_conservation = false;
                self.full_bw = 0.0;
                self.round_start = true;
            }
            CaEvent::EcnReduce => {}
        }
    }
    fn controls_window(&self) -> bool {
        true
    }
    fn rate_samples(&self) -> bool {
        true
    }
    fn paces(&self) -> bool {
        true
    }
    /// The pacing rate in payload bytes/s (the `cc_state` column).
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("pacing_rate", self.pacing_rate as f64))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("mode", self.mode.code()),
            ("btl_bw_bytes_per_s", self.bw.get()),
            ("min_rtt_s", self.min_rtt.map_or(f64::NAN, |t| t.secs())),
            ("rounds", self.round_count as f64),
            ("probe_rtts", self.probe_rtts as f64),
        ]
    }
}

/// The registry's reader.
pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The BtlBw filter: a sample leaves once `window` rounds have passed
    /// after its own (Linux `minmax`: `t − s.t > win`).
    #[test]
    fn max_filter_forgets_after_its_window() {
        let mut f = MaxFilter::default();
        f.update(1, 10.0, 10);
        f.update(2, 5.0, 10);
        f.update(5, 7.0, 10);
        assert_eq!(f.get(), 10.0);
        f.expire(11, 10);
        assert_eq!(f.get(), 10.0, "round 11 − 1 = 10 is not > 10");
        f.expire(12, 10);
        assert_eq!(f.get(), 7.0, "round 1 expired; 5.0 was dominated by 7.0");
        f.update(15, 1.0, 10);
        assert_eq!(f.get(), 7.0, "round 5 still counts at 15");
        f.update(16, 0.5, 10);
        assert_eq!(f.get(), 1.0, "round 5 expired at 16");
    }

    /// PROBE_BW starts at a random phase other than the 0.75 one (Linux
    /// `bbr_reset_probe_bw_mode`), every other phase being possible.
    #[test]
    fn probe_bw_never_starts_draining() {
        let mut seen = [0u32; CYCLE_LEN];
        for seed in 0..700 {
            let mut b = Bbr::new(Params::default());
            b.init(seed, crate::packet::FlowId(0));
            b.reset_probe_bw(Time::ZERO);
            seen[b.cycle_idx] += 1;
            assert_eq!(b.pacing_gain, b.cycle_gain(b.cycle_idx));
        }
        assert_eq!(seen[DRAIN_PHASE], 0);
        assert!(
            seen.iter().enumerate().all(|(i, &n)| i == DRAIN_PHASE || n > 60),
            "{seen:?}"
        );
    }

    /// cwnd target: 2 × BDP + 3 segments, even, + 2 in the probing phase.
    /// BtlBw 10⁶ B/s × RTprop 40 ms = 40 000 B = 40 segments: 2 × 40 + 3 =
    /// 83 → 84 segments.
    #[test]
    fn cwnd_target_is_gain_bdp_plus_quantization_budget() {
        let mut b = Bbr::new(Params::default());
        assert_eq!(b.target(1000, 2.0), 14_000, "10 segments before a model, + 3, even");
        b.bw.update(1, 1e6, 10);
        b.min_rtt = Some(Time::from_millis(40));
        assert_eq!(b.target(1000, 2.0), 84_000);
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 0;
        assert_eq!(b.target(1000, 2.0), 86_000);
    }

    /// A PROBE_BW flow, BtlBw 10⁶ B/s, RTprop 40 ms (BDP 40 segments of
    /// 1000 B), in the 1.25 phase since t = 0; cwnd 60 segments.
    fn probing() -> (Bbr, CcState) {
        let mut b = Bbr::new(Params::default());
        b.bw.update(1, 1e6, 10);
        b.round_count = 1;
        b.min_rtt = Some(Time::from_millis(40));
        b.min_rtt_stamp = Time::ZERO;
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cwnd_gain = 2.0;
        b.cycle_idx = 0;
        b.pacing_gain = 1.25;
        let s = CcState {
            now: Time::from_millis(50),
            mss: 1000,
            cwnd: 60_000,
            ssthresh: u64::MAX,
            flight: 45_000,
            cwnd_cnt: 0,
            byte_counting: true,
            srtt: Some(Time::from_millis(40)),
            min_rtt: Some(Time::from_millis(40)),
            pipe: 44_000,
            delivered: 100_000,
            pacing_rate: 0,
            stamp: 0.0,
        };
        (b, s)
    }

    fn sample(lost: u64, interval: Option<Time>) -> AckSample {
        AckSample {
            acked: 1000,
            rate: Some(RateSample {
                delivered: 40_000,
                interval,
                prior_delivered: 60_000,
                newly_delivered: 1000,
                lost,
                ..RateSample::default()
            }),
            ..AckSample::default()
        }
    }

    /// Linux `bbr_is_next_cycle_phase`: a full-length 1.25 phase goes on
    /// while in flight (45 segments before the ACK) is below `bbr_inflight`
    /// (1.25 × 40 + 3 → 54, + 2 = 56 segments) and ends on an ACK that marks
    /// a loss; `bbr_set_cwnd_to_recover_or_restore` takes the lost bytes off
    /// cwnd before the delivered ones are added (60 − 3 + 1 = 58 segments).
    #[test]
    fn a_loss_ends_the_probe_and_comes_off_cwnd() {
        let ms40 = Some(Time::from_millis(40));
        let (mut b, mut s) = probing();
        b.cong_control(&mut s, &sample(0, ms40));
        assert_eq!((b.cycle_idx, s.cwnd), (0, 61_000), "no loss: probing, cwnd + 1");
        let (mut b, mut s) = probing();
        b.cong_control(&mut s, &sample(3000, ms40));
        assert_eq!((b.cycle_idx, b.pacing_gain), (1, 0.75));
        assert_eq!(s.cwnd, 58_000);
        // In flight at the threshold ends it too.
        let (mut b, mut s) = probing();
        s.pipe = 55_000;
        b.cong_control(&mut s, &sample(0, ms40));
        assert_eq!(b.cycle_idx, 1);
    }

    /// Linux `bbr_update_bw`: a sample with no valid rate (interval below
    /// the minimum RTT) counts no round; a valid one from beyond the round's
    /// mark does.
    #[test]
    fn an_invalid_sample_counts_no_round() {
        let (mut b, mut s) = probing();
        b.next_rtt_delivered = 50_000;
        b.cong_control(&mut s, &sample(0, None));
        assert_eq!((b.round_count, b.round_start), (1, false));
        b.cong_control(&mut s, &sample(0, Some(Time::from_millis(40))));
        assert_eq!((b.round_count, b.round_start), (2, true));
        assert_eq!(b.next_rtt_delivered, s.delivered);
    }

    /// Full pipe: three rounds in a row without 25 % growth of BtlBw.
    #[test]
    fn full_pipe_after_three_flat_rounds() {
        let mut b = Bbr::new(Params::default());
        let rs = RateSample::default();
        b.round_start = true;
        for (bw, full) in [
            (100.0, false),
            (130.0, false),
            (140.0, false),
            (150.0, false),
            (160.0, true),
        ] {
            b.bw.update(b.round_count, bw, 10);
            b.round_count += 1;
            b.check_full_bw(&rs);
            assert_eq!(b.full_bw_reached, full, "bw {bw}");
        }
    }
}
