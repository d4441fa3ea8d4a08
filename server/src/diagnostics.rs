//! Findings as protocol diagnostics: range in the negotiated unit, severity, code with a link to
//! the rule's page, the call chain as related information, `unnecessary` for unused
//! suppressions. Configuration errors (`config.invalid`) land in their file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ropey::Rope;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Position, Range, Uri,
};
use vox_lints::{Finding, Severity};

use crate::convert;
use crate::session::Snapshot;

/// Where the rule pages live (the same base the SARIF output links, from Cargo.toml's repository).
pub use vox_lints::RULE_DOCS as DOCS;

pub fn uri_of(path: &Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

/// Ropes of the files findings point into, built once per batch.
pub struct Ropes<'a> {
    snap: &'a Snapshot,
    cache: HashMap<PathBuf, Rope>,
    uris: HashMap<PathBuf, Option<Uri>>,
    docs: HashMap<String, Option<CodeDescription>>,
}

impl<'a> Ropes<'a> {
    pub fn new(snap: &'a Snapshot) -> Self {
        Ropes {
            snap,
            cache: HashMap::new(),
            uris: HashMap::new(),
            docs: HashMap::new(),
        }
    }

    fn uri(&mut self, path: &Path) -> Option<Uri> {
        self.uris
            .entry(path.to_path_buf())
            .or_insert_with(|| uri_of(path))
            .clone()
    }

    fn doc(&mut self, code: &str) -> Option<CodeDescription> {
        self.docs
            .entry(code.to_string())
            .or_insert_with(|| doc_uri(code).map(|href| CodeDescription { href }))
            .clone()
    }

    pub fn get(&mut self, path: &Path) -> &Rope {
        self.cache
            .entry(path.to_path_buf())
            .or_insert_with(|| self.snap.rope(path))
    }
}

/// The page of a rule.
fn doc_uri(code: &str) -> Option<Uri> {
    vox_lints::rule(code).and_then(|r| format!("{DOCS}/{}.md", r.code).parse::<Uri>().ok())
}

/// The page of a rule, as the `href` of a diagnostic's `codeDescription` reads.
pub fn doc_href(code: &str) -> Option<String> {
    doc_uri(code).map(|u| u.as_str().to_string())
}

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    }
}

pub fn to_diagnostic(f: &Finding, ropes: &mut Ropes<'_>) -> Diagnostic {
    let enc = ropes.snap.encoding;
    let range = convert::range(ropes.get(&f.file), enc, f.range);
    let mut message = f.message.to_string();
    if let Some(h) = &f.help {
        message.push('\n');
        message.push_str(h);
    }
    let code_description = ropes.doc(&f.code);
    let related: Vec<DiagnosticRelatedInformation> = f
        .chain
        .iter()
        .filter_map(|step| {
            let uri = ropes.uri(&step.file)?;
            let r = convert::range(ropes.get(&step.file), enc, step.range);
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, r),
                message: format!("reached from `{}`", step.function),
            })
        })
        .collect();
    let tags = (f.code == "L002").then(|| vec![DiagnosticTag::UNNECESSARY]);
    Diagnostic {
        range,
        severity: Some(severity(f.severity)),
        code: Some(NumberOrString::String(f.code.to_string())),
        code_description,
        source: Some("vox".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data: None,
    }
}

/// The diagnostics of `findings`, converted one by one (what [`crate::render`] must equal).
pub fn to_diagnostics<F: std::borrow::Borrow<Finding>>(
    snap: &Snapshot,
    findings: &[F],
) -> Vec<Diagnostic> {
    let mut ropes = Ropes::new(snap);
    findings
        .iter()
        .map(|f| to_diagnostic(f.borrow(), &mut ropes))
        .collect()
}

/// Diagnostics of one configuration file: `config.invalid`, and C001/C002 on its entries.
pub fn config_diagnostics(snap: &Snapshot, path: &Path) -> Vec<Diagnostic> {
    // Read only for an error to place: every change's pass asks about each configuration file,
    // and reading one (or finding it missing) from the disk each time cost more than the rest.
    let rope = std::cell::OnceCell::new();
    let mut ropes = Ropes::new(snap);
    let entries: Vec<Diagnostic> = snap
        .shown_config_findings(path)
        .iter()
        .map(|f| to_diagnostic(f, &mut ropes))
        .collect();
    snap.config
        .errors
        .iter()
        .filter(|e| e.file == path)
        .map(|e| {
            let rope = rope.get_or_init(|| snap.rope(path));
            let off = convert::offset_of_line_col(rope, e.line, e.column) as u32;
            let p: Position = convert::position(rope, snap.encoding, off);
            Diagnostic {
                range: Range::new(p, p),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String("config.invalid".into())),
                source: Some("vox".into()),
                message: e.message.clone(),
                ..Diagnostic::default()
            }
        })
        .chain(entries)
        .collect()
}
