//! The engine's allocator: mimalloc, with its memory committed on demand.
//!
//! mimalloc keeps objects of one size together in large pages, which the
//! kernel backs with 2-MB pages; with tens of megabytes of links, flows and
//! packets read in no particular order that saves most address-translation
//! misses (docs/performance.md, "The allocator"). On Linux, though, it commits
//! each 1-GiB arena it reserves as a whole by default (`arena_eager_commit`
//! = 2, "on systems that overcommit"), and then returns freed pages with
//! `MADV_FREE`, which leaves them in the resident set: a 1 000-flow dumbbell
//! peaked at 47 MB where the same run with memory committed on demand peaks at
//! 19 MB, at the same speed. [`tune`] asks for that, and runs when a binary
//! or library linking this crate is loaded, before its first allocation (on
//! Linux, from the `.init_array` section: `main` and a Python module's
//! initialization both come after the runtime's own first allocations).
//!
//! A binary or extension declares the allocator itself:
//! `#[global_allocator] static ALLOC: ccsim_core::alloc::Allocator = ccsim_core::alloc::Allocator;`

pub use mimalloc::MiMalloc as Allocator;

/// mimalloc's `mi_option_arena_eager_commit` (its `mi_option_t`, v3: the
/// fifth option); `tests::option_numbers_match_the_library` checks it.
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Commit arena memory on demand (see the module doc).
pub fn tune() {
    // SAFETY: setting an option is a plain store in mimalloc's option table.
    unsafe { libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0) }
}

/// Returns the memory freed so far to the system at once, rather than after
/// mimalloc's purge delay: called when a run ends, so that what is built from
/// its results with another allocator (Python's) reuses those pages instead
/// of adding to the process's peak.
pub fn release() {
    // SAFETY: mi_collect may be called at any time from any thread.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static TUNE_ON_LOAD: extern "C" fn() = {
    extern "C" fn on_load() {
        tune();
    }
    on_load
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is the library's: mimalloc 3.x (the only major
    /// version whose option table this module knows), and the option set
    /// reads back.
    #[test]
    fn option_numbers_match_the_library() {
        let v = unsafe { libmimalloc_sys::mi_version() };
        assert_eq!(
            v / 10000,
            3,
            "mimalloc {v}: check ARENA_EAGER_COMMIT against its mimalloc.h"
        );
        tune();
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT) }, 0);
    }
}
