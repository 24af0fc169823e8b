//! A typed reader over the scenario tree that tracks key paths.
//!
//! Every accessor records the key it read, so `finish()` can reject unknown
//! keys and list the accepted ones; every error names the key path, the bad
//! value and what is accepted (ns-3's "every parameter has a name, a default
//! and a valid range", without string-typed config inside the engine). Each
//! accessor also writes the value it resolved (defaults included) into `out`,
//! which becomes the fully resolved scenario used to identify runs.

pub mod record;

use crate::units::{self, BufferSize, Rate, Time};
use record::Spec;
use serde_json::{Map, Value};
use std::fmt;

/// An invalid scenario: where, what, and what would have been accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// Dotted key path, e.g. `topology.bottleneck.rate` or `flows[2].cc`.
    pub path: String,
    /// The offending value as written (empty for a missing or unknown key).
    pub value: String,
    /// What is accepted.
    pub expected: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "scenario" } else { &self.path };
        if self.value.is_empty() {
            write!(f, "{path}: {}", self.expected)
        } else {
            write!(f, "{path}: got {}, expected {}", self.value, self.expected)
        }
    }
}
impl std::error::Error for ScenarioError {}

pub type Res<T> = Result<T, ScenarioError>;

pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Canonical text forms, re-parseable by the same accessors.
pub fn time_str(t: Time) -> String {
    format!("{}s", t.secs_str())
}
/// Exact decimal seconds of `t` (no unit).
pub fn secs_str(t: Time) -> String {
    t.secs_str()
}
pub fn rate_str(r: Rate) -> String {
    format!("{}bps", r.0)
}
pub fn size_str(b: u64) -> String {
    format!("{b}B")
}

/// A whole number of bytes, at most [`units::MAX_SIZE`].
fn bytes_number(n: &serde_json::Number) -> Result<u64, Option<String>> {
    match n.as_u64() {
        Some(b) => units::size_from_bytes(b as f64).map_err(Some),
        None => Err(None),
    }
}

/// Edit distance (Levenshtein, with adjacent transpositions counted once)
/// between `a` and `b`, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, x) in d[0].iter_mut().enumerate() {
        *x = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = (a[i - 1] != b[j - 1]) as usize;
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Is `typed` a likely typo of `name`: at most one edit per three characters
/// (at least one), ignoring case?
pub fn close(typed: &str, name: &str) -> bool {
    let n = name.chars().count().max(typed.chars().count());
    edit_distance(&typed.to_lowercase(), &name.to_lowercase()) <= (n / 3).max(1)
}

/// The candidate `typed` most likely misspells, if any is [`close`].
pub fn did_you_mean<'n>(typed: &str, candidates: impl IntoIterator<Item = &'n str>) -> Option<&'n str> {
    candidates
        .into_iter()
        .filter(|c| *c != typed && close(typed, c))
        .min_by_key(|c| edit_distance(typed, c))
}

/// Up to eight of `names`, quoted, with how many there are; led by the name
/// `typed` most likely misspells: `did you mean "R1->R2"? "s0->R1", ... (10 in all)`.
pub fn names_hint(typed: &str, names: &[String]) -> String {
    let mut s: Vec<String> = names.iter().take(8).map(|n| format!("{n:?}")).collect();
    if names.len() > 8 {
        s.push(format!("… ({} in all)", names.len()));
    }
    let hint = did_you_mean(typed, names.iter().map(String::as_str))
        .map_or(String::new(), |m| format!("did you mean {m:?}? "));
    format!("{hint}{}", s.join(", "))
}

/// A table (JSON object) being read.
pub struct Tab<'a> {
    pub path: String,
    map: &'a Map<String, Value>,
    known: Vec<&'static str>,
    /// The `choice` keys read so far and their values: the variant whose keys
    /// the schema recorder ([`record`]) files the next keys under.
    chosen: Vec<(&'static str, String)>,
    pub out: Map<String, Value>,
    /// Every key is accepted ([`Tab::rest`] was called).
    open: bool,
    /// The reader's documentation of its keys ([`Tab::docs`]).
    docs: &'static [(&'static str, &'static str)],
}

impl<'a> Tab<'a> {
    pub fn new(path: String, v: &'a Value) -> Res<Tab<'a>> {
        match v {
            Value::Object(map) => Ok(Tab {
                path,
                map,
                known: Vec::new(),
                chosen: Vec::new(),
                out: Map::new(),
                open: false,
                docs: &[],
            }),
            other => Err(ScenarioError {
                path,
                value: show(other),
                expected: "a table of keys".into(),
            }),
        }
    }

    pub fn key_path(&self, key: &str) -> String {
        join(&self.path, key)
    }

    pub fn error(&self, key: &str, v: &Value, expected: impl Into<String>) -> ScenarioError {
        ScenarioError {
            path: self.key_path(key),
            value: show(v),
            expected: expected.into(),
        }
    }

    /// A required key is absent. If the table holds an unknown key close to it
    /// (a typo: `bottlenck`), the error names that key instead, with the
    /// suggestion.
    pub fn missing(&self, key: &str, expected: &str) -> ScenarioError {
        record::missing(&self.path, key, &self.chosen);
        if let Some(typo) = self.map.keys().find(|k| k.as_str() != key && close(k, key)) {
            return ScenarioError {
                path: self.key_path(typo),
                value: String::new(),
                expected: format!("unknown key; did you mean {key:?}? (required key {key:?} is missing)"),
            };
        }
        ScenarioError {
            path: self.key_path(key),
            value: String::new(),
            expected: format!("required key missing; expected {expected}"),
        }
    }

    /// Marks `key` as accepted and returns its value, if present. Its schema
    /// is the one `crate::schema::raw` declares for it (the schema
    /// is `crate::schema`, which reads what [`record`] saw).
    pub fn raw(&mut self, key: &'static str) -> Option<&'a Value> {
        self.note(key, Spec::Raw, None);
        self.mark(key)
    }

    fn mark(&mut self, key: &'static str) -> Option<&'a Value> {
        if !self.known.contains(&key) {
            self.known.push(key);
        }
        self.map.get(key)
    }

    /// Tells the schema recorder (when one is on) that this table accepts `key`
    /// as `spec`, with `default`.
    fn note(&self, key: &'static str, spec: Spec, default: Option<Value>) {
        let doc = self.docs.iter().find(|(k, _)| *k == key).map(|(_, d)| *d);
        record::key(&self.path, key, spec, default, &self.chosen, doc);
    }

    /// The reader's one line of documentation for each of its keys, next to
    /// the reads (`(key, line)`; a model's `const DOCS`, given as the reader's
    /// first statement): the scenario schema's descriptions, and the reason a
    /// new model touches no file but its own. A later call replaces the
    /// lines (a helper two readers share reads under its caller's). Keys
    /// without a line here are looked up in `schema/docs.rs` (the keys common
    /// to the whole format). Costs nothing unless the schema recorder is on.
    pub fn docs(&mut self, docs: &'static [(&'static str, &'static str)]) {
        self.docs = docs;
    }

    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// The value of `key` without marking it accepted.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// Keys present that no accessor has asked for yet, sorted.
    pub fn unread(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .map
            .keys()
            .filter(|k| !self.open && !self.known.contains(&k.as_str()))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// Keys accepted so far, sorted.
    pub fn known(&self) -> Vec<&'static str> {
        let mut v = self.known.clone();
        v.sort();
        v
    }

    /// Accepts every key no accessor has read, but those in `later` (which
    /// the caller reads after), and returns them, sorted by name, as given
    /// (they pass to the resolved table unchanged): the parameters of a
    /// model written outside the engine, which checks them itself.
    pub fn rest(&mut self, later: &[&str]) -> Map<String, Value> {
        self.note("*", Spec::Open, None);
        let mut out = Map::new();
        for k in self.unread() {
            if later.contains(&k.as_str()) {
                continue;
            }
            let v = self.map[&k].clone();
            self.out.insert(k.clone(), v.clone());
            out.insert(k, v);
        }
        self.open = true;
        out
    }

    pub fn put(&mut self, key: &str, v: Value) {
        self.out.insert(key.to_string(), v);
    }

    /// Reads `key` with `parse`, whose `Err` is `None` for a value of the wrong form
    /// (the error shows `expected`) or the specific reason for an out-of-range one.
    fn parsed<T>(
        &mut self,
        key: &'static str,
        default: Option<&str>,
        expected: &'static str,
        spec: Spec,
        parse: impl Fn(&Value) -> Result<T, Option<String>>,
        canon: impl Fn(&T) -> Value,
    ) -> Res<T> {
        self.note(key, spec, default.map(|d| Value::String(d.into())));
        let d;
        let v = match self.mark(key) {
            Some(v) => v,
            None => match default {
                Some(s) => {
                    d = Value::String(s.to_string());
                    &d
                }
                None => return Err(self.missing(key, expected)),
            },
        };
        let t = parse(v).map_err(|why| self.error(key, v, why.unwrap_or_else(|| expected.into())))?;
        self.put(key, canon(&t));
        Ok(t)
    }

    pub fn time(&mut self, key: &'static str, default: Option<&str>) -> Res<Time> {
        self.parsed(
            key,
            default,
            "a non-negative time with a unit, such as \"40ms\", \"1.5s\", \"250us\"",
            Spec::Time,
            |v| match v {
                Value::String(s) => units::parse_time(s).map_err(|e| e.out_of_range().map(String::from)),
                _ => Err(None),
            },
            |t| Value::String(time_str(*t)),
        )
    }

    pub fn rate(&mut self, key: &'static str, default: Option<&str>) -> Res<Rate> {
        self.parsed(
            key,
            default,
            "a positive rate such as \"45Mbps\", \"1Gbps\", \"64kbps\" (or a number of bit/s)",
            Spec::Rate,
            |v| match v {
                Value::String(s) => units::parse_rate(s).map_err(|e| e.out_of_range().map(String::from)),
                Value::Number(n) => match n.as_f64() {
                    Some(x) if x >= 1.0 => units::rate_from_bps(x).map_err(Some),
                    _ => Err(None),
                },
                _ => Err(None),
            },
            |r| Value::String(rate_str(*r)),
        )
    }

    pub fn size(&mut self, key: &'static str, default: Option<&str>) -> Res<u64> {
        self.parsed(
            key,
            default,
            "a non-negative size such as \"1500B\", \"300KB\", \"10MB\" (or a number of bytes)",
            Spec::Size,
            |v| match v {
                Value::String(s) => units::parse_size(s).map_err(|e| e.out_of_range().map(String::from)),
                Value::Number(n) => bytes_number(n),
                _ => Err(None),
            },
            |b| Value::String(size_str(*b)),
        )
    }

    /// A size or "inf" (returns `None` for infinite).
    pub fn size_or_inf(&mut self, key: &'static str, default: &str) -> Res<Option<u64>> {
        self.parsed(
            key,
            Some(default),
            "a size such as \"100KB\", \"10MB\", a number of bytes, or \"inf\"",
            Spec::SizeOrInf,
            |v| match v {
                Value::String(s) if s == "inf" => Ok(None),
                Value::String(s) => units::parse_size(s)
                    .map(Some)
                    .map_err(|e| e.out_of_range().map(String::from)),
                Value::Number(n) => bytes_number(n).map(Some),
                _ => Err(None),
            },
            |b| Value::String(b.map_or("inf".into(), size_str)),
        )
    }

    pub fn buffer(&mut self, key: &'static str, default: Option<&str>) -> Res<BufferSize> {
        self.parsed(
            key,
            default,
            units::BUFFER_EXPECTED,
            Spec::Buffer,
            |v| match v {
                Value::String(s) => units::parse_buffer(s).map_err(|e| e.out_of_range().map(String::from)),
                _ => Err(None),
            },
            |b| {
                Value::String(match b {
                    BufferSize::Packets(n) => format!("{n}pkt"),
                    BufferSize::Bytes(n) => format!("{n}B"),
                    BufferSize::Bdp(x) => format!("{x}bdp"),
                    BufferSize::Unlimited => "inf".into(),
                })
            },
        )
    }

    pub fn uint(&mut self, key: &'static str, default: Option<u64>, min: u64, max: u64) -> Res<u64> {
        let expected = format!("an integer in [{min}, {max}]");
        self.note(key, Spec::Uint { min, max }, default.map(Value::from));
        let v = match (self.mark(key), default) {
            (Some(v), _) => v,
            (None, Some(d)) => {
                self.put(key, Value::from(d));
                return Ok(d);
            }
            (None, None) => return Err(self.missing(key, &expected)),
        };
        let n = v
            .as_u64()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| self.error(key, v, expected))?;
        self.put(key, Value::from(n));
        Ok(n)
    }

    /// An optional integer in [min, max]: `None` when absent (the key is
    /// accepted either way).
    pub fn opt_uint(&mut self, key: &'static str, min: u64, max: u64) -> Res<Option<u64>> {
        if self.has(key) {
            self.uint(key, None, min, max).map(Some)
        } else {
            self.note(key, Spec::Uint { min, max }, None);
            self.mark(key);
            Ok(None)
        }
    }

    pub fn float(&mut self, key: &'static str, default: Option<f64>, min: f64, max: f64) -> Res<f64> {
        let expected = format!("a number in [{min}, {max}]");
        self.note(key, Spec::Float { min, max }, default.map(Value::from));
        let v = match (self.mark(key), default) {
            (Some(v), _) => v,
            (None, Some(d)) => {
                self.put(key, Value::from(d));
                return Ok(d);
            }
            (None, None) => return Err(self.missing(key, &expected)),
        };
        let x = v
            .as_f64()
            .filter(|x| x.is_finite() && *x >= min && *x <= max)
            .ok_or_else(|| self.error(key, v, expected))?;
        self.put(key, Value::from(x));
        Ok(x)
    }

    pub fn boolean(&mut self, key: &'static str, default: bool) -> Res<bool> {
        self.note(key, Spec::Bool, Some(Value::Bool(default)));
        let b = match self.mark(key) {
            None => default,
            Some(v) => v.as_bool().ok_or_else(|| self.error(key, v, "true or false"))?,
        };
        self.put(key, Value::Bool(b));
        Ok(b)
    }

    /// A string from a closed set.
    pub fn choice(&mut self, key: &'static str, default: Option<&str>, accepted: &[&str]) -> Res<String> {
        let expected = format!(
            "one of {}",
            accepted.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ")
        );
        let spec = Spec::Choice(accepted.iter().map(|a| a.to_string()).collect());
        self.note(key, spec, default.map(|d| Value::String(d.into())));
        let s = match (self.mark(key), default) {
            (Some(v), _) => match v.as_str() {
                Some(s) if accepted.contains(&s) => s.to_string(),
                _ => return Err(self.error(key, v, expected)),
            },
            (None, Some(d)) => d.to_string(),
            (None, None) => return Err(self.missing(key, &expected)),
        };
        self.put(key, Value::String(s.clone()));
        record::chose(&self.path, key, &s);
        self.chosen.push((key, s.clone()));
        Ok(s)
    }

    /// Any string (names).
    pub fn string(&mut self, key: &'static str) -> Res<Option<String>> {
        self.note(key, Spec::Str, None);
        match self.mark(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => {
                self.put(key, Value::String(s.clone()));
                Ok(Some(s.clone()))
            }
            Some(v) => Err(self.error(key, v, "a non-empty string")),
        }
    }

    /// `start` (default 0) and `stop` (default `end`) of a recording window,
    /// `stop` not before `start`.
    pub fn time_window(&mut self, end: Time) -> Res<(Time, Time)> {
        let start = self.time("start", Some("0s"))?;
        let stop = self.time("stop", Some(&time_str(end)))?;
        if stop < start {
            return Err(self.error(
                "stop",
                &Value::String(time_str(stop)),
                format!("a time not before start ({})", time_str(start)),
            ));
        }
        Ok((start, stop))
    }

    /// A nested table, if present. Put its resolved form back with `put`.
    pub fn table(&mut self, key: &'static str) -> Res<Option<Tab<'a>>> {
        let path = self.key_path(key);
        self.note(key, Spec::Table, None);
        match self.mark(key) {
            None => Ok(None),
            Some(v) => Tab::new(path, v).map(Some),
        }
    }

    /// An array, if present.
    pub fn array(&mut self, key: &'static str) -> Res<Option<&'a Vec<Value>>> {
        self.note(key, Spec::Array, None);
        match self.mark(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(self.error(key, v, "an array")),
        }
    }

    /// Rejects keys that no accessor asked for; returns the resolved table.
    pub fn finish(self) -> Res<Value> {
        if let Some(k) = self.unread().first() {
            let known = self.known();
            let hint =
                did_you_mean(k, known.iter().copied()).map_or(String::new(), |m| format!("did you mean {m:?}? "));
            return Err(ScenarioError {
                path: self.key_path(k),
                value: String::new(),
                expected: format!("unknown key; {hint}accepted keys here: {}", known.join(", ")),
            });
        }
        Ok(Value::Object(self.out))
    }
}

impl Tab<'_> {
    /// Reads `key` as the name of one entry of a registry (`(name, item)`
    /// pairs, as each family of models keeps its readers) and returns that
    /// entry; the error lists the registered names.
    pub fn pick<T: Copy>(
        &mut self,
        key: &'static str,
        default: Option<&str>,
        registry: &[(&'static str, T)],
    ) -> Res<(&'static str, T)> {
        let names: Vec<&str> = registry.iter().map(|r| r.0).collect();
        let name = self.choice(key, default, &names)?;
        Ok(*registry.iter().find(|r| r.0 == name).expect("a registered name"))
    }

    /// Reads a selection of names: `"all"` (the default) or a list of names from
    /// `names`; returns their indices and puts the resolved list back.
    pub fn select(&mut self, key: &'static str, names: &[String]) -> Res<Vec<usize>> {
        let p = self.key_path(key);
        self.note(key, Spec::Select, Some(Value::String("all".into())));
        let r = match self.mark(key) {
            None => (0..names.len()).collect(),
            Some(Value::String(s)) if s == "all" => (0..names.len()).collect(),
            Some(v @ Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .and_then(|s| names.iter().position(|n| n == s))
                        .ok_or_else(|| ScenarioError {
                            path: p.clone(),
                            value: show(v),
                            expected: format!(
                                "\"all\" or a list of names from: {}",
                                names_hint(x.as_str().unwrap_or(""), names)
                            ),
                        })
                })
                .collect::<Res<Vec<_>>>()?,
            Some(v) => {
                return Err(ScenarioError {
                    path: p,
                    value: show(v),
                    expected: "\"all\" or a list of names".into(),
                })
            }
        };
        self.put(
            key,
            Value::Array(r.iter().map(|&i| Value::String(names[i].clone())).collect()),
        );
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_typo_of_a_required_key_is_named_with_a_suggestion() {
        let v = json!({"kind": "dumbbell", "bottlenck": {}});
        let mut t = Tab::new("topology".into(), &v).unwrap();
        let e = t
            .table("bottleneck")
            .unwrap()
            .map(|_| ())
            .ok_or_else(|| t.missing("bottleneck", "a table"));
        let e = e.unwrap_err();
        assert_eq!(e.path, "topology.bottlenck");
        assert!(e.expected.contains("did you mean \"bottleneck\""), "{e}");
        // an unrelated extra key does not hide a missing one
        let v = json!({"kind": "dumbbell", "zzz": 1});
        let t = Tab::new("topology".into(), &v).unwrap();
        assert_eq!(t.missing("bottleneck", "a table").path, "topology.bottleneck");
    }

    #[test]
    fn suggestions_take_the_closest_name() {
        assert_eq!(edit_distance("bottlenck", "bottleneck"), 1);
        assert_eq!(edit_distance("dleay", "delay"), 1);
        assert_eq!(did_you_mean("R9->R2", ["s0->R1", "R1->R2", "R2->R1"]), Some("R1->R2"));
        assert_eq!(did_you_mean("rate", ["delay", "loss"]), None);
    }

    #[test]
    fn unknown_key_names_path_and_accepted() {
        let v = json!({"rate": "1Mbps", "dleay": "1ms"});
        let mut t = Tab::new("topology.access".into(), &v).unwrap();
        t.rate("rate", None).unwrap();
        t.time("delay", Some("0s")).unwrap();
        let e = t.finish().unwrap_err();
        assert_eq!(e.path, "topology.access.dleay");
        assert!(e.expected.contains("delay, rate"), "{e}");
        assert!(e.expected.contains("did you mean \"delay\"?"), "{e}");
    }

    #[test]
    fn bad_value_names_value_and_expectation() {
        let v = json!({"rate": "45Mbs"});
        let mut t = Tab::new("topology.bottleneck".into(), &v).unwrap();
        let e = t.rate("rate", None).unwrap_err();
        assert_eq!(e.path, "topology.bottleneck.rate");
        assert_eq!(e.value, "\"45Mbs\"");
        assert!(e.to_string().contains("expected a positive rate"), "{e}");
    }

    #[test]
    fn resolved_values_are_canonical() {
        let v = json!({"delay": "40ms", "rate": 2e6});
        let mut t = Tab::new(String::new(), &v).unwrap();
        t.time("delay", None).unwrap();
        t.rate("rate", None).unwrap();
        t.uint("n", Some(3), 0, 10).unwrap();
        assert_eq!(
            t.finish().unwrap(),
            json!({"delay": "0.04s", "rate": "2000000bps", "n": 3})
        );
    }
}
