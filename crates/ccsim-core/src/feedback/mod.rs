//! Receiver-side feedback mechanisms: a hook on the TCP receive path (like a
//! Linux per-socket option there) that reads each arriving data packet's IP
//! fields (ECN bits, IP id) and attaches feedback to the ACK in the typed
//! [`Feedback`] option; the sender's congestion-control module sees it in
//! [`crate::cc::AckSample::feedback`]. One file per mechanism:
//!
//! * [`bmcc`]: BMCC's load-factor estimate f̂ from ADPM marks (bmcc.md §3).

pub mod bmcc;

use crate::cfg::{Res, Tab};
use crate::packet::{Feedback, Packet};

/// A receiver-side mechanism.
pub trait ReceiverFeedback: Send {
    fn name(&self) -> &'static str;
    /// A data segment arrived (any segment, in order or not, duplicates too).
    fn on_data(&mut self, pkt: &Packet);
    /// Fills the feedback option of the ACK about to be sent.
    fn fill(&mut self, fb: &mut Feedback);
    /// State worth tracing (e.g. the estimate), by name.
    fn trace(&self) -> Option<(&'static str, f64)> {
        None
    }
}

/// A mechanism as configured (cloneable; built per receiver).
#[derive(Clone, Debug, PartialEq)]
pub enum FeedbackSpec {
    Bmcc(bmcc::Params),
}

impl FeedbackSpec {
    pub fn build(&self) -> Box<dyn ReceiverFeedback> {
        match self {
            FeedbackSpec::Bmcc(p) => Box::new(bmcc::Estimator::new(*p)),
        }
    }
}

/// Kinds a flow's `feedback` table may name.
pub const KINDS: &[&str] = &["bmcc"];

/// Reads a flow's `feedback = {kind = ..., ...}` table.
pub fn read(t: &mut Tab) -> Res<FeedbackSpec> {
    let kind = t.choice("kind", None, KINDS)?;
    match kind.as_str() {
        "bmcc" => Ok(FeedbackSpec::Bmcc(bmcc::Params::read(t)?)),
        other => unreachable!("unvalidated feedback kind {other}"),
    }
}
