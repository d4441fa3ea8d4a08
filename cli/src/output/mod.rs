//! Output formats of `vox lint` (analysis.md §5): human (codespan excerpts), json, sarif,
//! github annotations, compact. All of them sort findings the same way and are byte-identical
//! between runs.

pub mod fixes;
mod human;
mod json;
mod pretty;
mod progress;
mod sarif;
mod texts;
mod writer;

pub use progress::Progress;
pub use texts::{shown, Texts};
pub use writer::{render, render_alone, write, Format, Writer};
