//! Measurement: the start of the measurement window, time-series sampling,
//! and bringing the links' integrals up to the end of the run.

use super::{Ev, Sim};

impl Sim {
    pub(super) fn begin_measurement(&mut self) {
        let now = self.now();
        for l in &mut self.links {
            // Serializations ending at this instant end after it (their events
            // were scheduled after this one): exclusive.
            self.counters.dropped += l.settle(now, false);
            l.integrate(now);
            l.stats.max_pkts = l.qdisc.backlog_packets() as u64;
            l.stats.max_bytes = l.qdisc.backlog_bytes();
            l.stats.sojourn.max_ns = 0;
        }
        self.link_base = self.links.iter().map(|l| l.stats.clone()).collect();
        for f in &mut self.flows {
            f.delivered_at_warmup = f.delivered_bytes();
        }
    }

    pub(super) fn sample(&mut self) {
        let now = self.now();
        let Some(iv) = self.monitor.interval else { return };
        self.monitor.sample(now, &self.links, &self.flows, &self.nodes);
        let next = now + iv;
        if next <= self.end {
            self.sched.schedule(next, Ev::Sample);
        }
    }

    /// Brings queue integrals up to the end time; call once when the run is over.
    pub fn close(&mut self) {
        let end = self.end;
        for l in &mut self.links {
            self.counters.dropped += l.settle(end, true);
            l.integrate(end);
        }
    }
}
