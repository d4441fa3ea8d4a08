//! `textDocument/diagnostic` (pull diagnostics, decision 40).

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;

use crate::diagnostics;
use crate::publish::file_diagnostics;
use crate::session::{self, path_of};
use crate::state::Backend;

pub(crate) async fn diagnostic(
    b: &Backend,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let Some(path) = path_of(&params.text_document.uri) else {
        return Ok(empty_report());
    };
    // A newer edit cancels the pass; answer for the newest text.
    for _ in 0..8 {
        let shared = b.shared.clone();
        let p = path.clone();
        let r = b
            .on_snapshot("diagnostics", Some(path.clone()), move |snap| {
                let items = if session::config_kind(&snap.root, &p).is_some() {
                    diagnostics::config_diagnostics(snap, &p)
                } else if snap.docs.contains_key(&p) && session::is_script(&p) {
                    file_diagnostics(snap, &shared, &p)
                } else {
                    Vec::new()
                };
                Ok(items)
            })
            .await;
        match r {
            Ok(items) => {
                // The result id names the items (a hash of their JSON): the same id, the
                // same diagnostics, whatever changed elsewhere (run diagnostics included).
                let id = result_id(&items);
                if params.previous_result_id.as_deref() == Some(id.as_str()) {
                    return Ok(DocumentDiagnosticReportResult::Report(
                        DocumentDiagnosticReport::Unchanged(
                            RelatedUnchangedDocumentDiagnosticReport {
                                related_documents: None,
                                unchanged_document_diagnostic_report:
                                    UnchangedDocumentDiagnosticReport { result_id: id },
                            },
                        ),
                    ));
                }
                return Ok(DocumentDiagnosticReportResult::Report(
                    DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                        related_documents: None,
                        full_document_diagnostic_report: FullDocumentDiagnosticReport {
                            result_id: Some(id),
                            items,
                        },
                    }),
                ));
            }
            Err(e) if e.code == ErrorCode::ContentModified => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::content_modified())
}

/// A pull report's `resultId`: a hash of its items' JSON.
fn result_id(items: &[Diagnostic]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(items)
        .unwrap_or_default()
        .hash(&mut h);
    format!("{:016x}", h.finish())
}

fn empty_report() -> DocumentDiagnosticReportResult {
    DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
        RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items: Vec::new(),
            },
        },
    ))
}
