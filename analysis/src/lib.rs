//! The analysis database of VoxScript (salsa): source files and the workspace configuration go
//! in; item trees, per-function facts, effect summaries across imports, and capability inference
//! come out. Plain data only: no editor or protocol types (the server converts).
//!
//! Query graph (bottom up): [`parse`] → [`file_items`] (item tree + one tracked [`FnDef`] per
//! function, holding its text and a share of its file's parse) → [`fn_facts`] (lowering one body, kinds, intervals,
//! order and input flows, effect sites) → [`summary`] (effects reached, through calls and
//! imports, to a fixpoint) → [`inferred_caps`]. Facts keep ranges relative to their function, so
//! typing in one function leaves every other function's facts and summary equal (decision 47).

mod body;
mod call_graph;
mod caps_infer;
mod db;
mod edited;
pub mod facts;
mod importers;
mod imports;
mod inputs;
mod items;
mod kind;
mod kinds;
mod observed;
mod param_ranges;
mod parsed;
mod summaries;
mod text;

pub use call_graph::{file_calls, FileCalls, ResolvedCall};
pub use caps_infer::{
    clean_path, entry_points, inferred_caps, render_tokens, resolve_dots, show_dir, CapNeed,
    Incomplete, InferredCaps, InferredToken, Tokens,
};
pub use db::{AnalysisDb, Db, EventLog};
pub use facts::{fn_checks, fn_facts, fn_kinds, fn_scope, uses_scopes, FnFacts, FnKinds, FnScope};
pub use importers::importers_of;
pub use imports::{
    import_errors, import_path, resolve_imports, ImportError, ImportErrorAt, ImportTarget,
    ResolvedImports,
};
pub use inputs::{FileGroup, SourceFile, Workspace, GROUPS};
pub use items::{
    compared_by_bytes, file_items, file_parse, file_syntax, fn_base, fn_starts, parse,
    read_to_compare, FileItems, FnDef,
};
pub use kind::Kind;
pub use observed::{file_observed, return_observed, FileObserved};
pub use param_ranges::{file_param_tiers, param_tier, FileTiers};
pub use parsed::{FileSyntax, ImportSite, KeptParse};
pub use summaries::{
    callee, local_effects, summary, Effect, EffectKind, PathKey, Summary, Witness,
};
pub use text::Text;
