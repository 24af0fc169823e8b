//! Endpoints in the event loop: packets delivered to a flow's sender or
//! receiver, their timers (one live event per flow, lazily cancelled), and the
//! packets they emit.

use super::{Ev, Sim};
use crate::endpoint::EndpointCtx;
use crate::packet::{FlowId, Kind, Packet, NO_INT};

/// Which ends of a flow a callback ran, so which wakeups may have moved.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Ends {
    Sender,
    Receiver,
    Both,
}

impl Sim {
    /// Delivers the packet in slab slot `h` to its flow's end (read in its
    /// slot, which is freed after).
    pub(super) fn deliver<const T: bool>(&mut self, h: u32) {
        self.counters.delivered += 1;
        let now = self.now();
        let Sim {
            slab, flows, switches, ..
        } = self;
        let pkt = slab.get(h);
        let fid = pkt.flow;
        let f = &mut flows[fid.idx()];
        if pkt.uid <= f.uid_floor {
            self.workloads.stale_packets += 1; // of a connection that is over
            self.slab.release(h);
            return;
        }
        if pkt.kind == Kind::Data {
            self.counters.data_delivered += 1;
        }
        let mut out = std::mem::take(&mut self.out_buf);
        let ends = {
            let mut cx = EndpointCtx { now, out: &mut out };
            if pkt.dst == f.dst {
                f.rcv.on_packet(pkt, &mut cx);
                Ends::Receiver
            } else if pkt.int != NO_INT {
                // An ACK that points to telemetry (HPCC): the sender reads it.
                match switches.as_deref_mut().and_then(|s| s.int.as_deref_mut()) {
                    Some(int) => f.snd.on_int(pkt, int.read(pkt), &mut cx),
                    None => f.snd.on_packet(pkt, &mut cx),
                }
                Ends::Sender
            } else {
                f.snd.on_packet(pkt, &mut cx);
                Ends::Sender
            }
        };
        self.slab.release(h);
        self.flush_endpoint::<T>(fid, &mut out, ends);
        self.out_buf = out;
    }

    /// Re-arms the flow's wakeups for the `ends` that ran, then injects what
    /// they emitted; then follows a workload connection's progress (which may
    /// close it).
    pub(super) fn flush_endpoint<const T: bool>(&mut self, fid: FlowId, out: &mut Vec<Packet>, ends: Ends) {
        self.rearm(fid, ends);
        for p in out.iter_mut() {
            self.flows[fid.idx()].stamp_ip_id(p);
            // A packet leaves from the node of the endpoint that emitted it.
            self.inject::<T>(p);
        }
        out.clear();
        if self.flows[fid.idx()].conn.is_some() {
            self.conn_progress(fid);
        }
        if self.deps.is_some() && ends != Ends::Receiver {
            self.check_completion(fid);
        }
    }

    /// Schedules the flow's two wakeups where they are needed earlier than
    /// the live ones: the timers (RTO, delayed ACK) and the sender's paced
    /// or jittered send. A live wakeup that is now too late stays in the
    /// heap and is ignored when it fires (lazy cancellation); one that is
    /// too early fires, finds nothing due and re-arms.
    ///
    /// Only the `ends` that ran are asked: after every re-arm each end's
    /// next wakeup is at or after the live event of its slot (a fired slot
    /// re-arms both ends), and an end that did not run has not moved its own.
    pub(super) fn rearm(&mut self, fid: FlowId, ends: Ends) {
        let now = self.sched.now();
        let f = &mut self.flows[fid.idx()];
        let timer = match ends {
            Ends::Sender => f.snd.next_timer(),
            Ends::Receiver => f.rcv.next_wake(),
            Ends::Both => match (f.snd.next_timer(), f.rcv.next_wake()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        };
        if let Some(t) = timer.map(|t| t.max(now)) {
            if f.wake.is_none_or(|w| t < w) {
                f.wake = Some(t);
                self.sched.schedule(t, Ev::Endpoint(fid));
            }
        }
        if ends == Ends::Receiver {
            return;
        }
        if let Some(t) = f.snd.next_send().map(|t| t.max(now)) {
            if f.wake_send.is_none_or(|w| t < w) {
                f.wake_send = Some(t);
                self.sched.schedule(t, Ev::EndpointSend(fid));
            }
        }
    }

    /// A wakeup of the flow (`send`: the send slot's) fires: unless stale,
    /// both ends handle what is due.
    pub(super) fn endpoint_timer<const T: bool>(&mut self, fid: FlowId, send: bool) {
        let now = self.now();
        let f = &mut self.flows[fid.idx()];
        let slot = if send { &mut f.wake_send } else { &mut f.wake };
        if *slot != Some(now) {
            return; // stale wakeup
        }
        *slot = None;
        let mut out = std::mem::take(&mut self.out_buf);
        {
            let mut cx = EndpointCtx { now, out: &mut out };
            f.snd.on_timer(&mut cx);
            f.rcv.on_timer(&mut cx);
        }
        self.flush_endpoint::<T>(fid, &mut out, Ends::Both);
        self.out_buf = out;
    }

    pub(crate) fn flow_start(&mut self, fid: FlowId) {
        let now = self.now();
        let mut out = std::mem::take(&mut self.out_buf);
        self.flows[fid.idx()].snd.start(&mut EndpointCtx { now, out: &mut out });
        if self.taps.is_some() {
            self.flush_endpoint::<true>(fid, &mut out, Ends::Both);
        } else {
            self.flush_endpoint::<false>(fid, &mut out, Ends::Both);
        }
        self.out_buf = out;
    }
}
