//! A JSON-RPC client for protocol tests: drives the built `vox lsp` over stdio, replaying the
//! `initialize` capabilities of real clients (tests/lsp/clients/*.json), answers the server's
//! requests as those clients do, and applies workspace edits to text the way an editor does.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(30);

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `initialize` params of a client fixture (`vscode`, `neovim`, `push-only`).
pub fn client_fixture(name: &str) -> Value {
    let p = repo()
        .join("tests/lsp/clients")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

pub fn uri(path: &Path) -> String {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

pub fn path_of(uri: &str) -> PathBuf {
    let rest = uri.strip_prefix("file://").unwrap();
    let bytes = rest.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let h = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(h, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    PathBuf::from(String::from_utf8(out).unwrap())
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

pub struct Lsp {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received and not yet consumed, in order.
    pub notes: VecDeque<Value>,
    /// Requests the server sent us (method, params), in order.
    pub server_requests: Vec<(String, Value)>,
    pub client: String,
    pub pull: bool,
    pub utf8: bool,
    /// The result of `initialize`.
    pub init_result: Value,
    versions: std::collections::HashMap<String, i64>,
    closed: bool,
}

impl Lsp {
    /// Starts `vox lsp` in `root` and initializes it with the fixture's capabilities.
    pub fn start(root: &Path, client: &str) -> Lsp {
        Self::start_with(root, client, Value::Null)
    }

    pub fn start_with(root: &Path, client: &str, init_options: Value) -> Lsp {
        Self::start_env(root, client, init_options, &[])
    }

    /// [`Lsp::start_with`] with extra environment variables for the server.
    pub fn start_env(root: &Path, client: &str, init_options: Value, env: &[(&str, &str)]) -> Lsp {
        Self::start_in(root, client, &[root], init_options, env)
    }

    /// Starts `vox lsp` in `cwd` and initializes it naming the workspace `folders` (the first
    /// is also `rootUri`).
    pub fn start_folders(cwd: &Path, client: &str, folders: &[&Path]) -> Lsp {
        Self::start_in(cwd, client, folders, Value::Null, &[])
    }

    fn start_in(
        cwd: &Path,
        client: &str,
        folders: &[&Path],
        init_options: Value,
        env: &[(&str, &str)],
    ) -> Lsp {
        let mut lsp = Self::spawn_env(cwd, env);
        lsp.client = client.to_string();
        let mut params = client_fixture(client);
        let obj = params.as_object_mut().unwrap();
        obj.remove("comment");
        obj.insert("processId".into(), json!(std::process::id()));
        obj.insert("rootUri".into(), json!(uri(folders[0])));
        let named: Vec<Value> = folders
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let name = if i == 0 {
                    "ws".to_string()
                } else {
                    format!("ws{i}")
                };
                json!({"uri": uri(f), "name": name})
            })
            .collect();
        obj.insert("workspaceFolders".into(), Value::Array(named));
        if !init_options.is_null() {
            obj.insert("initializationOptions".into(), init_options);
        }
        lsp.pull = params["capabilities"]["textDocument"]["diagnostic"].is_object();
        let result = lsp.request("initialize", params).expect("initialize");
        lsp.utf8 = result["capabilities"]["positionEncoding"] == "utf-8";
        lsp.init_result = result;
        lsp.notify("initialized", json!({}));
        lsp
    }

    pub fn spawn(root: &Path) -> Lsp {
        Self::spawn_env(root, &[])
    }

    pub fn spawn_env(root: &Path, env: &[(&str, &str)]) -> Lsp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vox"))
            .arg("lsp")
            .env("VOX_LSP_DEBUG", "1")
            .envs(env.iter().copied())
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        len = v.trim().parse::<usize>().ok();
                    }
                }
                let mut body = vec![0u8; len.unwrap()];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body).unwrap();
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Lsp {
            child,
            stdin,
            rx,
            next_id: 0,
            notes: VecDeque::new(),
            server_requests: Vec::new(),
            client: String::new(),
            pull: false,
            utf8: false,
            init_result: Value::Null,
            versions: Default::default(),
            closed: false,
        }
    }

    pub fn send(&mut self, v: &Value) {
        self.send_raw(&frame(v.to_string().as_bytes()));
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Answers a request from the server as an editor would.
    fn answer(&mut self, msg: &Value) {
        let method = msg["method"].as_str().unwrap_or("").to_string();
        self.server_requests
            .push((method.clone(), msg["params"].clone()));
        let result = match method.as_str() {
            "window/showDocument" => json!({"success": true}),
            "workspace/applyEdit" => json!({"applied": true}),
            "workspace/configuration" => json!([null]),
            _ => Value::Null,
        };
        let id = msg["id"].clone();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// The next message, answering server requests on the way.
    fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => {
                    if msg.get("method").is_some() && msg.get("id").is_some() {
                        self.answer(&msg);
                        continue;
                    }
                    return Some(msg);
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    return None
                }
            }
        }
    }

    /// Sends a request and waits for its response: `Ok(result)` or `Err(error)`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(json!(id))
    }

    pub fn response(&mut self, id: Value) -> Result<Value, Value> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = self
                .next_message(deadline)
                .unwrap_or_else(|| panic!("no response to request {id}"));
            if msg.get("method").is_some() {
                self.notes.push_back(msg);
                continue;
            }
            if msg["id"] == id {
                return match msg.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(msg["result"].clone()),
                };
            }
        }
    }

    /// Waits for a message (response with a null id, or notification) matching `pred`.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.notes.iter().position(&pred) {
            return self.notes.remove(i).unwrap();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = self
                .next_message(deadline)
                .unwrap_or_else(|| panic!("timed out waiting for {what}"));
            if pred(&msg) {
                return msg;
            }
            self.notes.push_back(msg);
        }
    }

    /// Whether a message matching `pred` arrives within `wait`.
    pub fn maybe(&mut self, wait: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(i) = self.notes.iter().position(&pred) {
            return self.notes.remove(i);
        }
        let deadline = Instant::now() + wait;
        while let Some(msg) = self.next_message(deadline) {
            if pred(&msg) {
                return Some(msg);
            }
            self.notes.push_back(msg);
        }
        None
    }

    pub fn open(&mut self, path: &Path, text: &str) {
        let u = uri(path);
        self.versions.insert(u.clone(), 1);
        let lang = if path.extension().is_some_and(|e| e == "vox") {
            "voxscript"
        } else if path.extension().is_some_and(|e| e == "toml") {
            "toml"
        } else {
            "jsonc"
        };
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": lang, "version": 1, "text": text}}),
        );
    }

    pub fn open_file(&mut self, path: &Path) {
        let text = std::fs::read_to_string(path).unwrap();
        self.open(path, &text);
    }

    pub fn close(&mut self, path: &Path) {
        self.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri(path)}}),
        );
    }

    /// Sends a change (`range` None: the whole text); returns the new version.
    pub fn change(&mut self, path: &Path, range: Option<Value>, text: &str) -> i64 {
        let u = uri(path);
        let v = self.versions.entry(u.clone()).or_insert(1);
        *v += 1;
        let version = *v;
        let change = match range {
            Some(r) => json!({"range": r, "text": text}),
            None => json!({"text": text}),
        };
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [change]}),
        );
        version
    }

    /// The diagnostics of an open file now: pulled, or the next push for it.
    pub fn diagnostics(&mut self, path: &Path) -> Vec<Value> {
        let u = uri(path);
        if self.pull {
            let r = self
                .request(
                    "textDocument/diagnostic",
                    json!({"textDocument": {"uri": u}}),
                )
                .expect("diagnostic pull");
            assert_eq!(r["kind"], "full");
            return r["items"].as_array().unwrap().clone();
        }
        self.pushed(path)
    }

    /// The latest push for `path` (waiting for one if none arrived since the last call).
    pub fn pushed(&mut self, path: &Path) -> Vec<Value> {
        let u = uri(path);
        let is_it =
            |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u;
        let mut last = self.wait_for("publishDiagnostics", is_it);
        // Take the newest one queued.
        while let Some(m) = self.maybe(Duration::from_millis(300), is_it) {
            last = m;
        }
        last["params"]["diagnostics"].as_array().unwrap().clone()
    }

    pub fn shutdown(&mut self) -> Option<i32> {
        if self.closed {
            return None;
        }
        self.closed = true;
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the server with SIGKILL (it runs no code of its own any more) and reaps it.
    pub fn kill_server(&mut self) {
        self.closed = true;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes the server's stdin without `shutdown` or `exit`; returns its exit code once it
    /// ended (bounded: `None` if it did not within ten seconds).
    pub fn close_stdin(&mut self) -> Option<i32> {
        self.closed = true;
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        if !self.closed {
            self.closed = true;
            if self.stdin.is_some() && self.is_alive() {
                let _ = self.send_raw_nopanic();
            }
            drop(self.stdin.take());
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Lsp {
    fn send_raw_nopanic(&mut self) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().unwrap();
        let a = frame(br#"{"jsonrpc":"2.0","id":999999,"method":"shutdown"}"#);
        let b = frame(br#"{"jsonrpc":"2.0","method":"exit"}"#);
        stdin.write_all(&a)?;
        stdin.write_all(&b)?;
        stdin.flush()
    }
}

/// An LSP position.
pub fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

/// `TextDocumentPositionParams` for `path` at a position.
pub fn at(path: &Path, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri(path)}, "position": pos(line, character)})
}

/// The text of the hover at a position ("" when there is none).
pub fn hover_text(lsp: &mut Lsp, path: &Path, line: u32, ch: u32) -> String {
    let h = lsp
        .request("textDocument/hover", at(path, line, ch))
        .unwrap();
    h["contents"]["value"].as_str().unwrap_or("").to_string()
}

/// The byte offset of an LSP position in `text` (UTF-8 or UTF-16 columns).
pub fn offset(text: &str, pos: &Value, utf8: bool) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let col = pos["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line_text = &text[start..end];
    if utf8 {
        return start + col.min(line_text.len());
    }
    let mut units = 0;
    for (i, c) in line_text.char_indices() {
        if units >= col {
            return start + i;
        }
        units += c.len_utf16();
    }
    end
}

/// Applies a list of TextEdits to `text`.
pub fn apply_edits(text: &str, edits: &[Value], utf8: bool) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let a = offset(text, &e["range"]["start"], utf8);
            let b = offset(text, &e["range"]["end"], utf8);
            (a, b, e["newText"].as_str().unwrap().to_string())
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
    let mut out = text.to_string();
    for (a, b, t) in spans {
        out.replace_range(a..b, &t);
    }
    out
}

/// Applies a WorkspaceEdit to the files on disk (creating files for `CreateFile`), as an editor
/// does; returns the paths changed.
pub fn apply_workspace_edit(edit: &Value, utf8: bool) -> Vec<PathBuf> {
    let mut changed = Vec::new();
    let mut apply = |uri: &str, edits: &[Value]| {
        let p = path_of(uri);
        let old = std::fs::read_to_string(&p).unwrap_or_default();
        let new = apply_edits(&old, edits, utf8);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&p, new).unwrap();
        changed.push(p);
    };
    if let Some(changes) = edit["changes"].as_object() {
        for (u, edits) in changes {
            apply(u, edits.as_array().unwrap());
        }
    }
    if let Some(ops) = edit["documentChanges"].as_array() {
        for op in ops {
            match op["kind"].as_str() {
                Some("create") => {
                    let p = path_of(op["uri"].as_str().unwrap());
                    if let Some(d) = p.parent() {
                        std::fs::create_dir_all(d).unwrap();
                    }
                    if !p.exists() {
                        std::fs::write(&p, "").unwrap();
                    }
                }
                Some(other) => panic!("unexpected resource operation {other}"),
                None => {
                    let u = op["textDocument"]["uri"].as_str().unwrap();
                    apply(u, op["edits"].as_array().unwrap());
                }
            }
        }
    }
    changed
}

/// A fresh temporary workspace directory (removed on drop).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("vox-lsp-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        // Canonical, as the server sees paths.
        TempDir(p.canonicalize().unwrap())
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Lsp {
    /// The edit of a code action: its own, or (sent without one, for a client that resolves)
    /// the one `codeAction/resolve` computes for it.
    pub fn action_edit(&mut self, action: &Value) -> Value {
        if !action["edit"].is_null() {
            return action["edit"].clone();
        }
        let r = self
            .request("codeAction/resolve", action.clone())
            .unwrap_or_else(|e| panic!("codeAction/resolve of {action}: {e}"));
        assert!(!r["edit"].is_null(), "resolved without an edit: {r}");
        r["edit"].clone()
    }
}

/// The edits of `uri` in a WorkspaceEdit sent as `documentChanges` (to a client that supports
/// them; `changes` is then absent), with the version it names (null for a file not open).
pub fn document_edits(edit: &Value, uri: &str) -> (Value, Vec<Value>) {
    assert!(edit.get("changes").is_none(), "both forms: {edit}");
    let ops = edit["documentChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("no documentChanges: {edit}"));
    let op = ops
        .iter()
        .find(|o| o["textDocument"]["uri"] == uri)
        .unwrap_or_else(|| panic!("no edit of {uri}: {edit}"));
    (
        op["textDocument"]["version"].clone(),
        op["edits"].as_array().unwrap().clone(),
    )
}
