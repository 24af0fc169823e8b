//! The scenario format as a JSON Schema (draft-07), generated from the engine's
//! own key reads rather than written by hand.
//!
//! Every [`crate::cfg::Tab`] accessor reports to a recorder ([`record`]) the key
//! it reads, its kind (time, rate, integer in a range, one of a list, ...), its
//! default and the variant it belongs to (the `choice` values read before it in
//! the same table, e.g. a queue's `kind`). [`explore`] resolves a set of
//! exemplar scenarios (`exemplars.json`) with the recorder on and, from each,
//! tries every accepted value of every `choice` key (filling in a variant's
//! required keys and dropping keys the new variant refuses), so that every
//! variant's keys are read at least once; it also removes each key that has no
//! default to learn which keys are required. [`schema`] turns the recording
//! into the schema: one object per table (list indices collapsed), with
//! `additionalProperties: false`, each key's type, unit syntax (`pattern`),
//! range, `enum`, `default` and `description`; keys that only some variants
//! accept are allowed per variant with `if`/`then` on the table's `kind`. Keys read untyped (`Tab::raw`) take the schemas declared in [`raw`];
//! descriptions come from [`docs`].
//!
//! What a schema cannot say (cross-key rules such as `warmup < duration`, names
//! that must exist in the topology, the magnitude limits inside unit strings)
//! is listed in docs/user-guide.md ("Editor support: the scenario schema").

pub mod docs;
pub mod raw;

use crate::budget::Limits;
use crate::cfg::record::{self, pattern, recording, Recording, Spec};
use crate::cfg::{join, ScenarioError};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

/// Scenarios that together reach every part of the format (each table, each
/// discriminated variant that needs other keys to be valid, e.g. a `bmcc`
/// sender with its queue and feedback); [`explore`] varies them.
pub const EXEMPLARS: &str = include_str!("exemplars.json");

/// JSON Schema draft the output follows (taplo / Even Better TOML read it).
pub const DRAFT: &str = "http://json-schema.org/draft-07/schema#";

const NUM: &str = r"\+?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?";
const TIME_UNITS: &str = "ns|us|µs|ms|s|sec|min|h";
const RATE_UNITS: &str = "bps|b/s|kbps|Kbps|kb/s|Kb/s|Mbps|mbps|Mb/s|Gbps|gbps|Gb/s|Tbps|Tb/s";
const SIZE_UNITS: &str = "B|bytes|kB|KB|MB|GB|KiB|MiB|GiB|bit|bits|b|kbit|Kbit|Mbit";
const PKT_UNITS: &str = "p|pkt|pkts|packets|packet|bdp|BDP";

fn unit_pattern(units: &str, optional: bool) -> String {
    let q = if optional { "?" } else { "" };
    format!(r"^\s*{NUM}\s*({units}){q}\s*$")
}

/// The pattern of a time string (the form `units::parse_time` reads).
pub fn time_pattern() -> String {
    unit_pattern(TIME_UNITS, false)
}
/// The pattern of a rate string (`units::parse_rate`).
pub fn rate_pattern() -> String {
    unit_pattern(RATE_UNITS, false)
}
/// The pattern of a size string (`units::parse_size`; a bare number is bytes).
pub fn size_pattern() -> String {
    unit_pattern(SIZE_UNITS, true)
}
/// The pattern of a buffer string (`units::parse_buffer`).
pub fn buffer_pattern() -> String {
    format!(r"^\s*(inf|infinite|unlimited|{NUM}\s*({PKT_UNITS}|{SIZE_UNITS})?)\s*$")
}

pub(crate) fn time_schema() -> Value {
    json!({"type": "string", "pattern": time_pattern()})
}
pub(crate) fn rate_schema() -> Value {
    json!({"anyOf": [
        {"type": "string", "pattern": rate_pattern()},
        {"type": "number", "minimum": 1, "maximum": crate::units::MAX_RATE.0},
    ]})
}
pub(crate) fn size_schema() -> Value {
    json!({"anyOf": [
        {"type": "string", "pattern": size_pattern()},
        {"type": "integer", "minimum": 0, "maximum": crate::units::MAX_SIZE},
    ]})
}

/// The schema of one accessor's kind.
pub fn spec_schema(spec: &Spec) -> Value {
    match spec {
        Spec::Time => time_schema(),
        Spec::Rate => rate_schema(),
        Spec::Size => size_schema(),
        Spec::SizeOrInf => json!({"anyOf": [{"const": "inf"}, size_schema()]}),
        Spec::Buffer => json!({"type": "string", "pattern": buffer_pattern()}),
        Spec::Uint { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
        Spec::Float { min, max } => json!({"type": "number", "minimum": min, "maximum": max}),
        Spec::Bool => json!({"type": "boolean"}),
        Spec::Choice(a) => json!({"type": "string", "enum": a}),
        Spec::Str => json!({"type": "string", "minLength": 1}),
        Spec::Table => json!({"type": "object"}),
        Spec::Array => json!({"type": "array"}),
        Spec::Select => json!({"anyOf": [{"const": "all"}, {"type": "array", "items": {"type": "string"}}]}),
        Spec::Raw | Spec::Open => json!({}),
    }
}

/// What the accessor accepts, in words (a description's fallback).
fn spec_words(spec: &Spec) -> String {
    match spec {
        Spec::Time => "a time with a unit (\"40ms\")".into(),
        Spec::Rate => "a rate (\"45Mbps\") or a number of bit/s".into(),
        Spec::Size => "a size (\"1500B\", \"300KB\") or a number of bytes".into(),
        Spec::SizeOrInf => "a size (\"1500B\"), a number of bytes, or \"inf\"".into(),
        Spec::Buffer => "a buffer: \"100pkt\", \"150KB\", \"0.5bdp\" or \"inf\"".into(),
        Spec::Uint { min, max } => format!("an integer in [{min}, {max}]"),
        Spec::Float { min, max } => format!("a number in [{min}, {max}]"),
        Spec::Bool => "true or false".into(),
        Spec::Choice(a) => format!("one of {}", a.join(", ")),
        Spec::Str => "a non-empty string".into(),
        Spec::Table => "a table".into(),
        Spec::Array => "a list".into(),
        Spec::Select => "\"all\" or a list of names".into(),
        Spec::Raw | Spec::Open => String::new(),
    }
}

// ---------------------------------------------------------------- exploring

fn trace(v: &Value) -> (Result<(), ScenarioError>, Recording) {
    recording(|| crate::scenario::build_limited(&v.to_string(), &Limits::default()).map(|_| ()))
}

/// Splits `a.b[2].c` into `a`, `b`, 2, `c`.
fn steps(path: &str) -> Vec<Result<String, usize>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut it = part.split('[');
        out.push(Ok(it.next().unwrap_or_default().to_string()));
        for ix in it {
            out.push(Err(ix.trim_end_matches(']').parse().unwrap_or(usize::MAX)));
        }
    }
    out
}

/// The table holding the key at `path`, and that key.
fn parent<'v>(v: &'v mut Value, path: &str) -> Option<(&'v mut Map<String, Value>, String)> {
    let mut s = steps(path);
    let Some(Ok(last)) = s.pop() else { return None };
    let mut cur = v;
    for st in s {
        cur = match st {
            Ok(k) => cur.as_object_mut()?.get_mut(&k)?,
            Err(i) => cur.as_array_mut()?.get_mut(i)?,
        };
    }
    Some((cur.as_object_mut()?, last))
}

/// Sets the key at `path`, creating the tables on the way (a string on the way
/// becomes `{kind = string}`: the `cc = "bmcc"` shorthand of `cc = {kind = "bmcc"}`).
fn set(v: &mut Value, path: &str, x: Value) -> bool {
    let mut s = steps(path);
    let Some(Ok(last)) = s.pop() else { return false };
    let mut cur = v;
    for st in s {
        let next = match st {
            Ok(k) => {
                let Some(m) = cur.as_object_mut() else { return false };
                let e = m.entry(k).or_insert_with(|| json!({}));
                if let Value::String(kind) = e {
                    *e = json!({ "kind": kind.clone() });
                }
                e
            }
            Err(i) => match cur.as_array_mut().and_then(|a| a.get_mut(i)) {
                Some(e) => e,
                None => return false,
            },
        };
        cur = next;
    }
    match cur.as_object_mut() {
        Some(m) => {
            m.insert(last, x);
            true
        }
        None => false,
    }
}

fn remove(v: &mut Value, path: &str) -> bool {
    parent(v, path).and_then(|(m, k)| m.remove(&k)).is_some()
}

/// A valid value of `spec`, to fill in a required key.
fn sample(spec: &Spec) -> Option<Value> {
    Some(match spec {
        Spec::Time => json!("1ms"),
        Spec::Rate => json!("1Mbps"),
        Spec::Size | Spec::SizeOrInf => json!("1000B"),
        Spec::Buffer => json!("100pkt"),
        Spec::Uint { min, max } => json!((*min).max(1).min(*max)),
        Spec::Float { min, max } => json!(if *min <= 1.0 && 1.0 <= *max { 1.0 } else { *min }),
        Spec::Bool => json!(false),
        Spec::Choice(a) => json!(a.first()?),
        Spec::Str => json!("x"),
        Spec::Table => json!({}),
        _ => return None,
    })
}

/// What exploring saw: every key read, every required key found missing, and
/// the variants (table pattern, choice key, value) no scenario reached.
#[derive(Default)]
pub struct Explored {
    pub rec: Recording,
    pub unreached: Vec<String>,
}

fn spec_of<'r>(rec: &'r Recording, path: &str) -> Option<&'r Spec> {
    let (table, key) = path.rsplit_once('.').unwrap_or(("", path));
    let table = pattern(table);
    rec.keys
        .iter()
        .find(|k| k.key == key && pattern(&k.path) == table && k.spec != Spec::Raw)
        .map(|k| &k.spec)
}

/// `s` adjusted until it resolves: a missing required key is filled in, a key
/// the engine refuses (unknown in the new variant) is dropped.
fn repair(mut s: Value, all: &mut Recording) -> Option<Value> {
    for _ in 0..12 {
        let (res, rec) = trace(&s);
        all.merge(rec);
        let e = match res {
            Ok(()) => return Some(s),
            Err(e) => e,
        };
        if e.expected.starts_with("required key missing") {
            let x = spec_of(all, &e.path).and_then(sample)?;
            if !set(&mut s, &e.path, x) {
                return None;
            }
        } else if !remove(&mut s, &e.path) {
            return None;
        }
    }
    None
}

/// Resolves `seeds` and their variants with the recorder on.
pub fn explore(seeds: &[Value]) -> Explored {
    let mut all = Recording::default();
    let mut queue: VecDeque<Value> = seeds.iter().cloned().collect();
    let mut tried: HashMap<(String, String), u32> = HashMap::new();
    let mut probed: HashSet<(String, String)> = HashSet::new();
    let mut reached: HashSet<(String, String)> = HashSet::new();
    let mut choices: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    while let Some(s) = queue.pop_front() {
        let (res, rec) = trace(&s);
        if res.is_err() {
            all.merge(rec);
            continue;
        }
        for k in &rec.keys {
            let kp = join(&k.path, &k.key);
            let pat = pattern(&kp);
            // required keys: drop each key without a default once (once it
            // could be dropped: `cc = "bbr"` reads `kind` from no table)
            let probe = (pat.clone(), format!("{:?}", k.chosen));
            if k.default.is_none() && !probed.contains(&probe) {
                let mut t = s.clone();
                if remove(&mut t, &kp) {
                    probed.insert(probe);
                    all.merge(trace(&t).1);
                }
            }
            let Spec::Choice(accepted) = &k.spec else { continue };
            choices.insert((pattern(&k.path), k.key.clone()), accepted.clone());
            reached.extend(rec.chosen.iter().cloned());
            for a in accepted {
                let n = tried.entry((pat.clone(), a.clone())).or_default();
                if reached.contains(&(pat.clone(), a.clone())) || *n >= 3 {
                    continue;
                }
                *n += 1;
                let mut t = s.clone();
                if !set(&mut t, &kp, json!(a)) {
                    continue;
                }
                if let Some(ok) = repair(t, &mut all) {
                    reached.insert((pat.clone(), a.clone()));
                    queue.push_back(ok);
                }
            }
        }
        reached.extend(rec.chosen.iter().cloned());
        all.merge(rec);
    }
    let mut unreached = Vec::new();
    for ((table, key), accepted) in choices {
        for a in accepted {
            if !reached.contains(&(join(&table, &key), a.clone())) {
                unreached.push(format!("{} = {a:?}", join(&table, &key)));
            }
        }
    }
    Explored { rec: all, unreached }
}

// ---------------------------------------------------------------- the schema

/// The exemplar scenarios.
pub fn exemplars() -> Vec<Value> {
    match serde_json::from_str(EXEMPLARS) {
        Ok(Value::Array(a)) => a,
        _ => panic!("schema/exemplars.json is a JSON list of scenarios"),
    }
}

/// The scenario schema (JSON Schema draft-07), from exploring [`exemplars`].
pub fn schema() -> Value {
    let mut s = build(&explore(&exemplars()).rec);
    share(&mut s, SHARE_MIN_BYTES);
    s
}

/// Subtrees at least this long (as compact JSON) that occur more than once
/// are written once, under `$defs`.
pub const SHARE_MIN_BYTES: usize = 400;

/// Writes each subschema that occurs more than once (the queue table of every
/// kind of link, a flow's and a workload's `cc`, the RED keys of every queue)
/// once, under `$defs`, and refers to it with `$ref` wherever it occurred:
/// the largest saving first, until no repeated subtree of `min_bytes` or
/// more is left. A definition is named after the key it was found under
/// (`queue`, `cc`), numbered where names repeat; the result validates the
/// same documents (a `$ref` replaces a whole subschema, never one with
/// sibling keywords, which draft-07 would ignore).
pub fn share(schema: &mut Value, min_bytes: usize) {
    let mut defs = Map::new();
    loop {
        // canonical text -> (occurrences, size, the key of the first)
        let mut seen: BTreeMap<String, (usize, String)> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        visit(schema, "", &mut |v, key| {
            let t = v.to_string();
            if t.len() >= min_bytes && v.is_object() && v.get("$ref").is_none() {
                let e = seen.entry(t.clone()).or_insert_with(|| {
                    order.push(t.clone());
                    (0, key.to_string())
                });
                e.0 += 1;
            }
        });
        for d in defs.values() {
            visit(d, "", &mut |v, key| {
                let t = v.to_string();
                if let Some(e) = seen.get_mut(&t) {
                    e.0 += 1;
                } else if t.len() >= min_bytes && v.is_object() && v.get("$ref").is_none() {
                    order.push(t.clone());
                    seen.insert(t, (1, key.to_string()));
                }
            });
        }
        let best = order
            .iter()
            .filter(|t| seen[*t].0 > 1)
            .max_by_key(|t| (seen[*t].0 - 1) * t.len());
        let Some(text) = best.cloned() else { break };
        let key = &seen[&text].1;
        let base = if key.is_empty() {
            "scenario".to_string()
        } else {
            key.clone()
        };
        let mut name = base.clone();
        let mut n = 1;
        while defs.contains_key(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        let value: Value = serde_json::from_str(&text).expect("JSON");
        let reference = json!({ "$ref": format!("#/$defs/{name}") });
        replace(schema, &text, &reference);
        for d in defs.values_mut() {
            replace(d, &text, &reference);
        }
        defs.insert(name, value);
    }
    if !defs.is_empty() {
        schema
            .as_object_mut()
            .expect("object")
            .insert("$defs".into(), Value::Object(defs));
    }
}

/// JSON Schema's own words, which do not name a definition.
const KEYWORDS: &[&str] = &[
    "properties",
    "items",
    "anyOf",
    "allOf",
    "oneOf",
    "if",
    "then",
    "else",
    "not",
    "additionalProperties",
    "propertyNames",
    "$defs",
    "enum",
    "required",
];

/// Calls `f` on every object or array below `v` (not `v` itself) with the
/// name of the scenario key it belongs to: the last step of its path that is
/// neither a JSON Schema keyword nor an index.
fn visit(v: &Value, name: &str, f: &mut impl FnMut(&Value, &str)) {
    let mut step = |x: &Value, k: &str| {
        if x.is_object() || x.is_array() {
            let n = if KEYWORDS.contains(&k) || k.starts_with(|c: char| c.is_ascii_digit()) {
                name
            } else {
                k
            };
            if is_schema(x, k) {
                f(x, n);
            }
            visit(x, n, f);
        }
    };
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| step(x, k)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| step(x, &i.to_string())),
        _ => {}
    }
}

/// Whether `x`, found under key `k`, is a subschema (which a `$ref` may
/// stand for): an object, but not the map of a `properties` or `$defs`.
fn is_schema(x: &Value, k: &str) -> bool {
    x.is_object() && k != "properties" && k != "$defs"
}

/// Whether `x`'s compact text is `text` (not `*x == *text`, which asks
/// whether `x` is the JSON string `text`).
fn written_as(x: &Value, text: &str) -> bool {
    let written = x.to_string();
    written == text
}

/// Replaces every subschema below `v` whose compact text is `text` by `with`.
fn replace(v: &mut Value, text: &str, with: &Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if is_schema(x, k) && written_as(x, text) {
                    *x = with.clone();
                } else {
                    replace(x, text, with);
                }
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                if x.is_object() && written_as(x, text) {
                    *x = with.clone();
                } else {
                    replace(x, text, with);
                }
            }
        }
        _ => {}
    }
}

/// [`schema`] as pretty JSON text (keys sorted), ending in a newline.
pub fn schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&schema()).expect("JSON");
    s.push('\n');
    s
}

struct Tables<'r> {
    rec: &'r Recording,
    /// table pattern → its key records
    by_table: BTreeMap<String, Vec<&'r record::Key>>,
}

/// The variant a record belongs to: the value of its table's discriminator.
fn variant<'k>(k: &'k record::Key, disc: Option<&str>) -> Option<&'k str> {
    let first = k.chosen.first()?;
    (Some(first.0.as_str()) == disc).then_some(first.1.as_str())
}

impl Tables<'_> {
    /// The table's discriminator: its `kind` (the registries' `pick`) or a
    /// size's `dist`, if read before any other choice.
    fn discriminator(&self, table: &str) -> Option<(String, Vec<String>, Option<String>)> {
        let recs = self.by_table.get(table)?;
        recs.iter().find_map(|k| match (&k.spec, k.chosen.is_empty()) {
            (Spec::Choice(a), true) if k.key == "kind" || k.key == "dist" => Some((
                k.key.clone(),
                a.clone(),
                k.default.as_ref().and_then(Value::as_str).map(String::from),
            )),
            _ => None,
        })
    }

    fn choice_default(&self, table: &str, key: &str) -> Option<String> {
        self.by_table
            .get(table)?
            .iter()
            .find_map(|k| match (&k.spec, &k.default) {
                (Spec::Choice(_), Some(Value::String(d))) if k.key == key => Some(d.clone()),
                _ => None,
            })
    }

    fn required(&self, table: &str, disc: Option<&str>) -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
        let (mut common, mut per) = (BTreeSet::new(), BTreeMap::<String, BTreeSet<String>>::new());
        for m in self.rec.missing.iter().filter(|m| pattern(&m.path) == table) {
            if raw::NOT_REQUIRED.iter().any(|(t, k)| *t == table && *k == m.key) {
                continue;
            }
            // required only after a secondary choice left off its default
            // (`feedback` with `cc = "bmcc"`): not required as far as the schema says
            let secondary =
                m.chosen.iter().skip(1).any(|(c, v)| {
                    Some(c.as_str()) != disc && self.choice_default(table, c).as_deref() != Some(v.as_str())
                });
            if secondary {
                continue;
            }
            match m.chosen.first() {
                Some((d, v)) if Some(d.as_str()) == disc => {
                    per.entry(v.clone()).or_default().insert(m.key.clone());
                }
                _ => {
                    common.insert(m.key.clone());
                }
            }
        }
        (common, per)
    }

    fn key_schema(&self, table: &str, key: &str, recs: &[&record::Key]) -> Value {
        let here = join(table, key);
        let mut alts: Vec<Value> = Vec::new();
        let push = |alts: &mut Vec<Value>, v: Value| {
            if !alts.contains(&v) {
                alts.push(v);
            }
        };
        if let Some(r) = raw::schema(&here) {
            push(&mut alts, r);
        } else {
            for k in recs {
                if !matches!(k.spec, Spec::Raw | Spec::Table | Spec::Array) {
                    push(&mut alts, spec_schema(&k.spec));
                }
            }
        }
        if self.by_table.contains_key(&here) {
            push(&mut alts, self.table_schema(&here));
        }
        let items = format!("{here}[]");
        if self.by_table.contains_key(&items) {
            push(&mut alts, json!({"type": "array", "items": self.table_schema(&items)}));
        } else if recs.iter().any(|k| k.spec == Spec::Array) && alts.is_empty() {
            push(&mut alts, json!({"type": "array"}));
        }
        if alts.is_empty() && recs.iter().any(|k| k.spec == Spec::Table) {
            push(&mut alts, json!({"type": "object"}));
        }
        let mut s = match alts.len() {
            0 => json!({}),
            1 => alts.pop().expect("one"),
            _ => json!({"anyOf": alts}),
        };
        let obj = s.as_object_mut().expect("an object schema");
        let defaults: BTreeSet<String> = recs
            .iter()
            .filter_map(|k| k.default.as_ref())
            .map(Value::to_string)
            .collect();
        if let (1, Some(d)) = (defaults.len(), recs.iter().find_map(|k| k.default.clone())) {
            obj.insert("default".into(), d);
        }
        let words = recs
            .iter()
            .map(|k| spec_words(&k.spec))
            .find(|w| !w.is_empty())
            .unwrap_or_default();
        // each reader's own line (`Tab::docs`), else the common table's; a key
        // several readers document (a queue's `ecn`) gets all their lines,
        // and each variant's branch its own
        let mut lines: Vec<&str> = Vec::new();
        for d in recs.iter().filter_map(|k| k.doc.or_else(|| docs::doc(&here))) {
            if !lines.contains(&d) {
                lines.push(d);
            }
        }
        let doc = (!lines.is_empty()).then(|| lines.join("; "));
        let text = doc.map_or(words.clone(), |d| {
            if words.is_empty() {
                d.to_string()
            } else {
                format!("{d} ({words})")
            }
        });
        if !text.is_empty() {
            obj.insert("description".into(), json!(text));
        }
        s
    }

    fn table_schema(&self, table: &str) -> Value {
        let recs = &self.by_table[table];
        let disc = self.discriminator(table);
        let dname = disc.as_ref().map(|d| d.0.as_str());
        let mut keys: BTreeMap<&str, Vec<&record::Key>> = BTreeMap::new();
        for k in recs {
            keys.entry(k.key.as_str()).or_default().push(k);
        }
        // `*` (`Tab::rest`): the variants that accept any other key (all of
        // them if the table has no variants)
        let open: Option<BTreeSet<&str>> = keys
            .remove("*")
            .map(|o| o.iter().filter_map(|k| variant(k, dname)).collect());
        let seen: BTreeSet<&str> = recs.iter().filter_map(|k| variant(k, dname)).collect();
        let mut props = Map::new();
        // key → the variants accepting it (None: every variant)
        let mut only: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (key, krecs) in &keys {
            props.insert(key.to_string(), self.key_schema(table, key, krecs));
            let vs: Option<BTreeSet<&str>> = krecs.iter().map(|k| variant(k, dname)).collect();
            if let Some(vs) = vs {
                if vs != seen {
                    only.insert(key, vs);
                }
            }
        }
        let (mut req, req_per) = self.required(table, dname);
        // a `kind` without a default (a flow's `cc` and `feedback` tables)
        // is required whatever the explorer dropped
        if let Some((d, _, None)) = &disc {
            req.insert(d.clone());
        }
        let mut s = json!({
            "type": "object",
            "additionalProperties": open.is_some(),
            "properties": props,
        });
        let req: Vec<&String> = req.iter().filter(|k| keys.contains_key(k.as_str())).collect();
        if !req.is_empty() {
            s["required"] = json!(req);
        }
        if let Some(doc) = docs::doc(table) {
            s["description"] = json!(doc);
        }
        let mut branches = Vec::new();
        if let Some((d, _, default)) = &disc {
            for v in &seen {
                let allowed: Vec<&str> = keys
                    .keys()
                    .copied()
                    .filter(|k| only.get(k).is_none_or(|vs| vs.contains(v)))
                    .collect();
                let vreq = req_per.get(*v).cloned().unwrap_or_default();
                // keys whose schema differs in this variant
                let mut vprops = Map::new();
                for (key, krecs) in &keys {
                    let mine: Vec<&record::Key> =
                        krecs.iter().copied().filter(|k| variant(k, dname) == Some(v)).collect();
                    if !mine.is_empty() && mine.len() < krecs.len() {
                        let ks = self.key_schema(table, key, &mine);
                        if ks != props[*key] {
                            vprops.insert(key.to_string(), ks);
                        }
                    }
                }
                // in a table some variant of which is open, the others
                // name their keys
                let is_open = open.as_ref().is_some_and(|o| o.contains(v));
                let closed_in_open = open.is_some() && !is_open;
                if allowed.len() == keys.len() && !closed_in_open && vreq.is_empty() && vprops.is_empty() {
                    continue;
                }
                let mut cond = json!({"properties": {d.as_str(): {"const": v}}});
                if default.as_deref() != Some(*v) {
                    cond["required"] = json!([d]);
                }
                let mut then = json!({});
                if (allowed.len() < keys.len() || closed_in_open) && !is_open {
                    then["propertyNames"] = json!({"enum": allowed});
                }
                if !vreq.is_empty() {
                    then["required"] = json!(vreq);
                }
                if !vprops.is_empty() {
                    then["properties"] = Value::Object(vprops);
                }
                branches.push(json!({"if": cond, "then": then}));
            }
        }
        for rule in raw::rules(table) {
            branches.push(rule);
        }
        if !branches.is_empty() {
            s["allOf"] = json!(branches);
        }
        s
    }
}

/// The schema of everything `rec` saw.
pub fn build(rec: &Recording) -> Value {
    let mut by_table: BTreeMap<String, Vec<&record::Key>> = BTreeMap::new();
    for k in &rec.keys {
        by_table.entry(pattern(&k.path)).or_default().push(k);
    }
    let t = Tables { rec, by_table };
    let mut s = t.table_schema("");
    let root = s.as_object_mut().expect("object");
    root.insert("$schema".into(), json!(DRAFT));
    root.insert("title".into(), json!("ccsim scenario"));
    root.insert(
        "description".into(),
        json!(format!(
            "A ccsim scenario (docs/user-guide.md), generated by ccsim {} from the engine's key reads.",
            env!("CARGO_PKG_VERSION")
        )),
    );
    s
}

#[cfg(test)]
mod tests;
