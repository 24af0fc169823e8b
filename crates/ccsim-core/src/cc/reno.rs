//! Reno-style AIMD (RFC 5681 §3.1): slow start below ssthresh, +1 MSS per RTT
//! above, ssthresh = max(FlightSize/2, 2·SMSS) on loss. The same window rule
//! runs with three loss-recovery mechanics, which is what distinguishes the
//! classic variants: Tahoe (go-back-N from cwnd = 1, Jacobson 1988), Reno
//! (fast recovery, RFC 5681 §3.2) and NewReno (partial ACKs, RFC 6582).

use super::{halve_flight, reno_cong_avoid, CcState, CongestionOps, Recovery};

pub struct Reno {
    recovery: Recovery,
}

impl Reno {
    pub fn new(recovery: Recovery) -> Reno {
        Reno { recovery }
    }
}

impl CongestionOps for Reno {
    fn name(&self) -> &'static str {
        match self.recovery {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
        }
    }
    fn recovery(&self) -> Recovery {
        self.recovery
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        halve_flight(s)
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        reno_cong_avoid(s, acked);
    }
    /// Neither `pkts_acked` nor `cong_control`: the window moves only in
    /// `cong_avoid` and the loss responses.
    fn per_ack_hooks(&self) -> bool {
        false
    }
}
