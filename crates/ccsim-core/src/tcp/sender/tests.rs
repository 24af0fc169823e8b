//! Unit tests of the TCP sender: hand-worked ACK sequences, each named after
//! the clause it checks (RFC 5681 slow start, congestion avoidance, fast
//! retransmit and recovery, §3.1 timeouts during recovery; RFC 6582 NewReno
//! partial ACKs and the §4 "bugfix"; RFC 6298 timeouts and Karn's rule; RFC
//! 3042 limited transmit; RFC 3168 ECN; RFC 6675 SACK recovery; RFC 7323 RTT
//! samples; ns-2's packet-counted windows and `overhead_` jitter).

use super::*;
use crate::cc::{by_name, AckSample};
use crate::packet::{flags, Ecn, Kind, Packet};
use crate::tcp::EndpointCtx;

const MSS: u64 = 1000;

struct Harness {
    s: TcpSender,
    now: Time,
    sent: Vec<Packet>,
}

impl Harness {
    fn new(cc: &str, init_cwnd: u32, p: impl FnOnce(&mut SendParams)) -> Harness {
        Harness::with_cc(by_name(cc).unwrap(), init_cwnd, p)
    }
    fn with_cc(cc: Box<dyn CongestionOps>, init_cwnd: u32, p: impl FnOnce(&mut SendParams)) -> Harness {
        let mut params = SendParams {
            mss: MSS as u32,
            init_cwnd,
            ..SendParams::default()
        };
        p(&mut params);
        let mut s = TcpSender::new(params, cc, FlowId(0), NodeId(0), NodeId(1), Rng::new(7, 0));
        let mut sent = Vec::new();
        s.start(&mut EndpointCtx {
            now: Time::ZERO,
            out: &mut sent,
        });
        Harness {
            s,
            now: Time::ZERO,
            sent,
        }
    }
    fn at(&mut self, ms: u64) -> &mut Self {
        self.now = Time::from_millis(ms);
        self
    }
    fn ack(&mut self, ack: u64, f: impl FnOnce(&mut Packet)) -> Vec<Packet> {
        let mut a = Packet::new(0, FlowId(0), NodeId(1), NodeId(0), 40, Kind::Ack, self.now);
        a.ack = ack;
        a.set_wnd(INFINITE);
        f(&mut a);
        let mut out = Vec::new();
        self.s.on_ack(
            &a,
            &mut EndpointCtx {
                now: self.now,
                out: &mut out,
            },
        );
        self.sent.extend(out.iter().cloned());
        out
    }
    fn timer(&mut self) -> Vec<Packet> {
        let mut out = Vec::new();
        self.s.on_timer(&mut EndpointCtx {
            now: self.now,
            out: &mut out,
        });
        out
    }
}

fn seqs(p: &[Packet]) -> Vec<u64> {
    p.iter().map(|p| p.seq).collect()
}

#[test]
fn rfc5681_slow_start_then_congestion_avoidance() {
    let mut h = Harness::new("newreno", 1, |p| p.init_ssthresh = 4 * MSS);
    assert_eq!(seqs(&h.sent), vec![0]);
    h.at(100);
    assert_eq!(seqs(&h.ack(1000, |_| ())), vec![1000, 2000], "cwnd 2");
    h.ack(2000, |_| ());
    h.ack(3000, |_| ());
    assert_eq!(h.s.cwnd(), 4 * MSS, "slow start stops at ssthresh");
    // Congestion avoidance: one MSS per cwnd of acknowledged bytes.
    for k in 4..8 {
        h.ack(k * MSS, |_| ());
    }
    assert_eq!(h.s.cwnd(), 5 * MSS);
}

#[test]
fn rfc5681_fast_retransmit_and_reno_recovery() {
    let mut h = Harness::new("reno", 10, |_| ());
    assert_eq!(h.sent.len(), 10);
    h.at(100);
    assert!(h.ack(0, |_| ()).is_empty());
    h.ack(0, |_| ());
    let out = h.ack(0, |_| ());
    assert_eq!(seqs(&out), vec![0], "3rd dupack retransmits snd_una");
    assert!(out[0].retx);
    assert_eq!(h.s.ssthresh(), 5 * MSS, "FlightSize/2");
    assert_eq!(h.s.window(), 8 * MSS, "ssthresh + 3 MSS");
    assert_eq!(h.s.cwnd(), 5 * MSS, "cwnd itself is not inflated");
    // Further dupacks inflate by one MSS; the 11th segment goes out when cwnd allows.
    h.ack(0, |_| ());
    h.ack(0, |_| ());
    let out = h.ack(0, |_| ());
    assert_eq!(h.s.window(), 11 * MSS);
    assert_eq!(seqs(&out), vec![10_000]);
    // Reno leaves recovery on the first new ACK, even a partial one.
    h.ack(3000, |_| ());
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 5 * MSS);
}

#[test]
fn rfc6582_newreno_partial_and_full_ack() {
    let mut h = Harness::new("newreno", 10, |_| ());
    h.at(100);
    // Segment 2000 is lost: a new ACK of 2000, then duplicates.
    for _ in 0..3 {
        h.ack(2000, |_| ());
    }
    let out = h.ack(2000, |_| ());
    assert_eq!(seqs(&out), vec![2000], "fast retransmit on the 3rd dupack");
    assert!(h.s.in_recovery());
    let recover = h.s.snd_max();
    // Partial ACK: retransmit the next hole, deflate, stay in recovery.
    let cwnd_before = h.s.window();
    let out = h.ack(5000, |_| ());
    assert_eq!(out.first().map(|p| p.seq), Some(5000));
    assert!(out[0].retx);
    assert!(h.s.in_recovery());
    assert_eq!(h.s.window(), cwnd_before - 3000 + MSS);
    // Full ACK: exit with cwnd = ssthresh (5.5 MSS), and the ACK itself
    // counts for congestion avoidance: it acknowledges 8 MSS ≥ cwnd, one
    // more MSS (RFC 3465 byte counting; ns-2 and Linux grow on it too).
    assert_eq!((h.s.ssthresh(), recover - 5000), (5500, 8000));
    h.ack(recover, |_| ());
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), h.s.ssthresh() + MSS);
}

/// RFC 6582 §3.2 step 4 resets the retransmission timer on the first partial
/// ACK only ("Impatient"); §4's "Slow-but-Steady" variant (ns-2's default,
/// `newreno_changes1_ 0`) resets it on every partial ACK.
#[test]
fn rfc6582_partial_ack_timer_impatient_and_slow_but_steady() {
    for every in [false, true] {
        let mut h = Harness::new("newreno", 10, |p| p.partial_timer_every = every);
        h.at(100);
        for _ in 0..4 {
            h.ack(2000, |_| ());
        }
        assert!(h.s.in_recovery());
        h.at(200);
        h.ack(4000, |_| ()); // first partial ACK: both restart the timer
        let first = h.s.next_wake().expect("timer armed");
        h.at(300);
        h.ack(6000, |_| ()); // second partial ACK
        assert!(h.s.in_recovery());
        let second = h.s.next_wake().expect("timer armed");
        if every {
            assert_eq!(second, first + Time::from_millis(100), "restarted at 300 ms");
        } else {
            assert_eq!(second, first, "left running from 200 ms");
        }
    }
}

#[test]
fn tahoe_goes_back_to_one_segment() {
    let mut h = Harness::new("tahoe", 8, |_| ());
    h.at(100);
    for _ in 0..2 {
        h.ack(0, |_| ());
    }
    let out = h.ack(0, |_| ());
    assert_eq!(seqs(&out), vec![0]);
    assert_eq!(h.s.cwnd(), MSS);
    assert_eq!(h.s.ssthresh(), 4 * MSS);
    // The next ACK slow-starts from one segment and re-sends from snd_una (go-back-N).
    let out = h.ack(1000, |_| ());
    assert_eq!(seqs(&out), vec![1000, 2000]);
    assert!(out.iter().all(|p| p.retx));
}

#[test]
fn rfc6298_timeout_backoff_and_loss_window() {
    let mut h = Harness::new("newreno", 4, |p| p.rtt.init_rto = Time::from_secs(1));
    assert_eq!(h.s.next_wake(), Some(Time::from_secs(1)), "RTO armed on first send");
    h.at(1000);
    let out = h.timer();
    assert_eq!(seqs(&out), vec![0], "retransmit snd_una");
    assert_eq!(h.s.cwnd(), MSS, "loss window");
    assert_eq!(h.s.ssthresh(), 2 * MSS, "max(FlightSize/2, 2 MSS)");
    assert_eq!(h.s.stats.timeouts, 1);
    assert_eq!(h.s.next_wake(), Some(Time::from_secs(3)), "backed off to 2 s");
    // Karn: the ACK of a retransmitted segment gives no RTT sample.
    h.at(1100);
    h.ack(1000, |_| ());
    assert!(h.s.rtt().srtt().is_none());
}

#[test]
fn advertised_window_limits_and_shrinks() {
    let mut h = Harness::new("newreno", 10, |_| ());
    h.at(50);
    // Window field of 3 MSS: only 3 segments may be outstanding.
    let out = h.ack(1000, |a| a.set_wnd(3 * MSS));
    assert!(
        out.is_empty(),
        "10 outstanding > window: send nothing, no retransmission"
    );
    let out = h.ack(9000, |a| a.set_wnd(3 * MSS));
    assert_eq!(seqs(&out), vec![10_000, 11_000]);
}

#[test]
fn rfc3168_ecn_halves_once_per_window_and_sets_cwr() {
    let mut h = Harness::new("newreno", 10, |p| p.ecn = true);
    assert!(h.sent.iter().all(|p| p.ecn == Ecn::Ect0));
    h.at(100);
    let out = h.ack(1000, |a| a.flags |= flags::ECE);
    assert_eq!(h.s.cwnd(), 4500, "FlightSize (9 segments) / 2");
    assert_eq!(h.s.stats.ecn_reductions, 1);
    assert!(out.is_empty() || out[0].has(flags::CWR));
    // A second ECE within the same window does not reduce again.
    h.ack(2000, |a| a.flags |= flags::ECE);
    assert_eq!(h.s.stats.ecn_reductions, 1);
}

/// After the once-per-window reduction, a further ECN-Echo ACK of new data
/// leaves NewReno's window alone (RFC 3168 §6.1.2) but grows DCTCP's (its echo
/// is the marking fraction, and Linux grows on it: `tcp_may_raise_cwnd`).
#[test]
fn an_ece_ack_grows_dctcp_but_not_newreno() {
    let grown = |cc: &str| {
        let mut h = Harness::new(cc, 10, |p| p.ecn = true);
        h.at(100);
        h.ack(1000, |a| a.flags |= flags::ECE); // the window's one reduction
        let after = h.s.cwnd();
        // The rest of the window, every ACK echoing CE: no second reduction, and
        // (byte counting) one segment of growth once a window's worth is acked.
        for ack in (2000..=10_000).step_by(1000) {
            h.ack(ack, |a| a.flags |= flags::ECE);
        }
        h.s.cwnd() as i64 - after as i64
    };
    assert_eq!(grown("newreno"), 0);
    assert!(grown("dctcp") > 0, "DCTCP grows on an ECE ACK");
}

/// `cwr_hold` (Linux's and ns-3's CWR state): after the ECN reduction the
/// window is held until the cumulative ACK passes what was sent when the echo
/// came (10 000 here: the flight of nine segments exceeds the halved window,
/// so the window's ACKs release nothing); without it, byte counting grows
/// cwnd over the same ACKs. Growth resumes past that point.
#[test]
fn cwr_hold_keeps_the_window_for_a_round_trip() {
    // The reduced window, and the window after ACKs of 2000..=last.
    let run = |hold: bool, last: u64| {
        let mut h = Harness::new("newreno", 10, |p| {
            p.ecn = true;
            p.cwr_hold = hold;
        });
        h.at(100);
        h.ack(1000, |a| a.flags |= flags::ECE);
        let reduced = h.s.cwnd();
        for ack in (2000..=last).step_by(1000) {
            h.ack(ack, |_| ());
        }
        (reduced, h.s.cwnd())
    };
    let (reduced, held) = run(true, 10_000);
    assert_eq!(held, reduced, "no growth in CWR");
    let (reduced, grown) = run(false, 10_000);
    assert!(grown > reduced, "RFC 3168 grows on the ACKs without ECE");
    let (reduced, later) = run(true, 20_000);
    assert!(later > reduced, "past the CWR window the window grows again");
}

/// RFC 7323 §4.1 (RTTM): with timestamps every ACK of new data is a
/// sample (100 ms, then 150 ms: SRTT 106.25 ms), where one timed segment
/// per window gives one (the second ACK covers no timed segment).
#[test]
fn rfc7323_rtt_sample_on_every_ack_with_timestamps() {
    for ts in [false, true] {
        let mut h = Harness::new("newreno", 4, |p| p.rtt_timestamps = ts);
        h.at(100).ack(1000, |a| a.ts_ecr = Time::ZERO);
        h.at(150).ack(2000, |a| a.ts_ecr = Time::ZERO);
        let srtt = h.s.rtt().srtt().unwrap().as_secs_f64();
        let want = if ts { 0.10625 } else { 0.1 };
        assert!((srtt - want).abs() < 1e-12, "timestamps {ts}: {srtt}");
    }
}

/// `rtt_gains = "rfc7323"` (Appendix G): after a first sample of 100 ms
/// (RTTVAR 50 ms, RTO 300 ms), five more of 100 ms. RFC 6298's gains take
/// RTTVAR to 50·(3/4)⁵ (RTO 147.5 ms); divided by ExpectedSamples (6 to 10
/// as slow start opens the window: ⌈FlightSize / 2·SMSS⌉) the five decay
/// it less than one RFC 6298 sample would.
#[test]
fn rfc7323_appendix_g_gains_keep_rttvar() {
    let rto = |scaled: bool| {
        let mut h = Harness::new("newreno", 10, |p| {
            p.rtt_timestamps = true;
            p.rtt_scaled_gains = scaled;
            p.rtt.min_rto = Time::from_millis(1);
        });
        h.at(100).ack(1000, |a| a.ts_ecr = Time::ZERO);
        for i in 1..6u64 {
            h.at(100 + i)
                .ack(1000 + 1000 * i, move |a| a.ts_ecr = Time::from_millis(i));
        }
        h.s.rtt().rto().as_secs_f64()
    };
    let (unscaled, scaled) = (rto(false), rto(true));
    assert!(
        (unscaled - (0.1 + 4.0 * 0.05 * 0.75_f64.powi(5))).abs() < 1e-9,
        "{unscaled}"
    );
    // Five of a window's 6–10 expected samples: less decay than one sample
    // with RFC 6298's gains (RTO 250 ms), some (below 300 ms).
    assert!(scaled > 0.25 && scaled < 0.3, "{scaled}");
}

/// RFC 3168 §6.1.5: a retransmission is Not-ECT; with
/// `ect_retransmissions` (ns-2's `output`, BMCC) it is ECT(0) too. CWR
/// rides on new data only, in both.
#[test]
fn retransmissions_are_not_ect_unless_asked() {
    for ect_rtx in [false, true] {
        let mut h = Harness::new("newreno", 4, |p| {
            p.ecn = true;
            p.ect_retransmissions = ect_rtx;
        });
        h.at(100);
        for _ in 0..3 {
            h.ack(0, |a| a.flags |= flags::ECE);
        }
        let rtx: Vec<&Packet> = h.sent.iter().filter(|p| p.retx).collect();
        assert_eq!(rtx.len(), 1, "the fast retransmission");
        let want = if ect_rtx { Ecn::Ect0 } else { Ecn::NotEct };
        assert_eq!(rtx[0].ecn, want);
        assert!(!rtx[0].has(flags::CWR));
    }
}

#[test]
fn finite_transfer_completes() {
    let mut h = Harness::new("newreno", 4, |p| p.size = 2500);
    assert_eq!(h.sent.iter().map(|p| p.len).collect::<Vec<_>>(), vec![1000, 1000, 500]);
    h.at(80);
    h.ack(2500, |_| ());
    assert_eq!(h.s.completed(), Some(Time::from_millis(80)));
    assert_eq!(h.s.next_wake(), None);
}

/// Fast recovery entered from a 10-segment window (ssthresh 5), inflated
/// by two more dupacks; then the retransmission timer fires.
fn timeout_in_fast_recovery(rule: RtoSsthresh) -> Harness {
    let mut h = Harness::new("newreno", 10, |p| p.rto_ssthresh = rule);
    h.at(100);
    for _ in 0..5 {
        h.ack(0, |_| ());
    }
    assert!(h.s.in_recovery());
    assert_eq!((h.s.cwnd(), h.s.window()), (5 * MSS, 10 * MSS));
    h.at(1500);
    let out = h.timer();
    assert_eq!(seqs(&out), vec![0], "go-back-N from snd_una with cwnd = 1");
    assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 1 });
    h
}

/// RFC 5681 §3.1 bounds ssthresh by FlightSize/2; FlightSize inflated by
/// fast recovery is not used. ns-2 halves the window in use (cwnd without
/// the inflation: 5 → 2 segments); Linux keeps the recovery's ssthresh.
#[test]
fn rfc5681_3_1_timeout_during_fast_recovery_uses_uninflated_window() {
    let h = timeout_in_fast_recovery(RtoSsthresh::Window);
    assert_eq!(h.s.ssthresh(), 2500, "ns-2: 5 / 2 segments (ns-2 truncates to 2)");
    let h = timeout_in_fast_recovery(RtoSsthresh::OncePerWindow);
    assert_eq!(h.s.ssthresh(), 5 * MSS, "Linux tcp_enter_loss: held");
}

/// RFC 5681 §3.1: "the value of ssthresh is held constant" when the same
/// segment times out again; ns-2 halves the one-segment window (floor 2).
#[test]
fn rfc5681_3_1_repeated_timeout_of_the_same_segment() {
    for (rule, second) in [(RtoSsthresh::OncePerWindow, 4 * MSS), (RtoSsthresh::Window, 2 * MSS)] {
        let mut h = Harness::new("newreno", 8, |p| {
            p.rto_ssthresh = rule;
            p.rtt.init_rto = Time::from_secs(1);
        });
        h.at(1000);
        h.timer();
        assert_eq!(h.s.ssthresh(), 4 * MSS, "first timeout: FlightSize 8 / 2");
        h.at(3000);
        let out = h.timer();
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(h.s.ssthresh(), second, "{rule:?}");
        assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 2 });
        assert_eq!(h.s.stats.timeouts, 2);
    }
}

/// After a timeout, FlightSize counts from the go-back-N point: the 12
/// segments sent before the timeout are not in flight any more.
#[test]
fn timeout_after_progress_reduces_from_go_back_n_flight() {
    let mut h = Harness::new("newreno", 12, |p| {
        p.rto_ssthresh = RtoSsthresh::OncePerWindow;
        p.rtt.init_rto = Time::from_secs(1);
    });
    h.at(1000);
    h.timer();
    assert_eq!(h.s.ssthresh(), 6 * MSS);
    // Segments 0-3 retransmitted and acknowledged one by one: slow start
    // from 1 segment sends 1000, 2000+3000, ... (go-back-N, retransmissions).
    h.at(1100);
    let out = h.ack(1000, |_| ());
    assert_eq!(seqs(&out), vec![1000, 2000]);
    assert!(out.iter().all(|p| p.retx));
    assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 0 }, "progress");
    // The ACK restarted the backed-off timer (2 s): it fires at 3.1 s.
    h.at(3100);
    h.timer();
    assert_eq!(h.s.stats.timeouts, 2);
    assert_eq!(h.s.ssthresh(), 2 * MSS, "FlightSize 2 segments (3000 - 1000), floor 2");
}

/// ns-3's rule (`ReTxTimeout`): a timeout during a fast recovery reduces
/// from the loss window (here FlightSize, 10 segments → 5, where ns-2's
/// halves the deflated window to 2.5); a repeated timeout, and one after
/// progress in the timeout's recovery, hold ssthresh (Linux's rule would
/// reduce the latter to FlightSize 2 / 2).
#[test]
fn except_in_loss_reduces_in_fast_recovery_but_not_in_a_timeouts_recovery() {
    let h = timeout_in_fast_recovery(RtoSsthresh::ExceptInLoss);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    let mut h = Harness::new("newreno", 12, |p| {
        p.rto_ssthresh = RtoSsthresh::ExceptInLoss;
        p.rtt.init_rto = Time::from_secs(1);
    });
    h.at(1000);
    h.timer();
    assert_eq!(h.s.ssthresh(), 6 * MSS);
    h.at(1100).ack(1000, |_| ());
    assert_eq!(h.s.loss_state(), LossState::Loss { rto_streak: 0 }, "progress");
    h.at(3100);
    h.timer();
    h.at(7100);
    h.timer();
    assert_eq!(h.s.stats.timeouts, 3);
    assert_eq!(h.s.ssthresh(), 6 * MSS, "held through the timeout's recovery");
}

/// RFC 6582 §4 "bugfix": after a timeout, duplicate ACKs below `recover`
/// (here caused by go-back-N retransmissions of data the receiver holds)
/// do not trigger fast retransmit, for NewReno, Reno and Tahoe (ns-2 `bugFix_`).
#[test]
fn rfc6582_4_no_fast_retransmit_after_timeout_until_recover() {
    for cc in ["newreno", "reno", "tahoe"] {
        let mut h = Harness::new(cc, 10, |p| p.rtt.init_rto = Time::from_secs(1));
        h.at(1000);
        h.timer();
        h.at(1100);
        h.ack(5000, |_| ());
        for _ in 0..4 {
            h.ack(5000, |_| ());
        }
        assert_eq!(h.s.stats.fast_retransmits, 0, "{cc}");
        assert!(matches!(h.s.loss_state(), LossState::Loss { .. }), "{cc}");
        // The cumulative ACK reaches recover (10 000): the timeout's
        // recovery is over; once it covers more than recover, a new loss
        // may be fast-retransmitted.
        h.ack(10_000, |_| ());
        assert_eq!(h.s.loss_state(), LossState::Open, "{cc}");
        for _ in 0..3 {
            h.ack(10_000, |_| ());
        }
        assert_eq!(h.s.stats.fast_retransmits, 0, "{cc}: ack = recover is not above it");
        h.ack(11_000, |_| ());
        for _ in 0..3 {
            h.ack(11_000, |_| ());
        }
        assert_eq!(h.s.stats.fast_retransmits, 1, "{cc}");
    }
}

/// ns-2 applies the careful check to Reno too: after leaving fast recovery
/// on a partial ACK, more losses of the same window do not halve again.
#[test]
fn reno_does_not_halve_twice_for_one_window() {
    let mut h = Harness::new("reno", 10, |_| ());
    h.at(100);
    for _ in 0..3 {
        h.ack(0, |_| ());
    }
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    h.ack(3000, |_| ()); // partial ACK: Reno leaves recovery
    assert!(!h.s.in_recovery());
    for _ in 0..3 {
        h.ack(3000, |_| ());
    }
    assert_eq!(h.s.stats.fast_retransmits, 1);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
}

/// RFC 3042 §2: one new segment per each of the first two duplicate ACKs,
/// cwnd unchanged; RFC 5681 §3.2 step 2: they do not count in FlightSize
/// when ssthresh is set on the third.
#[test]
fn rfc3042_limited_transmit() {
    let mut h = Harness::new("newreno", 10, |p| p.limited_transmit = true);
    h.at(100);
    assert_eq!(seqs(&h.ack(0, |_| ())), vec![10_000]);
    assert_eq!(seqs(&h.ack(0, |_| ())), vec![11_000]);
    assert_eq!(h.s.cwnd(), 10 * MSS);
    let out = h.ack(0, |_| ());
    assert_eq!(seqs(&out), vec![0], "fast retransmit");
    assert_eq!(
        h.s.ssthresh(),
        5 * MSS,
        "FlightSize 12 − 2 limited-transmit segments, halved"
    );
    // Off (the default): duplicate ACKs below the threshold send nothing.
    let mut h = Harness::new("newreno", 10, |_| ());
    h.at(100);
    assert!(h.ack(0, |_| ()).is_empty());
}

/// ns-2 (`reset_rtx_timer` in `dupack_action`) and Linux restart the
/// retransmission timer when fast retransmit sends the lost segment.
#[test]
fn fast_retransmit_restarts_the_retransmission_timer() {
    let mut h = Harness::new("newreno", 10, |p| p.rtt.init_rto = Time::from_secs(1));
    assert_eq!(h.s.next_wake(), Some(Time::from_secs(1)));
    h.at(400);
    for _ in 0..3 {
        h.ack(0, |_| ());
    }
    assert_eq!(h.s.next_wake(), Some(Time::from_millis(1400)));
}

/// `rearm_rto` off (ns-3's `TcpSocketBase`): the fast retransmit leaves the
/// timer where the last new ACK put it, with and without SACK; the next new
/// ACK restarts it as ever (RFC 6298 (5.3)).
#[test]
fn without_rearm_rto_the_fast_retransmit_keeps_the_running_timer() {
    for sack in [false, true] {
        let mut h = Harness::new("newreno", 10, |p| {
            p.rtt.init_rto = Time::from_secs(1);
            p.rearm_rto = false;
            p.sack = sack;
        });
        h.at(300).ack(MSS, |_| ());
        // the sample of 300 ms: RTO = SRTT + 4·RTTVAR = 300 + 4·150 ms
        let armed = h.s.next_wake();
        assert_eq!(armed, Some(Time::from_millis(1200)), "sack {sack}");
        h.at(400);
        // segment 1 lost: three ACKs of 1000 (SACKing 2000–3000, –4000, –5000)
        const BLOCKS: [[(u64, u64); 1]; 3] = [[(2000, 3000)], [(2000, 4000)], [(2000, 5000)]];
        for b in &BLOCKS {
            if sack {
                h.ack(MSS, with_sack(b));
            } else {
                h.ack(MSS, |_| ());
            }
        }
        assert_eq!(h.s.stats.fast_retransmits, 1, "sack {sack}");
        assert_eq!(h.s.next_wake(), armed, "sack {sack}");
        h.at(500).ack(2 * MSS, |_| ());
        assert!(h.s.next_wake() > armed, "sack {sack}");
    }
}

/// Congestion avoidance with delayed ACKs (each ACK covers 2 segments)
/// from cwnd = 10 MSS. Byte counting (RFC 3465): +1 MSS once a window of
/// bytes is acknowledged, on the 5th ACK. Per ACK (RFC 5681 eq. 3, ns-2):
/// MSS²/cwnd on each ACK, 100 B then 99 B, … : +½ segment per window.
#[test]
fn byte_counting_and_per_ack_counting_in_congestion_avoidance() {
    let run = |byte_counting: bool| {
        let mut h = Harness::new("newreno", 10, |p| {
            p.init_ssthresh = 10 * MSS;
            p.byte_counting = byte_counting;
        });
        h.at(100);
        (1..=10)
            .map(|n| {
                h.ack(2 * n * MSS, |_| ());
                h.s.cwnd()
            })
            .collect::<Vec<u64>>()
    };
    assert_eq!(
        run(true),
        [10_000, 10_000, 10_000, 10_000, 11_000, 11_000, 11_000, 11_000, 11_000, 11_000]
    );
    let per_ack = run(false);
    assert_eq!(per_ack[..3], [10_100, 10_199, 10_297]);
    // Exactly 10⁴ + Σ 10⁶/cwnd = 10 958.6 (the fractions of a byte carried).
    assert_eq!(per_ack[9], 10_958, "≈ +½ segment for 10 segments acknowledged");
}

/// The window after recovery (NewReno, dupthresh 3, cwnd 9 MSS halved as
/// ns-2 does to 4.5 segments, ssthresh 4): `ssthresh` gives 4 segments,
/// `keep` the 4.5 the loss response left (ns-2.35), `flight` min(ssthresh,
/// max(FlightSize, MSS) + MSS) = 2 segments, nothing being left in flight.
/// The full ACK then grows each: by MSS²/cwnd, or by one MSS in slow start
/// (2 segments < ssthresh).
#[test]
fn window_on_leaving_fast_recovery() {
    for (full_ack, expect) in [
        (FullAck::Ssthresh, 4000 + 250),
        (FullAck::Keep, 4500 + 222),
        (FullAck::Flight, 2000 + 1000),
    ] {
        let mut h = Harness::new("newreno", 9, |p| {
            p.init_ssthresh = 5 * MSS;
            p.byte_counting = false;
            p.loss_window = LossWindow::Cwnd;
            p.full_ack = full_ack;
        });
        h.at(100);
        for _ in 0..3 {
            h.ack(0, |_| ());
        }
        assert_eq!((h.s.ssthresh(), h.s.cwnd()), (4000, 4500), "{full_ack:?}");
        h.ack(9000, |_| ());
        assert_eq!(h.s.cwnd(), expect, "{full_ack:?}");
    }
}

/// A partial ACK that acknowledges more than the inflation (ns-2
/// `partialnewack`, `dupwnd_` ≤ `deflate`): cwnd loses the rest and the
/// inflation is the segment added back (`dupwnd_ = 1`). Segments 0 and 9 of
/// 12 are lost: cwnd 12 → 6, eight duplicate ACKs inflate by 8 and send
/// segments 12 and 13; the partial ACK of 9 segments leaves cwnd 6 + 8 − 9 = 5
/// plus one of inflation (the RFC's window, 6). ns-2 leaves recovery with
/// `cwnd_` 5, below ssthresh 6, and slow start makes it 6 (not 6 + 1/6); a
/// timeout during the recovery halves 5 to ssthresh 2 (not 6 to 3).
#[test]
fn rfc6582_partial_ack_deflates_cwnd_as_ns2_once_the_inflation_is_used_up() {
    let recovery = || {
        let mut h = Harness::new("newreno", 12, |p| {
            p.init_ssthresh = 6 * MSS;
            p.byte_counting = false;
            p.loss_window = LossWindow::Cwnd;
            p.full_ack = FullAck::Keep;
        });
        h.at(100);
        let mut sent = Vec::new();
        for _ in 0..8 {
            sent.extend(seqs(&h.ack(0, |_| ())));
        }
        assert_eq!(sent, vec![0, 12_000, 13_000], "fast retransmit, then new data");
        assert_eq!((h.s.ssthresh(), h.s.cwnd(), h.s.window()), (6000, 6000, 14_000));
        let out = h.ack(9000, |_| ());
        assert_eq!(seqs(&out), vec![9000, 14_000], "the next hole, one new segment");
        assert!(h.s.in_recovery());
        assert_eq!((h.s.cwnd(), h.s.window()), (5000, 6000));
        h
    };
    let mut h = recovery();
    h.ack(12_000, |_| ());
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 6000, "cwnd 5 kept, then slow start (< ssthresh 6)");

    let mut h = recovery();
    h.at(5000);
    h.timer();
    assert_eq!((h.s.ssthresh(), h.s.cwnd()), (2000, MSS), "a timeout halves cwnd 5");
}

/// Packet-counted windows (ns-2 `slowdown(CLOSE_SSTHRESH_HALF |
/// CLOSE_CWND_HALF)`): a loss halves cwnd, 9.111 segments → ssthresh 4
/// whole segments, cwnd 4.555 (the fraction kept); by FlightSize (RFC 5681),
/// 9 segments → 4.5 for both.
#[test]
fn loss_window_cwnd_is_ns2_packet_counted_halving() {
    for (window, ssthresh, cwnd) in [(LossWindow::Cwnd, 4000, 4555), (LossWindow::Flight, 4500, 4500)] {
        let mut h = Harness::new("newreno", 9, |p| {
            p.init_ssthresh = 5 * MSS;
            p.byte_counting = false;
            p.loss_window = window;
        });
        h.at(100);
        h.ack(1000, |_| ());
        assert_eq!(h.s.cwnd(), 9111, "MSS²/cwnd = 111 B");
        for _ in 0..3 {
            h.ack(1000, |_| ());
        }
        assert_eq!((h.s.ssthresh(), h.s.cwnd()), (ssthresh, cwnd), "{window:?}");
    }
}

/// An ACK of `ack` carrying SACK blocks (RFC 2018), most recent first.
fn with_sack(blocks: &'static [(u64, u64)]) -> impl FnOnce(&mut Packet) {
    move |a: &mut Packet| a.set_sack(blocks)
}

/// RFC 6675 §5, one loss: segment 0 of 10 is lost; the third ACK that
/// SACKs new data enters recovery (RecoveryPoint 10 000, ssthresh = cwnd =
/// 5 MSS) and retransmits segment 0. pipe = 1000 (the retransmission) +
/// 6000 (segments 4–9, not lost) = 7000: nothing more until pipe ≤ cwnd −
/// MSS. Each further SACK takes 1000 off pipe; the third sends segment 10.
#[test]
fn rfc6675_one_loss_pipe_and_exit() {
    let mut h = Harness::new("newreno", 10, |p| p.sack = true);
    h.at(100);
    assert!(h.ack(0, with_sack(&[(1000, 2000)])).is_empty());
    assert!(h.ack(0, with_sack(&[(1000, 3000)])).is_empty());
    let out = h.ack(0, with_sack(&[(1000, 4000)]));
    assert_eq!(seqs(&out), vec![0], "retransmit HighACK + 1");
    assert_eq!(h.s.loss_state(), LossState::SackRecovery);
    assert_eq!((h.s.ssthresh(), h.s.cwnd()), (5 * MSS, 5 * MSS));
    assert!(h.ack(0, with_sack(&[(1000, 5000)])).is_empty(), "pipe 6000");
    assert!(h.ack(0, with_sack(&[(1000, 6000)])).is_empty(), "pipe 5000");
    assert_eq!(seqs(&h.ack(0, with_sack(&[(1000, 7000)]))), vec![10_000], "pipe 4000");
    // An ACK with no new SACK information is not a duplicate ACK.
    assert!(h.ack(0, with_sack(&[(1000, 7000)])).is_empty());
    // The retransmission arrives: the cumulative ACK passes RecoveryPoint.
    h.ack(10_000, |_| ());
    assert_eq!(h.s.loss_state(), LossState::Open);
    assert_eq!(h.s.stats.fast_retransmits, 1);
    assert_eq!(h.s.stats.retransmits, 1);
}

/// ns-3's loss window (`loss_window = "pipe"`): the same single loss as
/// above halves RFC 6675's pipe at the third SACK, 10 000 − 3000 SACKed −
/// 1000 lost = 6000 → ssthresh 3 MSS, where FlightSize gives 5 MSS.
#[test]
fn loss_window_pipe_halves_rfc6675_pipe() {
    for (window, ssthresh) in [(LossWindow::Pipe, 3 * MSS), (LossWindow::Flight, 5 * MSS)] {
        let mut h = Harness::new("newreno", 10, |p| {
            p.sack = true;
            p.loss_window = window;
        });
        h.at(100);
        h.ack(0, with_sack(&[(1000, 2000)]));
        h.ack(0, with_sack(&[(1000, 3000)]));
        let out = h.ack(0, with_sack(&[(1000, 4000)]));
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!((h.s.ssthresh(), h.s.cwnd()), (ssthresh, ssthresh), "{window:?}");
    }
    // Without SACK, one segment per duplicate ACK: (10 − 3) / 2 segments.
    let mut h = Harness::new("newreno", 10, |p| p.loss_window = LossWindow::Pipe);
    h.at(100);
    for _ in 0..3 {
        h.ack(0, |_| ());
    }
    assert_eq!(h.s.ssthresh(), 3500);
}

/// RFC 6937 §3 worked by hand: one loss in a 20-segment window (RecoverFS
/// 20 000, ssthresh 10 000). Every duplicate ACK SACKs one segment, so
/// DeliveredData is 1000 and prr_delivered after k ACKs of the recovery is
/// 1000·k; the reduction lets out ⌈k · 1000 · 10/20⌉ bytes, the fast
/// retransmit counting: one new segment every second ACK from the fourth,
/// while pipe (17 at the start) stays above ssthresh; at the 14th ACK pipe
/// is ssthresh (5 originals, 4 new, the retransmission) and the slow-start
/// reduction bound lets nothing out. RFC 6675 alone sends
/// nothing until pipe falls below cwnd = 10, eight ACKs later, then one per
/// ACK. After the full ACK cwnd is the same in both (ssthresh, grown by
/// that ACK).
#[test]
fn prr_sends_one_segment_per_two_acks_in_recovery() {
    let sent_per_ack = |prr: bool| {
        let mut h = Harness::new("newreno", 20, |p| {
            p.sack = true;
            p.prr = prr;
        });
        h.at(100);
        let mut per_ack = vec![];
        for j in 1..=14u64 {
            let out = h.ack(0, move |a: &mut Packet| a.set_sack(&[(1000, 1000 * (j + 1))]));
            per_ack.push(out.iter().filter(|p| !p.retx).count());
        }
        assert_eq!(h.s.loss_state(), LossState::SackRecovery);
        assert_eq!(h.s.ssthresh(), 10_000);
        h.ack(20_000, |_| ());
        assert_eq!(h.s.loss_state(), LossState::Open);
        (per_ack, h.s.cwnd())
    };
    // ACKs 1–2 are before recovery (no limited transmit), 3 enters it (k = 1).
    let (prr, prr_cwnd) = sent_per_ack(true);
    let (rfc6675, cwnd) = sent_per_ack(false);
    assert_eq!(prr, vec![0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
    assert_eq!(rfc6675, vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(prr_cwnd, cwnd, "ssthresh and the full ACK's growth in both");
}

/// PRR after an ECN echo, by hand: the echo comes on the ACK of 1000 with
/// nine segments out (RecoverFS 9000, ssthresh 4500). Over the round trip's
/// ten ACKs of 1000 B the reduction lets out ⌈k · 1000 · 4500/9000⌉ bytes: a
/// segment on every second ACK while pipe > ssthresh, four in all; on the
/// last ACK pipe is 4000 and the slow-start bound gives cwnd = 4500, not a
/// segment. Past the round trip cwnd is ssthresh, and the next echo
/// starts another reduction.
#[test]
fn prr_spreads_an_ecn_reduction_over_the_round_trip() {
    let mut h = Harness::new("newreno", 10, |p| {
        p.ecn = true;
        p.prr = true;
    });
    h.at(100);
    let mut out = vec![h.ack(1000, |a| a.flags |= flags::ECE).len()];
    assert_eq!(h.s.ssthresh(), 4500, "FlightSize 9 segments halved");
    for ack in (2000..=10_000).step_by(1000) {
        out.push(h.ack(ack, |_| ()).len());
    }
    assert_eq!(out, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
    assert_eq!(h.s.cwnd(), 4500);
    h.ack(11_000, |_| ());
    assert_eq!(h.s.cwnd(), 4500, "ssthresh; byte counting grows it a window later");
    let again = h.ack(12_000, |a| a.flags |= flags::ECE);
    assert!(
        again.is_empty() && h.s.stats.ecn_reductions == 2,
        "the next window's echo reduces again"
    );
}

/// Several losses in one window (0, 3 and 6 of 10) are all retransmitted
/// within one RTT as IsLost marks them, without waiting for partial ACKs
/// (NewReno would need three RTTs).
#[test]
fn rfc6675_several_losses_repaired_in_one_rtt() {
    let mut h = Harness::new("newreno", 10, |p| p.sack = true);
    h.at(100);
    h.ack(0, with_sack(&[(1000, 2000)]));
    h.ack(0, with_sack(&[(1000, 3000)]));
    h.ack(0, with_sack(&[(4000, 5000), (1000, 3000)]));
    // Segments 1, 2 and 4 SACKed: 3000 B (more than 2·SMSS) above 0.
    assert_eq!(h.s.loss_state(), LossState::SackRecovery);
    h.ack(0, with_sack(&[(4000, 6000), (1000, 3000)]));
    let out = h.ack(0, with_sack(&[(7000, 8000), (4000, 6000), (1000, 3000)]));
    // Segment 3 has 3 ranges / 3000 B SACKed above it: lost, retransmitted.
    assert!(seqs(&out).contains(&3000), "{:?}", seqs(&out));
    h.ack(0, with_sack(&[(7000, 9000), (4000, 6000), (1000, 3000)]));
    let out = h.ack(0, with_sack(&[(7000, 10_000), (4000, 6000), (1000, 3000)]));
    let all: Vec<u64> = h.sent.iter().filter(|p| p.retx).map(|p| p.seq).collect();
    assert_eq!(
        all,
        vec![0, 3000, 6000],
        "each hole once; last ACK sent {:?}",
        seqs(&out)
    );
    assert_eq!(h.s.stats.timeouts, 0);
}

/// RFC 6675 §5.1: a timeout during SACK recovery keeps the SACK
/// information; the retransmissions after it skip SACKed segments.
#[test]
fn rfc6675_5_1_timeout_retransmits_only_unsacked() {
    let mut h = Harness::new("newreno", 6, |p| {
        p.sack = true;
        p.rtt.init_rto = Time::from_secs(1);
    });
    h.at(100);
    h.ack(0, with_sack(&[(1000, 2000)]));
    h.ack(0, with_sack(&[(3000, 4000), (1000, 2000)]));
    h.ack(0, with_sack(&[(5000, 6000), (3000, 4000), (1000, 2000)]));
    assert_eq!(h.s.loss_state(), LossState::SackRecovery);
    h.at(1200);
    let out = h.timer();
    assert_eq!(seqs(&out), vec![0], "cwnd = 1 MSS");
    h.at(1300);
    // Segment 0 arrives; cwnd 2: segments 2 and 4 (not 1, 3 or 5).
    let out = h.ack(1000, with_sack(&[(5000, 6000), (3000, 4000), (1000, 2000)]));
    assert_eq!(seqs(&out), vec![2000, 4000]);
    assert!(out.iter().all(|p| p.retx));
}

/// Both ends must be willing: without the receiver's SACK blocks the
/// sender keeps its module's recovery (NewReno here).
#[test]
fn sack_needs_both_ends() {
    let v = serde_json::json!({"sack": true, "sack_blocks": 0});
    let mut t = crate::cfg::Tab::new("flows[0]".into(), &v).unwrap();
    let (snd, rcv, _) = super::super::params::read(&mut t, false).unwrap();
    assert!(!snd.sack && rcv.sack_blocks == 0);
    let v = serde_json::json!({"sack": true});
    let mut t = crate::cfg::Tab::new("flows[0]".into(), &v).unwrap();
    let (snd, rcv, _) = super::super::params::read(&mut t, false).unwrap();
    assert!(snd.sack && rcv.sack_blocks == 3);
}

/// A model-based test algorithm: records what each ACK showed it, sets
/// cwnd to 100·(echoed load factor) segments per ACK (`cong_control`), and
/// ignores ECN echoes.
struct Echo {
    seen: Seen,
}

/// (ECE, load field, ce_seen) of each ACK.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(bool, Option<u16>, bool)>>>;

impl CongestionOps for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        s.cwnd / 2
    }
    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {
        unreachable!("cong_control takes over");
    }
    fn pkts_acked(&mut self, _s: &CcState, a: &AckSample) {
        self.seen
            .lock()
            .unwrap()
            .push((a.ece, a.feedback.load, a.feedback.ce_seen));
    }
    fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
        if let Some(f) = a.feedback.load_factor() {
            s.cwnd = (100.0 * f) as u64 * s.mss;
        }
        true
    }
    fn ecn_echo(&mut self, _s: &CcState) -> Option<u64> {
        None
    }
}

/// The algorithm sees each ACK's ECN echo and the receiver's feedback
/// option; `cong_control` sets the window directly; `ecn_echo` returning
/// `None` overrides RFC 3168's halving (no reduction, no CWR).
#[test]
fn feedback_reaches_the_algorithm_which_sets_the_window() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let cc = Box::new(Echo { seen: seen.clone() });
    let mut h = Harness::with_cc(cc, 4, |p| p.ecn = true);
    h.at(50);
    h.ack(1000, |a| a.fb.set_load_factor(0.08));
    assert_eq!(h.s.cwnd(), 8 * MSS);
    let out = h.ack(2000, |a| {
        a.flags |= flags::ECE;
        a.fb.set_load_factor(0.125);
        a.fb.ce_seen = true;
    });
    assert_eq!(h.s.cwnd(), 12 * MSS, "no RFC 3168 halving");
    assert_eq!(h.s.stats.ecn_reductions, 0);
    assert!(out.iter().all(|p| !p.has(flags::CWR)));
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], (false, Some(1311), false));
    assert_eq!(seen[1], (true, Some(2048), true));
}

/// RFC 3168 §6.1.2: an ECN echo halves the window (10 → 5 segments); a
/// loss in that same window is retransmitted without halving again; a loss
/// in a later window halves as usual.
#[test]
fn rfc3168_ecn_then_loss_in_the_same_window_reduces_once() {
    let mut h = Harness::new("newreno", 10, |p| p.ecn = true);
    h.at(100);
    h.ack(1000, |a| a.flags |= flags::ECE);
    assert_eq!(h.s.stats.ecn_reductions, 1);
    let (ssthresh, cwnd) = (h.s.ssthresh(), h.s.cwnd());
    for _ in 0..3 {
        h.ack(1000, |_| ());
    }
    assert!(h.s.in_recovery());
    assert_eq!(h.s.stats.fast_retransmits, 1);
    assert_eq!((h.s.ssthresh(), h.s.cwnd()), (ssthresh, cwnd), "no second reduction");
}

/// RFC 8257 §3.5: DCTCP's echo cuts by α/2 (α = 0 here: no cut, ssthresh =
/// cwnd), and a loss in that same window still halves, as a conventional
/// TCP's loss would; the `ns3` variant keeps RFC 3168's once per window.
#[test]
fn dctcp_ecn_then_loss_in_the_same_window_still_halves() {
    use crate::cc::dctcp::{Dctcp, Params, Variant};
    let after = |variant| {
        let cc = Box::new(Dctcp::new(Params {
            alpha_init: 0.0,
            variant,
            ..Params::default()
        }));
        let mut h = Harness::with_cc(cc, 10, |p| p.ecn = true);
        h.at(100);
        h.ack(1000, |a| a.flags |= flags::ECE);
        assert_eq!(h.s.stats.ecn_reductions, 1);
        let echoed = h.s.ssthresh();
        for _ in 0..3 {
            h.ack(1000, |_| ());
        }
        assert!(h.s.in_recovery());
        (echoed, h.s.ssthresh())
    };
    let (echoed, lost) = after(Variant::Rfc8257);
    assert!(echoed >= 10 * MSS, "α = 0: the echo leaves the window ({echoed})");
    assert!(lost <= echoed / 2 + MSS, "the loss halves: {lost} after {echoed}");
    let (echoed, lost) = after(Variant::Ns3);
    assert_eq!(lost, echoed, "ns3: no second reduction");
}

/// RFC 3168 §6.1.2: no window growth on any ACK carrying ECN-Echo, also
/// after the once-per-window reduction.
#[test]
fn rfc3168_no_growth_on_ecn_echo_acks() {
    let mut h = Harness::new("newreno", 10, |p| {
        p.ecn = true;
        p.init_ssthresh = 100 * MSS;
    });
    h.at(100);
    h.ack(1000, |a| a.flags |= flags::ECE);
    let cwnd = h.s.cwnd();
    h.ack(2000, |a| a.flags |= flags::ECE);
    h.ack(3000, |a| a.flags |= flags::ECE);
    assert_eq!(h.s.cwnd(), cwnd, "echoes within the window neither reduce nor grow");
    for k in 4..9 {
        h.ack(k * MSS, |_| ());
    }
    assert_eq!(h.s.cwnd(), cwnd + MSS, "congestion avoidance resumes without the echo");
}

/// ns-2 `overhead_`: a window-driven burst waits U(0, send_jitter), then
/// goes out whole and in order; the draw is deterministic per seed.
#[test]
fn send_jitter_delays_bursts_in_order() {
    let mut h = Harness::new("newreno", 3, |p| p.send_jitter = Time::from_millis(10));
    assert!(h.sent.is_empty(), "the first burst waits");
    let t = h.s.next_wake().expect("burst scheduled");
    assert!(t < Time::from_millis(10), "{t}");
    h.now = t;
    let out = h.timer();
    assert_eq!(seqs(&out), vec![0, 1000, 2000]);
    let again = Harness::new("newreno", 3, |p| p.send_jitter = Time::from_millis(10));
    assert_eq!(again.s.next_wake(), Some(t), "same seed, same delay");
}

/// A pacing test algorithm: a fixed window and pacing rate; records the
/// delivery-rate sample of each ACK.
type Samples = std::sync::Arc<std::sync::Mutex<Vec<Option<crate::cc::RateSample>>>>;

struct Paced {
    rate: u64,
    samples: Samples,
}

impl Paced {
    /// A sender under a `Paced` module at `rate`, and the rate samples the
    /// module is given, one per ACK.
    fn harness(rate: u64, init_cwnd: u32, p: impl FnOnce(&mut SendParams)) -> (Harness, Samples) {
        let samples = Samples::default();
        let cc = Box::new(Paced {
            rate,
            samples: samples.clone(),
        });
        (Harness::with_cc(cc, init_cwnd, p), samples)
    }
}

impl CongestionOps for Paced {
    fn name(&self) -> &'static str {
        "paced"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        s.cwnd
    }
    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {}
    fn cong_control(&mut self, s: &mut CcState, a: &AckSample) -> bool {
        self.samples.lock().unwrap().push(a.rate);
        s.pacing_rate = self.rate;
        true
    }
    fn paces(&self) -> bool {
        true
    }
    fn rate_samples(&self) -> bool {
        true
    }
}

/// Pacing (Linux `sk_pacing_rate`): at 10⁶ B/s, 1000-B segments leave
/// exactly 1 ms apart, each released by the sender's one timer (one
/// pending wakeup: `next_wake` is the next departure); ACKs arriving in
/// between send nothing early. The first window goes out at once (no rate
/// is set before the first ACK), as Linux before its first RTT sample.
#[test]
fn paced_departures_are_len_over_rate_apart() {
    let (mut h, samples) = Paced::harness(1_000_000, 10, |_| ());
    assert_eq!(h.sent.len(), 10);
    h.at(20);
    // Five segments acknowledged: the window opens by five, pacing lets one go.
    assert_eq!(seqs(&h.ack(5000, |_| ())), vec![10_000]);
    let mut times = vec![h.now];
    while let Some(t) = h.s.next_wake().filter(|&t| t < Time::from_millis(30)) {
        h.now = t;
        let out = h.timer();
        if out.is_empty() {
            break;
        }
        assert_eq!(out.len(), 1, "one segment per wakeup");
        times.push(t);
    }
    let gaps: Vec<Time> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, vec![Time::from_millis(1); 4], "{times:?}");
    // An ACK between departures sends nothing early.
    h.now = times[4] + Time::from_micros(300);
    assert!(h.ack(6000, |_| ()).is_empty());
    assert_eq!(h.s.next_wake(), Some(times[4] + Time::from_millis(1)));
    // The delivery-rate sample reached the algorithm: 5 segments delivered,
    // first flight sent at 0 and acknowledged at 20 ms.
    let s = samples.lock().unwrap()[0].expect("a sample");
    assert_eq!((s.delivered, s.newly_delivered), (5000, 5000));
    assert_eq!(s.interval, Some(Time::from_millis(20)));
    assert_eq!(s.rtt, Some(Time::from_millis(20)));
}

/// `pacing = true` paces a module that sets no rate (Linux
/// `tcp_update_pacing_rate`): cwnd/srtt × 200 % in slow start (cwnd <
/// ssthresh/2), × 120 % after.
#[test]
fn linux_pacing_rate_from_cwnd_and_srtt() {
    let mut h = Harness::new("newreno", 10, |p| p.pacing = true);
    assert_eq!(h.s.pacing_rate(), 0, "no srtt yet");
    h.at(100);
    h.ack(1000, |_| ());
    // srtt = 100 ms, cwnd = 11 segments, slow start: 2 × 11 000 B / 0.1 s.
    assert_eq!(h.s.pacing_rate(), 220_000);
    let mut h = Harness::new("newreno", 10, |p| {
        p.pacing = true;
        p.init_ssthresh = 10 * MSS;
    });
    h.at(100);
    h.ack(1000, |_| ());
    // Congestion avoidance: cwnd = 10 000 (+ 100 B), 1.2 × in flight
    // (10 000 B: max(cwnd, in flight) is 10 100) / 0.1 s.
    assert_eq!(h.s.pacing_rate(), 1_200 * h.s.cwnd().max(10_000) / 100);
}

/// SACKed segments are delivered when SACKed (the rate sample of a
/// duplicate ACK counts them), and the cumulative ACK then counts only the
/// retransmitted hole.
#[test]
fn sack_delivery_feeds_the_rate_sample() {
    let (mut h, samples) = Paced::harness(0, 4, |p| p.sack = true);
    h.at(40);
    h.ack(0, with_sack(&[(1000, 3000)]));
    h.ack(0, with_sack(&[(1000, 4000)]));
    assert_eq!(h.s.delivered(), 3000);
    let got: Vec<u64> = samples
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.unwrap().newly_delivered)
        .collect();
    assert_eq!(got, vec![2000, 1000]);
    h.at(80);
    h.ack(4000, |_| ());
    assert_eq!(h.s.delivered(), 4000);
}

/// The rate sample's `lost` (Linux `rs->losses`): the un-SACKed bytes an
/// ACK's SACK information moves below RFC 6675's lost boundary. Eight
/// segments out; segment 0 is lost once more than 2 × 1000 B are SACKed above
/// it (the second ACK), segment 2 once 3000 B are SACKed in the range above
/// it (the third); the fourth marks nothing new.
#[test]
fn sack_losses_feed_the_rate_sample() {
    let (mut h, samples) = Paced::harness(0, 8, |p| p.sack = true);
    h.at(40);
    h.ack(0, with_sack(&[(1000, 2000)]));
    h.ack(0, with_sack(&[(1000, 2000), (3000, 5000)]));
    h.ack(0, with_sack(&[(1000, 2000), (3000, 6000)]));
    h.ack(0, with_sack(&[(1000, 2000), (3000, 7000)]));
    let lost: Vec<u64> = samples.lock().unwrap().iter().map(|s| s.unwrap().lost).collect();
    assert_eq!(lost, vec![0, 1000, 1000, 0]);
}

/// RFC 9937's conservative bound, by hand: 20 segments out, 0–9 lost, 10–19
/// arriving. ACKs 1–2 SACK 2000 B (not above (DupThresh − 1)·SMSS), ACK 3
/// SACKs 3000 B: segments 0–9 are lost, recovery starts with ssthresh
/// 10 000, and pipe is 20 − 3 − 10 = 7 segments, 8 with the fast
/// retransmit. ACK 3 marked ten segments newly lost and ACKs 4–5 advance
/// nothing: none is safe, so each lets out max(prr_delivered − prr_out,
/// DeliveredData) = one segment, and pipe stays at 9 (RFC 6937's slow-start
/// bound added a segment on every ACK: pipe 10 at once). The partial ACK of
/// 1000 (the retransmission of 0 arrived, and segment 15) is safe:
/// max(5000 − 4000, 2000) + 1000 = three segments, pipe 7 → 10 = ssthresh.
/// The next duplicate ACK is not safe again: one segment.
/// The per-ACK sends and cwnd of the sequence above under `bound`.
fn prr_sequence(bound: PrrBound) -> Vec<(Vec<u64>, u64)> {
    let mut h = Harness::new("newreno", 20, |p| {
        p.sack = true;
        p.prr = true;
        p.prr_bound = bound;
    });
    h.at(100);
    let mut sent = vec![];
    for j in 1..=5u64 {
        let out = h.ack(0, move |a: &mut Packet| a.set_sack(&[(10_000, 10_000 + 1000 * j)]));
        sent.push((seqs(&out), h.s.cwnd()));
    }
    assert_eq!(h.s.ssthresh(), 10_000);
    let partial = h.ack(1000, |a: &mut Packet| a.set_sack(&[(10_000, 16_000)]));
    sent.push((seqs(&partial), h.s.cwnd()));
    let dup = h.ack(1000, |a: &mut Packet| a.set_sack(&[(10_000, 17_000)]));
    sent.push((seqs(&dup), h.s.cwnd()));
    sent
}

#[test]
fn prr_grows_toward_ssthresh_only_on_a_safe_ack() {
    let safe = vec![
        (vec![], 20_000),
        (vec![], 20_000),
        (vec![0, 1000], 9000),
        (vec![2000], 9000),
        (vec![3000], 9000),
        (vec![4000, 5000, 6000], 10_000),
        (vec![7000], 10_000),
    ];
    assert_eq!(prr_sequence(PrrBound::SafeAck), safe);
    // ns-3.44's rule: the partial ACK acknowledges the retransmission of 0,
    // the duplicate ACKs acknowledge nothing: the same here.
    assert_eq!(prr_sequence(PrrBound::Retransmitted), safe);
    // RFC 6937's slow-start bound adds the segment on every ACK: ACK 3 lets
    // two out besides the fast retransmit (pipe 10 = ssthresh at once); each
    // later ACK refills the one segment it took out of pipe, and the partial
    // ACK the two (pipe 8).
    assert_eq!(
        prr_sequence(PrrBound::SlowStart),
        vec![
            (vec![], 20_000),
            (vec![], 20_000),
            (vec![0, 1000, 2000], 10_000),
            (vec![3000], 10_000),
            (vec![4000], 10_000),
            (vec![5000, 6000], 10_000),
            (vec![7000], 10_000),
        ]
    );
}

/// `handshake` (RFC 9293 §3.5): the SYN goes out at the start and nothing
/// else; its SYN-ACK is the first RTT sample (RFC 6298 §2: SRTT = R, RTO =
/// R + 4·R/2 = 3R) and lets the initial window out.
#[test]
fn handshake_syn_rtt_is_the_first_sample_then_data() {
    let mut h = Harness::new("newreno", 2, |p| p.handshake = true);
    assert_eq!(h.sent.len(), 1);
    assert!(h.sent[0].has(flags::SYN) && h.sent[0].len == 0);
    assert_eq!(h.sent[0].ecn, Ecn::NotEct, "RFC 3168 §6.1.1");
    assert_eq!(h.s.rto_at(), Some(Time::from_secs(1)), "the SYN is timed");
    assert!(h.at(50).ack(0, |_| ()).is_empty(), "an ACK without SYN opens nothing");
    let out = h.at(100).ack(0, |a| a.flags = flags::SYN | flags::ACK);
    assert_eq!(seqs(&out), vec![0, MSS]);
    assert_eq!(h.s.rtt().srtt(), Some(Time::from_millis(100)));
    assert_eq!(h.s.rtt().min_rtt(), Some(Time::from_millis(100)));
    assert_eq!(h.s.rtt().rto(), Time::from_millis(300));
    assert_eq!(h.s.cwnd(), 2 * MSS);
}

/// A lost SYN: sent again at the RTO (1 s), then after 2 s (RFC 6298
/// §5.5); the SYN-ACK of a retransmitted SYN gives no sample (Karn), data
/// starts with a 3-s RTO (§5.7) and one segment (RFC 5681 §3.1).
#[test]
fn handshake_lost_syn_backs_off_and_starts_with_one_segment() {
    let mut h = Harness::new("newreno", 10, |p| p.handshake = true);
    h.at(1000);
    let out = h.timer();
    assert!(out.len() == 1 && out[0].has(flags::SYN));
    assert_eq!(h.s.rto_at(), Some(Time::from_secs(3)));
    let out = h.at(1100).ack(0, |a| a.flags = flags::SYN | flags::ACK);
    assert_eq!(seqs(&out), vec![0]);
    assert_eq!(h.s.rtt().srtt(), None);
    assert_eq!(h.s.rtt().rto(), Time::from_secs(3));
    assert_eq!(h.s.rto_at(), Some(Time::from_millis(4100)));
}

/// `send_limit = "pipe"` (Linux, ns-3): outside a recovery, cwnd limits
/// RFC 6675's pipe. Segment 0 of 10 is lost (cwnd 10): each of the two
/// duplicate ACKs before the fast retransmit SACKs a segment and so lets a
/// new one out (10 000, then 11 000), where FlightSize, without limited
/// transmit, lets none out.
#[test]
fn send_limit_pipe_counts_sacked_data_out_of_flight() {
    for (limit, early) in [(SendLimit::Flight, vec![]), (SendLimit::Pipe, vec![10_000])] {
        let mut h = Harness::new("newreno", 10, |p| {
            p.sack = true;
            p.send_limit = limit;
        });
        h.at(100);
        assert_eq!(seqs(&h.ack(0, with_sack(&[(1000, 2000)]))), early, "{limit:?}");
        let second = seqs(&h.ack(0, with_sack(&[(1000, 3000)])));
        assert_eq!(second.len(), early.len(), "{limit:?}: {second:?}");
    }
}
