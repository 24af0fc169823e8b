use super::*;

#[test]
fn every_exemplar_resolves() {
    for (i, s) in exemplars().iter().enumerate() {
        // A class of the user's (`kind = "python"`) loads only from Python,
        // and a `file` matrix's file is the user's: the engine alone reads
        // such an exemplar for its form.
        let text = s.to_string();
        let foreign = text.contains(r#""kind":"python""#) || text.contains(r#""kind":"file""#);
        let res = if foreign {
            crate::cfg::record::recording(|| crate::resolve(&s.to_string())).0
        } else {
            crate::resolve(&s.to_string())
        };
        if let Err(e) = res {
            panic!("exemplar {i}: {e}");
        }
    }
}

#[test]
fn the_engine_alone_refuses_a_python_class() {
    let s = exemplars()
        .into_iter()
        .find(|s| s.to_string().contains(r#""kind":"python""#))
        .unwrap();
    let e = crate::resolve(&s.to_string()).unwrap_err();
    assert!(
        e.path.ends_with(".kind") && e.expected.contains("Python package"),
        "{e}"
    );
}

#[test]
fn exploring_reaches_every_variant() {
    let x = explore(&exemplars());
    assert!(
        x.unreached.is_empty(),
        "variants no exemplar reaches: {:#?}",
        x.unreached
    );
}

#[test]
fn every_untyped_key_has_a_declared_schema() {
    let x = explore(&exemplars());
    let mut bare = BTreeSet::new();
    for k in &x.rec.keys {
        let here = join(&pattern(&k.path), &k.key);
        let typed = x
            .rec
            .keys
            .iter()
            .any(|o| o.key == k.key && pattern(&o.path) == pattern(&k.path) && o.spec != Spec::Raw);
        let table = x
            .rec
            .keys
            .iter()
            .any(|o| pattern(&o.path) == here || pattern(&o.path) == format!("{here}[]"));
        if k.spec == Spec::Raw && !typed && !table && raw::schema(&here).is_none() {
            bare.insert(here);
        }
    }
    assert!(
        bare.is_empty(),
        "keys read untyped without a schema in schema/raw.rs: {bare:?}"
    );
}

#[test]
fn the_recorder_files_keys_under_their_variant() {
    let v = json!({"kind": "red", "limit": "10pkt", "min_th": 2});
    let (res, rec) = recording(|| {
        let mut t = crate::cfg::Tab::new("q".into(), &v)?;
        crate::qdisc::read(&mut t)?;
        t.buffer("limit", Some("100pkt"))?;
        t.finish()
    });
    res.unwrap();
    let min_th = rec.keys.iter().find(|k| k.key == "min_th").unwrap();
    assert_eq!(
        min_th.chosen.first().map(|c| (c.0.as_str(), c.1.as_str())),
        Some(("kind", "red"))
    );
    let kind = rec.keys.iter().find(|k| k.key == "kind").unwrap();
    assert!(kind.chosen.is_empty());
    assert!(matches!(&kind.spec, Spec::Choice(a) if a.contains(&"fq".to_string())));
}

#[test]
fn recording_is_off_outside_recording() {
    let ((), rec) = recording(|| ());
    assert!(rec.keys.is_empty());
    // a read outside `recording` records nothing and costs nothing observable
    let v = json!({"delay": "1ms"});
    let mut t = crate::cfg::Tab::new(String::new(), &v).unwrap();
    t.time("delay", None).unwrap();
}

#[test]
fn unit_patterns_match_what_the_parsers_read() {
    let re = |p: String| p; // patterns are checked against the parsers in tests/test_schema.py
    for p in [time_pattern(), rate_pattern(), size_pattern(), buffer_pattern()] {
        let p = re(p);
        assert!(p.starts_with('^') && p.ends_with('$'), "{p}");
    }
}

#[test]
fn the_schema_is_a_draft_07_object_schema() {
    let s = schema();
    assert_eq!(s["$schema"], DRAFT);
    assert_eq!(s["additionalProperties"], false);
    let props = s["properties"].as_object().unwrap();
    for k in [
        "seed",
        "duration",
        "topology",
        "flows",
        "workloads",
        "monitor",
        "capture",
        "trace",
        "components",
    ] {
        assert!(props.contains_key(k), "{k}");
    }
    assert_eq!(s["required"], json!(["duration", "topology"]));
    let queue = &s["properties"]["topology"]["anyOf"];
    assert!(queue.is_null() || queue.is_array());
}

#[test]
fn every_key_has_a_doc_line() {
    let x = explore(&exemplars());
    let undocumented: BTreeSet<String> = x
        .rec
        .keys
        .iter()
        .filter(|k| k.spec != Spec::Open && k.doc.is_none())
        .map(|k| join(&pattern(&k.path), &k.key))
        .filter(|here| docs::doc(here).is_none())
        .collect();
    assert!(
        undocumented.is_empty(),
        "keys without a line (in their reader's `Tab::docs`, or schema/docs.rs): {undocumented:#?}"
    );
}
