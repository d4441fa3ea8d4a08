//! The state of one run that builtins with effects need: the capability set, the working
//! directory, quotas and ceilings, output streams, the clock and the random stream.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use vox_caps::{Access, CapSet, Need, RandomGrant, TimeGrant};

use crate::exc::{CeilingKind, Exc, QuotaKind, Res};

/// How the capability set was chosen (runtime.md §1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CapsSource {
    /// `--caps` flags.
    Flags,
    /// A run configuration (`Vox.toml`, tasks.json, launch.json), by name.
    Config(String),
    /// The legacy `// vox:caps` directive.
    Legacy,
    /// Nothing given: everything granted.
    DeveloperDefault,
}

/// Limits of one run; `None` means unlimited.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_steps: Option<u64>,
    pub max_depth: Option<u64>,
    pub max_memory: Option<u64>,
    pub max_disk: Option<u64>,
    pub max_files: Option<u64>,
    pub max_output: Option<u64>,
    pub timeout_secs: Option<u64>,
}

/// Where script output goes: the real streams, or buffers (tests, `vox test`).
pub enum Sink {
    Std,
    Buffer(Vec<u8>),
}

pub struct RunContext {
    pub caps: CapSet,
    pub source: CapsSource,
    pub limits: Limits,
    pub cwd: PathBuf,
    /// `env.args()`: the script path as given, then the user arguments.
    pub args: Vec<String>,
    /// Variables set with `env.set`, in order (also passed to children, decisions.md 26).
    pub env_overrides: Vec<(String, String)>,
    pub rng_state: u64,
    pub started: Instant,
    pub deadline: Option<Instant>,
    pub disk_used: u64,
    pub files_created: u64,
    pub output_used: u64,
    pub stdout: Sink,
    pub stderr: Sink,
    stdout_buf: Vec<u8>,
    last_flush: Instant,
    /// Commands queued by `process.register_exit_command`.
    pub exit_commands: Vec<(String, Vec<String>)>,
    /// `--caps-audit FILE`: one JSON line per capability check.
    pub audit: Option<std::fs::File>,
    /// `--perturb SEED`: a second stream that reorders what the language leaves open.
    pub perturb: Option<u64>,
    pub unconfined_children: bool,
    pub mesh: bool,
    pub verbose: bool,
    /// The script location of the builtin call being made, for audit lines and events: (file,
    /// line, column). Kept only when [`RunContext::wants_call_site`].
    pub call_site: Option<(String, u32, u32)>,
    /// `--error-format json`: vox's own lines during the run (a child's refusal explained) are
    /// JSON events at the call, as the terminal ones are.
    pub json_events: bool,
    /// The private temp dir jailed children get as `TMPDIR` (runtime.md §4), created by the
    /// first jailed spawn and removed when the run ends.
    pub child_tmp: Option<vox_jail::TempDir>,
    /// Whether this run started a child (so there may be processes to end with it).
    pub children_started: bool,
    /// Pids of this run's `process.spawn_background` children: the only processes that outlive
    /// a normal end (decision 48).
    pub background: Vec<u32>,
    /// Background children of earlier runs in this process (`vox test` runs each test in a
    /// fresh context): never ended by this run.
    pub spared: Vec<u32>,
    /// The run's end of the line of every keeper that may still have processes
    /// ([`vox_jail::lifetime::guard`]): held until the keeper is reaped or the run ends, so that
    /// the death of the interpreter ends their trees.
    pub lines: Vec<vox_jail::lifetime::Line>,
    /// The run is over and its exit commands are running: an interruption no longer stops a
    /// child.
    pub ending: bool,
}

impl RunContext {
    pub fn new(caps: CapSet, source: CapsSource, cwd: PathBuf, args: Vec<String>) -> RunContext {
        let rng_state = match caps.random() {
            RandomGrant::Seed(s) => s,
            _ => entropy_seed(),
        };
        RunContext {
            caps,
            source,
            limits: Limits::default(),
            cwd,
            args,
            env_overrides: Vec::new(),
            rng_state,
            started: Instant::now(),
            deadline: None,
            disk_used: 0,
            files_created: 0,
            output_used: 0,
            stdout: Sink::Std,
            stderr: Sink::Std,
            stdout_buf: Vec::with_capacity(8192),
            last_flush: Instant::now(),
            exit_commands: Vec::new(),
            audit: None,
            perturb: None,
            unconfined_children: false,
            mesh: false,
            verbose: false,
            call_site: None,
            json_events: false,
            child_tmp: None,
            children_started: false,
            background: Vec::new(),
            spared: Vec::new(),
            lines: Vec::new(),
            ending: false,
        }
    }

    /// A context for unit tests: developer default caps, buffered output, seed 0.
    pub fn for_tests() -> RunContext {
        let mut c = RunContext::new(
            CapSet::developer_default(),
            CapsSource::DeveloperDefault,
            PathBuf::from("."),
            vec![],
        );
        c.stdout = Sink::Buffer(Vec::new());
        c.stderr = Sink::Buffer(Vec::new());
        c.rng_state = 0;
        c
    }

    /// Whether the capability set was imposed by the receiver (flags, configuration, mesh):
    /// then children are jailed (decisions.md 16).
    pub fn receiver_imposed(&self) -> bool {
        matches!(self.source, CapsSource::Flags | CapsSource::Config(_))
    }

    /// SplitMix64 (voxscript.md §5.7).
    pub fn next_random(&mut self) -> u64 {
        self.rng_state = self.rng_state.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.rng_state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }

    // ---- the gate -----------------------------------------------------------------------------

    /// The choke point for every non-filesystem capability.
    pub fn gate(&mut self, what: &str, need: Need) -> Res<()> {
        let result = vox_caps::check(&self.caps, need);
        self.audit_line(what, None, result.is_ok());
        match result {
            Ok(()) => Ok(()),
            Err(d) => Err(Exc::Denied {
                what: what.to_string(),
                token: d.remedy(),
                loc: None,
            }),
        }
    }

    /// The choke point for the filesystem: checks `path` for `access` and returns the resolved
    /// path the operation must use.
    pub fn fs_path(&mut self, what: &str, path: &str, access: Access) -> Res<PathBuf> {
        let result = vox_caps::check_path(&self.caps, Path::new(path), access, &self.cwd);
        match result {
            Ok(resolved) => {
                let p = resolved.into_path();
                self.audit_line(what, Some(&p), true);
                Ok(p)
            }
            Err(d) => {
                let shown = d
                    .resource()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from(path));
                self.audit_line(what, Some(&shown), false);
                Err(Exc::Denied {
                    what: what.to_string(),
                    token: d.remedy(),
                    loc: None,
                })
            }
        }
    }

    /// Before removing the tree at an already checked `path`: a read-only root or an `fs:none=`
    /// path beneath it would go with it.
    pub fn fs_remove_tree(&mut self, what: &str, path: &Path) -> Res<()> {
        let result = vox_caps::check_remove_tree(&self.caps, path);
        self.audit_line(what, Some(path), result.is_ok());
        result.map_err(|d| Exc::Denied {
            what: what.to_string(),
            token: d.remedy(),
            loc: None,
        })
    }

    /// Any filesystem grant at all (`fs.cwd()` needs one, but no path check).
    pub fn fs_any(&mut self, what: &str) -> Res<()> {
        let ok = self.caps.fs_any();
        self.audit_line(what, None, ok);
        if ok {
            Ok(())
        } else {
            let dir = self.cwd.display().to_string();
            Err(Exc::Denied {
                what: what.to_string(),
                token: format!("grant with --caps fs:ro={dir}"),
                loc: None,
            })
        }
    }

    fn audit_line(&mut self, what: &str, resource: Option<&Path>, allowed: bool) {
        let Some(file) = self.audit.as_mut() else {
            return;
        };
        let (ns, method) = what.split_once('.').unwrap_or(("", what));
        let mut obj = serde_json::Map::new();
        obj.insert("ns".into(), ns.into());
        obj.insert("method".into(), method.into());
        obj.insert(
            "resource".into(),
            resource.map_or(serde_json::Value::Null, |p| p.display().to_string().into()),
        );
        obj.insert("allowed".into(), allowed.into());
        // The filesystem rule that decided (`fs:rw=…`, the `fs:ro=…` or `fs:none=…` inside it).
        if let Some(rule) = resource.and_then(|p| self.caps.fs_rule_for(p)) {
            obj.insert("rule".into(), rule.into());
        }
        if let Some((f, l, c)) = &self.call_site {
            obj.insert("file".into(), f.clone().into());
            obj.insert("line".into(), (*l).into());
            obj.insert("column".into(), (*c).into());
        }
        let _ = writeln!(file, "{}", serde_json::Value::Object(obj));
    }

    // ---- time ---------------------------------------------------------------------------------

    /// The clock when it is frozen: by a `time:frozen=<ms>` grant, else by `--perturb SEED` at a
    /// value derived from the seed (decisions.md 27). `None` for the real clock.
    fn frozen_ms(&self) -> Option<i64> {
        match self.caps.time() {
            TimeGrant::Frozen(ms) => Some(ms as i64),
            _ => self.perturb.map(crate::perturb::clock_ms),
        }
    }

    pub fn now_ms(&mut self) -> i64 {
        self.frozen_ms().unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64)
        })
    }

    pub fn monotonic_ms(&mut self) -> i64 {
        self.frozen_ms()
            .unwrap_or_else(|| self.started.elapsed().as_millis() as i64)
    }

    // ---- quotas and output ---------------------------------------------------------------------

    /// Counts `bytes` about to be written by `fs.*`/`io.save` against `--max-disk`.
    pub fn charge_disk(&mut self, bytes: u64) -> Res<()> {
        if let Some(max) = self.limits.max_disk {
            if self.disk_used.saturating_add(bytes) > max {
                return Err(Exc::Quota {
                    kind: QuotaKind::Disk,
                    hint: "raise --max-disk".into(),
                    loc: None,
                });
            }
        }
        self.disk_used += bytes;
        Ok(())
    }

    /// Counts files or directories about to be created against `--max-files`.
    pub fn charge_files(&mut self, n: u64) -> Res<()> {
        if let Some(max) = self.limits.max_files {
            if self.files_created.saturating_add(n) > max {
                return Err(Exc::Quota {
                    kind: QuotaKind::Files,
                    hint: "raise --max-files".into(),
                    loc: None,
                });
            }
        }
        self.files_created += n;
        Ok(())
    }

    fn charge_output(&mut self, n: usize) -> Res<()> {
        if let Some(max) = self.limits.max_output {
            if self.output_used.saturating_add(n as u64) > max {
                // The write that crosses the limit is dropped whole (decisions.md 23).
                return Err(Exc::Ceiling {
                    kind: CeilingKind::Output,
                    limit: max,
                    loc: None,
                });
            }
        }
        self.output_used += n as u64;
        Ok(())
    }

    pub fn write_stdout(&mut self, text: &str) -> Res<()> {
        self.charge_output(text.len())?;
        match &mut self.stdout {
            Sink::Std => {
                self.stdout_buf.extend_from_slice(text.as_bytes());
                if self.stdout_buf.len() >= 8192 {
                    self.flush_stdout();
                } else {
                    self.flush_if_stale();
                }
            }
            Sink::Buffer(b) => b.extend_from_slice(text.as_bytes()),
        }
        Ok(())
    }

    pub fn write_stderr(&mut self, text: &str) -> Res<()> {
        self.charge_output(text.len())?;
        // Keep program order between the two streams.
        self.flush_stdout();
        match &mut self.stderr {
            Sink::Std => {
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            Sink::Buffer(b) => b.extend_from_slice(text.as_bytes()),
        }
        Ok(())
    }

    /// Whether builtin calls record their location (`call_site`): for audit lines and JSON events.
    pub fn wants_call_site(&self) -> bool {
        self.audit.is_some() || self.json_events
    }

    /// A line of vox's own on stderr, as a JSON event of `kind` at the current call under
    /// `--error-format json` (with `extra` fields such as the token that would grant it), else
    /// as the plain line.
    pub fn notice_event(&mut self, kind: &str, line: &str, extra: &[(&str, String)]) {
        if !self.json_events {
            return self.notice(line);
        }
        let text = event_json(kind, line, self.call_site.as_ref(), extra).to_string();
        self.notice(&text);
    }

    /// A line of vox's own on stderr (not the script's output, so not counted by
    /// `--max-output`), after what the script printed so far.
    pub fn notice(&mut self, line: &str) {
        self.flush_stdout();
        match &mut self.stderr {
            Sink::Std => {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
            Sink::Buffer(b) => {
                b.extend_from_slice(line.as_bytes());
                b.push(b'\n');
            }
        }
    }

    /// Bytes a child wrote to a stream that vox counts under `--max-output` (`run_ex`, `exec`,
    /// exit commands): charged like script output (a chunk that crosses the limit is dropped
    /// whole), then passed on at once.
    pub fn write_child_output(&mut self, to_stderr: bool, bytes: &[u8]) -> Res<()> {
        self.charge_output(bytes.len())?;
        self.flush_stdout();
        let sink = if to_stderr {
            &mut self.stderr
        } else {
            &mut self.stdout
        };
        match sink {
            Sink::Std if to_stderr => {
                let _ = std::io::stderr().write_all(bytes);
            }
            Sink::Std => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(bytes);
                let _ = out.flush();
            }
            Sink::Buffer(b) => b.extend_from_slice(bytes),
        }
        Ok(())
    }

    /// Flushes buffered output that has waited 50 ms or more, so a long run (or an editor
    /// streaming it) shows progress without a write per line.
    pub fn flush_if_stale(&mut self) {
        if !self.stdout_buf.is_empty()
            && self.last_flush.elapsed() >= std::time::Duration::from_millis(50)
        {
            self.flush_stdout();
        }
    }

    /// Flushes script output (before `process.*` calls and at exit, voxscript.md §4.11).
    pub fn flush_stdout(&mut self) {
        self.last_flush = Instant::now();
        if !self.stdout_buf.is_empty() {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(&self.stdout_buf);
            let _ = out.flush();
            self.stdout_buf.clear();
        }
    }

    /// Output captured in buffer sinks: (stdout, stderr).
    pub fn captured(&self) -> (String, String) {
        let text = |s: &Sink| match s {
            Sink::Buffer(b) => String::from_utf8_lossy(b).into_owned(),
            Sink::Std => String::new(),
        };
        (text(&self.stdout), text(&self.stderr))
    }

    /// The environment variable as the script sees it: `env.set` values first.
    pub fn env_var(&self, name: &str) -> Option<String> {
        if let Some((_, v)) = self.env_overrides.iter().rev().find(|(k, _)| k == name) {
            return Some(v.clone());
        }
        std::env::var(name).ok()
    }
}

fn entropy_seed() -> u64 {
    let mut buf = [0u8; 8];
    // One system call; the file below for kernels without it.
    // SAFETY: the kernel writes at most `buf.len()` bytes into `buf`.
    let got = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if got == buf.len() as isize {
        return u64::from_le_bytes(buf);
    }
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        if f.read_exact(&mut buf).is_ok() {
            return u64::from_le_bytes(buf);
        }
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ (std::process::id() as u64).rotate_left(32)
}

impl Drop for RunContext {
    fn drop(&mut self) {
        self.flush_stdout();
    }
}

/// The signal that interrupted the run (0: none yet).
static INTERRUPTED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(sig, std::sync::atomic::Ordering::Relaxed);
}

/// Installs SIGINT/SIGTERM handlers that ask the run to stop: the evaluator checks every 1024
/// steps, a wait for a child every 100 ms; the run then ends its processes and exits 130, after
/// the exit commands.
pub fn install_interrupt_handlers() {
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// Whether SIGINT or SIGTERM arrived.
pub fn interrupted() -> bool {
    interrupt_signal().is_some()
}

/// The signal (SIGINT or SIGTERM) that interrupted the run, if one arrived.
pub fn interrupt_signal() -> Option<i32> {
    match INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed) {
        0 => None,
        sig => Some(sig),
    }
}

/// One `--error-format json` event (docs/schemas/error-event.schema.json): `kind`, `message`,
/// the script place (`file`, `line`, `column`, null when unknown) and `extra` fields. The CLI's
/// terminal events and the run's own lines (a child's refusal) are written with it.
pub fn event_json(
    kind: &str,
    message: &str,
    place: Option<&(String, u32, u32)>,
    extra: &[(&str, String)],
) -> serde_json::Value {
    let mut obj = serde_json::Map::new();
    obj.insert("kind".into(), kind.into());
    obj.insert("message".into(), message.into());
    let (file, line, column) = match place {
        Some((f, l, c)) => (f.clone().into(), (*l).into(), (*c).into()),
        None => Default::default(),
    };
    obj.insert("file".into(), file);
    obj.insert("line".into(), line);
    obj.insert("column".into(), column);
    for (k, v) in extra {
        obj.insert((*k).into(), v.clone().into());
    }
    serde_json::Value::Object(obj)
}
