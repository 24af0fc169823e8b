//! The run-time error of the engine: an invariant of the model was violated,
//! the run outgrew its budget, or it was interrupted. (A scenario that cannot
//! be built is a [`crate::cfg::ScenarioError`], which names the key.)

use std::fmt;

/// A run-time error, with its explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimError(pub String);

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}
