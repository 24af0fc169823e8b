//! Unit tests of [`super`] (token_gate).

use super::*;

const FWD: LinkId = LinkId(1);
const REV: LinkId = LinkId(0);
const L: u64 = 576; // bytes on the wire, 4608 bits
const MSS: u64 = 536;

/// The gate with promises on the paper's Fig. 2 path: 10 Mbps/1 ms to the
/// sender and back, 2 Mbps forward link (service time 2.304 ms).
fn promising(flows: usize) -> TokenGate {
    let hop = vec![(Rate::mbps(10), Time::from_millis(1))];
    TokenGate::new(Params {
        promise_paths: Some(vec![
            SenderPath {
                to_sender: hop.clone(),
                from_sender: hop,
            };
            flows
        ]),
        ..gate(3, flows).p
    })
}

fn gate(threshold: u64, flows: usize) -> TokenGate {
    TokenGate::new(Params {
        forward_rate: Rate::mbps(2), // Fig. 2's bottleneck
        promise_paths: None,
        forward: FWD,
        buffer_bits: 40_000,
        threshold,
        packet_bits: L * 8,
        governed: vec![true; flows],
    })
}

/// Drives a gate with explicit times and a forward queue of `q` packets.
struct Bench {
    g: TokenGate,
    now: Time,
    q: usize,
    /// ACKs let through (passed or released), in order, with their link.
    out: Vec<(Packet, LinkId)>,
    uid: u64,
    /// Cumulative ACK number of the next ACK (one 536-B segment per ACK).
    next_ack: u64,
    /// Last wakeup the gate asked for.
    wake: Option<Time>,
}

impl Bench {
    fn new(g: TokenGate) -> Bench {
        Bench {
            g,
            now: Time::ZERO,
            q: 0,
            out: Vec::new(),
            uid: 0,
            next_ack: 0,
            wake: None,
        }
    }
    fn pkt(&mut self, kind: Kind, flow: u32, size: u64) -> Packet {
        self.uid += 1;
        Packet::new(
            self.uid,
            FlowId(flow),
            NodeId(0),
            NodeId(3),
            size as u32,
            kind,
            self.now,
        )
    }
    fn view(&self) -> QueueView {
        QueueView::with_backlog(NodeId(1), FWD, self.q, self.q as u64 * L)
    }
    /// Runs `f` with a context and returns what it released.
    fn with(&mut self, f: impl FnOnce(&mut TokenGate, &mut CompCtx) -> Option<Packet>) -> usize {
        let (mut rel, mut wake) = (Vec::new(), None);
        let passed = {
            let mut cx = CompCtx::new(self.now, NodeId(1), &[], &mut rel, &mut wake);
            f(&mut self.g, &mut cx)
        };
        if self.g.promises.is_empty() {
            assert!(wake.is_none(), "the paper's rule never asks for timers");
        }
        self.wake = wake.or(self.wake);
        let n = rel.len() + passed.is_some() as usize;
        self.out.extend(passed.map(|p| (p, REV)));
        self.out.extend(rel);
        n
    }
    /// A governed ACK of flow 0 arrives; returns 1 if it left at once.
    fn ack(&mut self) -> usize {
        self.ack_of(0)
    }
    fn ack_of(&mut self, flow: u32) -> usize {
        self.next_ack += MSS;
        self.ack_numbered(flow, self.next_ack)
    }
    fn ack_numbered(&mut self, flow: u32, ack: u64) -> usize {
        let mut p = self.pkt(Kind::Ack, flow, 40);
        p.ack = ack;
        self.with(|g, cx| match g.on_forward(cx, Some(LinkId(5)), REV, p) {
            Verdict::Forward(p) => Some(p),
            Verdict::Hold => None,
            Verdict::Drop(_) => panic!("the gate never drops"),
        })
    }
    /// A data packet enters the forward queue; returns ACKs released.
    fn arrive(&mut self) -> usize {
        self.q += 1;
        let (mut p, v) = (self.pkt(Kind::Data, 0, L), self.view());
        p.len = MSS as u32;
        self.with(|g, cx| {
            g.on_queue(cx, QueueEvent::Enqueued, &p, &v);
            None
        })
    }
    /// The gate's timer fires; returns ACKs released.
    fn wake(&mut self) -> usize {
        self.now = self.wake.take().expect("a wakeup was asked for");
        self.with(|g, cx| {
            g.on_wake(cx);
            None
        })
    }
    /// The head data packet leaves the forward queue; returns ACKs released.
    fn depart(&mut self) -> usize {
        self.q -= 1;
        let (p, v) = (self.pkt(Kind::Data, 0, L), self.view());
        self.with(|g, cx| {
            g.on_queue(cx, QueueEvent::Dequeued, &p, &v);
            None
        })
    }
}

#[test]
fn token_capacity_is_floor_of_40000_over_4608() {
    let g = gate(3, 1);
    assert_eq!((g.capacity(), g.tokens()), (8, 8)); // 40 000 / 4608 = 8.68
}

#[test]
fn tokens_are_spare_room_in_whole_mean_packets() {
    let mut b = Bench::new(gate(3, 1));
    for (q, n) in [(1, 7), (2, 6), (4, 4), (5, 3), (8, 0)] {
        while b.q < q {
            b.arrive();
        }
        // spare = 40 000 − 4608·q bits; N = floor(spare / 4608)
        assert_eq!(b.g.tokens(), n, "q = {q}");
    }
    b.depart();
    assert_eq!(b.g.tokens(), 1);
}

#[test]
fn mean_packet_length_is_a_running_mean() {
    let mut b = Bench::new(gate(3, 1));
    // First packet 4608 bits, second 4000 bits (500 B): L_p = 4304, B_T = 9.
    b.arrive();
    b.q += 1;
    let (p, v) = (b.pkt(Kind::Data, 0, 500), b.view());
    b.with(|g, cx| {
        g.on_queue(cx, QueueEvent::Enqueued, &p, &v);
        None
    });
    assert_eq!(b.g.capacity(), 9); // floor(40 000 / 4304)
                                   // backlog 2·576 B = 9216 bits: floor(30 784 / 4304) = 7
    assert_eq!(b.g.tokens(), 7);
    // The default length counts only until the first packet.
    let mut g = TokenGate::new(Params {
        packet_bits: 8000,
        ..gate(3, 1).p
    });
    assert_eq!(g.capacity(), 5);
    let (mut rel, mut wake) = (Vec::new(), None);
    let mut cx = CompCtx::new(Time::ZERO, NodeId(1), &[], &mut rel, &mut wake);
    let p = Packet::new(1, FlowId(0), NodeId(0), NodeId(3), 576, Kind::Data, Time::ZERO);
    let v = QueueView::with_backlog(NodeId(1), FWD, 1, 576);
    g.on_queue(&mut cx, QueueEvent::Enqueued, &p, &v);
    assert_eq!((g.capacity(), g.tokens()), (8, 7));
}

#[test]
fn threshold_comparison_is_strict() {
    let mut b = Bench::new(gate(3, 1));
    for _ in 0..4 {
        b.arrive(); // N = 4
    }
    assert_eq!(b.ack(), 1, "N = 4 > 3: the ACK passes and takes a token");
    assert_eq!(b.g.tokens(), 3);
    assert_eq!(b.ack(), 0, "N = 3 = Th: held");
    assert_eq!(b.g.held(), 1);
    assert_eq!(b.depart(), 1, "q = 3, N = 5 > 3: released, N = 4");
    assert_eq!(b.g.tokens(), 4);
    assert_eq!(b.ack(), 1);
    assert_eq!(b.g.tokens(), 3);
}

/// docs/models/token-gate.md (the algorithm) / paper §3.1 eqs. (18)–(20), B = 8, Th = 3, one step at a time.
#[test]
fn section_3_1_release_at_4_hold_at_5_release_at_4() {
    let mut b = Bench::new(gate(3, 1));
    for _ in 0..4 {
        b.arrive();
    }
    b.ack(); // N 4 → 3
    b.arrive();
    b.arrive(); // its two packets: q = 6, N = 2
    assert_eq!((b.q, b.g.tokens()), (6, 2));
    assert_eq!(b.ack(), 0, "next ACK waits");
    assert_eq!(b.depart(), 0, "q = 5, N = 3 = Th: hold");
    assert_eq!(b.g.tokens(), 3);
    assert_eq!(b.depart(), 1, "q = 4, N = 4 > Th: release");
    assert_eq!((b.g.tokens(), b.g.held()), (3, 0));
    b.arrive();
    b.arrive();
    assert_eq!((b.q, b.g.tokens()), (6, 2), "q = B − Th + 1 = 6 again");
}

/// docs/models/token-gate.md (the algorithm): in slow start (each ACK brings two packets before the next
/// departure; ACKs arrive at the service rate) q oscillates between
/// B − Th − 1 = 4 and B − Th + 1 = 6, N between Th − 1 and Th + 1, and the
/// held ACKs pile up.
#[test]
fn section_3_1_slow_start_oscillates_between_4_and_6_packets() {
    let mut b = Bench::new(gate(3, 1));
    // (q, N) after every event once the first ACK has been held; N as
    // recomputed, before the releases it allows.
    let mut seen: Vec<(usize, u64)> = Vec::new();
    // Each ACK let out brings two packets at once (slow start, before the
    // next departure); every arrival may let further ACKs out.
    fn inject(b: &mut Bench, mut acks: usize, seen: &mut Vec<(usize, u64)>) {
        while acks > 0 {
            acks -= 1;
            for _ in 0..2 {
                let n = b.arrive();
                acks += n;
                if b.g.stats.held > 0 {
                    seen.push((b.q, b.g.tokens() + n as u64));
                }
            }
        }
    }
    for step in 0..200 {
        b.now = Time::from_micros(2304 * step);
        let sent = b.ack(); // ACKs arrive at the service rate u
        inject(&mut b, sent, &mut seen);
        if b.q > 0 {
            let sent = b.depart();
            if b.g.stats.held > 0 {
                seen.push((b.q, b.g.tokens() + sent as u64));
            }
            inject(&mut b, sent, &mut seen);
        }
    }
    let q: Vec<usize> = seen.iter().map(|x| x.0).collect();
    let n: Vec<u64> = seen.iter().map(|x| x.1).collect();
    assert_eq!((*q.iter().min().unwrap(), *q.iter().max().unwrap()), (4, 6));
    assert_eq!((*n.iter().min().unwrap(), *n.iter().max().unwrap()), (2, 4));
    assert!(b.g.held() > 50, "ACKs accumulate in slow start: {}", b.g.held());
    assert_eq!(b.g.stats.max_forward_bits, 6 * 4608); // 27 648 bits
}

#[test]
fn held_acks_leave_in_order_on_their_own_links() {
    let mut b = Bench::new(gate(3, 1));
    for _ in 0..5 {
        b.arrive(); // N = 3
    }
    let mut links = Vec::new();
    for (i, out) in [LinkId(0), LinkId(7), LinkId(0)].into_iter().enumerate() {
        let p = b.pkt(Kind::Ack, 0, 40);
        b.now = Time::from_millis(i as u64);
        b.with(|g, cx| match g.on_forward(cx, None, out, p) {
            Verdict::Hold => None,
            _ => panic!("must hold"),
        });
        links.push(out);
    }
    assert_eq!(b.g.held(), 3);
    b.now = Time::from_millis(10);
    b.depart();
    b.depart();
    b.depart(); // q = 2, N = 6: releases three
    let got: Vec<(u64, LinkId)> = b.out.iter().map(|(p, l)| (p.uid, *l)).collect();
    let uids: Vec<u64> = got.iter().map(|x| x.0).collect();
    assert!(uids.windows(2).all(|w| w[0] < w[1]), "FIFO order: {uids:?}");
    assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), links);
    let st: std::collections::HashMap<_, _> = b.g.stats().into_iter().collect();
    assert_eq!(st["acks_held"], 3.0);
    assert_eq!(st["acks_released"], 3.0);
    assert_eq!(st["max_held_acks"], 3.0);
    assert_eq!(st["max_hold_s"], 0.010);
    assert_eq!(st["first_hold_s"], 0.0);
}

#[test]
fn ungoverned_flows_acks_and_other_links_pass_untouched() {
    let mut g = gate(3, 2);
    g.p.governed[1] = false;
    let mut b = Bench::new(g);
    for _ in 0..8 {
        b.arrive(); // N = 0
    }
    assert_eq!(b.ack_of(1), 1, "flow 1 is not governed");
    assert_eq!(b.ack_of(9), 1, "unknown flows are not governed");
    assert_eq!(b.ack_of(0), 0, "flow 0 is");
    // Events on another output link and ACKs in the forward queue leave
    // the tokens alone.
    let (p, a) = (b.pkt(Kind::Data, 0, L), b.pkt(Kind::Ack, 1, 40));
    let other = QueueView::with_backlog(NodeId(1), LinkId(4), 0, 0);
    let v = b.view();
    b.with(|g, cx| {
        g.on_queue(cx, QueueEvent::Dequeued, &p, &other);
        g.on_queue(cx, QueueEvent::Dequeued, &a, &v);
        None
    });
    assert_eq!((b.g.tokens(), b.g.held()), (0, 1));
    assert_eq!(b.g.held(), 1);
}

/// Hand-worked on Fig. 2's timing (1 ms access hops). An ACK released at
/// t = 0 reaches the sender at 1.032 ms (40 B at 10 Mbps + 1 ms); its two
/// slow-start packets leave the sender at 1.4928 and 1.9536 ms and reach
/// the gate at 2.4928 and 2.9536 ms; the promise lapses one 2 Mbps service
/// time later, at 5.2576 ms. The next departure (2.304 ms) comes before
/// them: the paper's rule would hand the room out again (N = 5 > Th), the
/// promise keeps it (N = 5 − 2 = 3), and backlog + promised stays at
/// B − Th + 1 = 6.
#[test]
fn promises_hold_the_room_a_released_ack_will_fill() {
    let mut b = Bench::new(promising(1));
    for _ in 0..4 {
        b.arrive(); // the initial window: no promise covered it, so g = 1
    }
    assert_eq!(b.g.stats.unpromised, 4);
    assert_eq!(b.ack(), 1, "N = 4 > 3: passes");
    assert_eq!((b.g.tokens(), b.g.promised), (2, 2), "promised m + g = 1 + 1");
    assert_eq!(b.wake, Some(Time::from_nanos(5_257_600)));
    assert_eq!(b.ack(), 0, "N = 2: held");
    b.now = Time::from_micros(2304);
    assert_eq!(b.depart(), 0, "q = 3, N = 5 − 2 = 3 = Th: still held");
    b.now = Time::from_nanos(2_492_800);
    assert_eq!(b.arrive(), 0);
    assert_eq!((b.q, b.g.promised, b.g.tokens()), (4, 1, 3));
    b.now = Time::from_nanos(2_953_600);
    assert_eq!(b.arrive(), 0);
    assert_eq!((b.q, b.g.promised, b.g.tokens()), (5, 0, 3));
    b.now = Time::from_micros(4608);
    assert_eq!(b.depart(), 1, "q = 4, N = 4 > 3: the held ACK leaves");
    assert_eq!((b.q, b.g.promised, b.g.tokens()), (4, 2, 2));
    assert_eq!(b.q as u64 + b.g.promised, 6, "B − Th + 1");
    // The paper's rule on the same events releases at the first departure.
    let mut p = Bench::new(gate(3, 1));
    for _ in 0..4 {
        p.arrive();
    }
    p.ack();
    p.ack();
    assert_eq!(
        p.depart(),
        1,
        "q = 3, N = 5: released before the first ACK's packets arrive"
    );
}

/// A promise not kept by its lapse time gives its tokens back (the gate
/// asks to be woken then) and tells the gate the sender's window stopped
/// growing per ACK: later ACKs promise m packets, until data arrive that no
/// promise covered.
#[test]
fn lapsed_promises_return_their_tokens_and_stop_growth() {
    let mut b = Bench::new(promising(1));
    for _ in 0..4 {
        b.arrive();
    }
    b.ack(); // promise 2, N = 2
    b.ack(); // held
    b.arrive(); // one of the two packets: q = 5, promised 1, N = 2
    assert_eq!((b.g.promised, b.g.tokens()), (1, 2));
    b.depart(); // q = 4: N = 4 − 1 = 3, held
    assert_eq!(b.g.held(), 1);
    assert_eq!(b.wake(), 1, "at 5.2576 ms the lapsed packet's token returns: N = 4");
    assert_eq!(b.now, Time::from_nanos(5_257_600));
    assert_eq!(b.g.stats.promised_lapsed, 1);
    assert!(!b.g.promises[0].growing);
    assert_eq!(b.g.promised, 1, "the released ACK promised m + 0 = 1");
    b.arrive();
    assert_eq!(b.g.promised, 0);
    b.arrive(); // nobody promised this one: the window grows again
    assert!(b.g.promises[0].growing);
    assert_eq!(b.g.stats.unpromised, 5);
}

/// An ACK acknowledging m segments promises m + g; a duplicate ACK (m = 0)
/// promises one (it clocks one packet out in fast recovery). Back-to-back
/// promises queue at the sender's link: the second lapses two packet times
/// (2 × 460.8 µs) after the first.
#[test]
fn promise_size_and_sender_link_serialization() {
    // Th = 0, so that every ACK below finds a token.
    let mut b = Bench::new(TokenGate::new(Params {
        threshold: 0,
        ..promising(1).p
    }));
    b.arrive(); // segment size 536 B learnt, g = 1
    b.ack_numbered(0, 536);
    assert_eq!(b.g.promised, 2);
    b.ack_numbered(0, 3 * 536); // a stretch ACK of two segments: 2 + 1
    assert_eq!(b.g.promised, 5);
    let lapses: Vec<Time> = b.g.promises[0].open.iter().map(|p| p.lapses).collect();
    // First: ACK at the sender 1.032 ms, 2 packets until 1.9536, +1 ms, +2.304.
    // Second: its 3 packets follow: + 3 × 0.4608 ms.
    assert_eq!(lapses, [Time::from_nanos(5_257_600), Time::from_nanos(6_640_000)]);
    b.g.promises[0].growing = false;
    b.ack_numbered(0, 3 * 536); // duplicate
    assert_eq!(b.g.promised, 6, "a duplicate ACK promises one packet");
    b.ack_numbered(0, 2 * 536); // older than the last: also one
    assert_eq!(b.g.promised, 7);
    assert_eq!((b.q, b.g.tokens()), (1, 0), "N = 7 − 7");
}
