//! RED's and Adaptive RED's scenario keys (`queue = {kind = "red"}` or
//! `{kind = "ared"}`, with ns-2.35's defaults from `tcl/lib/ns-default.tcl`)
//! and their resolution for one link: ns-2's automatic thresholds (from
//! `target_delay`), `q_weight` (codes 0 and -1) and ARED's lower bound of
//! max_p (0.01 in Floyd, Gummadi & Shenker 2001; min(0.01, 80000 / C[bit/s])
//! in ns-2's `REDQueue::initialize_params`: docs/models/adaptive-red.md).
//! Also the readers other disciplines that embed [`Red`](super::Red) use for
//! their RED table, and [`resolve`] for tests and tools.

use super::{Adaptive, Params, RedQueue};
use crate::cfg::{Res, ScenarioError, Tab};
use crate::qdisc::{Limit, LinkInfo, Qdisc, QdiscSpec};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// A threshold or weight given as a number or left to ns-2's automatic rule.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Auto {
    Auto,
    Value(f64),
}

/// RED's keys as read (automatic values resolved per link in `build`).
#[derive(Debug)]
pub(crate) struct Spec {
    kind: &'static str,
    min_th: Auto,
    max_th: Auto,
    max_p: f64,
    /// A weight in (0, 1], or ns-2's automatic codes 0 and -1.
    q_weight: f64,
    mean_pktsize: u64,
    target_delay: Time,
    wait: bool,
    gentle: bool,
    byte_mode: bool,
    queue_in_bytes: bool,
    ecn: bool,
    use_mark_p: bool,
    mark_p: f64,
    adaptive: Option<(f64, f64, Time, f64, Auto)>,
}

/// A number in (lo, hi] (`lo` excluded).
fn open_closed(t: &mut Tab, key: &'static str, default: f64, lo: f64, hi: f64) -> Res<f64> {
    let bad = |t: &Tab, v: &Value| t.error(key, v, format!("a number in ({lo}, {hi}]"));
    let x = match t.raw(key) {
        None => default,
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && *x > lo && *x <= hi)
            .ok_or_else(|| bad(t, v))?,
    };
    t.put(key, Value::from(x));
    Ok(x)
}

/// A threshold in packets (> 0), or "auto" (also ns-2's 0).
fn threshold(t: &mut Tab, key: &'static str) -> Res<Auto> {
    let expected = "a number of packets > 0, or \"auto\" (also 0, ns-2's automatic setting)";
    let a = match t.raw(key) {
        None => Auto::Auto,
        Some(Value::String(s)) if s == "auto" => Auto::Auto,
        Some(v) => match v.as_f64().filter(|x| x.is_finite() && *x >= 0.0) {
            Some(0.0) => Auto::Auto,
            Some(x) => Auto::Value(x),
            None => return Err(t.error(key, v, expected)),
        },
    };
    t.put(key, auto_value(a));
    Ok(a)
}

fn auto_value(a: Auto) -> Value {
    match a {
        Auto::Auto => Value::String("auto".into()),
        Auto::Value(x) => Value::from(x),
    }
}

/// Each key's line of documentation, next to its read: the scenario
/// schema's description of the key ([`Tab::docs`]).
const DOCS: &[(&str, &str)] = &[
    (
        "min_th",
        "RED minimum threshold, packets (\"auto\" or 0: ns-2's automatic setting)",
    ),
    ("max_th", "RED maximum threshold, packets (\"auto\" or 0: 3 · min_th)"),
    ("max_p", "RED maximum drop probability at max_th"),
    (
        "q_weight",
        "RED averaging weight; 0: from the link rate; -1: ns-2's RTT-based rule",
    ),
    ("mean_pktsize", "RED mean packet size (idle-time decay, byte mode)"),
    (
        "target_delay",
        "RED / Adaptive RED target queueing delay: the automatic min_th is max(5, target_delay · link rate in packets/s / 2) (ns-2 targetdelay_)",
    ),
    ("wait", "RED: wait between drops (ns-2 wait_)"),
    ("gentle", "RED gentle mode between max_th and 2 · max_th"),
    ("byte_mode", "RED: drop probability scaled by packet size"),
    ("queue_in_bytes", "RED: average queue in bytes"),
    (
        "ecn",
        "RED: mark ECN-capable packets instead of dropping them (RFC 3168; unforced decisions only, ns-2 setbit_)",
    ),
    ("use_mark_p", "RED: mark_p used for marking"),
    (
        "mark_p",
        "RED with use_mark_p: below this drop probability an ECN packet is marked, above it dropped (ns-2's mark_p_)",
    ),
    (
        "alpha",
        "Adaptive RED: additive increase of max_p per interval (Floyd, Gummadi & Shenker 2001)",
    ),
    (
        "beta",
        "Adaptive RED: multiplicative decrease factor of max_p per interval, in (0, 1)",
    ),
    ("interval", "Adaptive RED: period of the max_p adaptation"),
    ("top", "Adaptive RED: upper bound of max_p"),
    (
        "bottom",
        "Adaptive RED: lower bound of max_p (\"auto\": from the link rate)",
    ),
];

/// Reads RED's keys (with ARED's when `adaptive`) from `t`; other disciplines
/// that embed [`Red`](super::Red) read their RED table with it.
pub(crate) fn read_spec(t: &mut Tab, kind: &'static str, adaptive: bool) -> Res<Spec> {
    t.docs(DOCS);
    let min_th = threshold(t, "min_th")?;
    let max_th = threshold(t, "max_th")?;
    let max_p = open_closed(t, "max_p", 0.1, 0.0, 1.0)?;
    let qw_default = if adaptive { 0.0 } else { -1.0 };
    let q_weight = match t.raw("q_weight") {
        None => qw_default,
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && ((*x > 0.0 && *x <= 1.0) || *x == 0.0 || *x == -1.0))
            .ok_or_else(|| {
                t.error(
                    "q_weight",
                    v,
                    "a number in (0, 1], or 0 (1 − exp(−1/C), C in packets/s) or -1 (ns-2's RTT-based rule)",
                )
            })?,
    };
    t.put("q_weight", Value::from(q_weight));
    let mean_pktsize = t.size("mean_pktsize", Some("500B"))?;
    if mean_pktsize == 0 || mean_pktsize > 65_535 {
        return Err(t.error(
            "mean_pktsize",
            &Value::from(mean_pktsize),
            "a size between 1 B and 65535 B",
        ));
    }
    let target_delay = t.time("target_delay", Some("5ms"))?;
    if target_delay == Time::ZERO {
        return Err(t.error("target_delay", &Value::from("0s"), "a positive time such as \"5ms\""));
    }
    let wait = t.boolean("wait", true)?;
    let gentle = t.boolean("gentle", true)?;
    let byte_mode = t.boolean("byte_mode", true)?;
    let queue_in_bytes = t.boolean("queue_in_bytes", true)?;
    let ecn = t.boolean("ecn", false)?;
    let use_mark_p = t.boolean("use_mark_p", true)?;
    let mark_p = open_closed(t, "mark_p", 0.1, 0.0, 1.0)?;
    let adaptive = if adaptive {
        let alpha = open_closed(t, "alpha", 0.01, 0.0, 1.0)?;
        let beta = open_closed(t, "beta", 0.9, 0.0, 1.0)?;
        if beta == 1.0 {
            return Err(t.error("beta", &Value::from(1.0), "a number in (0, 1)"));
        }
        let interval = t.time("interval", Some("0.5s"))?;
        if interval == Time::ZERO {
            return Err(t.error("interval", &Value::from("0s"), "a positive time such as \"0.5s\""));
        }
        let top = open_closed(t, "top", 0.5, 0.0, 1.0)?;
        let bottom = match t.raw("bottom") {
            None => Auto::Auto,
            Some(Value::String(s)) if s == "auto" => Auto::Auto,
            Some(v) => match v.as_f64().filter(|x| x.is_finite() && *x > 0.0 && *x <= top) {
                Some(x) => Auto::Value(x),
                None => {
                    return Err(t.error(
                        "bottom",
                        v,
                        format!("a number in (0, top = {top}], or \"auto\" (min(0.01, 80000 / C[bit/s]))"),
                    ))
                }
            },
        };
        t.put("bottom", auto_value(bottom));
        Some((alpha, beta, interval, top, bottom))
    } else {
        None
    };
    Ok(Spec {
        kind,
        min_th,
        max_th,
        max_p,
        q_weight,
        mean_pktsize,
        target_delay,
        wait,
        gentle,
        byte_mode,
        queue_in_bytes,
        ecn,
        use_mark_p,
        mark_p,
        adaptive,
    })
}

/// `kind = "red"`: RED with ns-2.35's defaults.
pub fn read_red(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    Ok(Arc::new(read_spec(t, "red", false)?))
}

/// `kind = "ared"`: Adaptive RED (RED keys plus alpha, beta, interval, top, bottom).
pub fn read_ared(t: &mut Tab) -> Res<Arc<dyn QdiscSpec>> {
    Ok(Arc::new(read_spec(t, "ared", true)?))
}

impl Spec {
    /// Resolves the automatic settings for `link` (ns-2 `initialize_params`).
    pub(crate) fn params(&self, link: &LinkInfo) -> Res<Params> {
        let bw = link.rate.0 as f64;
        let ptc = bw / (8.0 * self.mean_pktsize as f64);
        let min_pkts = match self.min_th {
            Auto::Value(x) => x,
            Auto::Auto => (self.target_delay.as_secs_f64() * ptc / 2.0).max(5.0),
        };
        let max_pkts = match self.max_th {
            Auto::Value(x) => x,
            Auto::Auto => 3.0 * min_pkts,
        };
        if min_pkts >= max_pkts {
            return Err(link.error(
                "max_th",
                format!("{max_pkts}"),
                format!("a threshold above min_th ({min_pkts} packets)"),
            ));
        }
        let room = match link.limit {
            Limit::Packets(n) => Some(n as f64),
            Limit::Bytes(b) => Some(b as f64 / self.mean_pktsize as f64),
            Limit::Unlimited => None,
        };
        if room.is_some_and(|r| r < max_pkts) {
            return Err(link.error(
                "limit",
                link.limit_str(),
                format!(
                    "a buffer of at least max_th = {max_pkts} packets of mean_pktsize {} B (min_th {min_pkts})",
                    self.mean_pktsize
                ),
            ));
        }
        let q_weight = if self.q_weight == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if self.q_weight == -1.0 {
            let rtt = (3.0 * (link.delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        } else {
            self.q_weight
        };
        let unit = if self.queue_in_bytes {
            self.mean_pktsize as f64
        } else {
            1.0
        };
        let adaptive = self.adaptive.map(|(alpha, beta, interval, top, bottom)| Adaptive {
            alpha,
            beta,
            interval,
            top,
            bottom: match bottom {
                Auto::Value(x) => x,
                Auto::Auto => 0.01f64.min(80_000.0 / bw),
            },
        });
        Ok(Params {
            min_th_pkts: min_pkts,
            max_th_pkts: max_pkts,
            min_th: min_pkts * unit,
            max_th: max_pkts * unit,
            max_p: self.max_p,
            q_weight,
            mean_pktsize: self.mean_pktsize as u32,
            ptc,
            wait: self.wait,
            gentle: self.gentle,
            byte_mode: self.byte_mode,
            queue_in_bytes: self.queue_in_bytes,
            ecn: self.ecn,
            use_mark_p: self.use_mark_p,
            mark_p: self.mark_p,
            adaptive,
        })
    }
}

impl QdiscSpec for Spec {
    fn build(&self, link: &LinkInfo) -> Res<Box<dyn Qdisc>> {
        Ok(Box::new(RedQueue::new(
            self.kind,
            link.limit,
            link.rate,
            self.params(link)?,
        )))
    }
}

/// Resolved RED parameters of a queue table (`kind` "red" or "ared"; a
/// `limit` key is ignored, the link's is used) for a link: the automatic
/// settings ns-2 would pick (for tests and tools).
pub fn resolve(v: &Value, link: &LinkInfo) -> Result<Params, ScenarioError> {
    let mut t = Tab::new(link.path.clone(), v)?;
    t.raw("limit");
    let kind = t.choice("kind", None, &["red", "ared"])?;
    let spec = if kind == "ared" {
        read_spec(&mut t, "ared", true)?
    } else {
        read_spec(&mut t, "red", false)?
    };
    t.finish()?;
    spec.params(link)
}
