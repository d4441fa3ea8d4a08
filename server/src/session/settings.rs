//! An open document and the client's settings.

use ropey::Rope;
use tower_lsp_server::ls_types::Uri;

/// One open document.
#[derive(Clone)]
pub struct Doc {
    pub uri: Uri,
    pub rope: Rope,
    pub version: i32,
    /// Changes that set only this script's text (counted in [`Session::revision`] too): what
    /// [`Snapshot::stamp`] leaves out.
    pub keystrokes: u64,
    /// The buffer the last change gave the script's text input, when that change made it from
    /// the rope (so it holds the rope's bytes, and the next change can be made from it).
    pub shared: Option<std::sync::Arc<[u8]>>,
}

/// Settings the client gives (initialization options or `workspace/didChangeConfiguration`).
#[derive(Clone, Debug)]
pub struct Settings {
    /// `vox.lint.determinism`: every D rule at error severity.
    pub determinism: bool,
    /// `vox.lint.strict`: the I rules too.
    pub strict: bool,
    /// `vox.inlayHints.capabilities`: the capability a gated call consumes.
    pub inlay_caps: bool,
    /// `vox.inlayHints.parameterNames`.
    pub inlay_params: bool,
    /// `vox.inlayHints.inferredTypes`: the inferred kind of a `let` without annotation (off by
    /// default).
    pub inlay_types: bool,
    /// Ceilings for runs without a run configuration (`vox.run.maxSteps` …), as flag/value.
    pub run_ceilings: Vec<(String, String)>,
}

impl Settings {
    pub fn defaults() -> Settings {
        Settings {
            determinism: false,
            strict: false,
            inlay_caps: true,
            inlay_params: true,
            inlay_types: false,
            run_ceilings: Vec::new(),
        }
    }

    /// Reads `{"lint": {...}, "inlayHints": {...}, "run": {...}}`, optionally under `"vox"`.
    pub fn update(&mut self, v: &serde_json::Value) {
        let v = v.get("vox").unwrap_or(v);
        let flag = |path: &[&str]| {
            let mut cur = v;
            for p in path {
                cur = cur.get(*p)?;
            }
            cur.as_bool()
        };
        if let Some(b) = flag(&["lint", "determinism"]) {
            self.determinism = b;
        }
        if let Some(b) = flag(&["lint", "strict"]) {
            self.strict = b;
        }
        if let Some(b) = flag(&["inlayHints", "capabilities"]) {
            self.inlay_caps = b;
        }
        if let Some(b) = flag(&["inlayHints", "parameterNames"]) {
            self.inlay_params = b;
        }
        if let Some(b) = flag(&["inlayHints", "inferredTypes"]) {
            self.inlay_types = b;
        }
        if let Some(run) = v.get("run").and_then(|r| r.as_object()) {
            let mut out = Vec::new();
            for (key, flag) in [
                ("maxSteps", "max-steps"),
                ("maxDepth", "max-depth"),
                ("maxMemory", "max-memory"),
                ("maxOutput", "max-output"),
                ("timeout", "timeout"),
            ] {
                match run.get(key) {
                    Some(serde_json::Value::String(s)) if !s.is_empty() => {
                        out.push((flag.to_string(), s.clone()))
                    }
                    Some(serde_json::Value::Number(n)) => {
                        out.push((flag.to_string(), n.to_string()))
                    }
                    _ => {}
                }
            }
            self.run_ceilings = out;
        }
    }
}
