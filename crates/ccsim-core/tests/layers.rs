//! The crate's layering, checked: every module of `ccsim-core` is placed in
//! the layer table of docs/architecture.md, and every `crate::` path in its
//! code (tests excluded) names a module placed before it. Modules placed in
//! order cannot import each other in a loop, so a new loop fails here, with
//! the file and line of the path that points the wrong way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers as docs/architecture.md lists them: `(layer, modules)` in
/// order, from the ```` ```layers ```` block (one `layer: module module …`
/// line per layer).
fn layers(doc: &str) -> Vec<(String, Vec<String>)> {
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("docs/architecture.md has a ```layers block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, mods) = l.split_once(':').expect("`layer: module module ...`");
            (
                name.trim().to_string(),
                mods.split_whitespace().map(String::from).collect(),
            )
        })
        .collect()
}

/// The source without comments and without `#[cfg(test)]` items (a
/// `mod tests;` line, or an item up to its matching closing brace).
fn code(src: &str) -> String {
    let no_comments: String = src
        .lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = no_comments.as_str();
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let item = &rest[i..];
        let semi = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        if semi < brace {
            rest = &item[semi + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = item.len();
        for (k, c) in item.char_indices().skip(brace) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules a source names through `crate::`, with the line of
/// the first mention of each.
fn uses(code: &str) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    let mut note = |name: &str, line: usize| {
        if name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            found.entry(name.to_string()).or_insert(line);
        }
    };
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::X, b, c::{..}}`: the names at the group's top level.
                let mut depth = 0;
                let mut word = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        c if depth == 0 && (c.is_alphanumeric() || c == '_') => word.push(c),
                        _ => {
                            if depth == 0 && !word.is_empty() {
                                note(&word, n + 1);
                            }
                            word.clear();
                        }
                    }
                }
                if !word.is_empty() {
                    note(&word, n + 1);
                }
                continue;
            }
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            note(&name, n + 1);
        }
    }
    found
}

/// Checks `sources` (path relative to src/, text) against the layer table;
/// returns one line per violation.
fn check(table: &[(String, Vec<String>)], sources: &[(String, String)]) -> Vec<String> {
    let rank: BTreeMap<&str, (usize, &str)> = table
        .iter()
        .flat_map(|(layer, mods)| mods.iter().map(move |m| (m.as_str(), layer.as_str())))
        .enumerate()
        .map(|(i, (m, layer))| (m, (i, layer)))
        .collect();
    let mut bad = Vec::new();
    for (path, text) in sources {
        let module = path.split('/').next().unwrap().trim_end_matches(".rs");
        if module == "lib" {
            continue;
        }
        let Some(&(mine, layer)) = rank.get(module) else {
            bad.push(format!(
                "{path}: module `{module}` is in no layer of docs/architecture.md"
            ));
            continue;
        };
        for (used, line) in uses(&code(text)) {
            if used == module {
                continue;
            }
            match rank.get(used.as_str()) {
                Some(&(theirs, their_layer)) if theirs > mine => bad.push(format!(
                    "{path}:{line}: `{module}` ({layer}) uses `{used}` ({their_layer}), which comes after it"
                )),
                None => bad.push(format!(
                    "{path}:{line}: `{used}` is in no layer of docs/architecture.md"
                )),
                _ => {}
            }
        }
    }
    bad
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") && p.file_name().is_some_and(|n| n != "tests.rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn modules_use_only_modules_placed_before_them() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(here.join("../../docs/architecture.md")).unwrap();
    let table = layers(&doc);
    let src = here.join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let placed: Vec<&String> = table.iter().flat_map(|(_, m)| m).collect();
    for m in &placed {
        assert!(
            src.join(format!("{m}.rs")).exists() || src.join(m).join("mod.rs").exists(),
            "docs/architecture.md places `{m}`, which is not a module of src/"
        );
    }
    let bad = check(&table, &files);
    assert!(bad.is_empty(), "layering violated:\n{}", bad.join("\n"));
}

#[test]
fn the_check_finds_a_loop_and_an_unplaced_module() {
    let table = layers("```layers\ndata: units packet\nmodels: qdisc\n```\n");
    let ok = vec![
        ("units.rs".to_string(), "pub struct Time;".to_string()),
        ("packet.rs".to_string(), "use crate::units::Time;".to_string()),
        (
            "qdisc/mod.rs".to_string(),
            "use crate::{packet::Packet, units};\n#[cfg(test)]\nmod tests { use crate::sim::Sim; }".to_string(),
        ),
    ];
    assert_eq!(check(&table, &ok), Vec::<String>::new());
    // packet -> qdisc closes a loop with qdisc -> packet.
    let mut looped = ok.clone();
    looped[1].1 =
        "use crate::units::Time;\n// crate::qdisc in a comment is fine\nfn f(q: &crate::qdisc::Fifo) {}".into();
    let bad = check(&table, &looped);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].starts_with("packet.rs:3: `packet` (data) uses `qdisc` (models)"),
        "{}",
        bad[0]
    );
    // A module not in the table, and a grouped use of it.
    let mut unplaced = ok.clone();
    unplaced.push(("sim.rs".to_string(), "use crate::{qdisc, units::Time};".to_string()));
    unplaced[2].1 = "use crate::{sim::Sim, units};".into();
    let bad = check(&table, &unplaced);
    assert!(bad.iter().any(|b| b.contains("module `sim` is in no layer")), "{bad:?}");
    assert!(
        bad.iter().any(|b| b.contains("qdisc/mod.rs:1: `sim` is in no layer")),
        "{bad:?}"
    );
}

/// Loops between the files of one module: `dir/a.rs` naming its sibling
/// `b` (`super::b`, `crate::dir::b`) while `b` names `a`, directly or through
/// others. `mod.rs` is left out: the interface and registry every file of its
/// module may name, and which names them all.
fn sibling_loops(sources: &[(String, String)]) -> Vec<String> {
    let mut by_dir: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (path, src) in sources {
        let Some((dir, file)) = path.rsplit_once('/') else {
            continue;
        };
        let Some(name) = file.strip_suffix(".rs") else { continue };
        if name != "mod" {
            by_dir
                .entry(dir.to_string())
                .or_default()
                .push((name.to_string(), code(src)));
        }
    }
    let mut loops = Vec::new();
    for (dir, files) in &by_dir {
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let module = format!("crate::{}::", dir.replace('/', "::"));
        let edges: BTreeMap<&str, Vec<&str>> = files
            .iter()
            .map(|(n, c)| {
                let named = names
                    .iter()
                    .copied()
                    .filter(|m| {
                        *m != n
                            && [format!("super::{m}"), format!("{module}{m}")]
                                .iter()
                                .any(|p| c.match_indices(p.as_str()).any(|(i, _)| !ident(c, i + p.len())))
                    })
                    .collect();
                (n.as_str(), named)
            })
            .collect();
        // a path back to the start from each file
        for start in &names {
            let mut stack: Vec<Vec<&str>> = vec![vec![start]];
            let mut seen = std::collections::BTreeSet::new();
            while let Some(route) = stack.pop() {
                let last = *route.last().expect("non-empty");
                for &next in &edges[last] {
                    if next == *start {
                        let mut cycle = route.clone();
                        cycle.push(next);
                        // (each loop once: from its least file)
                        if cycle[1..cycle.len() - 1].iter().all(|m| m > start) {
                            loops.push(format!("{dir}: {}", cycle.join(" -> ")));
                        }
                    } else if seen.insert(next) {
                        let mut r = route.clone();
                        r.push(next);
                        stack.push(r);
                    }
                }
            }
        }
    }
    loops
}

/// Whether the character at `i` continues an identifier (`super::flowsx`
/// does not name `flows`).
fn ident(code: &str, i: usize) -> bool {
    code[i..]
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[test]
fn no_two_files_of_a_module_name_each_other_in_a_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let loops = sibling_loops(&files);
    assert!(loops.is_empty(), "files of one module in a loop:\n{}", loops.join("\n"));
}

#[test]
fn the_sibling_check_finds_a_loop() {
    let files = |b: &str| {
        vec![
            ("scenario/mod.rs".to_string(), "mod flows; mod topology;".to_string()),
            ("scenario/flows.rs".to_string(), "use super::topology::Net;".to_string()),
            ("scenario/topology.rs".to_string(), b.to_string()),
        ]
    };
    assert!(sibling_loops(&files("use super::Shared;")).is_empty());
    assert!(sibling_loops(&files("// super::flows in a comment")).is_empty());
    assert_eq!(
        sibling_loops(&files("fn f(p: &crate::scenario::flows::FlowPlan) {}")),
        vec!["scenario: flows -> topology -> flows".to_string()]
    );
}
