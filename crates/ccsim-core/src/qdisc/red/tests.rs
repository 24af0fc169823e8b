//! Unit tests of RED, gentle RED and Adaptive RED (docs/models/red.md,
//! docs/models/adaptive-red.md; values hand-worked from ns-2.35
//! `queue/red.cc`, Floyd & Jacobson 1993 and Floyd, Gummadi & Shenker 2001):
//! the average after given arrivals and after an idle period, the first
//! crossing of min_th, `wait` spreading, the probability function, forced
//! drops, `use_mark_p`, byte mode, ns-2's automatic `q_weight` and thresholds,
//! ARED's max_p steps and bounds, the queue's drops, marks and trace, the
//! signalled fraction at a fixed average, and the configuration errors.

use super::super::testutil::{build, link, pkt, Drive};
use super::*;
use serde_json::{json, Value};

/// Classic early-era settings: thresholds 5/15 packets, max_p 0.1, w 0.002,
/// packet mode, 10 Mbps with 1000-B mean packets (ptc 1250/s).
fn classic() -> Params {
    Params {
        min_th_pkts: 5.0,
        max_th_pkts: 15.0,
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.1,
        q_weight: 0.002,
        mean_pktsize: 1000,
        ptc: 1250.0,
        wait: true,
        gentle: false,
        byte_mode: false,
        queue_in_bytes: false,
        ecn: false,
        use_mark_p: false,
        mark_p: 0.1,
        adaptive: None,
    }
}

fn at(ms: f64) -> Time {
    Time::from_secs_f64(ms / 1000.0)
}

#[test]
fn average_is_the_ewma_of_the_backlog_before_each_arrival() {
    let mut r = Red::new(classic());
    let mut rng = Rng::new(1, 0);
    let mut want = 0.0f64;
    for (i, q) in [0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0].iter().enumerate() {
        r.arrival(at(i as f64 * 0.1), *q, 1000, false, &mut rng);
        want = 0.998 * want + 0.002 * q;
        assert!((r.v.avg - want).abs() < 1e-15, "{} vs {want}", r.v.avg);
    }
    assert!((r.v.avg - 0.105_712_607_088_895).abs() < 1e-14);
}

/// The engine never dequeues an empty queue, so RED learns of an idle
/// link from the dequeue of its last packet: idle from the end of that
/// packet's serialization (ns-2: the link, free again, finds the queue
/// empty). 10 Mb/s, 1000-B packets: 0.8 ms each; ptc = 1250/s.
#[test]
fn the_link_is_idle_from_the_end_of_the_last_serialization() {
    let keys = json!({"kind": "red", "min_th": 5, "max_th": 15, "q_weight": 0.002,
        "mean_pktsize": "1000B", "queue_in_bytes": false, "byte_mode": false});
    let run = |later: Time| {
        let mut d = Drive::new(build(keys.clone(), &link("10Mbps", Limit::Packets(100))).unwrap());
        for uid in 0..3 {
            d.enq(pkt(uid, 0, 1000));
        }
        d.drain();
        let before = d.trace("avg");
        d.now = later;
        d.enq(pkt(9, 0, 1000));
        (before, d.trace("avg"))
    };
    // Arrival while the last packet is still being serialized: no decay.
    let (avg, busy) = run(at(0.5));
    assert!((avg - (0.002 * 0.998 + 0.002 * 2.0)).abs() < 1e-15);
    assert!((busy - 0.998 * avg).abs() < 1e-15, "{busy}");
    // One second later: m = floor(1250 · (1 − 0.0008)) = 1249 empty arrivals.
    let (avg, idle) = run(Time::from_secs(1));
    assert!((idle - avg * 0.998f64.powi(1250)).abs() < 1e-15, "{idle}");
}

#[test]
fn an_idle_period_decays_the_average_by_m_plus_one_factors() {
    // Idle from 1 s to 1.0123 s at ptc = 1250/s: m = floor(15.375) = 15,
    // avg = 10·0.998^15 then one more update with q = 0.
    let mut r = Red::new(classic());
    r.v.avg = 10.0;
    r.v.idle_since = None;
    r.idle(Time::from_secs(1));
    r.update_avg(Time::from_secs_f64(1.0123), 0.0);
    assert!((r.v.avg - 10.0 * 0.998f64.powi(16)).abs() < 1e-12, "{}", r.v.avg);
    // Not idle any more: the next arrival applies one factor only.
    r.update_avg(Time::from_secs(2), 4.0);
    assert!((r.v.avg - (10.0 * 0.998f64.powi(17) + 0.002 * 4.0)).abs() < 1e-12);
}

#[test]
fn first_crossing_of_min_th_never_drops_and_restarts_the_count() {
    let mut r = Red::new(classic());
    let mut rng = Rng::new(1, 0);
    r.v.avg = 14.0;
    r.v.idle_since = None;
    r.v.count = 40;
    r.p.q_weight = 1e-12; // hold the average
    assert_eq!(r.arrival(at(1.0), 14.0, 1000, false, &mut rng), Decision::Pass);
    assert_eq!((r.v.count, r.v.old), (1, true));
    // At most one packet waiting: never an early drop, and `old` resets.
    assert_eq!(r.arrival(at(2.0), 1.0, 1000, false, &mut rng), Decision::Pass);
    assert!(!r.v.old);
}

#[test]
fn wait_spreading_keeps_at_least_one_over_p_b_arrivals_between_drops() {
    // ns-2 wait_: 0 while count·p_b < 1, p_b/(2 − count·p_b) below 2, then 1.
    let mut r = Red::new(classic());
    for (count, want) in [
        (5, 0.0),
        (9, 0.0),
        (10, 0.1),
        (15, 0.2),
        (19, 0.1 / 0.1),
        (20, 1.0),
        (25, 1.0),
    ] {
        r.v.count = count;
        assert!((r.spread(0.1, 1000) - want).abs() < 1e-12, "count {count}");
    }
    // Floyd & Jacobson: p_b/(1 − count·p_b), 1 from count·p_b = 1 on.
    r.p.wait = false;
    for (count, want) in [(0, 0.1), (5, 0.2), (8, 0.5), (10, 1.0)] {
        r.v.count = count;
        assert!((r.spread(0.1, 1000) - want).abs() < 1e-12, "count {count}");
    }
}

#[test]
fn drop_probability_function_hand_worked() {
    // p_b = max_p·(avg − min_th)/(max_th − min_th) (Floyd & Jacobson 1993, §4;
    // ns-2 `calculate_p_new`) with max_p = 1/linterm_: linterm 50, min_th 40,
    // max_th 80, avg 60 ⇒ p_b = 0.01, hand-worked.
    let mut p = classic();
    (p.min_th, p.max_th, p.max_p) = (40.0, 80.0, 0.02);
    assert!((Red::new(p).p_b(60.0) - 0.01).abs() < 1e-15);
    // Gentle: from max_p at max_th to 1 at 2·max_th, 1 beyond.
    let mut g = classic();
    g.gentle = true;
    let r = Red::new(g);
    for (avg, want) in [(10.0, 0.05), (15.0, 0.1), (22.5, 0.55), (30.0, 1.0), (40.0, 1.0)] {
        assert!((r.p_b(avg) - want).abs() < 1e-12, "avg {avg}: {}", r.p_b(avg));
    }
    assert_eq!(Red::new(classic()).p_b(15.0), 1.0, "not gentle: 1 from max_th on");
}

fn decide(p: Params, avg: f64, ect: bool) -> Decision {
    let mut r = Red::new(p);
    r.v.avg = avg;
    r.v.idle_since = None;
    r.v.old = true;
    r.v.count = 1000; // past any spreading: p = 1 when p_b > 0
    r.p.q_weight = 1e-12;
    r.arrival(at(1.0), avg, 1000, ect, &mut Rng::new(1, 0))
}

#[test]
fn forced_drops_above_max_th_or_twice_it_when_gentle() {
    assert_eq!(decide(classic(), 15.0, true), Decision::ForcedDrop);
    let mut g = classic();
    g.gentle = true;
    assert_eq!(decide(g.clone(), 29.9, false), Decision::EarlyDrop);
    assert_eq!(decide(g.clone(), 30.0, false), Decision::ForcedDrop);
    // setbit_: unforced decisions mark ECN-capable packets, forced ones drop them.
    g.ecn = true;
    assert_eq!(decide(g.clone(), 20.0, true), Decision::Mark);
    assert_eq!(decide(g.clone(), 20.0, false), Decision::EarlyDrop);
    assert_eq!(decide(g, 30.0, true), Decision::ForcedDrop);
}

#[test]
fn use_mark_p_marks_below_mark_p_drops_above_and_never_forces() {
    let mut p = classic();
    (p.gentle, p.ecn, p.use_mark_p) = (true, true, true);
    assert_eq!(decide(p.clone(), 14.0, true), Decision::Mark, "p_b 0.09 ≤ mark_p");
    assert_eq!(decide(p.clone(), 15.0, true), Decision::Mark, "p_b = mark_p");
    assert_eq!(decide(p.clone(), 16.0, true), Decision::EarlyDrop, "p_b 0.16 > mark_p");
    assert_eq!(decide(p.clone(), 45.0, true), Decision::EarlyDrop, "no forced drop");
    assert_eq!(decide(p, 45.0, false), Decision::EarlyDrop);
}

#[test]
fn byte_mode_counts_bytes_and_scales_by_size() {
    let mut p = classic();
    p.byte_mode = true;
    let mut r = Red::new(p);
    // count_bytes / mean_pktsize is an integer division (ns-2 ints).
    r.v.count_bytes = 14_999;
    assert!((r.spread(0.1, 500) - 0.1 / (2.0 - 1.4) * 0.5).abs() < 1e-12);
    r.v.count_bytes = 9_999;
    assert_eq!(r.spread(0.1, 1000), 0.0);
}

#[test]
fn adaptive_red_automatic_parameters_at_45_mbps() {
    // ARED's automatic parameters (Floyd, Gummadi & Shenker 2001; ns-2
    // `initialize_params`), hand-worked at 45 Mbps with 1000-B packets
    // (5625 packets/s): min_th = max(5, 0.005·5625/2) = 14.0625, max_th =
    // 3·min_th = 42.1875, w_q = 1 − e^(−1/5625); bottom = 80000/C.
    let l = link("45Mbps", Limit::Packets(100));
    let p = resolve(
        &json!({"kind": "ared", "mean_pktsize": 1000, "queue_in_bytes": false}),
        &l,
    )
    .unwrap();
    assert_eq!((p.min_th, p.max_th), (14.0625, 42.1875));
    assert!((p.q_weight - (1.0 - (-1.0f64 / 5625.0).exp())).abs() < 1e-18);
    let a = p.adaptive.unwrap();
    assert!((a.bottom - 80_000.0 / 45e6).abs() < 1e-15, "{}", a.bottom);
    assert_eq!(
        (a.alpha, a.beta, a.interval, a.top),
        (0.01, 0.9, Time::from_millis(500), 0.5)
    );
    // In bytes (ns-2.35 default), thresholds scale by mean_pktsize.
    let b = resolve(&json!({"kind": "ared", "mean_pktsize": 1000}), &l).unwrap();
    assert_eq!((b.min_th, b.max_th), (14_062.5, 42_187.5));
}

#[test]
fn q_weight_automatic_rules_of_ns2() {
    // -1 (ns-2.35 default): RTT = max(0.1 s, 3·(delay + 1/ptc)), w = 1 − exp(−1/(10·RTT·ptc)).
    let l = link("10Mbps", Limit::Packets(100)); // 10 ms delay, ptc = 2500 with 500-B packets
    let p = resolve(&json!({"kind": "red"}), &l).unwrap();
    assert!((p.q_weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
    let mut slow = link("1Mbps", Limit::Packets(100));
    slow.delay = Time::from_millis(100); // RTT 3·(0.1 + 0.004) = 0.312 s, ptc 250
    let p = resolve(&json!({"kind": "red"}), &slow).unwrap();
    assert!((p.q_weight - (1.0 - (-1.0f64 / (10.0 * 0.312 * 250.0)).exp())).abs() < 1e-15);
    // 0: 1 − exp(−1/ptc); explicit values are kept.
    let p = resolve(&json!({"kind": "red", "q_weight": 0}), &l).unwrap();
    assert!((p.q_weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
    assert_eq!(
        resolve(&json!({"kind": "red", "q_weight": 0.002}), &l)
            .unwrap()
            .q_weight,
        0.002
    );
    // Automatic thresholds: max(5, 5 ms · 2500 / 2 = 6.25), max_th = 3·min_th.
    let p = resolve(&json!({"kind": "red", "queue_in_bytes": false}), &l).unwrap();
    assert_eq!((p.min_th, p.max_th, p.max_p), (6.25, 18.75, 0.1));
}

/// ARED with thresholds 5/15: target band [9, 11].
fn ared() -> Red {
    let mut p = classic();
    p.gentle = true;
    p.q_weight = 1e-12;
    p.adaptive = Some(Adaptive {
        alpha: 0.01,
        beta: 0.9,
        interval: Time::from_millis(500),
        top: 0.5,
        bottom: 0.01,
    });
    let mut r = Red::new(p);
    r.v.idle_since = None;
    r
}

#[test]
fn adaptive_red_steps_max_p_at_most_every_interval() {
    let mut r = ared();
    r.v.avg = 12.0; // above the band
    r.update_avg(at(400.0), 12.0);
    assert_eq!(r.v.max_p, 0.1, "not before 0.5 s");
    r.update_avg(at(501.0), 12.0);
    assert!((r.v.max_p - 0.11).abs() < 1e-15, "+ min(0.01, max_p/4)");
    r.update_avg(at(900.0), 12.0);
    assert!((r.v.max_p - 0.11).abs() < 1e-15, "0.5 s after the last change");
    r.update_avg(at(1002.0), 12.0);
    assert!((r.v.max_p - 0.12).abs() < 1e-15);
    // Inside the band nothing changes, and the clock of the last change stays.
    r.v.avg = 10.0;
    r.update_avg(at(2000.0), 10.0);
    assert!((r.v.max_p - 0.12).abs() < 1e-15);
    // Below the band: × 0.9 at the next arrival (no new wait: the last change is old).
    r.v.avg = 8.0;
    r.update_avg(at(2001.0), 8.0);
    assert!((r.v.max_p - 0.108).abs() < 1e-15);
    // Small max_p: the increase is max_p / 4.
    r.v.max_p = 0.02;
    r.v.avg = 12.0;
    r.update_avg(at(3000.0), 12.0);
    assert!((r.v.max_p - 0.025).abs() < 1e-15);
}

#[test]
fn adaptive_red_bounds_are_checked_before_a_step_as_in_ns2() {
    let mut r = ared();
    r.v.avg = 12.0;
    r.v.max_p = 0.495;
    r.update_avg(at(600.0), 12.0);
    assert!((r.v.max_p - 0.505).abs() < 1e-15, "top > max_p allows one last step");
    r.update_avg(at(1200.0), 12.0);
    assert!((r.v.max_p - 0.505).abs() < 1e-15, "then no more");
    r.v.avg = 6.0;
    r.v.max_p = 0.0105;
    r.update_avg(at(1800.0), 6.0);
    assert!(
        (r.v.max_p - 0.00945).abs() < 1e-15,
        "max_p > bottom allows one step below"
    );
    r.update_avg(at(2400.0), 6.0);
    assert!((r.v.max_p - 0.00945).abs() < 1e-15);
}

fn red_queue(extra: Value, limit: Limit) -> Drive {
    let mut v = json!({"kind": "red", "min_th": 5, "max_th": 15, "q_weight": 0.002,
        "mean_pktsize": 1000, "queue_in_bytes": false, "byte_mode": false, "gentle": false,
        "use_mark_p": false});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    Drive::new(build(v, &link("10Mbps", limit)).unwrap())
}

#[test]
fn queue_drops_by_reason_and_traces_its_state() {
    // w = 1: the average is the backlog found by each arrival. Arrivals
    // 0..4 find less than min_th, arrival 5 is the first crossing (no drop),
    // 6..14 have count·p_b < 1 (wait_: no drop), 15 and 16 find avg = 15 =
    // max_th: forced drops, even though they are ECN-capable.
    let mut d = red_queue(json!({"q_weight": 1.0, "ecn": true}), Limit::Packets(20));
    for i in 0..17 {
        let mut p = pkt(i, 0, 1000);
        p.ecn = Ecn::Ect0;
        d.enq(p);
    }
    assert_eq!(d.dropped(), vec![(15, DropReason::Forced), (16, DropReason::Forced)]);
    assert!(d.marks.is_empty());
    assert_eq!((d.trace("avg"), d.trace("max_p"), d.trace("p_b")), (15.0, 0.1, 1.0));
    // With w = 0.002 the average stays low: only the full buffer drops.
    let mut d = red_queue(json!({}), Limit::Packets(15));
    for i in 0..16 {
        d.enq(pkt(i, 0, 1000));
    }
    assert_eq!(d.dropped(), vec![(15, DropReason::Overflow)]);
    assert_eq!(d.drain(), (0..15).collect::<Vec<_>>());
}

#[test]
fn queue_marks_set_ce_and_count() {
    let mut d = red_queue(
        json!({"q_weight": 1.0, "ecn": true, "gentle": true}),
        Limit::Packets(40),
    );
    for i in 0..40 {
        let mut p = pkt(i, 0, 1000);
        p.ecn = Ecn::Ect0;
        d.enq(p);
    }
    assert!(!d.marks.is_empty(), "the gentle region marks ECN-capable arrivals");
    assert!(d.marks.iter().all(|m| *m == MarkReason::Early));
    let ce = std::iter::from_fn(|| d.deq()).filter(|p| p.ecn == Ecn::Ce).count();
    assert_eq!(ce, d.marks.len());
    assert!(
        d.dropped().iter().all(|x| x.1 == DropReason::Forced),
        "no early drops of ECT packets"
    );
}

#[test]
fn marks_replace_drops_one_for_one_for_ecn_capable_packets() {
    // The same arrivals and random stream with and without ECT: every early
    // drop of the plain run is a mark in the ECN run, on the same packet.
    let run = |ect: bool| {
        let mut r = Red::new(Params {
            ecn: true,
            q_weight: 1e-12,
            ..classic()
        });
        (r.v.avg, r.v.idle_since, r.v.old) = (10.0, None, true);
        let mut rng = Rng::new(9, 0);
        (0..20_000)
            .map(|i| r.arrival(at(i as f64), 10.0, 1000, ect, &mut rng))
            .collect::<Vec<_>>()
    };
    let (plain, ecn) = (run(false), run(true));
    let drops: Vec<usize> = (0..plain.len()).filter(|&i| plain[i] == Decision::EarlyDrop).collect();
    let marks: Vec<usize> = (0..ecn.len()).filter(|&i| ecn[i] == Decision::Mark).collect();
    assert_eq!(drops, marks);
    assert!(drops.len() > 500, "{}", drops.len());
    assert!(!ecn.contains(&Decision::EarlyDrop));
}

#[test]
fn signalled_fraction_at_a_fixed_average_matches_the_probability_function() {
    // Exponential packet sizes and Poisson arrival times (which RED ignores
    // while the average is fixed), 400 000 arrivals per case; theory is
    // 1/E[X] from the spread probability (exact sum), checked within
    // 4 standard errors (binomial, with the spacing's variance below it).
    for (wait, gentle, avg) in [
        (true, false, 7.0),
        (true, false, 12.0),
        (false, false, 10.0),
        (true, true, 20.0),
    ] {
        let mut p = Params {
            wait,
            gentle,
            q_weight: 1e-12,
            ..classic()
        };
        p.ecn = false;
        let mut r = Red::new(p);
        (r.v.avg, r.v.idle_since, r.v.old) = (avg, None, true);
        let theory = r.signal_fraction(avg, 1000);
        let mut rng = Rng::new(11, 0);
        let (n, mut t, mut signals) = (400_000, 0.0, 0u64);
        for _ in 0..n {
            t += rng.exp(1e-3);
            if r.arrival(Time::from_secs_f64(t), avg, 1000, false, &mut rng) != Decision::Pass {
                signals += 1;
            }
        }
        let got = signals as f64 / n as f64;
        let se = (theory * (1.0 - theory) / n as f64).sqrt();
        assert!(
            (got - theory).abs() < 4.0 * se,
            "wait {wait} gentle {gentle} avg {avg}: {got} vs {theory}"
        );
    }
}

fn err(v: Value, limit: Limit) -> String {
    build(v, &link("10Mbps", limit)).err().expect("an error").to_string()
}

#[test]
fn bad_parameters_are_one_line_errors_naming_the_key() {
    let l = Limit::Packets(100);
    assert_eq!(
        err(json!({"kind": "red", "min_th": 20, "max_th": 10}), l),
        "q.max_th: got 10, expected a threshold above min_th (20 packets)"
    );
    assert_eq!(
        err(json!({"kind": "red", "max_p": 0}), l),
        "q.max_p: got 0, expected a number in (0, 1]"
    );
    assert_eq!(
        err(json!({"kind": "red", "max_p": 1.5}), l),
        "q.max_p: got 1.5, expected a number in (0, 1]"
    );
    assert!(err(json!({"kind": "red", "q_weight": 1.5}), l)
        .starts_with("q.q_weight: got 1.5, expected a number in (0, 1], or 0"));
    assert!(err(json!({"kind": "red", "q_weight": -0.5}), l).starts_with("q.q_weight: got -0.5"));
    assert_eq!(
        err(json!({"kind": "red", "min_th": 5, "max_th": 15}), Limit::Packets(10)),
        "q.limit: got \"10pkt\", expected a buffer of at least max_th = 15 packets of mean_pktsize 500 B (min_th 5)"
    );
    assert!(
        err(json!({"kind": "red", "min_th": 5, "max_th": 15}), Limit::Bytes(7000))
            .starts_with("q.limit: got \"7000B\"")
    );
    assert_eq!(
        err(json!({"kind": "red", "mean_pktsize": 0}), l),
        "q.mean_pktsize: got 0, expected a size between 1 B and 65535 B"
    );
    assert!(err(json!({"kind": "red", "minth": 5}), l)
        .starts_with("q.minth: unknown key; did you mean \"min_th\"? accepted keys here:"));
    assert!(err(json!({"kind": "ared", "beta": 1}), l).starts_with("q.beta: got 1"));
    assert!(err(json!({"kind": "ared", "bottom": 0.7}), l)
        .starts_with("q.bottom: got 0.7, expected a number in (0, top = 0.5]"));
    assert!(
        err(json!({"kind": "red", "alpha": 0.1}), l).starts_with("q.alpha: unknown key"),
        "ARED keys only for ared"
    );
    // ns-2's 0 means automatic for the thresholds and the weight.
    assert!(build(
        json!({"kind": "red", "min_th": 0, "max_th": 0, "q_weight": 0}),
        &link("10Mbps", l)
    )
    .is_ok());
}
