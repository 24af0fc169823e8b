//! Workload connections in the event loop (the model is [`crate::workload`]):
//! each arrival's connection takes a free flow slot (or a new one), gets its
//! ends built and starts; the receiver's progress is followed, and on
//! completion the row is written and the slot freed. A stop rule or a
//! diverging workload moves the end of the run.

use super::{Ev, Sim};
use crate::endpoint::{Closed, Env};
use crate::network::Network;
use crate::packet::FlowId;
use crate::rng::Rng;
use crate::units::{Rate, Time};
use crate::workload::{ConnRow, CONN_IP_ID_INDEX, STREAM_CONN};
use crate::world::Flow;

impl Sim {
    /// Schedules each process's first arrival.
    pub(super) fn prime_workloads(&mut self) {
        for p in 0..self.workloads.procs.len() {
            if let Some(t) = self.workloads.first_arrival(p) {
                self.sched.schedule(t, Ev::Arrival(p as u32));
            }
        }
    }

    /// A connection of process `p` arrives: schedule the next arrival, put
    /// the connection's ends in a free flow slot and start it.
    pub(super) fn arrival(&mut self, p: u32) {
        let now = self.now();
        let (next, conn) = self.workloads.arrive(p, now, self.end);
        if let Some(t) = next {
            self.sched.schedule(t, Ev::Arrival(p));
        }
        let c = match conn {
            Ok(c) => c,
            Err(_) => {
                // The system diverges: the run ends at this arrival, which is not started.
                self.end = now.max(self.warmup + Time(1));
                return;
            }
        };
        let (src, dst) = (c.src, c.dst);
        let slot = match c.slot {
            Some(s) => s as usize,
            None => {
                let closed = (Box::new(Closed), Box::new(Closed));
                let f = Flow::new(String::new(), "", src, dst, now, closed.0, closed.1, [0, 0]);
                self.flows.push(f);
                self.flows.len() - 1
            }
        };
        let fid = FlowId(slot as u32);
        let id = c.conn.id;
        let env = Env {
            flow: fid,
            src,
            dst,
            first_hop: self.world().first_hop_rate(src, dst),
            size: Some(c.conn.size),
            rng: Rng::new(self.seed, STREAM_CONN + id),
            hops: if c.spec.wants_hops() {
                self.world().hops(src, dst)
            } else {
                0
            },
            // (no transport that needs these runs in a workload: NDP refuses)
            last_hop: Rate(0),
            shared: None,
            base_rtt: c
                .spec
                .base_rtt_sizes()
                .map(|(d, a)| self.world().base_rtt(src, dst, d, a)),
        };
        let (snd, rcv) = c.spec.build(env);
        let f = &mut self.flows[slot];
        f.kind = c.spec.kind();
        (f.src, f.dst, f.start) = (src, dst, now);
        (f.snd, f.rcv) = (snd, rcv);
        f.wake = None;
        f.wake_send = None;
        f.delivered_at_warmup = 0;
        f.ip_id = Flow::initial_ip_ids(self.seed, (CONN_IP_ID_INDEX + id) as usize);
        f.conn = Some(Box::new(c.conn));
        if self.taps.is_some() {
            // The taps name the connection's packets (uids from here on) and
            // take its header facts from its ends.
            let (last_uid, workload) = (self.next_uid(), self.workloads.procs[p as usize].workload);
            if let Some(t) = self.taps.as_deref_mut() {
                t.conn_started(fid, &self.flows[slot], workload, id, last_uid);
            }
        }
        self.flow_start(fid);
    }

    /// After a connection's ends ran: note its first and last byte at the
    /// receiver; on completion write its row and free its slot.
    pub(crate) fn conn_progress(&mut self, fid: FlowId) {
        let now = self.now();
        let floor = self.next_uid();
        let f = &mut self.flows[fid.idx()];
        let Some(c) = f.conn.as_mut() else { return };
        let delivered = f.rcv.delivered();
        if c.first_byte.is_none() && delivered > 0 {
            c.first_byte = Some(now);
        }
        if c.last_byte.is_none() && delivered >= c.size {
            c.last_byte = Some(now);
        }
        let Some(done) = f.snd.completed() else { return };
        let c = f.conn.take().expect("checked");
        let row = ConnRow::new(&c, (f.src, f.dst, f.start), &f.snd.report(), Some(done));
        // Free the state; what is still in the network is stale from now on.
        f.snd = Box::new(Closed);
        f.rcv = Box::new(Closed);
        f.wake = None;
        f.wake_send = None;
        f.uid_floor = floor;
        if self.workloads.complete(fid.0, &c, row, now, self.end) {
            // A stop rule: the run ends now (after the warm-up at the earliest).
            self.end = now.max(self.warmup + Time(1));
        }
    }

    /// The rows of the connection table: completed connections, then those
    /// still alive at the end (without a last ACK).
    pub fn connection_rows(&self) -> Vec<ConnRow> {
        let mut rows = self.workloads.rows.clone();
        let first = self.workloads.first_slot.unwrap_or(self.flows.len());
        for f in &self.flows[first.min(self.flows.len())..] {
            if let Some(c) = &f.conn {
                rows.push(ConnRow::new(c, (f.src, f.dst, f.start), &f.snd.report(), None));
            }
        }
        rows.sort_by_key(|r| r.id);
        rows
    }
}
