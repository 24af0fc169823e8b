//! The schema recorder: while it is on (on this thread), every [`crate::cfg::Tab`]
//! accessor reports the key it reads, its kind, its default and the variant
//! (the `choice` values read before it in the same table); a missing required
//! key is reported too. Off, each report is one thread-local check.

use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashSet;

/// What an accessor accepts.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Time,
    Rate,
    Size,
    SizeOrInf,
    Buffer,
    Uint {
        min: u64,
        max: u64,
    },
    Float {
        min: f64,
        max: f64,
    },
    Bool,
    Choice(Vec<String>),
    Str,
    Table,
    Array,
    Select,
    /// Read untyped (`Tab::raw`): its schema is declared in `schema::raw`.
    Raw,
    /// Any other key is accepted ([`crate::cfg::Tab::rest`]: the parameters of
    /// a model written outside the engine); recorded under the key `*`.
    Open,
}

/// One key read: in table `path` (concrete, e.g. `flows[2]`), under the
/// choices `chosen` read before it there.
#[derive(Clone, Debug)]
pub struct Key {
    pub path: String,
    pub key: String,
    pub spec: Spec,
    pub default: Option<Value>,
    pub chosen: Vec<(String, String)>,
    /// Its line of documentation, where the reader gave one
    /// ([`crate::cfg::Tab::docs`]).
    pub doc: Option<&'static str>,
}

/// A required key found missing in table `path`, under `chosen`.
#[derive(Clone, Debug)]
pub struct Missing {
    pub path: String,
    pub key: String,
    pub chosen: Vec<(String, String)>,
}

/// What one recording saw, each distinct report once (by table pattern).
#[derive(Default, Debug)]
pub struct Recording {
    pub keys: Vec<Key>,
    pub missing: Vec<Missing>,
    /// (table pattern.key, value) of every `choice` made.
    pub chosen: HashSet<(String, String)>,
    seen: HashSet<String>,
}

impl Recording {
    fn add_key(&mut self, k: Key) {
        let sig = format!(
            "K{}\0{}\0{:?}\0{:?}\0{:?}\0{:?}",
            pattern(&k.path),
            k.key,
            k.spec,
            k.default,
            k.chosen,
            k.doc
        );
        if self.seen.insert(sig) {
            self.keys.push(k);
        }
    }

    fn add_missing(&mut self, m: Missing) {
        let sig = format!("M{}\0{}\0{:?}", pattern(&m.path), m.key, m.chosen);
        if self.seen.insert(sig) {
            self.missing.push(m);
        }
    }

    /// Adds what `other` saw.
    pub fn merge(&mut self, other: Recording) {
        other.keys.into_iter().for_each(|k| self.add_key(k));
        other.missing.into_iter().for_each(|m| self.add_missing(m));
        self.chosen.extend(other.chosen);
    }
}

thread_local! {
    static ON: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// Whether the recorder is on (on this thread): the scenario is being read
/// to learn its keys, not to be run.
pub fn on() -> bool {
    ON.with(|r| r.borrow().is_some())
}

/// Runs `f` with the recorder on; returns its result and what was recorded.
pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Recording) {
    ON.with(|r| *r.borrow_mut() = Some(Recording::default()));
    let out = f();
    let rec = ON.with(|r| r.borrow_mut().take()).unwrap_or_default();
    (out, rec)
}

fn chosen(c: &[(&'static str, String)]) -> Vec<(String, String)> {
    c.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

pub(crate) fn key(
    path: &str,
    key: &str,
    spec: Spec,
    default: Option<Value>,
    c: &[(&'static str, String)],
    doc: Option<&'static str>,
) {
    ON.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.add_key(Key {
                path: path.to_string(),
                key: key.to_string(),
                spec,
                default,
                chosen: chosen(c),
                doc,
            });
        }
    });
}

pub(crate) fn missing(path: &str, key: &str, c: &[(&'static str, String)]) {
    ON.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.add_missing(Missing {
                path: path.to_string(),
                key: key.to_string(),
                chosen: chosen(c),
            });
        }
    });
}

pub(crate) fn chose(path: &str, key: &str, value: &str) {
    ON.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.chosen.insert((pattern(&super::join(path, key)), value.to_string()));
        }
    });
}

/// A table path with its list indices collapsed: `flows[2].cc` → `flows[].cc`.
pub fn pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for ch in path.chars() {
        match ch {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_collapse_indices() {
        assert_eq!(pattern("flows[12].cc"), "flows[].cc");
        assert_eq!(pattern("topology.links[0].queue"), "topology.links[].queue");
        assert_eq!(pattern(""), "");
    }
}
