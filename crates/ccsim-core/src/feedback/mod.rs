//! Receiver-side feedback mechanisms: a hook on the TCP receive path (like a
//! Linux per-socket option there) that reads each arriving data packet's IP
//! fields (ECN bits, IP id) and attaches feedback to the ACK in the typed
//! [`Feedback`] option; the sender's congestion-control module sees it in
//! [`crate::cc::AckSample::feedback`]. One file per mechanism:
//!
//! * [`bmcc`]: BMCC's load-factor estimate f̂ from ADPM marks (docs/models/bmcc.md, "Receiver").
//! * [`vcp`]: VCP's 2-bit load code echoed (docs/models/vcp.md, "Receiver").

pub mod bmcc;
pub mod vcp;

use crate::cfg::{Res, Tab};
use crate::packet::{Feedback, Packet};
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

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

/// A mechanism as configured (shared by the receivers of a flow spec; built
/// per receiver).
pub trait FeedbackSpec: Send + Sync + Debug {
    /// The `kind` it was read from.
    fn kind(&self) -> &'static str;
    fn build(&self) -> Box<dyn ReceiverFeedback>;
    /// For a sender-side module that reads its receiver's settings.
    fn as_any(&self) -> &dyn Any;
}

type Reader = fn(&mut Tab) -> Res<Arc<dyn FeedbackSpec>>;

/// Kinds a flow's `feedback` table may name, each with the reader of its keys.
pub const READERS: &[(&str, Reader)] = &[
    ("bmcc", |t| Ok(Arc::new(bmcc::Params::read(t)?))),
    ("vcp", |t| Ok(Arc::new(vcp::Params::read(t)?))),
];

/// Reads a flow's `feedback = {kind = ..., ...}` table.
pub fn read(t: &mut Tab) -> Res<Arc<dyn FeedbackSpec>> {
    let (_, reader) = t.pick("kind", None, READERS)?;
    reader(t)
}
