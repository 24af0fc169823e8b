//! Memory latency of this machine by working-set size: a pointer chase, each
//! load depending on the one before, over a random cycle through 64-byte
//! lines. It tells what a cache miss costs here, which bounds the per-packet
//! cost of scenarios whose state is far larger than the cache
//! (docs/performance.md, "What the remaining targets would take").
//!
//! ```text
//! cargo run --release -p ccsim-core --example memlat -- [MB ...]
//! ```
//!
//! Prints nanoseconds per load for each working-set size (default 1, 2, 4, 8,
//! 32 and 256 MB).

use std::time::Instant;

const LINE: usize = 64 / std::mem::size_of::<usize>();
const LOADS: usize = 20_000_000;

/// ns per dependent load over `mb` megabytes.
fn chase(mb: usize) -> f64 {
    let lines = mb * (1 << 20) / 64;
    // A random cyclic order of the lines (Fisher–Yates with a fixed xorshift
    // stream, so that the runs are repeatable).
    let mut order: Vec<usize> = (0..lines).collect();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..lines).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let mut next = vec![0usize; lines * LINE];
    for i in 0..lines {
        next[order[i] * LINE] = order[(i + 1) % lines] * LINE;
    }
    let mut p = 0;
    let t0 = Instant::now();
    for _ in 0..LOADS {
        p = next[p];
    }
    let ns = t0.elapsed().as_nanos() as f64 / LOADS as f64;
    std::hint::black_box(p);
    ns
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a size in MB"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1, 2, 4, 8, 32, 256]
    } else {
        sizes
    };
    for mb in sizes {
        println!("{mb:>5} MB: {:6.1} ns per dependent load", chase(mb));
    }
}
