//! What a rule sees of one file: its text and tree, each function's facts with the offset its
//! relative ranges start at, the run configurations of the script, and the workspace.

use std::sync::Arc;

use vox_analysis::facts::FnFacts;
use vox_analysis::{file_syntax, fn_base, fn_facts, Db, FileItems, FileSyntax, FnDef, SourceFile};
use vox_caps::config::RunConfig;
use vox_syntax::TextRange;

use crate::workspace::WorkspaceInfo;

pub struct FileCx<'a> {
    pub db: &'a dyn Db,
    pub file: SourceFile,
    pub path: crate::finding::SharedPath,
    pub text: std::sync::Arc<[u8]>,
    /// Syntax diagnostics, import sites and suppression comments (the tree itself is not kept).
    pub syntax: &'a FileSyntax,
    pub items: &'a FileItems<'a>,
    pub ws: &'a WorkspaceInfo,
    /// Whether findings carry their fixes (false where only the diagnostics are shown: the
    /// editor's published diagnostics, `--format compact` and `github`).
    pub fixes: bool,
    /// Lines of the offsets messages name, counted on as rules ask (most files have no finding
    /// that needs a line number).
    lines: vox_syntax::LineCounter,
    /// The functions the per-function rules look at (by position in `FileItems::all`; all
    /// when `None`): a lint that keeps the others' findings from a memo sets it.
    pub(crate) only: Option<Vec<bool>>,
    /// Every function with its facts and base offset, fetched once for all rules.
    functions: std::cell::OnceCell<Vec<(FnDef<'a>, &'a FnFacts, u32)>>,
    /// The chains, found on first use ([`Self::chains`]) or handed over by the memo
    /// (`FileMemo::plan`).
    pub(crate) chains: std::cell::OnceCell<Arc<crate::chain::Chains>>,
    /// [`Self::broken_functions`], found once (the memo, the checks and the rules ask).
    broken: std::cell::OnceCell<Vec<usize>>,
    runs: std::cell::OnceCell<Vec<&'a RunConfig>>,
    /// Configuration fixes by key (the same for every finding of a rule in the file; each one
    /// reads and edits a configuration file).
    config_fixes: std::cell::RefCell<Vec<(String, Vec<crate::finding::Fix>)>>,
}

impl<'a> FileCx<'a> {
    pub fn new(db: &'a dyn Db, file: SourceFile, ws: &'a WorkspaceInfo) -> FileCx<'a> {
        let syntax: &Arc<FileSyntax> = file_syntax(db, file);
        let text = file.text(db).get();
        FileCx {
            db,
            file,
            path: file.path(db).into(),
            text,
            syntax,
            items: vox_analysis::file_items(db, file),
            ws,
            fixes: true,
            only: None,
            lines: vox_syntax::LineCounter::default(),
            functions: std::cell::OnceCell::new(),
            chains: std::cell::OnceCell::new(),
            broken: std::cell::OnceCell::new(),
            runs: std::cell::OnceCell::new(),
            config_fixes: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The configuration fixes under `key`, made by `make` on first use in this file.
    pub fn config_fixes(
        &self,
        key: &str,
        make: impl FnOnce() -> Vec<crate::finding::Fix>,
    ) -> Vec<crate::finding::Fix> {
        if let Some((_, fixes)) = self.config_fixes.borrow().iter().find(|(k, _)| k == key) {
            return fixes.clone();
        }
        let fixes = make();
        self.config_fixes
            .borrow_mut()
            .push((key.to_string(), fixes.clone()));
        fixes
    }

    /// Whether a call chain from an entry point reaches `f` (or `f` is one).
    pub fn reached(&self, f: FnDef<'a>) -> bool {
        self.chains().reaches(f)
    }

    /// [`Self::reached`], when this lint has already searched (`None`: not worth a search).
    pub fn reached_if_known(&self, f: FnDef<'a>) -> Option<bool> {
        self.chains.get().map(|c| c.reaches(f))
    }

    /// The call chain from an entry point to `f` (empty when `f` is one, or unreachable).
    pub fn chain_to(&self, f: FnDef<'a>) -> Vec<crate::finding::ChainStep> {
        self.chains().to(self.db, f)
    }

    /// The file's chains, searched for on first use.
    fn chains(&self) -> &crate::chain::Chains {
        self.chains
            .get_or_init(|| Arc::new(crate::chain::Chains::new(self.db, self.file)))
    }

    /// Whether the per-function rules look at the function at position `i` of
    /// `FileItems::all` (not when a syntax error lies in it, or a memo keeps its findings).
    pub fn linted(&self, i: usize, broken: &[usize]) -> bool {
        !broken.contains(&i) && self.only.as_ref().is_none_or(|m| m[i])
    }

    /// Every function of the file the rules look at ([`Self::linted`]) with its facts and the
    /// offset its ranges start at.
    pub fn functions(&self) -> impl Iterator<Item = (FnDef<'a>, &'a FnFacts, u32)> + '_ {
        self.functions
            .get_or_init(|| {
                let broken = self.broken_functions();
                self.items
                    .all()
                    .enumerate()
                    .filter(|(i, _)| self.linted(*i, broken))
                    .map(|(_, f)| (f, fn_facts(self.db, f), fn_base(self.db, f)))
                    .collect()
            })
            .iter()
            .copied()
    }

    /// Positions (in `items.all()` order, the synthetic main last) of the functions a syntax
    /// error lies in (decision 53: an error costs only its function). An error outside every
    /// `fn` is the synthetic main's.
    pub fn broken_functions(&self) -> &[usize] {
        self.broken.get_or_init(|| self.find_broken())
    }

    fn find_broken(&self) -> Vec<usize> {
        if !self.syntax.has_errors {
            return Vec::new();
        }
        let spans: Vec<(u32, u32)> = self
            .items
            .fns
            .iter()
            .map(|f| {
                let base = fn_base(self.db, *f);
                (base, base + f.text(self.db).len())
            })
            .collect();
        let mut broken = Vec::new();
        for d in &self.syntax.diagnostics {
            if d.severity != vox_syntax::Severity::Error {
                continue;
            }
            let at = d.range.start;
            let k = spans
                .iter()
                .position(|&(s, e)| s <= at && at < e.max(s + 1))
                .unwrap_or(spans.len());
            if !broken.contains(&k) {
                broken.push(k);
            }
        }
        broken
    }

    /// How many syntax errors the file has.
    pub fn syntax_errors(&self) -> usize {
        self.syntax
            .diagnostics
            .iter()
            .filter(|d| d.severity == vox_syntax::Severity::Error)
            .count()
    }

    pub fn abs(&self, base: u32, r: TextRange) -> TextRange {
        TextRange::new(base + r.start, base + r.end)
    }

    /// Source text of an absolute range.
    pub fn slice(&self, r: TextRange) -> &str {
        let (s, e) = (r.start as usize, r.end as usize);
        self.text
            .get(s..e)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// 1-based line of an offset. A message that names it says "line" (the lint memo relints
    /// such findings when lines move, `memo::names_a_line`), and names a place of the same
    /// function or an earlier one.
    pub fn line(&self, offset: u32) -> u32 {
        self.lines.line(&self.text, offset)
    }

    /// The run configurations of this script.
    pub fn runs(&self) -> Vec<&'a RunConfig> {
        self.runs
            .get_or_init(|| self.ws.runs_for(&self.path))
            .clone()
    }

    pub fn finding(
        &self,
        code: &str,
        severity: crate::finding::Severity,
        range: TextRange,
        message: impl Into<crate::finding::SharedStr>,
    ) -> crate::finding::Finding {
        crate::finding::Finding::new(code, severity, self.path.clone(), range, message)
    }

    pub fn edit(
        &self,
        range: TextRange,
        new_text: impl Into<crate::finding::SharedStr>,
    ) -> crate::finding::Edit {
        crate::finding::Edit {
            file: self.path.clone(),
            range,
            new_text: new_text.into(),
        }
    }
}
