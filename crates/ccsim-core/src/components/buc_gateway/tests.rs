//! Unit tests of [`super`] (buc_gateway).

use super::*;

const REV: LinkId = LinkId(0);
const FWD: LinkId = LinkId(1);
const MSS: u64 = 960;
const NODE: NodeId = NodeId(0);

fn gateway(flows: usize, tbu: f64) -> BucGateway {
    BucGateway::new(Params {
        ports: vec![FWD],
        tbu,
        w_init: 64,
        law: Law::PAPER,
        idle: Time::from_secs(5),
        measure_before: false,
        w_init_from_ack: false,
        events: true,
        tcp: vec![true; flows],
    })
}

/// Drives a gateway with explicit times and real queue views of the
/// forward port (link 1) and the backward port (link 0).
struct Bench {
    g: BucGateway,
    now: Time,
    views: Vec<Option<Box<QueueView>>>,
    uid: u64,
    wake: Option<Time>,
}

impl Bench {
    fn new(g: BucGateway) -> Bench {
        Bench {
            g,
            now: Time::ZERO,
            views: vec![
                Some(Box::new(QueueView::new(NODE, REV))),
                Some(Box::new(QueueView::new(NODE, FWD))),
            ],
            uid: 0,
            wake: None,
        }
    }
    fn data(&mut self, flow: u32) -> Packet {
        self.uid += 1;
        let mut p = Packet::new(self.uid, FlowId(flow), NodeId(5), NodeId(6), 1000, Kind::Data, self.now);
        p.len = MSS as u32;
        p
    }
    fn with<R>(&mut self, f: impl FnOnce(&mut BucGateway, &mut CompCtx, &QueueView) -> R) -> R {
        let (mut rel, mut wake) = (Vec::new(), None);
        let view = (**self.views[FWD.idx()].as_ref().unwrap()).clone();
        let r = {
            let mut cx = CompCtx::new(self.now, NODE, &self.views, &mut rel, &mut wake);
            f(&mut self.g, &mut cx, &view)
        };
        assert!(rel.is_empty(), "BUC never holds");
        if wake.is_some() {
            self.wake = wake;
        }
        r
    }
    /// A data packet of `flow` is queued at the forward port.
    fn arrive(&mut self, flow: u32) -> Packet {
        let p = self.data(flow);
        self.views[FWD.idx()].as_mut().unwrap().add(&p);
        self.with(|g, cx, v| g.on_queue(cx, QueueEvent::Enqueued, &p, v));
        p
    }
    /// The oldest packet `p` of its flow leaves (`ev`: dequeue or push-out).
    fn leave(&mut self, p: &Packet, ev: QueueEvent) {
        self.views[FWD.idx()].as_mut().unwrap().remove(p);
        self.with(|g, cx, v| g.on_queue(cx, ev, p, v));
    }
    /// A data packet of `flow` is dropped on arrival (`why`).
    fn drop_arrival(&mut self, flow: u32, why: DropReason) {
        let p = self.data(flow);
        self.with(|g, cx, v| g.on_queue(cx, QueueEvent::Dropped(why), &p, v));
    }
    /// An ACK of `flow` advertising `wnd` bytes passes; returns the field after.
    fn ack(&mut self, flow: u32, wnd: u64) -> u64 {
        self.uid += 1;
        let mut a = Packet::new(self.uid, FlowId(flow), NodeId(6), NodeId(5), 40, Kind::Ack, self.now);
        a.set_wnd(wnd);
        self.with(|g, cx, _| match g.on_forward(cx, Some(LinkId(7)), REV, a) {
            Verdict::Forward(p) => p.wnd(),
            _ => panic!("BUC forwards every ACK"),
        })
    }
    fn state(&self, flow: u32) -> Option<State> {
        self.g.conv(FlowId(flow)).map(|c| c.state)
    }
    fn fire(&mut self) {
        self.now = self.wake.take().expect("a wakeup was asked for");
        self.with(|g, cx, _| g.on_wake(cx));
    }
    fn logged(&self, name: &str, flow: Option<u32>) -> Vec<f64> {
        self.g
            .log()
            .iter()
            .filter(|r| r.name == name && r.flow.map(|f| f.0) == flow)
            .map(|r| r.value)
            .collect()
    }
}

/// Puts flow 0 under control: 61 packets queued with TQL 60 (one flow).
fn controlled_bench() -> (Bench, Vec<Packet>) {
    let mut b = Bench::new(gateway(3, 60.0));
    let queued: Vec<Packet> = (0..61).map(|_| b.arrive(0)).collect();
    assert_eq!(b.state(0), Some(State::WaitAck));
    (b, queued)
}

#[test]
fn tql_is_tbu_over_the_conversations_at_the_port() {
    // §3.2 / docs/models/buc-rfcn.md: 60 → 30 → 20 as conversations join; from their first packet (A17).
    let mut b = Bench::new(gateway(3, 60.0));
    b.arrive(0);
    assert_eq!((b.g.conversations(0), b.g.tql(0)), (1, 60.0));
    b.arrive(1);
    assert_eq!(b.g.tql(0), 30.0);
    b.arrive(1);
    b.arrive(2);
    assert_eq!((b.g.conversations(0), b.g.tql(0)), (3, 20.0));
    assert_eq!(b.logged("tql", None), vec![60.0, 30.0, 20.0]);
    assert_eq!(b.logged("tbu", None), vec![60.0]);
}

#[test]
fn rfcn_writes_min_of_field_and_window_and_never_raises_it() {
    let (mut b, _) = controlled_bench();
    // W_cur = W_init = 64 packets of the learnt MSS.
    assert_eq!(b.ack(0, 300 * MSS), 64 * MSS, "lowered to the window");
    assert_eq!(b.ack(0, 20 * MSS), 20 * MSS, "a smaller field is kept");
    assert_eq!(b.ack(0, 20 * MSS + 7), 20 * MSS + 7, "not rounded either");
    assert_eq!(b.ack(0, INFINITE), 64 * MSS, "an unlimited receiver is bounded too");
    assert_eq!(b.ack(0, 0), 0, "a closed window stays closed");
    assert_eq!(b.g.stats.acks_rewritten, 2);
    assert_eq!(b.logged("rfcn_window", Some(0)).first(), Some(&64.0));
}

/// docs/models/buc-rfcn.md (RFCN): the field after RFCN is exactly min(field, W_cur · MSS), for
/// every window the law can produce and fields on both sides of it.
#[test]
fn rfcn_never_raises_any_field_for_any_window() {
    let (mut b, _) = controlled_bench();
    for w in [1u64, 2, 7, 25, 38, 64, 300] {
        b.g.convs[0].as_mut().unwrap().buc.w_cur = w;
        for field in [0, 1, MSS - 1, MSS, w * MSS - 1, w * MSS, w * MSS + 1, 1 << 40, INFINITE] {
            let out = b.ack(0, field);
            assert_eq!(out, field.min(w * MSS), "W = {w}, field = {field}");
            assert!(out <= field);
        }
    }
}

#[test]
fn rfcn_leaves_uncontrolled_and_unknown_conversations_alone() {
    let mut b = Bench::new(gateway(3, 60.0));
    b.arrive(1); // flow 1 known but uncontrolled (1 ≤ 60)
    assert_eq!(b.ack(1, 300 * MSS), 300 * MSS);
    assert_eq!(b.ack(2, 300 * MSS), 300 * MSS, "no state: untouched");
    assert_eq!(b.g.stats.acks_rewritten, 0);
}

#[test]
fn waiting_period_uses_the_forward_queue_at_the_first_ack() {
    let (mut b, queued) = controlled_bench();
    // Serve 13 packets: Q_forward = 48 when A^w arrives → 64 − 48 = 16.
    for p in &queued[..13] {
        b.leave(p, QueueEvent::Dequeued);
    }
    b.ack(0, 64 * MSS);
    assert_eq!(b.state(0), Some(State::Waiting));
    assert_eq!(b.g.conv(FlowId(0)).unwrap().wait_left, 16);
    assert_eq!(b.logged("state", Some(0)), vec![1.0, 2.0]);
}

#[test]
fn pushed_out_packets_are_not_arrivals_but_dropped_arrivals_are() {
    let (mut b, queued) = controlled_bench();
    b.ack(0, 64 * MSS); // Q = 61: waiting for 64 − 61 = 3 arrivals
    assert_eq!(b.g.conv(FlowId(0)).unwrap().wait_left, 3);
    b.leave(&queued[60], QueueEvent::Dropped(DropReason::PushOut));
    assert_eq!(b.g.conv(FlowId(0)).unwrap().wait_left, 3, "a victim is no arrival");
    b.drop_arrival(0, DropReason::Overflow);
    assert_eq!(
        b.g.conv(FlowId(0)).unwrap().wait_left,
        2,
        "A5: a dropped arrival counts"
    );
    assert_eq!(b.g.stats.drops, 2);
    assert_eq!(*b.logged("queue", Some(0)).last().unwrap(), 60.0);
}

#[test]
fn q_at_the_epoch_boundary_is_after_the_arrival_or_before_with_measure_before() {
    // P^l arrives at a queue of 64: Q = 65 after it (A3), 64 before; TQL 60,
    // W_i = 64 + (60 − Q).
    for (before, w) in [(false, 59), (true, 60)] {
        let mut g = gateway(1, 60.0);
        g.p.measure_before = before;
        let mut b = Bench::new(g);
        b.arrive(0);
        b.g.convs[0].as_mut().unwrap().buc = Conv {
            state: State::Converging,
            w_prev: 64,
            w_cur: 64,
            conv_left: 1,
            max_adv: 64.0,
            epochs: 1,
            ..Conv::new(64)
        };
        let p = b.data(0);
        (0..63).for_each(|_| b.views[FWD.idx()].as_mut().unwrap().add(&p));
        b.arrive(0);
        let c = b.g.conv(FlowId(0)).unwrap();
        assert_eq!((c.state, c.w_cur), (State::WaitAck, w), "measure_before = {before}");
    }
}

#[test]
fn idle_conversation_terminates_and_tql_grows_back() {
    let mut b = Bench::new(gateway(3, 60.0));
    let p0 = b.arrive(0);
    let p1 = b.arrive(1);
    assert_eq!(b.g.tql(0), 30.0);
    b.now = Time::from_secs(1);
    b.leave(&p0, QueueEvent::Dequeued); // flow 0 empty from 1 s
    assert_eq!(b.wake, Some(Time::from_secs(6)));
    b.now = Time::from_secs(3);
    let p0 = b.arrive(0); // an arrival before the deadline: not idle
    b.now = Time::from_secs(4);
    b.leave(&p0, QueueEvent::Dequeued); // empty again from 4 s
    b.fire(); // at 6 s: re-armed for 9 s
    assert_eq!((b.now, b.state(0)), (Time::from_secs(6), Some(State::Uncontrolled)));
    assert_eq!(b.wake, Some(Time::from_secs(9)));
    b.fire();
    assert_eq!(b.now, Time::from_secs(9));
    assert_eq!(b.state(0), None, "terminated after 5 s empty");
    assert_eq!((b.g.conversations(0), b.g.tql(0)), (1, 60.0));
    assert_eq!(b.g.stats.terminated, 1);
    assert_eq!(
        b.ack(0, 300 * MSS),
        300 * MSS,
        "a terminated conversation is not rewritten"
    );
    // Flow 1 still has its packet queued: never idle.
    assert_eq!(b.state(1), Some(State::Uncontrolled));
    b.leave(&p1, QueueEvent::Dequeued);
    b.arrive(0); // flow 0 comes back as a new conversation
    assert_eq!(b.g.conversations(0), 2);
    assert_eq!(b.logged("conversations", None), vec![1.0, 2.0, 1.0, 2.0]);
}

#[test]
fn a_leaving_controlled_conversation_stops_being_rewritten() {
    let (mut b, queued) = controlled_bench();
    assert_eq!(b.ack(0, 300 * MSS), 64 * MSS);
    for p in &queued {
        b.leave(p, QueueEvent::Dequeued);
    }
    b.fire();
    assert_eq!(b.state(0), None);
    assert_eq!(b.logged("state", Some(0)).last(), Some(&-1.0));
    assert_eq!(b.ack(0, 300 * MSS), 300 * MSS);
}

#[test]
fn non_tcp_data_and_other_ports_are_ignored() {
    let mut g = gateway(2, 60.0);
    g.p.tcp[1] = false;
    let mut b = Bench::new(g);
    b.arrive(1);
    assert_eq!(b.g.conversations(0), 0, "datagram flows get no BUC state");
    let p = b.data(0);
    let v = QueueView::new(NODE, REV);
    b.with(|g, cx, _| g.on_queue(cx, QueueEvent::Enqueued, &p, &v));
    assert_eq!(b.g.conversations(0), 0, "not a controlled port");
}

#[test]
fn w_init_from_ack_follows_the_field_while_uncontrolled() {
    let mut g = gateway(1, 10.0);
    g.p.w_init_from_ack = true;
    let mut b = Bench::new(g);
    b.arrive(0);
    b.ack(0, 40 * MSS);
    (0..10).for_each(|_| {
        b.arrive(0);
    });
    let c = b.g.conv(FlowId(0)).unwrap();
    assert_eq!((c.state, c.w_cur), (State::WaitAck, 40));
}
