//! Fingerprints the engine's sources at build time: a hash of every file that can
//! change what a run computes (both crates' sources and manifests, the workspace
//! manifest and lock file). Exposed as `ccsim._ccsim.__engine_source__`; the Python
//! layer mixes in its own sources and the version (`ccsim.fingerprint()`), and sweeps
//! put the result into every point id, so results of another engine are never reused.
//!
//! Paths are relative to this crate and line endings are normalized, so a git clone,
//! an sdist (which keeps this layout) and a Windows checkout hash alike.

use std::fs;
use std::path::{Path, PathBuf};

/// 64-bit FNV-1a: no dependency, and plenty against accidental collisions.
fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dirs = ["src", "../ccsim-core/src"];
    let files = [
        "build.rs",
        "Cargo.toml",
        "../ccsim-core/Cargo.toml",
        "../../Cargo.toml",
        "../../Cargo.lock",
    ];
    let mut paths: Vec<PathBuf> = files.iter().map(|f| here.join(f)).filter(|p| p.is_file()).collect();
    for d in dirs {
        walk(&here.join(d), &mut paths);
        println!("cargo:rerun-if-changed={d}");
    }
    for f in files {
        println!("cargo:rerun-if-changed={f}");
    }
    let mut named: Vec<(String, PathBuf)> = paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&here).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            (rel, p)
        })
        .collect();
    named.sort();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (rel, p) in &named {
        let text = fs::read(p).unwrap_or_default();
        let text: Vec<u8> = text.into_iter().filter(|&b| b != b'\r').collect();
        fnv(&mut h, rel.as_bytes());
        fnv(&mut h, &(text.len() as u64).to_le_bytes());
        fnv(&mut h, &text);
    }
    println!("cargo:rustc-env=CCSIM_ENGINE_SOURCE={h:016x}");
}
