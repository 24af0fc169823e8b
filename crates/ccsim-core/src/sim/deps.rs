//! Flows that start when others complete (`[[flows]] after = [...]`): the
//! dependencies of a collective's steps (a ring all-reduce's step k at host i
//! waits for the chunk host i−1 sent it in step k−1). A run without them keeps
//! `Sim::deps` empty and pays one branch per sender callback.

use super::{Ev, Sim};
use crate::packet::FlowId;
use crate::units::Time;

/// Who waits for whom, and for how many more.
#[derive(Debug, Default)]
pub struct Deps {
    /// Flows each flow's completion releases.
    dependents: Vec<Vec<u32>>,
    /// Completions each flow still waits for (0: started or free to start).
    waiting: Vec<u32>,
    /// Delay after the last completion (the flow's `start`).
    delay: Vec<Time>,
    /// Completions already counted.
    done: Vec<bool>,
}

impl Deps {
    pub fn new(flows: usize) -> Deps {
        Deps {
            dependents: vec![Vec::new(); flows],
            waiting: vec![0; flows],
            delay: vec![Time::ZERO; flows],
            done: vec![false; flows],
        }
    }

    /// Flow `i` starts `delay` after every flow of `after` has completed.
    pub fn wait(&mut self, i: usize, after: &[usize], delay: Time) {
        for &a in after {
            self.dependents[a].push(i as u32);
        }
        self.waiting[i] = after.len() as u32;
        self.delay[i] = delay;
    }

    /// True if flow `i` waits for others (it has no start event of its own).
    pub fn waits(&self, i: usize) -> bool {
        self.waiting[i] > 0
    }
}

impl Sim {
    /// After flow `fid`'s sender ran: if it has just completed, releases the
    /// flows that waited for it (each starts its delay after its last one).
    pub(super) fn check_completion(&mut self, fid: FlowId) {
        let Some(d) = self.deps.as_mut() else { return };
        let i = fid.idx();
        if d.done[i] || d.dependents[i].is_empty() || self.flows[i].snd.completed().is_none() {
            return;
        }
        d.done[i] = true;
        let now = self.sched.now();
        for k in 0..d.dependents[i].len() {
            let j = d.dependents[i][k] as usize;
            d.waiting[j] -= 1;
            if d.waiting[j] == 0 {
                let at = now + d.delay[j];
                self.flows[j].start = at;
                self.sched.schedule(at, Ev::FlowStart(FlowId(j as u32)));
            }
        }
    }
}
