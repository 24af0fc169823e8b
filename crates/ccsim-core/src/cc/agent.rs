//! A window or rate set from outside the run (`cc = "agent"`): the flow a
//! learning controller drives through [`crate::session::Session`] (the
//! Gymnasium environments of `ccsim.gym`, docs/gym.md). Between two decision
//! points the engine runs alone, as with any built-in module; this module
//! only applies the last action on every ACK and sums what the ACKs told it
//! over the interval (acknowledged bytes, ACKs and ECN-Echo ACKs, RTT
//! samples), so no Python runs per packet. Its decisions are the caller's:
//! it neither grows nor reduces the window by itself. Before the first
//! action the window stays at the sender's initial window; on a loss it is
//! kept (the controller sees the losses and answers them); after a timeout
//! the sender restarts from one segment and the next ACK restores the
//! controller's window, as `cong_control` does for BBR (Linux
//! `tcp_congestion_ops.cong_control`, which these hooks mirror).
//!
//! An action is a window (bytes) or a pacing rate (payload bytes/s): with a
//! rate the window is 2 × rate × the smoothed RTT (at least 4 segments; the
//! initial window until an RTT is known), so pacing and not the window limits
//! the flow, as in Aurora's rate-based sender (Jay et al., "A Deep
//! Reinforcement Learning Perspective on Internet Congestion Control", ICML
//! 2019, §3: the action changes the sending rate once per monitor interval).

use super::{AckSample, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use std::sync::{Arc, Mutex};

/// What the controller asked for last.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Action {
    /// No action yet: the initial window, unpaced.
    #[default]
    None,
    /// A congestion window in bytes, unpaced.
    Window(u64),
    /// A pacing rate in payload bytes per second.
    Rate(u64),
}

/// What the ACKs of one interval told the sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interval {
    /// Bytes newly acknowledged (cumulatively).
    pub acked: u64,
    pub acks: u64,
    /// ACKs carrying ECN-Echo.
    pub ece_acks: u64,
    /// RTT samples: their count, sum, minimum and the last one.
    pub rtt_n: u64,
    pub rtt_sum: Time,
    pub rtt_min: Option<Time>,
    pub rtt_last: Option<Time>,
}

impl Interval {
    fn add(&mut self, a: &AckSample) {
        self.acked += a.acked;
        self.acks += 1;
        self.ece_acks += a.ece as u64;
        if let Some(r) = a.rtt {
            self.rtt_n += 1;
            self.rtt_sum += r;
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
            self.rtt_last = Some(r);
        }
    }
}

/// The state the controller and the sender share: the action in force and
/// the interval being summed.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    pub action: Action,
    pub interval: Interval,
}

/// The handle a session keeps of one agent's flow.
pub type Handle = Arc<Mutex<Shared>>;

/// The module in a sender.
pub struct Agent {
    shared: Handle,
}

impl Agent {
    pub fn new() -> Agent {
        Agent {
            shared: Handle::default(),
        }
    }
    /// The shared state, for the session that drives this flow.
    pub fn handle(&self) -> Handle {
        self.shared.clone()
    }
}

impl Default for Agent {
    fn default() -> Self {
        Agent::new()
    }
}

/// The window a rate needs so that pacing, not the window, limits the flow.
fn rate_window(s: &CcState, rate: u64) -> Option<u64> {
    let srtt = s.srtt?;
    let w = (2 * rate as u128 * srtt.as_nanos() as u128 / 1_000_000_000) as u64;
    Some(w.max(4 * s.mss))
}

impl CongestionOps for Agent {
    fn name(&self) -> &'static str {
        "agent"
    }
    /// No reduction of its own: the window stays as the controller set it.
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        s.cwnd.max(2 * s.mss)
    }
    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {}
    fn pkts_acked(&mut self, _s: &CcState, a: &AckSample) {
        self.shared.lock().expect("agent state").interval.add(a);
    }
    fn cong_control(&mut self, s: &mut CcState, _a: &AckSample) -> bool {
        let action = self.shared.lock().expect("agent state").action;
        match action {
            Action::None => false,
            Action::Window(w) => {
                s.cwnd = w.max(s.mss);
                s.ssthresh = s.cwnd;
                s.pacing_rate = 0;
                true
            }
            Action::Rate(r) => {
                s.pacing_rate = r.max(1);
                if let Some(w) = rate_window(s, r) {
                    s.cwnd = w;
                    s.ssthresh = w;
                }
                true
            }
        }
    }
    fn controls_window(&self) -> bool {
        true
    }
    fn paces(&self) -> bool {
        true
    }
    fn external(&self) -> Option<Handle> {
        Some(self.handle())
    }
}

#[derive(Debug)]
struct Spec;

impl CcSpec for Spec {
    fn name(&self) -> &'static str {
        "agent"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Agent::new())
    }
    /// RTT samples from every ACK (timestamps), so that an interval of a
    /// few milliseconds still has some.
    fn needs(&self) -> Needs {
        Needs {
            timestamps: true,
            ..Needs::default()
        }
    }
}

/// `cc = "agent"` (no keys of its own).
pub fn read(_t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Spec))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(acked: u64, rtt_ms: Option<u64>, ece: bool) -> AckSample {
        AckSample {
            acked,
            rtt: rtt_ms.map(Time::from_millis),
            ece,
            ..AckSample::default()
        }
    }

    /// The interval sums what the ACKs told: 3 ACKs of 1000 B with RTTs
    /// 30, 10, 20 ms (one without a sample), one with ECN-Echo.
    #[test]
    fn interval_sums_the_acks() {
        let mut a = Agent::new();
        let h = a.handle();
        let s = CcState::for_test(MSS, 10 * MSS, u64::MAX);
        for x in [
            ack(1000, Some(30), false),
            ack(1000, Some(10), true),
            ack(0, None, false),
            ack(1000, Some(20), false),
        ] {
            a.pkts_acked(&s, &x);
        }
        let iv = h.lock().unwrap().interval.clone();
        assert_eq!((iv.acked, iv.acks, iv.ece_acks, iv.rtt_n), (3000, 4, 1, 3));
        assert_eq!(iv.rtt_sum, Time::from_millis(60));
        assert_eq!(iv.rtt_min, Some(Time::from_millis(10)));
        assert_eq!(iv.rtt_last, Some(Time::from_millis(20)));
    }

    /// Without an action the sender keeps its window; a window action sets
    /// cwnd (at least one segment) and no pacing; a rate action paces at the
    /// rate with a window of 2 × rate × srtt (at least 4 segments).
    #[test]
    fn actions_set_window_and_rate() {
        let mut a = Agent::new();
        let h = a.handle();
        let mut s = CcState::for_test(MSS, 10 * MSS, u64::MAX);
        assert!(!a.cong_control(&mut s, &AckSample::default()));
        assert_eq!(s.cwnd, 10 * MSS);
        h.lock().unwrap().action = Action::Window(25_000);
        assert!(a.cong_control(&mut s, &AckSample::default()));
        assert_eq!((s.cwnd, s.pacing_rate), (25_000, 0));
        h.lock().unwrap().action = Action::Window(10);
        a.cong_control(&mut s, &AckSample::default());
        assert_eq!(s.cwnd, MSS);
        // 1.25 MB/s (10 Mbit/s) × 40 ms × 2 = 100 000 B.
        h.lock().unwrap().action = Action::Rate(1_250_000);
        s.srtt = Some(Time::from_millis(40));
        a.cong_control(&mut s, &AckSample::default());
        assert_eq!((s.cwnd, s.pacing_rate), (100_000, 1_250_000));
        h.lock().unwrap().action = Action::Rate(1000);
        a.cong_control(&mut s, &AckSample::default());
        assert_eq!((s.cwnd, s.pacing_rate), (4 * MSS, 1000));
        // A loss keeps the window.
        assert_eq!(a.ssthresh(&s), 4 * MSS);
    }
}
