//! Running scripts from the editor (decision 41): `workspace/executeCommand` `vox.run`,
//! `vox.runTest`, `vox.stop`, `vox.showCaps`. A run is a child `vox run` (this executable), so
//! it is the CLI's interpreter with the CLI's ceilings: with the run configuration's caps and
//! ceilings, or the inferred caps when there is none (never "allow all"). Output streams as
//! `vox/runOutput`; the end is `vox/runExit`. Both also go to `window/logMessage` in whole
//! lines, and `vox.showCaps` also answers with `window/showMessage`, for clients that know no
//! `vox/*` notification (decision 54). The child runs in its own process group, so
//! `vox.stop` reaches it and whatever it started (the child also kills its descendants on
//! SIGTERM, decision 48); its parent-death signal is SIGKILL, so it dies with the server, and its
//! keepers then end what it started (decision 55). Its `--error-format json` events become diagnostics at the line.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use vox_caps::config::{ConfigKind, RunConfig};

use crate::base::{internal, invalid_params, lock};
use crate::convert;
use crate::run_registry::RunDiagnostic;
use crate::session::inferred_tokens;
use crate::session::path_of;
use crate::session::Snapshot;
use crate::state::{Backend, Shared};

/// How a run is started.
pub(crate) struct Plan {
    pub(crate) args: Vec<String>,
    pub(crate) cwd: PathBuf,
    pub(crate) config: Option<RunConfig>,
    pub(crate) caps: Vec<String>,
}

pub(crate) fn arg_obj(params: &ExecuteCommandParams) -> Result<&serde_json::Map<String, Value>> {
    params
        .arguments
        .first()
        .and_then(Value::as_object)
        .ok_or_else(|| invalid_params(format!("{} expects one object argument", params.command)))
}

/// The optional `"config"` argument: a run configuration's name, or absent/null. Any other type
/// is refused (decision 54: never a run with a default the user did not ask for).
pub(crate) fn arg_config(obj: &serde_json::Map<String, Value>) -> Result<Option<String>> {
    match obj.get("config") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid_params(format!(
            "\"config\" must be the name of a run configuration (a string), not {other}"
        ))),
    }
}

pub(crate) fn arg_path(obj: &serde_json::Map<String, Value>) -> Result<PathBuf> {
    let uri = obj
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_params("missing \"uri\""))?;
    let uri: Uri = uri
        .parse()
        .map_err(|_| invalid_params(format!("invalid uri {uri:?}")))?;
    path_of(&uri).ok_or_else(|| invalid_params("the uri is not a file"))
}

/// A run refused before it started: the line `vox run` prints, as the error of the command.
fn refused(message: String) -> Error {
    Error {
        code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
        message: message.into(),
        data: None,
    }
}

pub(crate) fn plan(
    snap: &Snapshot,
    path: &Path,
    config: Option<&str>,
    test: Option<&str>,
) -> Result<Plan> {
    let runs = snap.info.runs_for(path);
    // An entry of `.vscode/tasks.json` or `launch.json` is the editor's own; `vox run` reads
    // `Vox.toml` only.
    let editor_entry = |name: Option<&str>| {
        runs.iter()
            .find(|r| r.origin.kind != ConfigKind::VoxToml && name.is_none_or(|n| r.name == n))
            .map(|r| (*r).clone())
    };
    // Decision 54: `Vox.toml` is resolved by the code `vox run` uses, from the disk it reads
    // (the script's directory and its parents). An invalid one refuses the run with the CLI's
    // message, never falling back to the inferred capabilities.
    let chosen: Option<RunConfig> = match config {
        Some(name) => match editor_entry(Some(name)) {
            Some(c) => Some(c),
            None => vox_caps::config::resolve_run(path, Some(name)).map_err(refused)?,
        },
        None => match vox_caps::config::resolve_run(path, None).map_err(refused)? {
            Some(c) => Some(c),
            None => editor_entry(None),
        },
    };
    if let Some(c) = &chosen {
        let tokens = vox_caps::config::run_tokens(c).map_err(refused)?;
        vox_caps::CapSet::from_tokens(&tokens).map_err(|e| refused(e.render()))?;
    }
    let mut args = vec![
        if test.is_some() { "test" } else { "run" }.to_string(),
        "--error-format".into(),
        "json".into(),
    ];
    let (cwd, caps) = match &chosen {
        Some(c) => {
            let caps = c.caps.clone().unwrap_or_default();
            if c.origin.kind == ConfigKind::VoxToml && test.is_none() {
                args.push("--config".into());
                args.push(c.name.clone());
            } else {
                push_caps(&mut args, &caps);
                for (k, v) in &c.ceilings {
                    args.push(format!("--{k}"));
                    args.push(v.clone());
                }
            }
            (c.cwd.clone(), caps)
        }
        // Neither open nor in the workspace (issue 36 item 16): read from disk and run as
        // `vox run FILE` would, from the script's directory; a missing file says so.
        None if snap.file(path).is_none() => {
            if !path.is_file() {
                return Err(invalid_params(format!(
                    "{}: not found (no such file, and no open document)",
                    path.display()
                )));
            }
            let cwd = path
                .parent()
                .map_or_else(|| snap.root.clone(), Path::to_path_buf);
            (cwd, Vec::new())
        }
        None => {
            let cwd = snap.root.clone();
            let tokens = inferred_tokens(snap, path, &cwd).ok_or_else(|| {
                invalid_params("the script has syntax errors; fix them before running it")
            })?;
            let caps: Vec<String> = tokens.tokens.into_iter().map(|t| t.token).collect();
            push_caps(&mut args, &caps);
            for (k, v) in &snap.settings.run_ceilings {
                args.push(format!("--{k}"));
                args.push(v.clone());
            }
            (cwd, caps)
        }
    };
    args.push(path.to_string_lossy().into_owned());
    if let Some(t) = test {
        args.push("--test".into());
        args.push(t.to_string());
    } else if let Some(c) = &chosen {
        if c.origin.kind != ConfigKind::VoxToml && !c.args.is_empty() {
            args.push("--".into());
            args.extend(c.args.iter().cloned());
        }
    }
    Ok(Plan {
        args,
        cwd,
        config: chosen,
        caps,
    })
}

fn push_caps(args: &mut Vec<String>, caps: &[String]) {
    if caps.is_empty() {
        args.push("--caps".into());
        args.push("none".into());
    }
    for c in caps {
        args.push("--caps".into());
        args.push(c.clone());
    }
}

/// What a code action becomes for a client without `codeActionLiteralSupport` (issue 36): a
/// `vox.applyEdit` command carrying its edit and, when the action has one, the command to run
/// after it; an action with a command only is that command.
pub(crate) fn as_command(a: CodeAction) -> Option<Command> {
    match (a.edit, a.command) {
        (None, command) => command,
        (Some(edit), then) => Some(Command {
            title: a.title,
            command: APPLY_EDIT.into(),
            arguments: Some(vec![json!({"edit": edit, "then": then})]),
        }),
    }
}

/// The command that applies a code action's edit for a client without code-action literals.
pub const APPLY_EDIT: &str = "vox.applyEdit";

/// The child `vox ARGS` (this executable) in `cwd`, in its own process group, stdin closed; the
/// caller sets stdout and stderr. Spawn it from a runtime worker (see below).
pub(crate) fn child_command(args: &[String], cwd: &Path) -> Result<tokio::process::Command> {
    let exe = std::env::current_exe()
        .map_err(|e| internal(format!("cannot find the vox executable: {e}")))?;
    let mut cmd = tokio::process::Command::new(exe);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .process_group(0)
        .kill_on_drop(false);
    // The run dies with the server (decision 55): its parent-death signal is SIGKILL, and its
    // keepers then end what it started (vox_jail::lifetime). The signal is tied to the thread
    // that spawns, a runtime worker (or the thread serving the protocol), which lives as long
    // as the server. SIGKILL rather than SIGTERM: a run stuck outside its signal checks still
    // ends.
    // The server runs without transparent huge pages (`vox lsp`, see cli/src/memory.rs), which
    // a child inherits: a run gets the kernel's default back, as from a shell.
    // SAFETY: getpid before the fork; the hook makes syscalls (prctl, getppid) and _exit.
    let server = unsafe { libc::getpid() };
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // A failure (an old kernel) leaves the setting as it was: harmless.
            libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
            // Only the standard streams pass on: descriptors the editor left open without
            // close-on-exec do not reach the run (CLOSE_RANGE_CLOEXEC, Linux 5.11; the run's
            // own children get only theirs in any case, vox_jail::lifetime).
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 4u32);
            // The server died between the fork and the prctl: nothing would end this run.
            if libc::getppid() != server {
                libc::_exit(137);
            }
            Ok(())
        });
    }
    Ok(cmd)
}

/// Spawns the run and the task that streams it; returns its id.
pub(crate) fn start(backend: &Backend, script: PathBuf, plan: Plan) -> Result<u64> {
    let mut cmd = child_command(&plan.args, &plan.cwd)?;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| internal(format!("cannot start vox run: {e}")))?;
    let shared = backend.shared.clone();
    let id = shared.runs.next.fetch_add(1, Ordering::SeqCst) + 1;
    let pgid = child.id().map_or(0, |p| p as i32);
    lock(&shared.runs.active).insert(id, pgid);
    let client = backend.client.clone();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let backend_shared = backend.shared.clone();
    let refresh = Arc::new(backend.refresher());
    let work_done = backend.caps().work_done_progress;
    tokio::spawn(async move {
        let token = NumberOrString::String(format!("vox-run-{id}"));
        let progress = if work_done {
            // A client that never answers must not hold the run's output back.
            let create = client.send_request::<request::WorkDoneProgressCreate>(
                WorkDoneProgressCreateParams {
                    token: token.clone(),
                },
            );
            let ok = matches!(
                tokio::time::timeout(std::time::Duration::from_secs(2), create).await,
                Ok(Ok(()))
            );
            if ok {
                let title = script
                    .file_name()
                    .map_or("script".into(), |n| n.to_string_lossy().into_owned());
                client
                    .send_notification::<notification::Progress>(ProgressParams {
                        token: token.clone(),
                        value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(
                            WorkDoneProgressBegin {
                                title: format!("vox run {title}"),
                                cancellable: Some(false),
                                message: None,
                                percentage: None,
                            },
                        )),
                    })
                    .await;
            }
            ok
        } else {
            false
        };
        log(&client, MessageType::INFO, start_line(id, &script, &plan)).await;
        let c1 = client.clone();
        let out_task = tokio::spawn(async move {
            if let Some(mut out) = stdout {
                let mut lines = LogLines::default();
                stream(&mut out, |text| {
                    let c = c1.clone();
                    let whole = lines.push(&text);
                    async move {
                        send_output(&c, id, "stdout", text).await;
                        if let Some(whole) = whole {
                            log(&c, MessageType::LOG, whole).await;
                        }
                    }
                })
                .await;
                if let Some(rest) = lines.finish() {
                    log(&c1, MessageType::LOG, rest).await;
                }
            }
        });
        let c2 = client.clone();
        let err_task = tokio::spawn(async move {
            let mut events = Vec::new();
            if let Some(mut err) = stderr {
                let mut pending = String::new();
                let mut buf = vec![0u8; 16 << 10];
                let mut carry: Vec<u8> = Vec::new();
                loop {
                    let n = match err.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    carry.extend_from_slice(&buf[..n]);
                    let text = take_utf8(&mut carry);
                    pending.push_str(&text);
                    while let Some(nl) = pending.find('\n') {
                        let line: String = pending.drain(..=nl).collect();
                        match event_of(line.trim_end()) {
                            Some(ev) => {
                                let msg = ev
                                    .get("message")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_string();
                                send_output(&c2, id, "stderr", format!("{msg}\n")).await;
                                log(&c2, MessageType::LOG, msg).await;
                                events.push(ev);
                            }
                            None => {
                                let shown = line.trim_end_matches(['\n', '\r']).to_string();
                                send_output(&c2, id, "stderr", line).await;
                                log(&c2, MessageType::LOG, shown).await;
                            }
                        }
                    }
                }
                if !carry.is_empty() {
                    pending.push_str(&String::from_utf8_lossy(&carry));
                }
                if !pending.is_empty() {
                    send_output(&c2, id, "stderr", pending.clone()).await;
                    log(&c2, MessageType::LOG, pending).await;
                }
            }
            events
        });
        let status = child.wait().await;
        // Background children the script left may hold the pipes: do not wait for them long.
        let grace = std::time::Duration::from_millis(500);
        let _ = tokio::time::timeout(grace, out_task).await;
        let events = match tokio::time::timeout(grace, err_task).await {
            Ok(Ok(ev)) => ev,
            _ => Vec::new(),
        };
        lock(&shared.runs.active).remove(&id);
        let code = match status {
            Ok(s) => {
                use std::os::unix::process::ExitStatusExt;
                s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
            }
            Err(_) => -1,
        };
        if progress {
            client
                .send_notification::<notification::Progress>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(
                        WorkDoneProgressEnd {
                            message: Some(format!("exit {code}")),
                        },
                    )),
                })
                .await;
        }
        // Diagnostics of this run replace those of the script's last run.
        let mut touched = vec![script.clone()];
        let diags = run_diagnostics(&refresh, &events, &plan);
        {
            let mut all = lock(&backend_shared.run_diags);
            let old: Vec<PathBuf> = all
                .iter()
                .filter(|(_, v)| v.iter().any(|d| d.config_script() == script))
                .map(|(p, _)| p.clone())
                .collect();
            for p in old {
                all.remove(&p);
                touched.push(p);
            }
            for (p, d) in diags {
                let mut d = d;
                d.cwd = plan.cwd.clone();
                all.entry(p.clone()).or_default().push(d);
                touched.push(p);
            }
        }
        touched.sort();
        touched.dedup();
        client
            .send_notification::<RunExit>(json!({ "runId": id, "code": code }))
            .await;
        log(
            &client,
            MessageType::INFO,
            format!("vox {} {id} ended: exit {code}", run_kind(&plan)),
        )
        .await;
        for p in touched {
            refresh.refresh(p);
        }
    });
    Ok(id)
}

/// Bytes that form complete UTF-8 characters, leaving an incomplete tail in `carry`.
fn take_utf8(carry: &mut Vec<u8>) -> String {
    let valid = match std::str::from_utf8(carry) {
        Ok(_) => carry.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => carry.len(),
    };
    let rest = carry.split_off(valid);
    let text = String::from_utf8_lossy(carry).into_owned();
    *carry = rest;
    text
}

async fn stream<R, F, Fut>(r: &mut R, mut send: F)
where
    R: tokio::io::AsyncRead + Unpin,
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut buf = vec![0u8; 16 << 10];
    let mut carry = Vec::new();
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        carry.extend_from_slice(&buf[..n]);
        let text = take_utf8(&mut carry);
        if !text.is_empty() {
            send(text).await;
        }
    }
    if !carry.is_empty() {
        send(String::from_utf8_lossy(&carry).into_owned()).await;
    }
}

/// `vox/runOutput`.
pub enum RunOutput {}
impl notification::Notification for RunOutput {
    type Params = Value;
    const METHOD: &'static str = "vox/runOutput";
}

/// `vox/runExit`.
pub enum RunExit {}
impl notification::Notification for RunExit {
    type Params = Value;
    const METHOD: &'static str = "vox/runExit";
}

async fn send_output(client: &tower_lsp_server::Client, id: u64, stream: &str, text: String) {
    client
        .send_notification::<RunOutput>(json!({ "runId": id, "stream": stream, "text": text }))
        .await;
}

/// Run output as `window/logMessage` too (decision 54), so a client that knows no `vox/*`
/// notification (Emacs eglot, Helix, Zed) shows it in its log.
async fn log(client: &tower_lsp_server::Client, typ: MessageType, text: String) {
    client.log_message(typ, text).await;
}

/// The line that opens a run's log: what runs, and with which capabilities.
fn start_line(id: u64, script: &Path, plan: &Plan) -> String {
    let name = script
        .file_name()
        .map_or_else(|| script.to_string_lossy(), |n| n.to_string_lossy());
    let what = run_kind(plan);
    let caps = if plan.caps.is_empty() {
        "none".to_string()
    } else {
        plan.caps.join(" ")
    };
    let from = match &plan.config {
        Some(c) => format!(
            "run configuration `{}` ({})",
            c.name,
            c.origin.kind.file_name()
        ),
        None => "the inferred capabilities".to_string(),
    };
    format!("vox {what} {id}: {name} with {from}: --caps {caps}")
}

/// `run` or `test`, as the log names a run.
fn run_kind(plan: &Plan) -> &'static str {
    if plan.args.first().is_some_and(|a| a == "test") {
        "test"
    } else {
        "run"
    }
}

/// Run output cut into whole lines for the log: a line split between two reads of the pipe
/// is logged once, whole.
#[derive(Default)]
struct LogLines(String);

impl LogLines {
    /// The complete lines so far (without their last newline); keeps the incomplete rest.
    fn push(&mut self, text: &str) -> Option<String> {
        self.0.push_str(text);
        let end = self.0.rfind('\n')?;
        let mut whole: String = self.0.drain(..=end).collect();
        whole.pop();
        if whole.ends_with('\r') {
            whole.pop();
        }
        Some(whole)
    }

    /// What is left after the last newline.
    fn finish(self) -> Option<String> {
        (!self.0.is_empty()).then_some(self.0)
    }
}

/// A line of `--error-format json` output (docs/schemas/error-event.schema.json).
fn event_of(line: &str) -> Option<Value> {
    if !line.starts_with('{') {
        return None;
    }
    let v: Value = serde_json::from_str(line).ok()?;
    let kind = v.get("kind")?.as_str()?;
    let known = kind == "caps.denied"
        || kind == "jail.refused"
        || kind.starts_with("ceiling.")
        || kind.starts_with("quota.")
        || matches!(kind, "runtime.error" | "panic" | "syntax.error");
    (known && v.get("message").is_some()).then_some(v)
}

/// Where diagnostics are re-published after a run.
pub struct Refresher {
    pub(crate) backend_client: tower_lsp_server::Client,
    pub(crate) shared: Arc<Shared>,
}

impl Backend {
    fn refresher(&self) -> Refresher {
        Refresher {
            backend_client: self.client.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl Refresher {
    fn refresh(&self, path: PathBuf) {
        let b = Backend {
            client: self.backend_client.clone(),
            shared: self.shared.clone(),
        };
        b.refresh_file(path);
    }

    fn rope(&self, path: &Path) -> ropey::Rope {
        let guard = lock(&self.shared.session);
        match guard.as_ref().map(|w| w.for_path(path)) {
            Some(s) => match s.docs.get(path) {
                Some(d) => d.rope.clone(),
                None => match s.files.get(path) {
                    Some(f) => convert::rope_of(&f.text(&s.db).get()),
                    None => std::fs::read(path)
                        .map_or_else(|_| ropey::Rope::new(), |b| convert::rope_of(&b)),
                },
            },
            None => ropey::Rope::new(),
        }
    }

    fn encoding(&self) -> convert::Encoding {
        lock(&self.shared.session)
            .as_ref()
            .map_or(convert::Encoding::Utf16, |w| w.first().encoding)
    }
}

/// The end of the expression that starts at `offset`: the innermost call (or name) there.
fn expression_end(rope: &ropey::Rope, offset: usize) -> usize {
    let text = crate::session::rope_bytes(rope);
    let tree = vox_syntax::parse(&text);
    let Some(tok) = tree.token_at_offset(offset as u32) else {
        return offset;
    };
    let mut best = tok.range().end as usize;
    let mut node = Some(tok.parent());
    while let Some(n) = node {
        let r = n.range();
        if r.start as usize != offset {
            // A call whose callee starts here: `fs.read("x")` starts at `fs`.
            if !matches!(n.kind(), vox_syntax::SyntaxKind::FieldExpr) {
                break;
            }
        }
        if matches!(
            n.kind(),
            vox_syntax::SyntaxKind::CallExpr
                | vox_syntax::SyntaxKind::FieldExpr
                | vox_syntax::SyntaxKind::NameRef
        ) && r.start as usize == offset
        {
            best = r.end as usize;
        }
        node = n.parent();
    }
    best.max(offset)
}

/// `fs:ro=/abs/dir` as run configurations write it: relative to the run's directory when
/// beneath it (decision 35).
fn relative_token(token: &str, cwd: &Path) -> String {
    for prefix in ["fs:ro=", "fs:rw="] {
        if let Some(dir) = token.strip_prefix(prefix) {
            let p = Path::new(dir);
            if p.is_absolute() {
                let cwd_c = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
                let p_c = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
                return format!("{prefix}{}", vox_analysis::show_dir(&p_c, &cwd_c));
            }
        }
    }
    token.to_string()
}

fn run_diagnostics(
    refresh: &Refresher,
    events: &[Value],
    plan: &Plan,
) -> Vec<(PathBuf, RunDiagnostic)> {
    let enc = refresh.encoding();
    let mut out = Vec::new();
    let script = plan
        .args
        .iter()
        .rev()
        .find(|a| a.ends_with(".vox"))
        .cloned()
        .unwrap_or_default();
    for ev in events {
        let kind = ev
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let message = ev.get("message").and_then(Value::as_str).unwrap_or("");
        let message = message.strip_prefix("vox: ").unwrap_or(message).to_string();
        let file = ev.get("file").and_then(Value::as_str).map(|f| {
            let p = Path::new(f);
            if p.is_absolute() {
                crate::session::clean(p)
            } else {
                crate::session::clean(&plan.cwd.join(p))
            }
        });
        let Some(file) = file.or_else(|| Some(PathBuf::from(&script))) else {
            continue;
        };
        let line = ev.get("line").and_then(Value::as_u64).unwrap_or(1) as u32;
        let column = ev.get("column").and_then(Value::as_u64).unwrap_or(1) as u32;
        let rope = refresh.rope(&file);
        let start = convert::offset_of_line_col(&rope, line, column);
        let end = expression_end(&rope, start);
        let range = Range::new(
            convert::position(&rope, enc, start as u32),
            convert::position(&rope, enc, end as u32),
        );
        let token = ev
            .get("token")
            .and_then(Value::as_str)
            .filter(|t| vox_caps::parse_token(t, &plan.cwd).is_ok())
            .map(|t| relative_token(t, &plan.cwd));
        let ceiling = kind.strip_prefix("ceiling.").and_then(|_| {
            let mut words = message.rsplit(' ');
            let limit = words.next()?.to_string();
            let flag = words.next()?.strip_prefix("--")?.to_string();
            Some((flag, limit))
        });
        let severity = DiagnosticSeverity::ERROR;
        let diagnostic = Diagnostic {
            range,
            severity: Some(severity),
            code: Some(NumberOrString::String(kind.clone())),
            source: Some("vox run".into()),
            message,
            data: Some(json!({ "script": script })),
            ..Diagnostic::default()
        };
        out.push((
            file,
            RunDiagnostic {
                diagnostic,
                token,
                ceiling,
                config: plan.config.clone(),
                caps: plan.caps.clone(),
                cwd: plan.cwd.clone(),
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::LogLines;

    #[test]
    fn log_lines_are_whole() {
        let mut l = LogLines::default();
        assert_eq!(l.push("one\ntw"), Some("one".to_string()));
        assert_eq!(l.push("o\r"), None);
        assert_eq!(l.push("\n"), Some("two".to_string()));
        assert_eq!(l.push("three\nfour\n"), Some("three\nfour".to_string()));
        assert_eq!(l.push("tail"), None);
        assert_eq!(l.finish(), Some("tail".to_string()));
        assert_eq!(LogLines::default().finish(), None);
    }
}
