//! What the server computes for the client, each from a [`crate::session::Snapshot`] (and,
//! for runs, the state of runs): plain values or LSP types. No feature imports the handlers or
//! the dispatcher.

pub(crate) mod actions;
pub(crate) mod ide;
pub(crate) mod lenses;
pub(crate) mod prove;
pub(crate) mod runs;
