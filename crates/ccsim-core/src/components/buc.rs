//! BUC (Buffer Utilization Control): the per-conversation state machine and
//! window law of the BUC gateway, without the router around it (that is
//! [`super::buc_gateway`], which also delivers the window by RFCN).
//!
//! Source: T. Ziegler, H. D. Clausen, "Congestion avoidance with BUC (buffer
//! utilization control) gateways and RFCN (reverse feedback congestion
//! notification)", IEEE IPCCC 1997, pp. 410–418: §3.3 (epochs:
//! waiting and convergence periods), §3.3.1 (the decrease limit and the
//! one-segment floor), §3.4 (control law `W_i = W_{i-1} + (TQL − Q(t_e^i))`, the
//! increase limit, the cap at the largest advertised window), §4 (state diagram:
//! initialization when the queue first exceeds TQL). The state diagram (Fig. 5) is
//! lost; the model page `docs/models/buc-rfcn.md` ("The algorithm as implemented")
//! rebuilds the machine from the text and, under "Modelling decisions", numbers
//! what the paper leaves open (A3–A8 here). This file follows it:
//!
//! ```text
//! data arrival (Q = the conversation's forward queue after the arrival, packets):
//!   UNCONTROLLED: if Q > TQL: W_prev = W_cur = W_init; → WAIT_ACK   (t_e of epoch 1, A6)
//!   WAIT_ACK:     ignored
//!   WAITING:      wait_left −= 1; if ≤ 0: → CONVERGING, conv_left = W_cur
//!   CONVERGING:   conv_left −= 1; if ≤ 0: compute the window (P^l_i); → WAIT_ACK
//! ACK arrival at the backward queue (field = the receiver's window, packets):
//!   max_adv = max(max_adv, field)
//!   WAIT_ACK (this ACK is A^w_i): wait_left = W_prev − Q_forward
//!                                 → WAITING, or CONVERGING (conv_left = W_cur) if ≤ 0
//! window: W = W_cur + (TQL − Q); W ≤ up·W_cur; W ≥ down·W_cur; W ≤ max_adv; W ≥ 1;
//!         rounded half up (or down), then ≥ 1 again
//! ```
//!
//! Choices the lost figures forced (`docs/models/buc-rfcn.md`, "Modelling
//! decisions"):
//! * A3: Q at an epoch boundary is measured after the arriving packet is queued,
//!   not counting the packet in transmission (`measure = "before"` subtracts the
//!   arrival, the sensitivity run) — the caller passes it in.
//! * A4: the arrival that ends the waiting period is not counted toward
//!   convergence; an epoch is `(W_{i-1} − Q(t_w)) + W_i` arrivals.
//! * A5: every arrival counts, dropped or queued (the caller decides what an
//!   arrival is).
//! * A6: initialization is t_e of epoch 1 with `W_1 = W_0 = W_init`; the next ACK
//!   opens the waiting period.
//! * A7: round half up, then floor at one segment ([`Rounding::Floor`] as the
//!   sensitivity).
//! * A8: ratio limits first (relative to `W_{i-1}`), then the cap at the largest
//!   advertised window seen, then the one-segment floor. Rounding can lift a
//!   window past a fractional cap by less than one packet; RFCN writes
//!   `min(field, W)` anyway, so the sender never sees more than its receiver
//!   offered.
//! * The optional refinement of §4 (footnote 10: while uncontrolled, W_init
//!   follows each ACK's window field) is `w_init_from_ack`, off by default.

/// The per-conversation states of the paper's Fig. 5 (termination is the
/// gateway's: the state is deleted).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// The queue has never exceeded TQL: no window, ACKs pass untouched.
    Uncontrolled,
    /// A window was computed (epoch start); waiting for the first ACK to carry it.
    WaitAck,
    /// Counting the arrivals that still belong to the previous window.
    Waiting,
    /// Counting the arrivals of the current window; the last one ends the epoch.
    Converging,
}

impl State {
    /// Code in time series: 0 uncontrolled, 1 wait-ACK, 2 waiting, 3 converging.
    pub fn code(self) -> u8 {
        match self {
            State::Uncontrolled => 0,
            State::WaitAck => 1,
            State::Waiting => 2,
            State::Converging => 3,
        }
    }
}

/// How a computed window becomes whole packets (ns windows are packets).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Round half up (A7, default).
    HalfUp,
    /// Round down (sensitivity).
    Floor,
}

/// The window law's parameters (fixed for the run).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Law {
    /// Largest increase factor per epoch, `up` (≥ 1; the paper uses 1.25).
    pub up: f64,
    /// Largest decrease factor per epoch, `down` (in (0, 1]; the paper uses 0.5).
    pub down: f64,
    pub rounding: Rounding,
}

impl Law {
    /// The paper's limits (up 1.25, down 0.5) with round-half-up.
    pub const PAPER: Law = Law {
        up: 1.25,
        down: 0.5,
        rounding: Rounding::HalfUp,
    };

    /// The next window (packets) from the current one `w_cur`, the target queue
    /// length `tql` and the queue `q` at the epoch boundary (packets), and the
    /// largest advertised window seen `max_adv` (packets; infinite if none):
    /// §3.4's control law with the limits of §3.3.1 and §3.4 (A7, A8; model page
    /// `docs/models/buc-rfcn.md`, "Window law").
    pub fn next_window(&self, w_cur: u64, tql: f64, q: f64, max_adv: f64) -> u64 {
        let w = w_cur as f64;
        let x = (w + (tql - q)) // control law
            .min(self.up * w) // no bursts larger than the increase limit
            .max(self.down * w) // waiting period stretched by at most one RTT
            .min(max_adv) // a decayed queue must not inflate the window
            .max(1.0); // a zero window could deadlock the waiting period
        let r = match self.rounding {
            Rounding::HalfUp => (x + 0.5).floor(),
            Rounding::Floor => x.floor(),
        };
        r.max(1.0) as u64
    }
}

/// One TCP conversation's BUC state at its forward queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv {
    pub state: State,
    /// `W_{i-1}`, packets.
    pub w_prev: u64,
    /// `W_i`, packets (≥ 1 once controlled; 0 while uncontrolled).
    pub w_cur: u64,
    /// Arrivals still needed to end the waiting period.
    pub wait_left: i64,
    /// Arrivals still needed to end the convergence period.
    pub conv_left: i64,
    /// Largest advertised window seen in this conversation's ACKs (the
    /// receiver's value, before any rewrite), packets; 0 before the first ACK.
    pub max_adv: f64,
    /// The initial window `W_init`, packets.
    pub w_init: u64,
    /// Epochs started (initialization is epoch 1).
    pub epochs: u64,
}

impl Conv {
    /// A new, uncontrolled conversation with initial window `w_init` (≥ 1).
    pub fn new(w_init: u64) -> Conv {
        Conv {
            state: State::Uncontrolled,
            w_prev: 0,
            w_cur: 0,
            wait_left: 0,
            conv_left: 0,
            max_adv: 0.0,
            w_init: w_init.max(1),
            epochs: 0,
        }
    }

    /// Is the conversation's window written into its ACKs?
    pub fn controlled(&self) -> bool {
        self.state != State::Uncontrolled
    }

    /// The cap of the window law: the largest advertised window seen, or no cap
    /// before any ACK (the receiver has not offered anything to respect yet).
    fn cap(&self) -> f64 {
        if self.max_adv > 0.0 {
            self.max_adv
        } else {
            f64::INFINITY
        }
    }

    /// A data packet of the conversation arrived at its forward queue (paper
    /// §3.3, §4); `q` is the queue then (packets, see A3), `tql` the target
    /// queue length now (packets, real-valued).
    pub fn on_data(&mut self, q: f64, tql: f64, law: &Law) {
        match self.state {
            State::Uncontrolled => {
                if q > tql {
                    // §4 "Initialization": W_i = W_{i-1} = W_init; this instant is t_e^1.
                    self.w_prev = self.w_init;
                    self.w_cur = self.w_init;
                    self.state = State::WaitAck;
                    self.epochs = 1;
                }
            }
            State::WaitAck => {}
            State::Waiting => {
                self.wait_left -= 1;
                if self.wait_left <= 0 {
                    self.start_convergence();
                }
            }
            State::Converging => {
                self.conv_left -= 1;
                if self.conv_left <= 0 {
                    // This packet is P^l_i: epoch i+1 starts, W_{i+1} from Q(t_e^{i+1}).
                    let w = law.next_window(self.w_cur, tql, q, self.cap());
                    self.w_prev = self.w_cur;
                    self.w_cur = w;
                    self.state = State::WaitAck;
                    self.epochs += 1;
                }
            }
        }
    }

    /// An ACK of the conversation arrived at its backward queue (paper §2.1, §3.3)
    /// advertising `field` packets (the receiver's value; infinite for an
    /// unlimited receiver); `q_forward` is the forward queue now. Returns the
    /// window to write into the ACK (RFCN writes `min(field, W_cur)`), if the
    /// conversation is controlled.
    pub fn on_ack(&mut self, field: f64, q_forward: f64) -> Option<u64> {
        self.max_adv = self.max_adv.max(field);
        match self.state {
            State::Uncontrolled => {
                // Footnote 10's refinement is applied by the caller (w_init_from_ack).
                None
            }
            State::WaitAck => {
                // A^w_i: the waiting period lasts for W_{i-1} − Q(t_w^i) arrivals.
                self.wait_left = self.w_prev as i64 - q_forward as i64;
                if self.wait_left <= 0 {
                    self.start_convergence();
                } else {
                    self.state = State::Waiting;
                }
                Some(self.w_cur)
            }
            State::Waiting | State::Converging => Some(self.w_cur),
        }
    }

    /// The waiting period ended: the next `W_cur` arrivals make the convergence
    /// period (A4: the arrival that ended waiting is not one of them).
    fn start_convergence(&mut self) {
        self.state = State::Converging;
        self.conv_left = self.w_cur as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAW: Law = Law::PAPER;

    fn controlled(w_prev: u64, w_cur: u64, state: State) -> Conv {
        Conv {
            state,
            w_prev,
            w_cur,
            max_adv: 64.0,
            epochs: 1,
            ..Conv::new(64)
        }
    }

    // ----- the window law (§3.4, §3.3.1)

    #[test]
    fn control_law_moves_the_window_by_tql_minus_q() {
        // W_i = W_{i-1} + (TQL − Q): 40 + (30 − 35) = 35; 40 + (30 − 28) = 42.
        assert_eq!(LAW.next_window(40, 30.0, 35.0, 64.0), 35);
        assert_eq!(LAW.next_window(40, 30.0, 28.0, 64.0), 42);
        assert_eq!(LAW.next_window(40, 30.0, 30.0, 64.0), 40, "Q = TQL keeps W");
    }

    #[test]
    fn increase_is_limited_to_1_25_times_the_previous_window() {
        // 20 + (30 − 0) = 50 > 1.25·20 = 25.
        assert_eq!(LAW.next_window(20, 30.0, 0.0, 300.0), 25);
        // 1.25·3 = 3.75 → 4 (half up).
        assert_eq!(LAW.next_window(3, 30.0, 0.0, 300.0), 4);
    }

    #[test]
    fn decrease_is_limited_to_half_the_previous_window() {
        // 64 + (30 − 60) = 34 is allowed; 64 + (20 − 60) = 24 < 32 → 32.
        assert_eq!(LAW.next_window(64, 30.0, 60.0, 64.0), 34);
        assert_eq!(LAW.next_window(64, 20.0, 60.0, 64.0), 32);
        // 5 + (2 − 40) < 0 → 2.5 → 3 (half up).
        assert_eq!(LAW.next_window(5, 2.0, 40.0, 64.0), 3);
    }

    #[test]
    fn window_never_exceeds_the_largest_advertised_window() {
        // §3.4: a sender not using its window lets the queue decay to 0; the law
        // would add TQL each epoch, the cap stops it at max_adv.
        assert_eq!(LAW.next_window(60, 30.0, 0.0, 64.0), 64);
        assert_eq!(LAW.next_window(64, 30.0, 0.0, 64.0), 64);
        // The cap applies after the ratio limits (A8): 1.25·60 = 75 → 64.
        assert_eq!(LAW.next_window(60, 60.0, 0.0, 64.0), 64);
    }

    #[test]
    fn window_never_falls_below_one_segment() {
        // 1 + (0 − 50) → down·1 = 0.5 → floor 1 (§3.3.1: no zero window).
        assert_eq!(LAW.next_window(1, 0.0, 50.0, 64.0), 1);
        let floor = Law {
            rounding: Rounding::Floor,
            ..LAW
        };
        assert_eq!(floor.next_window(1, 0.0, 50.0, 64.0), 1, "floor rounding, then ≥ 1");
        // A cap below one packet (a tiny advertised window) still gives 1.
        assert_eq!(LAW.next_window(10, 5.0, 5.0, 0.3), 1);
    }

    #[test]
    fn rounding_half_up_and_floor() {
        // TQL = 60/7 = 8.571…: 10 + (8.571 − 12) = 6.571 → 7 half up, 6 floor.
        let tql = 60.0 / 7.0;
        assert_eq!(LAW.next_window(10, tql, 12.0, 64.0), 7);
        let floor = Law {
            rounding: Rounding::Floor,
            ..LAW
        };
        assert_eq!(floor.next_window(10, tql, 12.0, 64.0), 6);
        // Exactly half: 10 + (7.5 − 8) = 9.5 → 10.
        assert_eq!(LAW.next_window(10, 7.5, 8.0, 64.0), 10);
    }

    // ----- the state machine (§3.3, §4)

    #[test]
    fn initialization_when_the_queue_first_exceeds_tql() {
        let mut c = Conv::new(64);
        c.on_data(30.0, 30.0, &LAW); // Q = TQL: not yet
        assert_eq!(c.state, State::Uncontrolled);
        assert_eq!(c.on_ack(64.0, 30.0), None, "uncontrolled ACKs are not rewritten");
        c.on_data(31.0, 30.0, &LAW);
        assert_eq!((c.state, c.w_prev, c.w_cur, c.epochs), (State::WaitAck, 64, 64, 1));
    }

    /// One whole epoch by hand: initialization at Q = 31 (TQL 30), W = 64; the
    /// first ACK finds Q_forward = 48 → 64 − 48 = 16 arrivals of waiting; then 64
    /// arrivals of convergence, the last (P^l_1) at Q = 40 gives
    /// W_2 = 64 + (30 − 40) = 54. Total 16 + 64 = 80 arrivals (A4).
    #[test]
    fn epoch_is_waiting_then_convergence_arrivals() {
        let mut c = Conv::new(64);
        c.max_adv = 64.0;
        c.on_data(31.0, 30.0, &LAW);
        c.on_data(32.0, 30.0, &LAW); // WAIT_ACK: arrivals ignored
        assert_eq!(c.state, State::WaitAck);
        assert_eq!(c.on_ack(64.0, 48.0), Some(64), "A^w_1 carries W_1");
        assert_eq!((c.state, c.wait_left), (State::Waiting, 16));
        for _ in 0..15 {
            c.on_data(45.0, 30.0, &LAW);
        }
        assert_eq!((c.state, c.wait_left), (State::Waiting, 1));
        c.on_data(45.0, 30.0, &LAW); // the 16th ends waiting, not counted in convergence
        assert_eq!((c.state, c.conv_left), (State::Converging, 64));
        assert_eq!(c.on_ack(64.0, 45.0), Some(64), "ACKs while converging keep W_cur");
        assert_eq!(c.state, State::Converging);
        for _ in 0..63 {
            c.on_data(41.0, 30.0, &LAW);
        }
        assert_eq!((c.state, c.conv_left, c.w_cur), (State::Converging, 1, 64));
        c.on_data(40.0, 30.0, &LAW); // P^l_1
        assert_eq!((c.state, c.w_prev, c.w_cur, c.epochs), (State::WaitAck, 64, 54, 2));
        // The next epoch's waiting period: W_prev − Q(t_w) = 64 − 40 = 24.
        assert_eq!(c.on_ack(64.0, 40.0), Some(54));
        assert_eq!(c.wait_left, 24);
    }

    #[test]
    fn ack_arriving_in_wait_ack_with_a_full_queue_skips_waiting() {
        // W_prev − Q(t_w) ≤ 0: everything of W_{i-1} is already queued; the
        // convergence period starts at once with W_cur arrivals.
        let mut c = controlled(20, 25, State::WaitAck);
        assert_eq!(c.on_ack(64.0, 20.0), Some(25));
        assert_eq!((c.state, c.conv_left), (State::Converging, 25));
        let mut c = controlled(20, 25, State::WaitAck);
        c.on_ack(64.0, 23.0);
        assert_eq!((c.state, c.conv_left), (State::Converging, 25));
    }

    #[test]
    fn only_the_first_ack_after_an_epoch_start_opens_the_waiting_period() {
        let mut c = controlled(30, 35, State::WaitAck);
        c.on_ack(64.0, 10.0);
        assert_eq!((c.state, c.wait_left), (State::Waiting, 20));
        c.on_ack(64.0, 2.0); // later ACKs do not restart it
        assert_eq!((c.state, c.wait_left), (State::Waiting, 20));
    }

    /// An epoch boundary with a drop: the arrival that ends the epoch was itself
    /// dropped (A5: it counts), so Q(t_e) is the queue without it; the next
    /// window follows from that Q.
    #[test]
    fn epoch_boundary_on_a_dropped_arrival() {
        let mut c = controlled(40, 40, State::Converging);
        c.conv_left = 2;
        c.on_data(35.0, 30.0, &LAW); // queued: Q = 35
        assert_eq!(c.conv_left, 1);
        // The last arrival is dropped by the full buffer: the caller reports the
        // queue after the drop, still 35 (a queued victim would make it 34).
        c.on_data(35.0, 30.0, &LAW);
        assert_eq!((c.state, c.w_prev, c.w_cur), (State::WaitAck, 40, 35));
    }

    #[test]
    fn max_adv_follows_the_receivers_field_and_caps_the_window() {
        let mut c = controlled(30, 30, State::Converging);
        c.max_adv = 0.0;
        c.on_ack(32.0, 0.0);
        c.on_ack(31.0, 0.0);
        assert_eq!(c.max_adv, 32.0, "the largest field seen");
        c.conv_left = 1;
        c.on_data(0.0, 30.0, &LAW); // 30 + 30 → 37.5 by the increase limit → 32 by the cap
        assert_eq!(c.w_cur, 32);
    }

    #[test]
    fn no_cap_before_any_ack() {
        let mut c = controlled(30, 30, State::Converging);
        c.max_adv = 0.0;
        c.conv_left = 1;
        c.on_data(0.0, 30.0, &LAW);
        assert_eq!(c.w_cur, 38, "1.25 · 30 = 37.5 → 38");
    }

    #[test]
    fn a_one_segment_window_cannot_deadlock_the_waiting_period() {
        // W_i = 1: the sender sends one packet per RTT; the waiting period is
        // W_{i-1} − Q(t_w) ≤ 2 arrivals when W_{i-1} ≥ W_i/down = 2 at most.
        let mut c = controlled(2, 1, State::WaitAck);
        c.on_ack(64.0, 0.0);
        assert_eq!(c.wait_left, 2);
        c.on_data(0.0, 5.0, &LAW);
        c.on_data(0.0, 5.0, &LAW);
        assert_eq!((c.state, c.conv_left), (State::Converging, 1));
        c.on_data(0.0, 5.0, &LAW); // P^l: 1 + 5 → 1.25 → 1
        assert_eq!((c.state, c.w_cur), (State::WaitAck, 1));
    }
}
