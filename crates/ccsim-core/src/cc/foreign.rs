//! A congestion control of the user's, written in Python (`cc = {kind =
//! "python", class = "module:Class", ...}`; docs/extending.md): the
//! embedding's loader, as for queues ([`crate::qdisc::foreign`], which
//! describes how both are read).

use super::{CcSpec, CongestionOps, Recovery};
use crate::cfg::{record, Res, Tab};
use crate::qdisc::foreign::{form, refused};
use std::sync::{Arc, OnceLock};

/// Reads a `kind = "python"` congestion-control table (`flows[i].cc`).
pub type Loader = fn(&mut Tab) -> Res<Arc<dyn CcSpec>>;

static LOADER: OnceLock<Loader> = OnceLock::new();

/// Registers the loader of `kind = "python"` congestion controls; the first
/// registration in a process stands. Returns whether this one did.
pub fn register(l: Loader) -> bool {
    LOADER.set(l).is_ok()
}

/// `cc = {kind = "python", class = "module:Class", ...}`.
pub(crate) fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    if record::on() {
        form(t, &[])?;
        return Ok(Arc::new(Stand));
    }
    match LOADER.get() {
        Some(l) => l(t),
        None => Err(refused(t)),
    }
}

/// What a `kind = "python"` table stands for while its form is recorded.
#[derive(Debug)]
struct Stand;

impl CcSpec for Stand {
    fn name(&self) -> &'static str {
        "python"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(super::reno::Reno::new(Recovery::NewReno))
    }
}
