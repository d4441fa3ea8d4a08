//! D005's workspace side: two path literals that differ only by case or Unicode normalisation.
//! A literal collides with the first literal of the workspace (file path order, then position)
//! that folds to the same key, when their texts differ.
//!
//! Kept as queries per file and per group of files ([`vox_analysis::Workspace::groups`]): each
//! file's first literal per key, each group's first file per key, and a file's collisions, which
//! look the file's keys up in every group. An edit re-reads its own file and group, and every
//! group's index, never every file.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use unicode_normalization::UnicodeNormalization;
use vox_analysis::facts::PathShape;
use vox_analysis::{Db, FileGroup, SourceFile};
use vox_syntax::TextRange;

/// A file's colliding literals: by the literal's range, the earlier literal's file, text and
/// range.
pub(crate) type Collisions = HashMap<(u32, u32), (PathBuf, String, TextRange)>;

/// What a literal is compared by: lower case, NFC (borrowed when that is the literal itself).
fn fold_key(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(s.to_ascii_lowercase())
        } else {
            Cow::Borrowed(s)
        }
    } else {
        Cow::Owned(s.nfc().collect::<String>().to_lowercase())
    }
}

/// A path literal of a file: its fold key, its text and its range in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Literal {
    key: Box<str>,
    text: Box<str>,
    range: TextRange,
}

/// The file's path literals in position order.
#[salsa::tracked(returns(ref))]
fn file_literals(db: &dyn Db, file: SourceFile) -> Box<[Literal]> {
    let mut out = Vec::new();
    for f in vox_analysis::file_items(db, file).all() {
        // Most functions have no literal: their base is not asked.
        let mut base = None;
        for p in &vox_analysis::fn_facts(db, f).paths {
            if let PathShape::Literal(s, r) = &p.shape {
                let base = *base.get_or_insert_with(|| vox_analysis::fn_base(db, f));
                out.push(Literal {
                    key: fold_key(s).into(),
                    text: s.as_str().into(),
                    range: TextRange::new(base + r.start, base + r.end),
                });
            }
        }
    }
    out.sort_by_key(|l| l.range.start);
    out.into()
}

/// Per key, the text of the file's first literal with that key, sorted by key: equal across
/// edits that move literals without changing which comes first.
#[salsa::tracked(returns(ref))]
fn file_firsts(db: &dyn Db, file: SourceFile) -> Box<[(Box<str>, Box<str>)]> {
    let mut seen: FxHashMap<&str, &str> = FxHashMap::default();
    for l in file_literals(db, file).iter() {
        seen.entry(&l.key).or_insert(&l.text);
    }
    let mut out: Vec<(Box<str>, Box<str>)> = seen
        .into_iter()
        .map(|(k, t)| (k.into(), t.into()))
        .collect();
    out.sort();
    out.into()
}

/// Per key, the group's first file (in path order) with a literal of that key, and that
/// literal's text.
#[salsa::tracked(returns(ref))]
fn group_firsts(db: &dyn Db, group: FileGroup) -> FxHashMap<Box<str>, (SourceFile, Box<str>)> {
    let mut out: FxHashMap<Box<str>, (SourceFile, Box<str>)> = FxHashMap::default();
    // The group's files come in path order.
    for file in group.files(db).iter() {
        for (k, t) in file_firsts(db, *file).iter() {
            out.entry(k.clone()).or_insert_with(|| (*file, t.clone()));
        }
    }
    out
}

/// `file`'s literals that collide with an earlier literal of the workspace.
#[salsa::tracked(returns(ref))]
pub(crate) fn file_collisions(db: &dyn Db, file: SourceFile) -> Arc<Collisions> {
    let literals = file_literals(db, file);
    let mut out = Collisions::new();
    if literals.is_empty() {
        return Arc::new(out);
    }
    let groups = db.workspace().groups(db);
    let path = file.path(db);
    for (i, l) in literals.iter().enumerate() {
        // The workspace's first file with this key: the first among the groups' firsts.
        let mut first: Option<(&PathBuf, SourceFile, &str)> = None;
        for g in groups.iter() {
            if let Some((f, t)) = group_firsts(db, *g).get(&l.key) {
                let p = f.path(db);
                if first.is_none_or(|(q, _, _)| p < q) {
                    first = Some((p, *f, t));
                }
            }
        }
        let Some((first_path, first_file, first_text)) = first else {
            continue;
        };
        if first_text == &*l.text {
            continue;
        }
        // The earlier literal: this file's own first of the key, or the first file's.
        let earlier = if first_file == file {
            literals[..i].iter().find(|e| e.key == l.key)
        } else if first_path < path {
            file_literals(db, first_file)
                .iter()
                .find(|e| e.key == l.key)
        } else {
            None
        };
        if let Some(e) = earlier {
            out.insert(
                (l.range.start, l.range.end),
                (first_path.clone(), e.text.to_string(), e.range),
            );
        }
    }
    Arc::new(out)
}
