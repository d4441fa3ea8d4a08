//! Top-level name clashes that involve file imports (voxscript.md §3.3, §6 #26): an unaliased
//! import's public name against a declaration of the importing file, two unaliased imports that
//! export one name, or an alias against a declaration. The parser sees only one file, so these are
//! found here, once the imported files' exports are known.

use std::rc::Rc;

use vox_syntax::ast::{self, AstNode};
use vox_syntax::{SyntaxTree, TextRange};

use crate::global_table::ImportedNames;
use crate::ir::FileImport;

/// Where the other name of a clash comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClashWith {
    /// A declaration of the importing file, at this range.
    Local(TextRange),
    /// An earlier import of the importing file (its index in `file_imports`).
    Import(usize),
}

/// One clash: `name`, brought in by import number `import`, is also declared by `with`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportClash {
    pub import: usize,
    pub name: Rc<str>,
    pub with: ClashWith,
}

/// A name a file declares at the top level (a function, type, variant or `@json_as` codec): the
/// range of its declaring name in the file's text, which holds its spelling (a codec's adds
/// `_from_json` or `_to_json` to its type's). Ranges, not strings: one per function of a workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalName {
    pub range: TextRange,
    pub codec: Option<Codec>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    FromJson,
    ToJson,
}

impl LocalName {
    fn plain(range: TextRange) -> LocalName {
        LocalName { range, codec: None }
    }

    /// Whether this name, in the file of `text`, is spelled `name`.
    pub fn is(&self, text: &[u8], name: &str) -> bool {
        let Some(declared) = text.get(self.range.start as usize..self.range.end as usize) else {
            return false;
        };
        let suffix: &[u8] = match self.codec {
            None => b"",
            Some(Codec::FromJson) => b"_from_json",
            Some(Codec::ToJson) => b"_to_json",
        };
        let name = name.as_bytes();
        name.len() == declared.len() + suffix.len()
            && name.starts_with(declared)
            && name.ends_with(suffix)
    }
}

/// The names a file declares at the top level (functions, types, variants, `@json_as` codecs).
pub fn local_names(tree: &SyntaxTree) -> Vec<LocalName> {
    let mut out = Vec::new();
    for item in tree.root().children() {
        if let Some(f) = ast::FnDecl::cast(item) {
            if let Some(n) = f.name() {
                out.push(LocalName::plain(n.range()));
            }
        } else if let Some(t) = ast::TypeDecl::cast(item) {
            if let Some(n) = t.name() {
                out.push(LocalName::plain(n.range()));
                if t.json_as().is_some() {
                    for codec in [Codec::FromJson, Codec::ToJson] {
                        out.push(LocalName {
                            range: n.range(),
                            codec: Some(codec),
                        });
                    }
                }
            }
            for v in t.variants() {
                if let Some(n) = v.name() {
                    out.push(LocalName::plain(n.range()));
                }
            }
        }
    }
    out.shrink_to_fit();
    out
}

/// Every clash of `imports` (from `file_imports(tree)`) with the file's own declarations and with
/// each other, in import order. `imported[i]` lists what import `i` exports.
pub fn import_clashes(
    tree: &SyntaxTree,
    imports: &[FileImport],
    imported: &[ImportedNames],
) -> Vec<ImportClash> {
    clashes_with(tree.bytes(), &local_names(tree), imports, imported)
}

/// As [`import_clashes`], from the file's text and [`local_names`] (for callers that no longer
/// hold the tree).
pub fn clashes_with(
    text: &[u8],
    locals: &[LocalName],
    imports: &[FileImport],
    imported: &[ImportedNames],
) -> Vec<ImportClash> {
    let mut out = Vec::new();
    // Names brought in by earlier imports: (name, import index).
    let mut brought: Vec<(Rc<str>, usize)> = Vec::new();
    for (i, imp) in imports.iter().enumerate() {
        let names: Vec<Rc<str>> = match &imp.alias {
            Some(alias) => vec![alias.clone()],
            None => imported
                .get(i)
                .map(|n| {
                    n.functions
                        .iter()
                        .chain(n.variants.iter())
                        .cloned()
                        .collect()
                })
                .unwrap_or_default(),
        };
        for name in names {
            if let Some(local) = locals.iter().find(|l| l.is(text, &name)) {
                out.push(ImportClash {
                    import: i,
                    name: name.clone(),
                    with: ClashWith::Local(local.range),
                });
            } else if let Some((_, j)) = brought.iter().find(|(b, j)| *b == name && *j != i) {
                out.push(ImportClash {
                    import: i,
                    name: name.clone(),
                    with: ClashWith::Import(*j),
                });
            } else {
                brought.push((name, i));
            }
        }
    }
    out
}
