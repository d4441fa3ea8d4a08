//! Effect summaries: every effect a function reaches, directly or through the functions it
//! calls (across imports), each with one witness: the call in this function that leads to it.
//! Recursion makes the query cyclic; effects only grow, so salsa's fixpoint iteration (starting
//! from the empty summary) converges. Chains are rebuilt on demand by following witnesses.

use std::collections::BTreeMap;
use std::sync::Arc;

use vox_hir::Cap;
use vox_syntax::TextRange;

use crate::body::CallTarget;
use crate::db::Db;
pub use crate::facts::Builtin;
use crate::facts::{fn_facts, Access, PathFact};
use crate::imports::resolve_imports;
use crate::inputs::SourceFile;
use crate::items::{file_items, FnDef};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EffectKind {
    FsRead,
    FsWrite,
    /// Listing, globbing or walking a directory.
    FsList,
    /// `fs.cwd()`: any fs grant will do.
    FsCwd,
    EnvRo,
    EnvRw,
    Net,
    Process,
    Secrets,
    Time,
    Random,
    Agentos,
    /// Printing, logging or writing: what makes an iteration order visible through a call.
    Output,
}

/// One effect: its kind, and for the filesystem the path as far as it is known.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Effect {
    pub kind: EffectKind,
    /// `Some` for fs effects: a constant path, a constant directory prefix, or `None` inside for
    /// a path not known statically.
    pub path: Option<PathKey>,
    /// The builtin (`fs.read`), for messages and chains.
    pub builtin: Builtin,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathKey {
    Const(Arc<str>),
    Prefix(Arc<str>),
    Dynamic,
    /// Dynamic, from input: it may lie outside any widened grant.
    Input,
    /// From input, or this constant where the input is absent.
    InputOr(Arc<str>),
    /// From input, or under this constant directory where the input is absent.
    InputUnder(Arc<str>),
}

impl From<&PathFact> for PathKey {
    fn from(p: &PathFact) -> PathKey {
        match p {
            PathFact::Const(s) => PathKey::Const(Arc::from(s.as_str())),
            PathFact::Prefix(s) => PathKey::Prefix(Arc::from(s.as_str())),
            PathFact::Dynamic => PathKey::Dynamic,
            PathFact::Input => PathKey::Input,
            PathFact::InputOr(s) => PathKey::InputOr(Arc::from(s.as_str())),
            PathFact::InputUnder(s) => PathKey::InputUnder(Arc::from(s.as_str())),
        }
    }
}

/// Where an effect comes from, seen from one function: the site in its body (relative to the
/// function), a call when the effect comes from the callee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub range: TextRange,
}

/// Sorted by effect, one witness each. A boxed slice rather than a map: there is one summary
/// per function of the workspace, and a map's smallest node is a kilobyte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub effects: Box<[(Effect, Witness)]>,
}

impl Summary {
    pub fn writes_output(&self) -> bool {
        self.effects
            .iter()
            .any(|(e, _)| e.kind == EffectKind::Output)
    }
}

fn cap_kind(cap: Cap) -> Option<EffectKind> {
    Some(match cap {
        Cap::EnvRo => EffectKind::EnvRo,
        Cap::EnvRw => EffectKind::EnvRw,
        Cap::Net => EffectKind::Net,
        Cap::Process => EffectKind::Process,
        Cap::Secrets => EffectKind::Secrets,
        Cap::Time => EffectKind::Time,
        Cap::Random => EffectKind::Random,
        Cap::Agentos => EffectKind::Agentos,
        Cap::None | Cap::FsRead | Cap::FsWrite => return None,
    })
}

/// The function a call target names, if it exists.
pub fn callee<'db>(db: &'db dyn Db, file: SourceFile, target: &CallTarget) -> Option<FnDef<'db>> {
    match target {
        CallTarget::Local(name) => file_items(db, file).local(name),
        CallTarget::Imported { import, name } => {
            resolve_imports(db, file).function(db, *import, name)
        }
    }
}

/// The effects a function uses itself, with their sites.
pub fn local_effects(db: &dyn Db, f: FnDef<'_>) -> Vec<(Effect, TextRange)> {
    let facts = fn_facts(db, f);
    let mut out = Vec::new();
    for p in &facts.paths {
        let kind = match (p.builtin.ns(), p.builtin.name()) {
            // A child's constant working directory: it reads and lists there.
            ("process", _) if p.access == Access::List => EffectKind::FsList,
            ("process", _) => continue,
            _ => match p.access {
                Access::Read => EffectKind::FsRead,
                Access::Write => EffectKind::FsWrite,
                Access::List => EffectKind::FsList,
            },
        };
        let builtin = p.builtin;
        out.push((
            Effect {
                kind,
                path: Some(PathKey::from(&p.fact)),
                builtin,
            },
            p.call,
        ));
    }
    for e in &facts.effects {
        let builtin = e.builtin;
        if let Some(kind) = cap_kind(e.cap) {
            out.push((
                Effect {
                    kind,
                    path: None,
                    builtin,
                },
                e.range,
            ));
        } else if matches!(e.cap, Cap::FsRead | Cap::FsWrite) {
            let covered = facts.paths.iter().any(|p| p.call == e.range);
            if builtin.ns() == "fs" && builtin.name() == "cwd" {
                out.push((
                    Effect {
                        kind: EffectKind::FsCwd,
                        path: None,
                        builtin,
                    },
                    e.range,
                ));
            } else if !covered {
                // Passed as a value, or an fs call whose path the facts do not describe.
                let kind = if e.cap == Cap::FsWrite {
                    EffectKind::FsWrite
                } else {
                    EffectKind::FsRead
                };
                out.push((
                    Effect {
                        kind,
                        path: Some(PathKey::Dynamic),
                        builtin,
                    },
                    e.range,
                ));
            }
        }
    }
    if facts.writes_output {
        out.push((
            Effect {
                kind: EffectKind::Output,
                path: None,
                builtin: Builtin::new("", "print"),
            },
            TextRange::default(),
        ));
    }
    out
}

fn initial(_db: &dyn Db, _id: salsa::Id, _f: FnDef<'_>) -> Summary {
    Summary::default()
}

/// Everything `f` reaches. Cyclic through recursion; iterated to a fixpoint.
#[salsa::tracked(returns(ref), cycle_initial = initial)]
pub fn summary<'db>(db: &'db dyn Db, f: FnDef<'db>) -> Summary {
    let mut effects: BTreeMap<Effect, Witness> = BTreeMap::new();
    for (effect, range) in local_effects(db, f) {
        effects.entry(effect).or_insert(Witness { range });
    }
    let file = f.file(db);
    for call in &fn_facts(db, f).calls {
        let Some(g) = callee(db, file, &call.target) else {
            continue;
        };
        let sub = summary(db, g);
        for (effect, _) in sub.effects.iter() {
            if !effects.contains_key(effect) {
                effects.insert(effect.clone(), Witness { range: call.range });
            }
        }
    }
    Summary {
        effects: effects.into_iter().collect(),
    }
}
