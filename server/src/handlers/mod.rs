//! The LSP methods, one file per method or family: parse the params, take a snapshot (or
//! change the session), call a feature, answer. [`crate`]'s `LanguageServer` impl dispatches here.

pub(crate) mod actions;
pub(crate) mod commands;
pub(crate) mod diagnostic;
pub(crate) mod direct;
pub(crate) mod documents;
pub(crate) mod ide;
pub(crate) mod lifecycle;
