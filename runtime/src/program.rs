//! Loading a program: the entry file and its file imports, parsed, lowered and linked.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use vox_hir::{Global, ImportedNames, Module};
use vox_syntax::{LineIndex, SyntaxTree, TextRange};

use crate::catalog::Catalog;
use crate::exc::{Exc, Loc};
use crate::value::{CodeFn, Func, Namespace, NamespaceKind, Tagged, VMap, Value};

pub struct LoadedFile {
    /// The path shown in messages: as given for the entry file, resolved for imports.
    pub shown: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub lines: LineIndex,
    pub tree: SyntaxTree,
    pub hir: Module,
    /// For each file import, the index of the loaded target.
    pub import_targets: Vec<u32>,
}

pub struct Program {
    /// Dependencies come before the files that import them; the entry file is last.
    pub files: Vec<LoadedFile>,
}

/// Why a program could not start.
pub enum LoadError {
    /// The entry file could not be read.
    Read { path: String, error: std::io::Error },
    /// A file has syntax errors: its index in `files` (diagnostics are in its tree).
    Syntax { files: Vec<LoadedFile>, file: usize },
    /// An import failed (missing target, cycle, target with errors): a runtime-style error at the
    /// import, in `files[file]`.
    Import {
        files: Vec<LoadedFile>,
        file: usize,
        code: &'static str,
        message: String,
        range: TextRange,
    },
    /// Reading an import was denied (`fs.import`).
    Denied(Exc),
}

impl Program {
    pub fn entry(&self) -> u32 {
        (self.files.len() - 1) as u32
    }

    pub fn loc_text(&self, loc: Loc) -> (String, u32, u32) {
        let f = &self.files[loc.file as usize];
        let lc = f
            .lines
            .line_col(loc.range.start, vox_syntax::ColumnUnit::Char);
        (f.shown.clone(), lc.line + 1, lc.col + 1)
    }
}

struct Loader<'g> {
    files: Vec<LoadedFile>,
    /// Canonical paths of files being loaded (for cycle detection), with shown names.
    stack: Vec<(PathBuf, String)>,
    gate: &'g mut dyn FnMut(&Path) -> Result<PathBuf, Exc>,
}

/// Parses on the current thread; callers run this on a large stack.
pub fn load(
    entry: &Path,
    shown: &str,
    gate: &mut dyn FnMut(&Path) -> Result<PathBuf, Exc>,
) -> Result<Program, LoadError> {
    let bytes = std::fs::read(entry).map_err(|error| LoadError::Read {
        path: shown.to_string(),
        error,
    })?;
    let canonical = entry.canonicalize().unwrap_or_else(|_| entry.to_path_buf());
    let mut loader = Loader {
        files: Vec::new(),
        stack: Vec::new(),
        gate,
    };
    loader.load_file(canonical, shown.to_string(), bytes)?;
    Ok(Program {
        files: loader.files,
    })
}

impl Loader<'_> {
    /// An import error in the file being loaded (`at`: its path, shown name, bytes, and the
    /// import's range); the file is added to the loaded files so the error can be shown.
    fn import_error(
        &mut self,
        at: (&PathBuf, &String, &Vec<u8>, TextRange),
        code: &'static str,
        message: String,
    ) -> LoadError {
        let (path, shown, bytes, range) = at;
        self.files.push(LoadedFile {
            shown: shown.clone(),
            path: path.clone(),
            bytes: bytes.clone(),
            lines: LineIndex::new(bytes),
            tree: vox_syntax::parse(bytes),
            hir: Module::default(),
            import_targets: Vec::new(),
        });
        LoadError::Import {
            file: self.files.len() - 1,
            files: std::mem::take(&mut self.files),
            code,
            message,
            range,
        }
    }

    fn load_file(
        &mut self,
        path: PathBuf,
        shown: String,
        bytes: Vec<u8>,
    ) -> Result<u32, LoadError> {
        let tree = vox_syntax::parse(&bytes);
        let lines = LineIndex::new(&bytes);
        let imports = vox_hir::file_imports(&tree);
        let has_errors = tree.has_errors();
        self.stack.push((path.clone(), shown.clone()));
        let mut targets = Vec::new();
        let mut names = Vec::new();
        if !has_errors {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            for imp in &imports {
                let target = dir.join(&imp.path);
                let resolved = match (self.gate)(&target) {
                    Ok(p) => p,
                    Err(e) => return Err(LoadError::Denied(e)),
                };
                let at = (&path, &shown, &bytes, imp.range);
                let canonical = match resolved.canonicalize() {
                    Ok(c) => c,
                    Err(_) => {
                        return Err(self.import_error(
                            at,
                            "check.import-missing",
                            format!(
                                "cannot import {}: no such file; the path is relative to the importing file's directory",
                                imp.path
                            ),
                        ))
                    }
                };
                if let Some(pos) = self.stack.iter().position(|(p, _)| *p == canonical) {
                    let mut chain: Vec<String> = self.stack[pos..]
                        .iter()
                        .map(|(p, _)| file_name(p))
                        .collect();
                    chain.push(file_name(&canonical));
                    return Err(self.import_error(
                        at,
                        "check.import-cycle",
                        format!("import cycle: {}", chain.join(" -> ")),
                    ));
                }
                let existing = self.files.iter().position(|f| f.path == canonical);
                let idx = match existing {
                    Some(i) => i as u32,
                    None => {
                        let Ok(tbytes) = std::fs::read(&canonical) else {
                            return Err(self.import_error(
                                at,
                                "check.import-missing",
                                format!("cannot read import {}", imp.path),
                            ));
                        };
                        let tshown = canonical.display().to_string();
                        match self.load_file(canonical.clone(), tshown, tbytes) {
                            Ok(i) => i,
                            Err(LoadError::Syntax { files, .. }) => {
                                self.files = files;
                                return Err(self.import_error(
                                    at,
                                    "check.import-errors",
                                    format!("imported file {} has errors", imp.path),
                                ));
                            }
                            Err(e) => return Err(e),
                        }
                    }
                };
                names.push(exported_names(&self.files[idx as usize].hir));
                targets.push(idx);
            }
            if let Some(c) = vox_hir::import_clashes(&tree, &imports, &names).first() {
                let imp = &imports[c.import];
                let message = match &c.with {
                    vox_hir::ClashWith::Local(range) => {
                        let line = lines.line_col(range.start, vox_syntax::ColumnUnit::Char).line + 1;
                        if imp.alias.is_some() {
                            format!(
                                "`{}` is declared twice at the top level: as the alias of import {} and on line {line}; rename the alias or the declaration",
                                c.name, imp.path
                            )
                        } else {
                            format!(
                                "`{}` is declared twice at the top level: imported from {} and declared on line {line}; rename one, or import the file with `as NAME`",
                                c.name, imp.path
                            )
                        }
                    }
                    vox_hir::ClashWith::Import(j) => format!(
                        "`{}` is declared twice at the top level: imported from {} and from {}; import one of the files with `as NAME`",
                        c.name, imports[*j].path, imp.path
                    ),
                };
                return Err(self.import_error(
                    (&path, &shown, &bytes, imp.range),
                    "syntax.duplicate",
                    message,
                ));
            }
        }
        self.stack.pop();
        let hir = if has_errors {
            Module::default()
        } else {
            vox_hir::lower_by_function(&tree, Catalog::get(), &names)
        };
        self.files.push(LoadedFile {
            shown,
            path,
            bytes,
            lines,
            tree,
            hir,
            import_targets: targets,
        });
        let idx = self.files.len() - 1;
        if has_errors {
            return Err(LoadError::Syntax {
                files: std::mem::take(&mut self.files),
                file: idx,
            });
        }
        Ok(idx as u32)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Public functions and public ADT variants of a module.
fn exported_names(m: &Module) -> ImportedNames {
    let mut out = ImportedNames::default();
    for g in &m.globals {
        match g {
            Global::Fn(id) => {
                let f = &m.functions[*id as usize];
                if f.is_pub {
                    if let Some(n) = &f.name {
                        out.functions.push(n.clone());
                    }
                }
            }
            Global::Variant {
                name, is_pub: true, ..
            } => out.variants.push(name.clone()),
            _ => {}
        }
    }
    out
}

/// The runtime values of every file's globals, dependencies first.
pub fn link(prog: &Program) -> Vec<Vec<Value>> {
    let mut all: Vec<Vec<Value>> = Vec::with_capacity(prog.files.len());
    for (fi, file) in prog.files.iter().enumerate() {
        let mut values = Vec::with_capacity(file.hir.globals.len());
        for g in &file.hir.globals {
            let v = match g {
                Global::Fn(id) => Value::Func(Rc::new(Func::Code(Rc::new(CodeFn {
                    name: file.hir.functions[*id as usize].name.clone(),
                    module: fi as u32,
                    func: *id,
                    captures: Vec::new(),
                })))),
                Global::Variant { name, fields, .. } => variant_value(name, fields),
                Global::ImportAlias { import } => {
                    let target = file.import_targets[*import as usize] as usize;
                    let alias = file.hir.imports[*import as usize]
                        .alias
                        .clone()
                        .unwrap_or_else(|| Rc::from(""));
                    let mut members = VMap::new();
                    let names = exported_names(&prog.files[target].hir);
                    for n in names.functions.iter().chain(names.variants.iter()) {
                        if let Some(v) = global_by_name(&prog.files[target].hir, &all[target], n) {
                            members.insert(n.clone(), v);
                        }
                    }
                    Value::Namespace(Rc::new(Namespace {
                        name: alias,
                        kind: NamespaceKind::Module(members),
                    }))
                }
                Global::Imported { import, name } => {
                    let target = file.import_targets[*import as usize] as usize;
                    global_by_name(&prog.files[target].hir, &all[target], name)
                        .unwrap_or(Value::Null)
                }
                Global::JsonFrom { ty } | Global::JsonTo { ty } => {
                    let to = matches!(g, Global::JsonTo { .. });
                    crate::json_as::codec_value(fi as u32, *ty, to)
                }
            };
            values.push(v);
        }
        all.push(values);
    }
    all
}

fn global_by_name(m: &Module, values: &[Value], name: &str) -> Option<Value> {
    m.globals
        .iter()
        .position(|g| match g {
            Global::Fn(id) => m.functions[*id as usize].name.as_deref() == Some(name),
            Global::Variant { name: n, .. } => &**n == name,
            _ => false,
        })
        .and_then(|i| values.get(i).cloned())
}

pub fn variant_value(name: &Rc<str>, fields: &Rc<[Rc<str>]>) -> Value {
    if fields.is_empty() {
        Value::Tagged(Rc::new(Tagged {
            variant: name.clone(),
            fields: fields.clone(),
            values: Default::default(),
        }))
    } else {
        Value::Func(Rc::new(Func::Ctor {
            variant: name.clone(),
            fields: fields.clone(),
        }))
    }
}
