//! A run stopped at decision points, for controllers outside the engine (the
//! Gymnasium environments of `ccsim.gym`, docs/gym.md).
//!
//! A session builds a scenario whose controlled flows have `cc = "agent"`
//! ([`crate::cc::agent`]), and [`Session::advance`] runs the event loop to the
//! next decision point of any of them ([`Sim::step`] up to that time) and
//! returns; the next call resumes where it stopped. The rest of the network
//! (other flows, queues, workloads) runs as in any scenario. A decision point
//! comes every fixed interval, or one smoothed RTT of the agent's flow after
//! the last (clamped to given bounds); at it the session closes the agent's
//! interval into one observation row ([`FIELDS`]) and the controller may set
//! the next action ([`Session::act`]).

use crate::budget::Limits;
use crate::cc::agent::{Action, Handle, Interval};
use crate::cfg::ScenarioError;
use crate::error::SimError;
use crate::units::Time;
use crate::{scenario, Error, Sim};

/// When the agents decide.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Decide {
    /// Every fixed interval (a monitor interval).
    Every(Time),
    /// Every smoothed RTT of the agent's flow, within `[min, max]`; every
    /// `initial` (within the bounds) until the flow has an RTT sample.
    Rtt { min: Time, max: Time, initial: Time },
}

/// The columns of an observation row, in order (units: seconds, bytes,
/// bytes per second; fractions in [0, 1]). `rtt_*` are 0 until the flow's
/// first RTT sample, and an interval without one repeats the last sample
/// (never NaN); fractions are 0 over an interval without ACKs or sends.
/// The queue delays of the links asked for follow (`queue_delay:NAME`).
pub const FIELDS: &[&str] = &[
    "time",
    "interval",
    "acked_bytes",
    "delivery_rate",
    "rtt_min",
    "rtt_mean",
    "rtt_latest",
    "loss_fraction",
    "ecn_fraction",
    "cwnd",
    "inflight",
    "pacing_rate",
    "acks",
    "packets_sent",
    "retransmits",
    "rtt_samples",
];

struct Agent {
    flow: usize,
    name: String,
    handle: Handle,
    /// The interval in progress began at `last` and ends at `next`.
    last: Time,
    next: Time,
    /// The sender's counters at `last`: packets sent, retransmissions.
    sent: (u64, u64),
    /// The last RTT sample seen, if any.
    rtt: Option<Time>,
    row: Vec<f64>,
}

/// A scenario run from decision point to decision point.
pub struct Session {
    pub sim: Sim,
    agents: Vec<Agent>,
    decide: Decide,
    queues: Vec<usize>,
    now: Time,
    /// Events processed so far.
    pub events: u64,
    /// The resolved scenario (JSON text), for the results.
    resolved: String,
}

fn arg_error(path: &str, value: String, expected: &str) -> Error {
    Error::Scenario(ScenarioError {
        path: path.into(),
        value,
        expected: expected.into(),
    })
}

impl Session {
    /// Builds the scenario (JSON text); its flows with `cc = "agent"` are the
    /// agents, in flow order. `queues` names links whose queue delay every
    /// observation row carries.
    pub fn new(text: &str, limits: &Limits, decide: Decide, queues: &[String]) -> Result<Session, Error> {
        let (sim, resolved) = scenario::build_limited(text, limits)?;
        let first = match decide {
            Decide::Every(d) if d > Time::ZERO => d,
            Decide::Rtt { min, max, initial } if min > Time::ZERO && min <= max => initial.clamp(min, max),
            _ => {
                return Err(arg_error(
                    "decide",
                    format!("{decide:?}"),
                    "a positive interval, or RTT bounds 0 < min <= max",
                ))
            }
        };
        let mut agents = Vec::new();
        for (i, f) in sim.flows[..sim.static_flows()].iter().enumerate() {
            if let Some(handle) = f.tcp_sender().and_then(|s| s.cc_external()) {
                agents.push(Agent {
                    flow: i,
                    name: f.name.clone(),
                    handle,
                    last: Time::ZERO,
                    next: first,
                    sent: (0, 0),
                    rtt: None,
                    row: vec![0.0; FIELDS.len() + queues.len()],
                });
            }
        }
        if agents.is_empty() {
            return Err(arg_error(
                "flows",
                String::new(),
                "at least one flow with cc = \"agent\" (the flows a controller drives)",
            ));
        }
        let mut ids = Vec::new();
        for q in queues {
            match sim.links.iter().position(|l| &l.name == q) {
                Some(i) => ids.push(i),
                None => {
                    let names: Vec<&str> = sim.links.iter().map(|l| l.name.as_str()).take(20).collect();
                    return Err(arg_error(
                        "queues",
                        q.clone(),
                        &format!("a link name: one of {names:?}"),
                    ));
                }
            }
        }
        Ok(Session {
            sim,
            agents,
            decide,
            queues: ids,
            now: Time::ZERO,
            events: 0,
            resolved: resolved.to_string(),
        })
    }

    /// The agents' flow names, in order.
    pub fn agent_names(&self) -> Vec<String> {
        self.agents.iter().map(|a| a.name.clone()).collect()
    }

    /// The simulated time the session stopped at.
    pub fn now(&self) -> Time {
        self.now
    }

    /// True once the run reached its end time.
    pub fn done(&self) -> bool {
        self.now >= self.sim.end || self.sim.done()
    }

    /// The last observation row of agent `i` ([`FIELDS`], then the queue delays).
    pub fn row(&self, i: usize) -> &[f64] {
        &self.agents[i].row
    }

    /// Sets agent `i`'s action, in force from its flow's next ACK.
    pub fn act(&mut self, i: usize, action: Action) -> Result<(), SimError> {
        let a = self
            .agents
            .get(i)
            .ok_or_else(|| SimError(format!("agent {i}: there are {} agents", self.agents.len())))?;
        let ok = match action {
            Action::None => true,
            Action::Window(w) | Action::Rate(w) => w > 0,
        };
        if !ok {
            return Err(SimError(format!(
                "agent {}: action {action:?} must be positive",
                a.name
            )));
        }
        a.handle.lock().expect("agent state").action = action;
        Ok(())
    }

    /// Runs to the next decision point of any agent (or the end of the run)
    /// and returns the indices of the agents due there, their rows updated.
    /// Fails after the end, and where the run fails.
    pub fn advance(&mut self) -> Result<Vec<usize>, SimError> {
        if self.done() {
            return Err(SimError(format!(
                "the session ended at t = {} (its duration): start a new one",
                self.now
            )));
        }
        let target = self
            .agents
            .iter()
            .map(|a| a.next)
            .min()
            .expect("agents")
            .min(self.sim.end);
        while !self.sim.reached(target) {
            self.events += self.sim.step(target, u64::MAX)?;
        }
        self.now = target;
        let due: Vec<usize> = (0..self.agents.len())
            .filter(|&i| self.agents[i].next <= target || target >= self.sim.end)
            .collect();
        let delays = self.queue_delays();
        for &i in &due {
            self.close(i, &delays);
        }
        Ok(due)
    }

    /// Ends the run where the session stopped (its end time becomes now) and
    /// collects its results as [`crate::run`] does, after the invariants'
    /// check.
    pub fn finish(mut self) -> Result<crate::Output, SimError> {
        self.sim.end = self.now.max(Time::from_nanos(1));
        self.sim.close();
        self.sim.check_invariants()?;
        Ok(crate::output::collect(self.sim, self.resolved, self.events))
    }

    /// The queue delays of the links asked for: backlog bytes over the link's rate.
    fn queue_delays(&mut self) -> Vec<f64> {
        let now = self.now;
        let mut out = Vec::with_capacity(self.queues.len());
        for &i in &self.queues {
            let l = &mut self.sim.links[i];
            if l.fifo.is_some() {
                self.sim.counters.dropped += l.account(now, false);
            }
            let bytes = l.backlog().1;
            out.push(bytes as f64 * 8.0 / l.rate.bits_per_sec().max(1) as f64);
        }
        out
    }

    /// Closes agent `i`'s interval at `self.now` into its row and opens the next.
    fn close(&mut self, i: usize, delays: &[f64]) {
        let now = self.now;
        let a = &mut self.agents[i];
        let iv: Interval = std::mem::take(&mut a.handle.lock().expect("agent state").interval);
        let f = &self.sim.flows[a.flow];
        let rep = f.snd.report();
        let sample = f.snd.sample().unwrap_or_default();
        let pacing = f.tcp_sender().map_or(0, |s| s.pacing_rate());
        let dt = (now - a.last).as_secs_f64();
        let sent = rep.packets_sent - a.sent.0;
        let retx = rep.retransmits - a.sent.1;
        a.rtt = iv.rtt_last.or(a.rtt);
        let secs = |t: Option<Time>| t.map_or(0.0, |t| t.as_secs_f64());
        let latest = secs(a.rtt);
        let mean = if iv.rtt_n > 0 {
            iv.rtt_sum.as_secs_f64() / iv.rtt_n as f64
        } else {
            latest
        };
        let frac = |n: u64, d: u64| if d > 0 { n as f64 / d as f64 } else { 0.0 };
        let row = [
            now.as_secs_f64(),
            dt,
            iv.acked as f64,
            if dt > 0.0 { iv.acked as f64 / dt } else { 0.0 },
            iv.rtt_min.map_or(latest, |t| t.as_secs_f64()),
            mean,
            latest,
            frac(retx, sent).min(1.0),
            frac(iv.ece_acks, iv.acks),
            sample.cwnd as f64,
            sample.inflight as f64,
            pacing as f64,
            iv.acks as f64,
            sent as f64,
            retx as f64,
            iv.rtt_n as f64,
        ];
        a.row.clear();
        a.row.extend_from_slice(&row);
        a.row.extend_from_slice(delays);
        a.sent = (rep.packets_sent, rep.retransmits);
        a.last = now;
        let step = match self.decide {
            Decide::Every(d) => d,
            Decide::Rtt { min, max, initial } => sample.srtt.or(a.rtt).unwrap_or(initial).clamp(min, max),
        };
        a.next = now + step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dumbbell, 10 Mbit/s bottleneck, 20 ms RTT, 100-packet drop-tail
    /// buffer, with one agent flow (and optionally a CUBIC flow).
    fn scenario(duration: &str, competitor: bool) -> String {
        let mut flows = vec![serde_json::json!({"name": "agent", "src": "s0", "dst": "d0", "cc": "agent"})];
        if competitor {
            flows.push(serde_json::json!({"name": "other", "src": "s1", "dst": "d1", "cc": "cubic"}));
        }
        serde_json::json!({
            "seed": 3, "duration": duration,
            "topology": {
                "kind": "dumbbell", "pairs": 2,
                "bottleneck": {"rate": "10Mbps", "delay": "8ms", "queue": {"kind": "droptail", "limit": "100pkt"}},
                "access": {"rate": "100Mbps", "delay": "1ms"},
            },
            "flows": flows,
        })
        .to_string()
    }

    fn session(decide: Decide, queues: &[String]) -> Session {
        Session::new(&scenario("2s", false), &Limits::default(), decide, queues).unwrap()
    }

    /// Decision points every 100 ms: 20 of them in 2 s, the last at the end;
    /// after that, advancing fails.
    #[test]
    fn fixed_interval_decisions() {
        let mut s = session(Decide::Every(Time::from_millis(100)), &[]);
        assert_eq!(s.agent_names(), vec!["agent".to_string()]);
        let mut times = Vec::new();
        while !s.done() {
            assert_eq!(s.advance().unwrap(), vec![0]);
            times.push(s.row(0)[0]);
            assert!((s.row(0)[1] - 0.1).abs() < 1e-12);
        }
        assert_eq!(times.len(), 20);
        assert!((times[19] - 2.0).abs() < 1e-12);
        assert!(s.advance().unwrap_err().0.contains("ended"));
        let out = s.finish().unwrap();
        assert!(out.tables.iter().any(|t| t.name == "flows"));
    }

    /// A window of 25 000 B on a 20 ms path (plus serialization) delivers
    /// about cwnd per RTT: 25 kB / ~21 ms ≈ 1.2 MB/s, below the 1.25 MB/s
    /// of the bottleneck; the interval's RTTs are ≥ the 20 ms propagation
    /// RTT, and without a queue to build no loss.
    #[test]
    fn window_action_sets_delivery_rate() {
        let mut s = session(Decide::Every(Time::from_millis(100)), &["R1->R2".into()]);
        s.act(0, Action::Window(25_000)).unwrap();
        let mut rows = Vec::new();
        while !s.done() {
            s.advance().unwrap();
            rows.push(s.row(0).to_vec());
        }
        let late = &rows[10];
        let f = |k: &str| late[FIELDS.iter().position(|x| *x == k).unwrap()];
        assert_eq!(f("cwnd"), 25_000.0);
        let rtt = f("rtt_mean");
        assert!((0.020..0.024).contains(&rtt), "{rtt}");
        let expect = 25_000.0 / rtt;
        assert!(
            (f("delivery_rate") / expect - 1.0).abs() < 0.1,
            "{} vs {expect}",
            f("delivery_rate")
        );
        assert_eq!(f("loss_fraction"), 0.0);
        // The queue delay column follows FIELDS; with cwnd ≈ BDP the queue stays small.
        assert!(late[FIELDS.len()] < 0.005, "{}", late[FIELDS.len()]);
    }

    /// RTT decisions follow the flow's smoothed RTT (≈ 20-25 ms here), and
    /// two sessions from one scenario give identical rows.
    #[test]
    fn rtt_decisions_and_determinism() {
        let run = || {
            let decide = Decide::Rtt {
                min: Time::from_millis(5),
                max: Time::from_millis(500),
                initial: Time::from_millis(100),
            };
            let mut s = Session::new(&scenario("1s", true), &Limits::default(), decide, &[]).unwrap();
            s.act(0, Action::Rate(1_000_000)).unwrap();
            let mut rows = Vec::new();
            while !s.done() {
                s.advance().unwrap();
                rows.push(s.row(0).to_vec());
            }
            rows
        };
        let a = run();
        assert_eq!(a, run());
        // Until the first RTT sample, the initial 100 ms.
        assert!((a[0][1] - 0.1).abs() < 1e-12, "{}", a[0][1]);
        let dts: Vec<f64> = a[5..a.len() - 1].iter().map(|r| r[1]).collect();
        assert!(dts.iter().all(|&d| (0.019..0.2).contains(&d)), "{dts:?}");
        assert!(a.iter().flatten().all(|x| x.is_finite()));
    }

    /// Two agents with base RTTs of 20 and 100 ms (senders' access delays of
    /// 1 and 41 ms, a 8-ms bottleneck, 1-ms receivers' access) decide once per
    /// their own RTT: each advance returns the agents due, the clock never goes
    /// back. Counts: every 10 ms until the first RTT sample (one RTT after the
    /// start), then every smoothed RTT (the queue stays empty): 2 + 1.98/0.02
    /// = 101 and 10 + 1.9/0.1 = 29, within a decision or two.
    #[test]
    fn agents_decide_at_their_own_rtts() {
        let v = serde_json::json!({
            "seed": 3, "duration": "2s",
            "topology": {
                "kind": "dumbbell", "pairs": 2,
                "bottleneck": {"rate": "100Mbps", "delay": "8ms", "queue": {"kind": "droptail", "limit": "1000pkt"}},
                "access": {"rate": "1Gbps", "delay": ["1ms", "41ms"]},
            },
            "flows": [{"pairs": "all", "cc": "agent"}],
        });
        let decide = Decide::Rtt {
            min: Time::from_millis(1),
            max: Time::from_secs(1),
            initial: Time::from_millis(10),
        };
        let mut s = Session::new(&v.to_string(), &Limits::default(), decide, &[]).unwrap();
        let (mut counts, mut last) = ([0u32; 2], Time::ZERO);
        while !s.done() {
            let due = s.advance().unwrap();
            assert!(!due.is_empty() && s.now() > last);
            last = s.now();
            for i in due {
                counts[i] += 1;
                assert!((s.row(i)[0] - s.now().as_secs_f64()).abs() < 1e-12);
            }
        }
        assert!(
            counts[0].abs_diff(101) <= 2 && counts[1].abs_diff(29) <= 2,
            "{counts:?}"
        );
    }

    #[test]
    fn bad_arguments_are_named() {
        let e = Session::new(
            &scenario("1s", false),
            &Limits::default(),
            Decide::Every(Time::ZERO),
            &[],
        );
        assert!(matches!(e, Err(Error::Scenario(ref s)) if s.path == "decide"));
        let e = Session::new(
            &scenario("1s", false),
            &Limits::default(),
            Decide::Every(Time::from_millis(1)),
            &["nope".into()],
        );
        assert!(matches!(e, Err(Error::Scenario(ref s)) if s.path == "queues" && s.expected.contains("R1->R2")));
        let no_agent = scenario("1s", false).replace("\"cc\":\"agent\"", "\"cc\":\"cubic\"");
        let e = Session::new(&no_agent, &Limits::default(), Decide::Every(Time::from_millis(1)), &[]);
        assert!(
            matches!(e, Err(Error::Scenario(ref s)) if s.path == "flows"),
            "{e:?}",
            e = e.err()
        );
        let mut s = session(Decide::Every(Time::from_millis(10)), &[]);
        assert!(s.act(0, Action::Window(0)).is_err());
        assert!(s.act(3, Action::Window(1000)).is_err());
    }
}
