//! The evaluator: walks the resolved form (vox-hir). Locals live in one value stack, framed per
//! call; every expression and statement evaluation counts one step (decisions.md 22).
//!
//! One evaluator, one type ([`Interp`]) whose methods are split by job: `interp.rs` (state,
//! ceilings, entry points, the `Host` impl), `call.rs`, `expr.rs`, `pattern.rs`, `stmt.rs`; `place.rs`
//! holds the free functions assignment uses. Evaluation is recursive by nature (a call runs a
//! body, a body evaluates calls), so these files call each other's methods through `self`; they
//! import only from `interp.rs`, `place.rs` and the floors below the evaluator, never from this
//! file.
//!
//! The compiled tier (`bytecode.rs`, `compile.rs`, `compile_stmt.rs`, `vm.rs`; docs/compiled-tier.md)
//! runs function bodies as register instructions on the same frames, and hands what it does not
//! compile to the tree-walker above.

mod bytecode;
mod call;
mod compile;
mod compile_stmt;
mod expr;
mod interp;
mod pattern;
mod place;
mod stmt;
mod vm;

pub use interp::{Flow, Interp};
