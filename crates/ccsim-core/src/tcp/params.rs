//! The keys of a TCP flow table (`[[flows]] kind = "tcp"`), read with their
//! defaults into [`SendParams`] and [`RecvParams`]; docs/user-guide.md lists
//! them.
//!
//! `conventions` selects the defaults of the keys where simulators and RFCs
//! differ (each key can still be set on its own):
//!
//! | key | `"ccsim"` (default) | `"ns2"` (ns-2.35 one-way TCP) | `"ns3"` (ns-3.44 `TcpSocketBase`) |
//! |---|---|---|---|
//! | `init_rto` | 1 s (RFC 6298) | 3 s (`rtxcur_init_`) | 1 s (`RttEstimator::InitialEstimation`) |
//! | `min_rto` | 0.2 s | 0.2 s | 1 s (`MinRto`) |
//! | `clock_granularity` | 0 | 0 | 1 ms (`ClockGranularity`) |
//! | `rtt_estimator`, `rtt_tick` | RFC 6298, exact | ns-2 fixed point, 10 ms (`tcpTick_`) | RFC 6298, exact (`RttMeanDeviation`) |
//! | `rtt_samples` | one timed segment per RTT | the same | every ACK (`Timestamp`, or the send history without it) |
//! | `init_cwnd` | 2 | 2 | 10 (`InitialCwnd`) |
//! | `delayed_ack`, `delack_timeout` | off, 100 ms | off, 100 ms | on, 200 ms (`DelAckCount` 2, `DelAckTimeout`) |
//! | `quickack` | 0 | 0 | 1: the first data segment is acknowledged at once (`ProcessSynRcvd`: "Always respond to first data packet") |
//! | `sack` | off | off | on (`Sack`) |
//! | `header` | 40 B | 40 B | 52 B (timestamps option, `Timestamp`) |
//! | `limited_transmit` | off | on (`singledup_ 1`) | on (`LimitedTransmit`) |
//! | `byte_counting` | on (RFC 3465) | off: SMSS²/cwnd per ACK (`cwnd_ += 1/cwnd_`) | off (`TcpNewReno::CongestionAvoidance`) |
//! | `loss_window` | `"flight"` (RFC 5681 eq. 4) | `"cwnd"` (`slowdown` halves `window()`) | `"pipe"` (`GetSsThresh(tcb, BytesInFlight())`); `"cwnd"` with `cc = "cubic"` or another module that reduces from cwnd (`Needs::reduces_cwnd`: `TcpCubic` reduces whole segments of cwnd) |
//! | `full_ack` | `"ssthresh"` (RFC 6582 option 2) | `"keep"` (`dupwnd_ = 0`, `cwnd_` kept) | `"ssthresh"` |
//! | `ecn_retransmissions` | off (RFC 3168 §6.1.5: Not-ECT) | on (`output` sets ECT on every segment) | off |
//! | `cwr_hold` | off (RFC 3168 §6.1.2) | off | on: no growth for a round trip after an ECN reduction (`CA_CWR`) |
//! | `prr` | off: RFC 6675 recovery at ssthresh, ECN reductions at once | off | on: Proportional Rate Reduction (RFC 9937, `TcpPrrRecovery`) |
//! | `prr_bound` | `"safe-ack"`: PRR adds a segment on an ACK that advances snd.una and marks nothing newly lost (RFC 9937, Linux) | `"safe-ack"` | `"retransmitted"`: on an ACK of retransmitted data (`m_isRetransDataAcked`) |
//! | `rto_ssthresh` | `"window"`: every timeout halves the window in use | `"window"` (`slowdown(CLOSE_SSTHRESH_HALF)`) | `"except-in-loss"`: from the loss window, not again during a timeout's recovery (`ReTxTimeout`) |
//! | `rearm_rto` | on: a fast retransmit restarts the retransmission timer (Linux) | on (`reset_rtx_timer` in `dupack_action`) | off: it runs on from the last new ACK (`SendDataPacket` starts it only if idle) |
//! | `send_limit` | `"flight"`: outside a recovery cwnd limits FlightSize (RFC 5681) | `"flight"` | `"pipe"`: RFC 6675's pipe everywhere (`BytesInFlight`, as Linux's `tcp_packets_in_flight`) |
//! | `handshake` | off: data at the start time | off (ns-2 `syn_ false`) | on: SYN and SYN-ACK first, the SYN's RTT the first sample (`TcpSocketBase::Connect`) |
//!
//! ns-3's default `SegmentSize` (536 B) is a scenario's choice, not a
//! convention: set `mss`.
//!
//! All three share max RTO 60 s, dupthresh 3 and NewReno's Impatient timer.
//! ns-2's buffer convention (a DropTail `limit_` N holds N − 1 waiting
//! packets) is a queue matter, not a TCP one; docs/validation.md lists every
//! difference measured.

use super::{
    CeEcho, Estimator, FullAck, LossWindow, PrrBound, RecvParams, RtoSsthresh, RttParams, SendLimit, SendParams,
    INFINITE,
};
use crate::cc;
use crate::cfg::{time_str, Res, Tab};
use crate::feedback::FeedbackSpec;
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// Defaults selected by `conventions`.
struct Conventions {
    init_rto: &'static str,
    min_rto: &'static str,
    clock_granularity: &'static str,
    per_ack_rtt: bool,
    init_cwnd: u64,
    delayed_ack: bool,
    delack_timeout: &'static str,
    quickack: u64,
    sack: bool,
    header: u64,
    rtt_estimator: &'static str,
    rtt_tick: &'static str,
    limited_transmit: bool,
    byte_counting: bool,
    loss_window: &'static str,
    full_ack: &'static str,
    ecn_retransmissions: bool,
    cwr_hold: bool,
    prr: bool,
    prr_bound: &'static str,
    rearm_rto: bool,
    rto_ssthresh: &'static str,
    handshake: bool,
    send_limit: &'static str,
}

const CCSIM: Conventions = Conventions {
    init_rto: "1s",
    min_rto: "200ms",
    clock_granularity: "0s",
    per_ack_rtt: false,
    init_cwnd: 2,
    delayed_ack: false,
    delack_timeout: "100ms",
    quickack: 0,
    sack: false,
    header: 40,
    rtt_estimator: "rfc6298",
    rtt_tick: "0s",
    limited_transmit: false,
    byte_counting: true,
    loss_window: "flight",
    full_ack: "ssthresh",
    ecn_retransmissions: false,
    cwr_hold: false,
    prr: false,
    prr_bound: "safe-ack",
    rearm_rto: true,
    rto_ssthresh: "window",
    handshake: false,
    send_limit: "flight",
};

const NS2: Conventions = Conventions {
    init_rto: "3s",
    rtt_estimator: "ns2",
    rtt_tick: "10ms",
    limited_transmit: true,
    byte_counting: false,
    loss_window: "cwnd",
    full_ack: "keep",
    ecn_retransmissions: true,
    ..CCSIM
};

const NS3: Conventions = Conventions {
    init_rto: "1s",
    min_rto: "1s",
    clock_granularity: "1ms",
    per_ack_rtt: true,
    init_cwnd: 10,
    delayed_ack: true,
    delack_timeout: "200ms",
    quickack: 1,
    sack: true,
    header: 52,
    rtt_estimator: "rfc6298",
    rtt_tick: "0s",
    limited_transmit: true,
    byte_counting: false,
    loss_window: "pipe",
    full_ack: "ssthresh",
    ecn_retransmissions: false,
    cwr_hold: true,
    prr: true,
    prr_bound: "retransmitted",
    rearm_rto: false,
    rto_ssthresh: "except-in-loss",
    handshake: true,
    send_limit: "pipe",
};

/// Every key [`read`] accepts (other transports refuse them by name).
pub const KEYS: &[&str] = &[
    "ack_size",
    "byte_counting",
    "cc",
    "clock_granularity",
    "conventions",
    "cwr_hold",
    "delack_timeout",
    "delayed_ack",
    "dupthresh",
    "ecn",
    "ecn_retransmissions",
    "feedback",
    "full_ack",
    "handshake",
    "header",
    "init_cwnd",
    "init_rto",
    "init_ssthresh",
    "limited_transmit",
    "loss_window",
    "max_rto",
    "min_rto",
    "mss",
    "pacing",
    "partial_ack_timer",
    "prr",
    "prr_bound",
    "quickack",
    "rearm_rto",
    "rto_ssthresh",
    "rtt_estimator",
    "rtt_gains",
    "rtt_samples",
    "rtt_tick",
    "rwnd",
    "sack",
    "sack_blocks",
    "send_jitter",
    "send_limit",
    "size",
];

/// Reads a TCP flow's keys (`in_workload`: a workload's `transport` table,
/// which has no `size`: each connection's comes from the workload); returns
/// the sender's and receiver's parameters and the congestion control.
///
/// BMCC (`cc = "bmcc"`, docs/models/bmcc.md, "Sender") brings three defaults and two checks: its
/// packets are ECN-capable (`ecn` defaults to true, and false is refused), it
/// recovers losses with SACK (`sack` defaults to true), and its receiver must
/// echo the load-factor estimate (`feedback = {kind = "bmcc"}` is required);
/// the receiver's `on_ce` selects the original or the modified scheme (§6.1)
/// for both ends.
///
/// The keys are read in a fixed order (the helpers below, one concern each,
/// in turn): it decides which of two bad keys is reported and the order of
/// the resolved table.
pub fn read(t: &mut Tab, in_workload: bool) -> Res<(SendParams, RecvParams, Arc<dyn cc::CcSpec>)> {
    let conv = read_conventions(t)?;
    let cc = cc::read(t)?;
    let needs = cc.needs();
    let seg = Segments::read(t, conv, in_workload)?;
    let timers = Timers::read(t, conv, &needs)?;
    let buffer = Receiving::read(t, conv, seg.mss)?;
    let ecn = Ecn::read(t, conv, &needs, cc.name())?;
    let rec = Recovery::read(t, conv, &needs)?;
    let send = Sending::read(t, conv)?;
    let snd = SendParams {
        mss: seg.mss,
        header: seg.header,
        init_cwnd: seg.init_cwnd,
        init_ssthresh: seg.init_ssthresh.unwrap_or(INFINITE),
        dupthresh: seg.dupthresh,
        rtt: timers.rtt,
        rtt_timestamps: timers.rtt_timestamps,
        size: seg.size.unwrap_or(INFINITE),
        ecn: ecn.ecn,
        ect_retransmissions: ecn.ecn && ecn.retransmissions,
        ect: if needs.ect1 {
            crate::packet::Ecn::Ect1
        } else {
            crate::packet::Ecn::Ect0
        },
        full_ack: rec.full_ack,
        partial_timer_every: rec.partial_timer_every,
        byte_counting: rec.byte_counting,
        sack: rec.sack && rec.sack_blocks > 0,
        limited_transmit: rec.limited_transmit,
        rto_ssthresh: rec.rto_ssthresh,
        loss_window: rec.loss_window,
        send_jitter: send.send_jitter,
        pacing: send.pacing,
        cwr_hold: send.cwr_hold,
        prr: send.prr,
        prr_bound: send.prr_bound,
        rearm_rto: send.rearm_rto,
        rtt_scaled_gains: timers.rtt_scaled_gains,
        handshake: send.handshake,
        send_limit: send.send_limit,
        ack_hold: needs.ack_hold,
    };
    let feedback = read_feedback(t)?;
    let cc = with_feedback(t, cc, &needs, feedback.as_ref())?;
    let rcv = RecvParams {
        buffer: buffer.rwnd.unwrap_or(INFINITE),
        delack: buffer.delayed.then_some(buffer.delack_timeout),
        quickack: buffer.quickack,
        ack_size: seg.ack_size,
        sack_blocks: rec.sack_blocks,
        feedback,
        ce_echo: if needs.accurate_ce {
            CeEcho::Dctcp
        } else {
            CeEcho::Rfc3168
        },
        ack_hold: needs.ack_hold,
    };
    Ok((snd, rcv, cc))
}

/// `conventions`: the preset of defaults the other keys fall back on.
fn read_conventions(t: &mut Tab) -> Res<&'static Conventions> {
    Ok(
        match t
            .choice("conventions", Some("ccsim"), &["ccsim", "ns2", "ns3"])?
            .as_str()
        {
            "ns2" => &NS2,
            "ns3" => &NS3,
            _ => &CCSIM,
        },
    )
}

/// Segment and ACK sizes, the flow's size and the initial window.
struct Segments {
    mss: u32,
    header: u32,
    ack_size: u32,
    size: Option<u64>,
    init_cwnd: u32,
    init_ssthresh: Option<u64>,
    dupthresh: u32,
}

impl Segments {
    fn read(t: &mut Tab, conv: &Conventions, in_workload: bool) -> Res<Self> {
        let mss = t.uint("mss", Some(1460), 1, 65_495)? as u32;
        let header = t.uint("header", Some(conv.header), 0, 1000)? as u32;
        let ack_size = t.uint("ack_size", Some(40), 1, 1500)? as u32;
        // (A workload's connections get their sizes from the workload: no key.)
        let size = if in_workload {
            None
        } else {
            t.size_or_inf("size", "inf")?
        };
        if size == Some(0) {
            return Err(t.error("size", &Value::from(0), "a positive size or \"inf\""));
        }
        Ok(Segments {
            mss,
            header,
            ack_size,
            size,
            init_cwnd: t.uint("init_cwnd", Some(conv.init_cwnd), 1, 10_000)? as u32,
            init_ssthresh: t.size_or_inf("init_ssthresh", "inf")?,
            dupthresh: t.uint("dupthresh", Some(3), 1, 1000)? as u32,
        })
    }
}

/// The retransmission timer and the RTT estimator and its samples.
struct Timers {
    rtt: RttParams,
    rtt_timestamps: bool,
    rtt_scaled_gains: bool,
}

impl Timers {
    fn read(t: &mut Tab, conv: &Conventions, needs: &cc::Needs) -> Res<Self> {
        let rtt = RttParams {
            init_rto: t.time("init_rto", Some(conv.init_rto))?,
            min_rto: t.time("min_rto", Some(conv.min_rto))?,
            max_rto: t.time("max_rto", Some("60s"))?,
            granularity: t.time("clock_granularity", Some(conv.clock_granularity))?,
            tick: t.time("rtt_tick", Some(conv.rtt_tick))?,
            estimator: match t
                .choice("rtt_estimator", Some(conv.rtt_estimator), &["rfc6298", "ns2"])?
                .as_str()
            {
                "ns2" => Estimator::Ns2,
                _ => Estimator::Rfc6298,
            },
        };
        if rtt.estimator == Estimator::Ns2 && rtt.tick == Time::ZERO {
            return Err(t.error(
                "rtt_tick",
                &Value::String(time_str(rtt.tick)),
                "a positive clock tick such as \"10ms\" (ns-2's tcpTick_) with rtt_estimator = \"ns2\"",
            ));
        }
        if rtt.max_rto < rtt.min_rto || rtt.init_rto == Time::ZERO {
            return Err(t.error(
                "max_rto",
                &Value::String(time_str(rtt.max_rto)),
                "max_rto ≥ min_rto and a positive init_rto",
            ));
        }
        let rtt_default = if needs.timestamps || conv.per_ack_rtt {
            "timestamps"
        } else {
            "timed"
        };
        let rtt_timestamps = t.choice("rtt_samples", Some(rtt_default), &["timed", "timestamps"])? == "timestamps";
        let rtt_scaled_gains = t.choice("rtt_gains", Some("rfc6298"), &["rfc6298", "rfc7323"])? == "rfc7323";
        Ok(Timers {
            rtt,
            rtt_timestamps,
            rtt_scaled_gains,
        })
    }
}

/// The receiver's buffer and delayed ACKs.
struct Receiving {
    rwnd: Option<u64>,
    delayed: bool,
    delack_timeout: Time,
    quickack: u32,
}

impl Receiving {
    fn read(t: &mut Tab, conv: &Conventions, mss: u32) -> Res<Self> {
        let rwnd = t.size_or_inf("rwnd", "inf")?;
        if let Some(w) = rwnd.filter(|&w| w < mss as u64) {
            return Err(t.error(
                "rwnd",
                &Value::from(w),
                format!("a receive buffer of at least one MSS ({mss} B) or \"inf\""),
            ));
        }
        Ok(Receiving {
            rwnd,
            delayed: t.boolean("delayed_ack", conv.delayed_ack)?,
            delack_timeout: t.time("delack_timeout", Some(conv.delack_timeout))?,
            quickack: t.uint("quickack", Some(conv.quickack), 0, 1_000_000)? as u32,
        })
    }
}

/// ECN capability, of new data and of retransmissions.
struct Ecn {
    ecn: bool,
    retransmissions: bool,
}

impl Ecn {
    fn read(t: &mut Tab, conv: &Conventions, needs: &cc::Needs, cc_name: &str) -> Res<Self> {
        let ecn = t.boolean("ecn", needs.ecn.is_some())?;
        if let (Some(why), false) = (needs.ecn, ecn) {
            return Err(t.error(
                "ecn",
                &Value::Bool(false),
                format!("true with cc = {cc_name:?} ({why})"),
            ));
        }
        // BMCC's receiver learns the load from every packet (a Not-ECT
        // retransmission carries nothing, and a stale estimate would linger).
        let retransmissions = t.boolean("ecn_retransmissions", conv.ecn_retransmissions || needs.ecn.is_some())?;
        Ok(Ecn { ecn, retransmissions })
    }
}

/// Loss recovery (full and partial ACKs, SACK, limited transmit) and the
/// window's growth and reduction after a loss or a timeout.
struct Recovery {
    full_ack: FullAck,
    partial_timer_every: bool,
    sack: bool,
    sack_blocks: u8,
    limited_transmit: bool,
    byte_counting: bool,
    loss_window: LossWindow,
    rto_ssthresh: RtoSsthresh,
}

impl Recovery {
    fn read(t: &mut Tab, conv: &Conventions, needs: &cc::Needs) -> Res<Self> {
        let full_ack = match t
            .choice("full_ack", Some(conv.full_ack), &["ssthresh", "flight", "keep"])?
            .as_str()
        {
            "flight" => FullAck::Flight,
            "keep" => FullAck::Keep,
            _ => FullAck::Ssthresh,
        };
        let partial_timer = t.choice("partial_ack_timer", Some("first"), &["first", "every"])?;
        // SACK (RFC 2018 option, RFC 6675 recovery) needs both ends: the sender
        // willing (`sack`) and the receiver sending blocks (`sack_blocks`).
        let sack = t.boolean("sack", needs.sack || conv.sack)?;
        let sack_blocks = t.uint("sack_blocks", Some(if sack { 3 } else { 0 }), 0, 4)? as u8;
        let limited_transmit = t.boolean("limited_transmit", conv.limited_transmit)?;
        let byte_counting = t.boolean("byte_counting", conv.byte_counting)?;
        // ns-3 hands BytesInFlight() to every module, but TcpCubic (as Linux's
        // bictcp_recalc_ssthresh) reduces from cwnd in whole segments.
        let loss_window_default = match (conv.loss_window, needs.reduces_cwnd) {
            ("pipe", true) => "cwnd",
            (w, _) => w,
        };
        let loss_window = t
            .pick(
                "loss_window",
                Some(loss_window_default),
                &[
                    ("flight", LossWindow::Flight),
                    ("cwnd", LossWindow::Cwnd),
                    ("pipe", LossWindow::Pipe),
                ],
            )?
            .1;
        let rto_ssthresh = t
            .pick(
                "rto_ssthresh",
                Some(conv.rto_ssthresh),
                &[
                    ("window", RtoSsthresh::Window),
                    ("once-per-window", RtoSsthresh::OncePerWindow),
                    ("except-in-loss", RtoSsthresh::ExceptInLoss),
                ],
            )?
            .1;
        Ok(Recovery {
            full_ack,
            partial_timer_every: partial_timer == "every",
            sack,
            sack_blocks,
            limited_transmit,
            byte_counting,
            loss_window,
            rto_ssthresh,
        })
    }
}

/// How segments go out (jitter, pacing, the handshake, the send limit) and
/// how ECN and recovery reductions are applied (CWR hold, PRR, timer rearm).
struct Sending {
    send_jitter: Time,
    pacing: bool,
    cwr_hold: bool,
    prr: bool,
    prr_bound: PrrBound,
    rearm_rto: bool,
    handshake: bool,
    send_limit: SendLimit,
}

impl Sending {
    fn read(t: &mut Tab, conv: &Conventions) -> Res<Self> {
        let send_jitter = t.time("send_jitter", Some("0s"))?;
        let pacing = t.boolean("pacing", false)?;
        let cwr_hold = t.boolean("cwr_hold", conv.cwr_hold)?;
        let prr = t.boolean("prr", conv.prr)?;
        let prr_bound = t
            .pick(
                "prr_bound",
                Some(conv.prr_bound),
                &[
                    ("safe-ack", PrrBound::SafeAck),
                    ("retransmitted", PrrBound::Retransmitted),
                    ("slow-start", PrrBound::SlowStart),
                ],
            )?
            .1;
        let rearm_rto = t.boolean("rearm_rto", conv.rearm_rto)?;
        let handshake = t.boolean("handshake", conv.handshake)?;
        let send_limit = t
            .pick(
                "send_limit",
                Some(conv.send_limit),
                &[("flight", SendLimit::Flight), ("pipe", SendLimit::Pipe)],
            )?
            .1;
        Ok(Sending {
            send_jitter,
            pacing,
            cwr_hold,
            prr,
            prr_bound,
            rearm_rto,
            handshake,
            send_limit,
        })
    }
}

/// The receiver's `feedback` table (a mechanism writing into the ACKs).
fn read_feedback(t: &mut Tab) -> Res<Option<Arc<dyn FeedbackSpec>>> {
    Ok(match t.table("feedback")? {
        Some(mut f) => {
            let spec = crate::feedback::read(&mut f)?;
            t.put("feedback", f.finish()?);
            Some(spec)
        }
        None => None,
    })
}

/// The congestion control as it pairs with the receiver's `feedback` (a
/// module that needs a kind of feedback refuses its absence).
fn with_feedback(
    t: &Tab,
    cc: Arc<dyn cc::CcSpec>,
    needs: &cc::Needs,
    feedback: Option<&Arc<dyn FeedbackSpec>>,
) -> Res<Arc<dyn cc::CcSpec>> {
    Ok(match (needs.feedback, feedback) {
        (Some((kind, why)), fb) if fb.is_none_or(|f| f.kind() != kind) => {
            return Err(t.missing(
                "feedback",
                &format!("feedback = {{kind = {kind:?}}} with cc = {:?} ({why})", cc.name()),
            ))
        }
        (_, Some(f)) => cc.with_feedback(f.as_ref()).unwrap_or(cc),
        (_, None) => cc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolved(v: Value) -> Value {
        let mut t = Tab::new("flows[0]".into(), &v).unwrap();
        read(&mut t, false).unwrap();
        t.finish().unwrap()
    }

    #[test]
    fn ns2_conventions_set_defaults_and_keys_still_win() {
        let r = resolved(json!({"conventions": "ns2", "limited_transmit": false}));
        assert_eq!(r["init_rto"], "3s");
        assert_eq!(r["rtt_estimator"], "ns2");
        assert_eq!(r["rtt_tick"], "0.01s");
        assert_eq!(r["byte_counting"], false);
        assert_eq!(r["loss_window"], "cwnd");
        assert_eq!(r["full_ack"], "keep");
        assert_eq!(r["limited_transmit"], false, "an explicit key wins");
        let d = resolved(json!({}));
        assert_eq!(
            (d["conventions"].as_str(), d["init_rto"].as_str()),
            (Some("ccsim"), Some("1s"))
        );
        assert_eq!(d["byte_counting"], true);
        assert_eq!(d["full_ack"], "ssthresh");
    }

    #[test]
    fn ns3_conventions_are_ns3_defaults() {
        let r = resolved(json!({"conventions": "ns3", "cc": "newreno"}));
        for (key, want) in [
            ("init_rto", json!("1s")),
            ("min_rto", json!("1s")),
            ("clock_granularity", json!("0.001s")),
            ("rtt_samples", json!("timestamps")),
            ("init_cwnd", json!(10)),
            ("delayed_ack", json!(true)),
            ("delack_timeout", json!("0.2s")),
            ("sack", json!(true)),
            ("header", json!(52)),
            ("limited_transmit", json!(true)),
            ("byte_counting", json!(false)),
            ("loss_window", json!("pipe")),
            ("full_ack", json!("ssthresh")),
            ("ecn_retransmissions", json!(false)),
            ("cwr_hold", json!(true)),
            ("prr", json!(true)),
            ("handshake", json!(true)),
            ("send_limit", json!("pipe")),
        ] {
            assert_eq!(r[key], want, "{key}");
        }
        let cubic = resolved(json!({"conventions": "ns3", "cc": "cubic"}));
        assert_eq!(cubic["loss_window"], "cwnd", "TcpCubic reduces from cwnd");
        let own = resolved(json!({"conventions": "ns3", "sack": false, "header": 40, "rtt_samples": "timed"}));
        assert_eq!((own["sack"].as_bool(), own["header"].as_u64()), (Some(false), Some(40)));
        assert_eq!(own["rtt_samples"], "timed", "an explicit key wins");
    }

    #[test]
    fn keys_lists_every_key_read() {
        let v = json!({});
        let mut t = Tab::new("flows[0]".into(), &v).unwrap();
        read(&mut t, false).unwrap();
        assert_eq!(t.known(), KEYS);
    }

    #[test]
    fn ns2_estimator_needs_a_tick() {
        let v = json!({"rtt_estimator": "ns2"});
        let mut t = Tab::new("flows[0]".into(), &v).unwrap();
        let e = read(&mut t, false).unwrap_err();
        assert_eq!(e.path, "flows[0].rtt_tick");
        assert!(e.expected.contains("tcpTick_"), "{e}");
    }
}
