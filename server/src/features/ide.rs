//! Navigation and editing help over the syntax tree and the analysis: definition, references,
//! rename, document symbols, folding, signature help, semantic tokens (full and delta) and inlay
//! hints (the capability a call consumes, parameter names, inferred kinds of `let`s). One job
//! per submodule: hover (`hover`), completion (`complete`), inferred kinds at the edge
//! (`kinds`), highlights, selection ranges and import links (`nav`), call hierarchy (`calls`),
//! fuzzy workspace symbols (`symbols`).
//!
//! Names are resolved lexically here (the server only converts): `let`, `for`, parameters,
//! lambdas and match arms bind in their scope (top-level `let`s outside named functions);
//! top-level functions, types, variants and import aliases bind in the file; an unaliased
//! import's `pub fn`s, `pub type`s and their variants bind where the import does, an aliased
//! one's are members of the alias. Type names resolve in annotations and constructor patterns.

mod calls;
mod complete;
mod defs;
mod docs;
mod hover;
mod inlay;
mod kinds;
mod nav;
mod outline;
mod reference;
mod refs;
mod semantic;
mod signature;
mod symbols;

pub use calls::{incoming_calls, outgoing_calls, prepare_call_hierarchy};
pub use complete::completion;
pub use hover::hover;
pub use inlay::inlay_hints;
pub use nav::{document_highlight, document_links, selection_ranges};
pub use outline::{document_symbols, folding};
pub use refs::{definition, prepare_rename, references, rename};
pub use semantic::{semantic_delta, semantic_full, semantic_legend, semantic_range};
pub use signature::signature_help;
pub use symbols::workspace_symbols;
