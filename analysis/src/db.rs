//! The database type and what queries need from it beside salsa: the builtin table and the
//! workspace.

use std::sync::{Arc, Mutex};

use vox_hir::BuiltinCatalog;

use crate::inputs::{SourceFile, Workspace};
use crate::parsed::KeptParse;

/// What every query of the analysis can ask of the database.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The builtin table (the runtime's, handed in by the binary: one definition of every name).
    fn catalog(&self) -> &'static (dyn BuiltinCatalog + Sync);
    /// The workspace input.
    fn workspace(&self) -> Workspace;
    /// Whether no file's text ever changes in this database (a command-line run): function
    /// texts then share their file's text instead of copying it. An editor's database edits
    /// files, and a shared text would keep every old version of a file alive.
    fn fixed_texts(&self) -> bool;
    /// Takes what is kept of a file's latest parse, if anything (a few files only, in an
    /// editor): the next parse of that file starts from it and keeps its own in turn.
    fn take_kept(&self, file: SourceFile) -> Option<KeptParse>;
    fn keep_parse(&self, file: SourceFile, kept: KeptParse);
}

/// The latest parses of a few files, most recent last.
type KeptParses = Arc<Mutex<Vec<(SourceFile, KeptParse)>>>;

/// How many files' latest parses an editor's database keeps for re-parsing.
const KEPT_PARSES: usize = 8;

/// Names of the queries that executed, in order, and how many memos were checked and kept,
/// when logging is on (tests read it to check what an edit re-ran and re-checked).
#[derive(Clone, Default)]
pub struct EventLog {
    executed: Arc<Mutex<Vec<String>>>,
    validated: Arc<std::sync::atomic::AtomicUsize>,
}

impl EventLog {
    /// The queries executed since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.executed.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// How many memos were found still valid (salsa's `DidValidateMemoizedValue`) since the
    /// last call: each costs a check, whether shallow (durability) or deep.
    pub fn take_validated(&self) -> usize {
        self.validated.swap(0, std::sync::atomic::Ordering::Relaxed)
    }
}

#[salsa::db]
#[derive(Clone)]
pub struct AnalysisDb {
    storage: salsa::Storage<Self>,
    catalog: &'static (dyn BuiltinCatalog + Sync),
    workspace: Option<Workspace>,
    fixed_texts: bool,
    /// Shared by the database's clones (snapshots).
    kept: KeptParses,
}

impl AnalysisDb {
    pub fn new(catalog: &'static (dyn BuiltinCatalog + Sync)) -> AnalysisDb {
        AnalysisDb {
            storage: salsa::Storage::new(None),
            catalog,
            workspace: None,
            fixed_texts: false,
            kept: Arc::default(),
        }
    }

    /// A database that records each query execution (`WillExecute`) in the returned log.
    pub fn with_log(catalog: &'static (dyn BuiltinCatalog + Sync)) -> (AnalysisDb, EventLog) {
        let log = EventLog::default();
        let sink = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            match event.kind {
                salsa::EventKind::WillExecute { database_key } => {
                    let line = format!("{database_key:?}");
                    let mut executed = sink.executed.lock().unwrap_or_else(|e| e.into_inner());
                    executed.push(line);
                }
                salsa::EventKind::DidValidateMemoizedValue { .. } => {
                    sink.validated
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                _ => {}
            }
        })));
        (
            AnalysisDb {
                storage,
                catalog,
                workspace: None,
                fixed_texts: false,
                kept: Arc::default(),
            },
            log,
        )
    }

    /// Declares that no file's text will change (see [`Db::fixed_texts`]).
    pub fn set_fixed_texts(&mut self) {
        self.fixed_texts = true;
    }

    /// Sets the workspace this database answers for (once, before the first query).
    pub fn set_workspace(&mut self, ws: Workspace) {
        self.workspace = Some(ws);
    }
}

#[salsa::db]
impl salsa::Database for AnalysisDb {}

#[salsa::db]
impl Db for AnalysisDb {
    fn catalog(&self) -> &'static (dyn BuiltinCatalog + Sync) {
        self.catalog
    }
    fn workspace(&self) -> Workspace {
        self.workspace
            .expect("AnalysisDb::set_workspace is called before any query")
    }
    fn fixed_texts(&self) -> bool {
        self.fixed_texts
    }
    fn take_kept(&self, file: SourceFile) -> Option<KeptParse> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let i = kept.iter().position(|(f, _)| *f == file)?;
        Some(kept.remove(i).1)
    }
    fn keep_parse(&self, file: SourceFile, parse: KeptParse) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(f, _)| *f != file);
        if kept.len() >= KEPT_PARSES {
            kept.remove(0);
        }
        kept.push((file, parse));
    }
}
