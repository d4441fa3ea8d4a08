//! Capability sets for `vox run` (runtime.md §1 and §2, decisions 13–18 and 21).
//!
//! The interpreter is a security boundary: a script gets exactly the authority the receiver grants.
//! This crate owns the pieces of that boundary that need no interpreter:
//!
//! - the `--caps` token grammar ([`parse_token`]) and its errors ([`CapsError`]);
//! - the capability set those tokens make ([`CapSet`]), including the developer default and the
//!   legacy `// vox:caps` directive ([`parse_legacy_directive`]);
//! - the gates: [`check_path`] for the filesystem (the most specific of the roots and denies
//!   decides: `fs:ro=`, `fs:rw=`, `fs:none=`), [`check`] for every other namespace, both
//!   returning a [`Denial`] that names the narrowest token that would have allowed the call, or
//!   the deny that refused it;
//! - size strings for the ceiling flags ([`parse_size`]);
//! - the rule registry ([`rules::RULES`]): every lint rule's code, name and default severity,
//!   which `vox-lints` runs and `Vox.toml`'s `[lint]` table is checked against.
//!
//! Nothing here prints or exits: callers turn errors into the one-line messages the spec pins,
//! which [`CapsError::render`] and [`Denial::message`] build.

mod check;
mod duration;
mod fs_rules;
mod legacy;
mod one_line;
mod resolve;
mod set;
mod size;
mod token;

pub mod config;
pub mod lexical;
pub mod rules;
pub use check::{check, check_path, check_remove_tree, Access, Denial, Need, Resolved};
pub use duration::{parse_duration_secs, DURATION_FORMS};
pub use fs_rules::{system_place, FsRoot};
pub use legacy::{parse_legacy_directive, LegacyDirective, LEGACY_WORDS};
pub use one_line::one_line;
pub use set::CapSet;
pub use size::{parse_limit, parse_size};
pub use token::{parse_token, CapsError, EnvGrant, RandomGrant, TimeGrant, Token};
