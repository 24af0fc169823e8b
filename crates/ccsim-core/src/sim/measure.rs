//! Measurement: the start of the measurement window, time-series sampling,
//! and bringing the links' integrals up to the end of the run.

use super::{Ev, Sim};

impl Sim {
    pub(super) fn begin_measurement(&mut self) {
        let now = self.now();
        for l in &mut self.links {
            // Serializations ending at this instant end after it (their events
            // were scheduled after this one): exclusive.
            self.counters.dropped += l.account(now, false);
            (l.stats.max_pkts, l.stats.max_bytes) = l.backlog();
            l.stats.sojourn.max_ns = 0;
        }
        self.link_base = self.links.iter().map(|l| l.stats.clone()).collect();
        self.settle_pauses(now, true);
        for f in &mut self.flows {
            f.delivered_at_warmup = f.delivered_bytes();
        }
    }

    pub(super) fn sample(&mut self) {
        let now = self.now();
        let Some(iv) = self.monitor.interval else { return };
        for &i in &self.monitor.queues {
            let l = &mut self.links[i];
            if l.fifo.is_some() {
                self.counters.dropped += l.account(now, false);
            }
        }
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
            self.counters.dropped += l.account(end, true);
        }
        self.settle_pauses(end, false);
        self.tidy();
    }
}
