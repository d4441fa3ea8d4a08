//! LSP 3.17 conformance of the answers' shapes (issue items 11 and 17): replays the
//! `initialize` capabilities of strict clients (tests/lsp/clients: plain text only, no
//! code-action literals, no `documentChanges`, pull-only diagnostics with several workspace
//! folders) and of VS Code and Neovim, and checks every answer against the protocol: required
//! fields present with their JSON types, and nothing the client did not opt into (options where
//! the client must get `true`, `documentChanges`, `CreateFile` or change annotations it cannot
//! take, markdown for a plain-text client, snippets without snippet support, `isPreferred`
//! without its support, a code action literal to a client that takes commands). Each client's
//! violations are listed together.

mod lsp_common;

use std::collections::HashMap;
use std::path::PathBuf;

use lsp_common::{client_fixture, path_of, uri, Lsp, TempDir};
use serde_json::{json, Value};

const TOML: &str = "[run.main]\nscript = \"main.vox\"\ncaps = []\n";
const LIB: &str = "pub fn stamp(who: str) to str {\n    return who.trim()\n}\n";
const MAIN: &str = "import \"./lib.vox\" as lib\n\nfn report(name: str) {\n    let x = 0.5\n    print(x.sin())\n    print(lib.stamp(name))\n    print(env.get(\"HOME\").is_some())\n}\n\nfn main() {\n    report(\"a\")\n}\n";

/// What the client said, read from its fixture.
struct Client {
    #[allow(dead_code)] // the fixture's name, kept for whoever reads a failure in a debugger
    name: String,
    caps: Value,
}

impl Client {
    fn new(name: &str) -> Client {
        Client {
            name: name.to_string(),
            caps: client_fixture(name)["capabilities"].clone(),
        }
    }

    fn get(&self, ptr: &str) -> &Value {
        self.caps.pointer(ptr).unwrap_or(&Value::Null)
    }

    fn flag(&self, ptr: &str) -> bool {
        self.get(ptr).as_bool().unwrap_or(false)
    }

    fn lists(&self, ptr: &str, item: &str) -> bool {
        self.get(ptr)
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == item))
    }

    /// The formats of a `MarkupContent` the client takes at `ptr` (any, if it names none).
    fn formats(&self, ptr: &str) -> Vec<String> {
        match self.get(ptr).as_array() {
            Some(a) => a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            None => vec!["markdown".into(), "plaintext".into()],
        }
    }

    fn literals(&self) -> bool {
        self.get("/textDocument/codeAction/codeActionLiteralSupport")
            .is_object()
    }

    fn resolves_edits(&self) -> bool {
        self.literals() && self.lists("/textDocument/codeAction/resolveSupport/properties", "edit")
    }

    fn document_changes(&self) -> bool {
        self.flag("/workspace/workspaceEdit/documentChanges")
    }

    fn resource_op(&self, kind: &str) -> bool {
        self.document_changes() && self.lists("/workspace/workspaceEdit/resourceOperations", kind)
    }

    fn annotations(&self) -> bool {
        self.get("/workspace/workspaceEdit/changeAnnotationSupport")
            .is_object()
    }

    fn pull(&self) -> bool {
        self.get("/textDocument/diagnostic").is_object()
    }
}

/// Collects the violations of one client's answers.
struct Check<'a> {
    client: &'a Client,
    /// Open documents' URIs and versions.
    open: HashMap<String, i64>,
    errors: Vec<String>,
}

fn is_uint(v: &Value) -> bool {
    v.as_u64().is_some_and(|n| n <= u32::MAX as u64)
}

impl Check<'_> {
    fn fail(&mut self, at: &str, what: impl std::fmt::Display) {
        self.errors.push(format!("{at}: {what}"));
    }

    /// `v` is a string.
    fn string(&mut self, v: &Value, at: &str) {
        if !v.is_string() {
            self.fail(at, format!("not a string: {v}"));
        }
    }

    fn opt_string(&mut self, v: &Value, at: &str) {
        if !v.is_null() {
            self.string(v, at);
        }
    }

    fn opt_bool(&mut self, v: &Value, at: &str) {
        if !v.is_null() && !v.is_boolean() {
            self.fail(at, format!("not a boolean: {v}"));
        }
    }

    /// `obj` has only `keys`.
    fn only_keys(&mut self, obj: &Value, keys: &[&str], at: &str) {
        if let Some(o) = obj.as_object() {
            for k in o.keys() {
                if !keys.contains(&k.as_str()) {
                    self.fail(at, format!("unexpected field `{k}`"));
                }
            }
        }
    }

    fn position(&mut self, v: &Value, at: &str) {
        if !(is_uint(&v["line"]) && is_uint(&v["character"])) {
            self.fail(at, format!("not a Position: {v}"));
        }
    }

    fn range(&mut self, v: &Value, at: &str) {
        self.position(&v["start"], &format!("{at}.start"));
        self.position(&v["end"], &format!("{at}.end"));
        let key = |p: &Value| (p["line"].as_u64(), p["character"].as_u64());
        if key(&v["start"]) > key(&v["end"]) {
            self.fail(at, format!("start after end: {v}"));
        }
    }

    fn markup(&mut self, v: &Value, formats: &[String], at: &str) {
        self.only_keys(v, &["kind", "value"], at);
        self.string(&v["value"], &format!("{at}.value"));
        match v["kind"].as_str() {
            Some(k) if formats.iter().any(|f| f == k) => {}
            _ => self.fail(
                at,
                format!("kind {} is not one of the client's {formats:?}", v["kind"]),
            ),
        }
        if v["kind"] == "plaintext" && v["value"].as_str().is_some_and(|t| t.contains("```")) {
            self.fail(at, "markdown fences in plain text");
        }
    }

    fn text_edit(&mut self, v: &Value, at: &str) {
        self.range(&v["range"], &format!("{at}.range"));
        self.string(&v["newText"], &format!("{at}.newText"));
        if !v["annotationId"].is_null() && !self.client.annotations() {
            self.fail(at, "annotationId without changeAnnotationSupport");
        }
        self.only_keys(v, &["range", "newText", "annotationId"], at);
    }

    /// The file a text edit is for exists (or is open, or was created before it).
    fn target_exists(&mut self, uri: &str, created: &[String], at: &str) {
        let exists = self.open.contains_key(uri)
            || created.iter().any(|c| c == uri)
            || path_of(uri).exists();
        if !exists {
            self.fail(at, format!("an edit of {uri}, which does not exist"));
        }
    }

    fn workspace_edit(&mut self, e: &Value, at: &str) {
        self.workspace_edit_after(e, at, &[]);
    }

    /// A workspace edit sent after the server created the files `made` (the `create` of a
    /// `vox.applyEdit` command, for a client that cannot create files itself).
    fn workspace_edit_after(&mut self, e: &Value, at: &str, made: &[String]) {
        self.only_keys(e, &["changes", "documentChanges", "changeAnnotations"], at);
        if self.client.document_changes() {
            if !e["changes"].is_null() {
                self.fail(at, "`changes` beside `documentChanges`");
            }
            let Some(ops) = e["documentChanges"].as_array() else {
                self.fail(at, format!("no documentChanges array: {e}"));
                return;
            };
            let mut created: Vec<String> = made.to_vec();
            for (i, op) in ops.iter().enumerate() {
                let at = format!("{at}.documentChanges[{i}]");
                if let Some(kind) = op["kind"].as_str() {
                    if !self.client.resource_op(kind) {
                        self.fail(&at, format!("a `{kind}` the client did not opt into"));
                    }
                    self.string(&op["uri"], &format!("{at}.uri"));
                    if kind == "create" {
                        created.extend(op["uri"].as_str().map(String::from));
                    }
                    continue;
                }
                self.only_keys(op, &["textDocument", "edits"], &at);
                let doc = &op["textDocument"];
                let Some(u) = doc["uri"].as_str() else {
                    self.fail(&at, format!("no textDocument.uri: {op}"));
                    continue;
                };
                match (self.open.get(u).copied(), &doc["version"]) {
                    (Some(v), Value::Number(n)) if n.as_i64() == Some(v) => {}
                    (None, Value::Null) => {}
                    (open, got) => self.fail(
                        &at,
                        format!("version {got} of {u}; the open document's is {open:?}"),
                    ),
                }
                self.target_exists(u, &created, &at);
                match op["edits"].as_array() {
                    Some(edits) => {
                        for (j, t) in edits.iter().enumerate() {
                            self.text_edit(t, &format!("{at}.edits[{j}]"));
                        }
                    }
                    None => self.fail(&at, "no edits array"),
                }
            }
        } else {
            if !e["documentChanges"].is_null() {
                self.fail(at, "documentChanges to a client without them");
            }
            let Some(changes) = e["changes"].as_object() else {
                self.fail(at, format!("no changes object: {e}"));
                return;
            };
            for (u, edits) in changes {
                let at = format!("{at}.changes[{u}]");
                self.target_exists(u, made, &at);
                for (j, t) in edits.as_array().into_iter().flatten().enumerate() {
                    self.text_edit(t, &format!("{at}[{j}]"));
                    if !t["annotationId"].is_null() {
                        self.fail(&at, "an annotated edit in `changes`");
                    }
                }
            }
        }
        if let Some(anns) = e["changeAnnotations"].as_object() {
            if !self.client.annotations() {
                self.fail(at, "changeAnnotations without changeAnnotationSupport");
            }
            for (id, a) in anns {
                let at = format!("{at}.changeAnnotations[{id}]");
                self.string(&a["label"], &format!("{at}.label"));
                self.opt_bool(&a["needsConfirmation"], &format!("{at}.needsConfirmation"));
                self.opt_string(&a["description"], &format!("{at}.description"));
            }
        }
    }

    fn command(&mut self, c: &Value, at: &str) {
        self.only_keys(c, &["title", "command", "arguments", "tooltip"], at);
        self.string(&c["title"], &format!("{at}.title"));
        self.string(&c["command"], &format!("{at}.command"));
        if !c["arguments"].is_null() && !c["arguments"].is_array() {
            self.fail(at, "arguments is not an array");
        }
        if c["command"] == "vox.applyEdit" {
            let made: Vec<String> = c["arguments"][0]["create"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|u| u.as_str().map(String::from))
                .collect();
            self.workspace_edit_after(
                &c["arguments"][0]["edit"],
                &format!("{at}.arguments[0].edit"),
                &made,
            );
        }
    }

    fn diagnostic(&mut self, d: &Value, at: &str) {
        self.only_keys(
            d,
            &[
                "range",
                "severity",
                "code",
                "codeDescription",
                "source",
                "message",
                "tags",
                "relatedInformation",
                "data",
            ],
            at,
        );
        self.range(&d["range"], &format!("{at}.range"));
        self.string(&d["message"], &format!("{at}.message"));
        self.opt_string(&d["source"], &format!("{at}.source"));
        if !d["severity"].is_null() && !(1..=4).contains(&d["severity"].as_u64().unwrap_or(0)) {
            self.fail(at, format!("severity {}", d["severity"]));
        }
        if !(d["code"].is_null() || d["code"].is_string() || d["code"].is_i64()) {
            self.fail(at, format!("code {}", d["code"]));
        }
        if !d["codeDescription"].is_null() {
            self.string(
                &d["codeDescription"]["href"],
                &format!("{at}.codeDescription.href"),
            );
        }
        if let Some(rel) = d["relatedInformation"].as_array() {
            for (i, r) in rel.iter().enumerate() {
                let at = format!("{at}.relatedInformation[{i}]");
                self.string(&r["location"]["uri"], &format!("{at}.location.uri"));
                self.range(&r["location"]["range"], &format!("{at}.location.range"));
                self.string(&r["message"], &format!("{at}.message"));
            }
        }
    }

    fn code_action(&mut self, a: &Value, at: &str) {
        if !self.client.literals() {
            // A Command: `command` is a string (a CodeAction's would be an object).
            self.command(a, at);
            return;
        }
        self.only_keys(
            a,
            &[
                "title",
                "kind",
                "diagnostics",
                "isPreferred",
                "disabled",
                "edit",
                "command",
                "data",
            ],
            at,
        );
        self.string(&a["title"], &format!("{at}.title"));
        self.opt_string(&a["kind"], &format!("{at}.kind"));
        if !a["isPreferred"].is_null() {
            if !self
                .client
                .flag("/textDocument/codeAction/isPreferredSupport")
            {
                self.fail(at, "isPreferred without isPreferredSupport");
            }
            self.opt_bool(&a["isPreferred"], &format!("{at}.isPreferred"));
        }
        if !a["disabled"].is_null() && !self.client.flag("/textDocument/codeAction/disabledSupport")
        {
            self.fail(at, "disabled without disabledSupport");
        }
        if !a["data"].is_null() && !self.client.resolves_edits() {
            self.fail(at, "data for a client that does not resolve");
        }
        if let Some(ds) = a["diagnostics"].as_array() {
            for (i, d) in ds.iter().enumerate() {
                self.diagnostic(d, &format!("{at}.diagnostics[{i}]"));
            }
        }
        if !a["edit"].is_null() {
            self.workspace_edit(&a["edit"], &format!("{at}.edit"));
        } else if a["command"].is_null() && !self.client.resolves_edits() {
            self.fail(at, "neither an edit nor a command");
        }
        if !a["command"].is_null() {
            self.command(&a["command"], &format!("{at}.command"));
        }
    }
}

fn check_initialize(c: &mut Check, r: &Value) {
    let caps = &r["capabilities"];
    if !caps.is_object() {
        c.fail("initialize", "no capabilities object");
        return;
    }
    c.string(&r["serverInfo"]["name"], "serverInfo.name");
    c.opt_string(&r["serverInfo"]["version"], "serverInfo.version");
    let offered = c.client.formats("/general/positionEncodings");
    let enc = caps["positionEncoding"]
        .as_str()
        .unwrap_or("utf-16")
        .to_string();
    let offered = if c.client.get("/general/positionEncodings").is_null() {
        vec!["utf-16".to_string()]
    } else {
        offered
    };
    if !offered.contains(&enc) {
        c.fail(
            "positionEncoding",
            format!("{enc} was not offered ({offered:?})"),
        );
    }
    // Every provider is a boolean or options.
    for (k, v) in caps.as_object().unwrap() {
        if k.ends_with("Provider") && !(v.is_boolean() || v.is_object()) {
            c.fail(k, format!("neither a boolean nor options: {v}"));
        }
    }
    let sync = &caps["textDocumentSync"];
    if sync.is_object() {
        c.opt_bool(&sync["openClose"], "textDocumentSync.openClose");
        if !(0..=2).contains(&sync["change"].as_u64().unwrap_or(9)) {
            c.fail("textDocumentSync.change", format!("{}", sync["change"]));
        }
    } else if !(0..=2).contains(&sync.as_u64().unwrap_or(9)) {
        c.fail("textDocumentSync", format!("{sync}"));
    }
    // Options only where the client may get them (LSP 3.17: CodeActionOptions only with
    // codeActionLiteralSupport, RenameOptions only with prepareSupport).
    let ca = &caps["codeActionProvider"];
    if ca.is_object() && !c.client.literals() {
        c.fail(
            "codeActionProvider",
            "options for a client without codeActionLiteralSupport",
        );
    }
    if let Some(kinds) = ca.get("codeActionKinds") {
        if !kinds
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string))
        {
            c.fail("codeActionProvider.codeActionKinds", format!("{kinds}"));
        }
    }
    let rename = &caps["renameProvider"];
    if rename.is_object() && !c.client.flag("/textDocument/rename/prepareSupport") {
        c.fail(
            "renameProvider",
            "options for a client without prepareSupport",
        );
    }
    if rename.is_object() {
        c.opt_bool(&rename["prepareProvider"], "renameProvider.prepareProvider");
    }
    let st = &caps["semanticTokensProvider"];
    for list in ["tokenTypes", "tokenModifiers"] {
        if !st["legend"][list]
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string))
        {
            c.fail(
                "semanticTokensProvider.legend",
                format!("{list}: {}", st["legend"]),
            );
        }
    }
    if !(st["full"].is_boolean() || st["full"].is_object()) {
        c.fail("semanticTokensProvider.full", format!("{}", st["full"]));
    }
    let diag = &caps["diagnosticProvider"];
    match (c.client.pull(), diag.is_null()) {
        (true, true) => c.fail("diagnosticProvider", "missing for a pull client"),
        (false, false) => c.fail(
            "diagnosticProvider",
            "for a client without textDocument.diagnostic",
        ),
        (true, false) => {
            if !(diag["interFileDependencies"].is_boolean()
                && diag["workspaceDiagnostics"].is_boolean())
            {
                c.fail("diagnosticProvider", format!("{diag}"));
            }
            c.opt_string(&diag["identifier"], "diagnosticProvider.identifier");
        }
        (false, true) => {}
    }
    if caps["workspace"]["workspaceFolders"]
        != json!({"supported": true, "changeNotifications": true})
    {
        c.fail(
            "workspace.workspaceFolders",
            format!("{}", caps["workspace"]["workspaceFolders"]),
        );
    }
    if !caps["executeCommandProvider"]["commands"]
        .as_array()
        .is_some_and(|a| a.iter().all(Value::is_string))
    {
        c.fail("executeCommandProvider.commands", "not an array of strings");
    }
}

fn check_hover(c: &mut Check, h: &Value) {
    if h.is_null() {
        c.fail("hover", "no hover on env.get");
        return;
    }
    c.only_keys(h, &["contents", "range"], "hover");
    // MarkupContent (MarkedString is deprecated).
    let formats = c.client.formats("/textDocument/hover/contentFormat");
    c.markup(&h["contents"], &formats, "hover.contents");
    if !h["range"].is_null() {
        c.range(&h["range"], "hover.range");
    }
}

fn check_completion(c: &mut Check, r: &Value) {
    let items = match r {
        Value::Array(a) => a.clone(),
        Value::Object(o) => {
            if !o.get("isIncomplete").is_some_and(Value::is_boolean) {
                c.fail("completion", "a CompletionList without isIncomplete");
            }
            o.get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        }
        _ => {
            c.fail("completion", format!("neither a list nor an array: {r}"));
            return;
        }
    };
    if items.is_empty() {
        c.fail("completion", "no items after `env.`");
    }
    let formats = c
        .client
        .formats("/textDocument/completion/completionItem/documentationFormat");
    let snippets = c
        .client
        .flag("/textDocument/completion/completionItem/snippetSupport");
    for (i, it) in items.iter().enumerate() {
        let at = format!("completion[{i}]");
        c.string(&it["label"], &format!("{at}.label"));
        if !it["kind"].is_null() && !(1..=25).contains(&it["kind"].as_u64().unwrap_or(0)) {
            c.fail(&at, format!("kind {}", it["kind"]));
        }
        c.opt_string(&it["detail"], &format!("{at}.detail"));
        match &it["documentation"] {
            Value::Null | Value::String(_) => {}
            d => c.markup(d, &formats, &format!("{at}.documentation")),
        }
        match it["insertTextFormat"].as_u64() {
            None | Some(1) => {}
            Some(2) if snippets => {}
            Some(f) => c.fail(&at, format!("insertTextFormat {f} without snippetSupport")),
        }
        if !it["textEdit"].is_null() {
            if it["textEdit"]["insert"].is_object()
                && !c
                    .client
                    .flag("/textDocument/completion/completionItem/insertReplaceSupport")
            {
                c.fail(&at, "an InsertReplaceEdit without insertReplaceSupport");
            } else if it["textEdit"]["range"].is_object() {
                c.text_edit(&it["textEdit"], &format!("{at}.textEdit"));
            }
        }
        if !it["labelDetails"].is_null()
            && !c
                .client
                .flag("/textDocument/completion/completionItem/labelDetailsSupport")
        {
            c.fail(&at, "labelDetails without labelDetailsSupport");
        }
    }
}

/// Semantic tokens: five integers per token, types and modifiers within the legend, and for a
/// client without multiline or overlapping token support, none crossing a line end or another.
fn check_tokens(c: &mut Check, r: &Value, legend: &Value, text: &str) {
    c.only_keys(r, &["data", "resultId"], "semanticTokens");
    c.opt_string(&r["resultId"], "semanticTokens.resultId");
    let Some(data) = r["data"].as_array() else {
        c.fail("semanticTokens", "no data array");
        return;
    };
    if data.is_empty() || data.len() % 5 != 0 || !data.iter().all(is_uint) {
        c.fail("semanticTokens.data", format!("{} integers", data.len()));
        return;
    }
    let n_types = legend["tokenTypes"].as_array().map_or(0, Vec::len) as u64;
    let n_mods = legend["tokenModifiers"].as_array().map_or(0, Vec::len) as u32;
    let lines: Vec<usize> = text.split('\n').map(|l| l.encode_utf16().count()).collect();
    let (mut line, mut start, mut prev_end) = (0u64, 0u64, 0u64);
    for (i, t) in data.chunks(5).enumerate() {
        let v: Vec<u64> = t.iter().map(|x| x.as_u64().unwrap()).collect();
        if v[0] > 0 {
            line += v[0];
            start = v[1];
            prev_end = 0;
        } else {
            start += v[1];
        }
        let at = format!("semanticTokens[{i}]");
        if v[3] >= n_types {
            c.fail(&at, format!("type {} outside the legend", v[3]));
        }
        if n_mods < 64 && v[4] >> n_mods != 0 {
            c.fail(&at, format!("modifiers {:#b} outside the legend", v[4]));
        }
        let len = lines.get(line as usize).copied().unwrap_or(0) as u64;
        if start + v[2] > len
            && !c
                .client
                .flag("/textDocument/semanticTokens/multilineTokenSupport")
        {
            c.fail(&at, format!("crosses the end of line {line}"));
        }
        if start < prev_end
            && !c
                .client
                .flag("/textDocument/semanticTokens/overlappingTokenSupport")
        {
            c.fail(&at, "overlaps the previous token");
        }
        prev_end = start + v[2];
    }
}

struct Ws {
    _dir: TempDir,
    _other: TempDir,
    root: PathBuf,
    other: PathBuf,
    main: PathBuf,
    lib: PathBuf,
}

fn workspace() -> Ws {
    let dir = TempDir::new("conformance");
    dir.write("Vox.toml", TOML);
    let lib = dir.write("lib.vox", LIB);
    let main = dir.write("main.vox", MAIN);
    // A first folder whose configuration would hide C001 if it were used for main.vox.
    let other = TempDir::new("conformance-first");
    other.write("Vox.toml", "[lint]\nignore = [\"C001\", \"D001\"]\n");
    other.write("x.vox", "fn main() {\n}\n");
    Ws {
        root: dir.0.clone(),
        other: other.0.clone(),
        main,
        lib,
        _dir: dir,
        _other: other,
    }
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .filter_map(|d| d["code"].as_str().map(String::from))
        .collect()
}

fn conformance(name: &str) {
    let client = Client::new(name);
    let ws = workspace();
    // The multi-root client has the scripts in its second folder.
    let mut lsp = if name == "multi-root" {
        Lsp::start_folders(&ws.root, name, &[&ws.other, &ws.root])
    } else {
        Lsp::start(&ws.root, name)
    };
    let mut c = Check {
        client: &client,
        open: HashMap::new(),
        errors: Vec::new(),
    };
    let init = lsp.init_result.clone();
    check_initialize(&mut c, &init);

    lsp.open(&ws.main, MAIN);
    c.open.insert(uri(&ws.main), 1);

    // Diagnostics: pulled by a pull client (and never pushed for scripts), else pushed.
    let diags = if client.pull() {
        let r = lsp
            .request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": uri(&ws.main)}}),
            )
            .unwrap();
        c.only_keys(
            &r,
            &["kind", "resultId", "items", "relatedDocuments"],
            "diagnostic",
        );
        if r["kind"] != "full" {
            c.fail("diagnostic.kind", format!("{}", r["kind"]));
        }
        c.opt_string(&r["resultId"], "diagnostic.resultId");
        r["items"].as_array().cloned().unwrap_or_default()
    } else {
        lsp.pushed(&ws.main)
    };
    for (i, d) in diags.iter().enumerate() {
        c.diagnostic(d, &format!("diagnostics[{i}]"));
    }
    let found = codes(&diags);
    if !(found.contains(&"C001".to_string()) && found.contains(&"D001".to_string())) {
        c.fail(
            "diagnostics",
            format!("C001 and D001 expected (main.vox's own Vox.toml): {found:?}"),
        );
    }

    // Hover on `get` of env.get.
    let h = lsp
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&ws.main)}, "position": {"line": 6, "character": 15}}),
        )
        .unwrap();
    check_hover(&mut c, &h);

    // Completion after `env.`.
    let r = lsp
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri(&ws.main)}, "position": {"line": 6, "character": 14}}),
        )
        .unwrap();
    check_completion(&mut c, &r);

    // Code actions at the C001 line and at the D001 line: their own shapes, and the edits
    // `codeAction/resolve` computes for a client that resolves.
    let mut titles = Vec::new();
    for line in [6, 4] {
        let r = lsp
            .request(
                "textDocument/codeAction",
                json!({
                    "textDocument": {"uri": uri(&ws.main)},
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 40}},
                    "context": {"diagnostics": []},
                }),
            )
            .unwrap();
        let Some(all) = r.as_array() else {
            c.fail("codeAction", format!("not an array: {r}"));
            continue;
        };
        for (i, a) in all.iter().enumerate() {
            let at = format!("codeAction(line {line})[{i}] {}", a["title"]);
            c.code_action(a, &at);
            titles.extend(a["title"].as_str().map(String::from));
            if client.literals() && a["edit"].is_null() && !a["data"].is_null() {
                let resolved = lsp.request("codeAction/resolve", a.clone()).unwrap();
                c.code_action(&resolved, &format!("{at} resolved"));
                if resolved["edit"].is_null() {
                    c.fail(&at, "resolved without an edit");
                }
            }
        }
    }
    let launch = "Run with inferred capabilities: add to .vscode/launch.json";
    let to_toml = "Run with inferred capabilities: add to Vox.toml";
    if !titles.iter().any(|t| t == to_toml) {
        c.fail(
            "codeAction",
            format!("no {to_toml:?} (Vox.toml exists): {titles:?}"),
        );
    }
    // .vscode/launch.json does not exist: offered to every client, with a `CreateFile` to one
    // that can create files, else as `vox.applyEdit` creating it on the server's side first
    // (the edits are checked above: none of a missing file).
    if !titles.iter().any(|t| t == launch) {
        c.fail("codeAction", format!("{launch:?} not offered: {titles:?}"));
    }

    // Rename `stamp` (defined in lib.vox, which is not open) from main.vox.
    let e = lsp
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(&ws.main)}, "position": {"line": 5, "character": 16}, "newName": "label"}),
        )
        .unwrap();
    c.workspace_edit(&e, "rename");
    let touched: Vec<String> = if client.document_changes() {
        e["documentChanges"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["textDocument"]["uri"].as_str().map(String::from))
            .collect()
    } else {
        e["changes"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys().cloned())
            .collect()
    };
    let mut touched = touched;
    touched.sort();
    let mut want = vec![uri(&ws.lib), uri(&ws.main)];
    want.sort();
    if touched != want {
        c.fail("rename", format!("edits {touched:?}, want {want:?}"));
    }

    // Semantic tokens.
    let r = lsp
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": uri(&ws.main)}}),
        )
        .unwrap();
    let legend = init["capabilities"]["semanticTokensProvider"]["legend"].clone();
    check_tokens(&mut c, &r, &legend, MAIN);

    assert_eq!(lsp.shutdown(), Some(0));
    assert!(
        c.errors.is_empty(),
        "{name}: {} violations of LSP 3.17:\n{}",
        c.errors.len(),
        c.errors.join("\n")
    );
}

#[test]
fn plaintext_only_client() {
    conformance("plaintext");
}

#[test]
fn client_without_code_action_literals() {
    conformance("no-literals");
}

#[test]
fn client_without_document_changes_or_pull() {
    conformance("push-only");
}

#[test]
fn pull_only_client_with_several_folders_and_no_file_creation() {
    conformance("multi-root");
}

#[test]
fn vscode() {
    conformance("vscode");
}

#[test]
fn neovim() {
    conformance("neovim");
}

/// The fixtures exist and the helpers read them (a typo in a pointer would make every check
/// vacuous).
#[test]
fn the_client_fixtures_say_what_the_checks_assume() {
    let strict: Vec<(String, bool, bool, bool, bool)> =
        ["plaintext", "no-literals", "push-only", "multi-root"]
            .iter()
            .map(|n| {
                let c = Client::new(n);
                (
                    n.to_string(),
                    c.literals(),
                    c.document_changes(),
                    c.pull(),
                    c.resource_op("create"),
                )
            })
            .collect();
    assert_eq!(
        strict,
        [
            ("plaintext".into(), true, false, false, false),
            ("no-literals".into(), false, false, false, false),
            ("push-only".into(), true, false, false, false),
            ("multi-root".into(), true, true, true, false),
        ]
    );
    assert_eq!(
        Client::new("plaintext").formats("/textDocument/hover/contentFormat"),
        ["plaintext"]
    );
}
