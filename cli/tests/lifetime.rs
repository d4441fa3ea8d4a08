//! Run lifetime (decision 48; runtime.md §2 `--timeout`, §5 `--mesh`, `vox test`): no process a
//! run started outlives it once it is stopped, and after a normal end only its
//! `process.spawn_background` children (which stay jailed) do.
//!
//! Decision 55: the same holds when `vox` itself is killed with SIGKILL.
//!
//! Each hostile case runs a script whose first child (`tests/lifetime/survivors.sh`) starts six
//! processes that try to outlive the run — `setsid`, a double fork, `nohup … &`, a daemonising
//! Python program, a process that ignores SIGTERM and a `( … ) &` subshell — and returns once all
//! six are running (each wrote `out/started-KIND`). When the run is to be stopped while it waits,
//! it then waits on a second child (`tests/lifetime/holder.sh`) that leaves a `setsid` grandchild
//! holding the captured stdout pipe (`pipe`), so the script is stopped inside the drain of that
//! pipe. Each survivor writes `out/late-KIND` [`DELAY`] after it started. The run then ends in
//! one of the ways under test; once `vox` has returned, the test asserts that no process whose
//! working directory is the case's directory is alive (a bounded wait: the keepers end their
//! trees when they see `vox` gone), then waits past [`DELAY`] and asserts that no `late-` file
//! appeared. Nothing here times `vox` itself beyond checking that it returned before the
//! survivors were due (otherwise the case would prove nothing).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long each survivor sleeps before writing its `late-` marker.
const DELAY: Duration = Duration::from_millis(2500);
/// How long past [`DELAY`] (counted from the start of `vox`) the test watches for late writes.
const WATCH: Duration = Duration::from_millis(1000);
const KINDS: [&str; 6] = ["setsid", "double", "nohup", "python", "noterm", "subshell"];
/// System directories only, so `python3` is the system one (readable inside the jail).
const SAFE_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum End {
    /// `--timeout 1` while the script waits for `sleep 30`.
    Timeout,
    /// SIGTERM to `vox` while the script waits for `sleep 30`.
    Sigterm,
    /// SIGINT to `vox` likewise.
    Sigint,
    /// SIGKILL to `vox` likewise: nothing in `vox` runs any more (decision 55).
    Sigkill,
    /// `--max-steps` while the script spins.
    Steps,
    /// The script returns.
    Normal,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Runner {
    Run,
    Test,
}

#[derive(Clone, Copy, Debug)]
struct Case {
    end: End,
    runner: Runner,
    mesh: bool,
    /// Receiver-imposed capabilities (the jail); otherwise the developer default.
    jailed: bool,
}

impl Case {
    fn name(&self) -> String {
        format!(
            "{:?}-{:?}{}{}",
            self.runner,
            self.end,
            if self.mesh { "-mesh" } else { "" },
            if self.jailed { "" } else { "-default" }
        )
        .to_lowercase()
    }

    /// `spawn_background` is denied under `--mesh`.
    fn background(&self) -> bool {
        !self.mesh
    }

    fn stopped(&self) -> bool {
        self.end != End::Normal
    }

    /// Whether the run is stopped while it waits for a child (so the pipe holder runs too).
    fn waits(&self) -> bool {
        matches!(
            self.end,
            End::Timeout | End::Sigterm | End::Sigint | End::Sigkill
        )
    }

    /// The survivors this case starts.
    fn kinds(&self) -> Vec<&'static str> {
        let mut k = KINDS.to_vec();
        if self.waits() {
            k.push("pipe");
        }
        k
    }

    fn signal(&self) -> Option<i32> {
        match self.end {
            End::Sigterm => Some(libc::SIGTERM),
            End::Sigint => Some(libc::SIGINT),
            End::Sigkill => Some(libc::SIGKILL),
            _ => None,
        }
    }
}

/// `<tmp>/vox-lifetime-NAME-PID/` with `tools/` (the survivors), `out/` (the fs:rw root) and
/// `outside/` (no grant).
fn world(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vox-lifetime-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["tools", "out", "outside"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lifetime");
    for f in ["survivors.sh", "daemon.py", "holder.sh"] {
        std::fs::copy(src.join(f), dir.join("tools").join(f)).unwrap();
    }
    dir
}

/// The statements of the hostile script.
fn body(case: &Case) -> String {
    let secs = DELAY.as_secs_f64();
    let mut s = format!(
        "let started = process.run_capture(\"bash\", [\"tools/survivors.sh\", \"{secs}\", \"out\"])\n\
         print(started)\n"
    );
    if case.background() {
        // Survives a normal end with what it started, and stays jailed.
        s.push_str(&format!(
            "process.spawn_background(\"sh\", [\"-c\", \"(sleep {secs}; echo > out/bg-grandchild) & \
             sleep {secs}; echo alive > out/bg-alive; echo pwned > outside/bg-pwned\"])\n"
        ));
    }
    if case.waits() {
        // Waits for the pipe its grandchild holds (under --mesh that grandchild is killed when
        // the call's child ends, and the script goes on to `sleep 30`).
        s.push_str(&format!(
            "process.run(\"bash\", [\"tools/holder.sh\", \"{secs}\", \"out\"])\n"
        ));
    }
    s.push_str(match case.end {
        End::Timeout | End::Sigterm | End::Sigint | End::Sigkill => {
            "process.run(\"sleep\", [\"30\"])\nprint(\"NOT STOPPED\")\n"
        }
        End::Steps => "loop { }\n",
        End::Normal => "print(\"the end\")\n",
    });
    s
}

fn script(case: &Case) -> String {
    match case.runner {
        Runner::Run => body(case),
        Runner::Test => {
            let indented: String = body(case).lines().map(|l| format!("    {l}\n")).collect();
            format!("@test\nfn survivors() {{\n{indented}}}\n")
        }
    }
}

fn command(case: &Case, dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vox"));
    cmd.arg(match case.runner {
        Runner::Run => "run",
        Runner::Test => "test",
    });
    if case.jailed {
        for cap in ["process:allow", "fs:rw=out", "fs:ro=tools"] {
            cmd.args(["--caps", cap]);
        }
    }
    if case.mesh {
        cmd.arg("--mesh");
    }
    match case.end {
        End::Timeout => {
            cmd.args(["--timeout", "1"]);
        }
        End::Steps => {
            cmd.args(["--max-steps", "200000"]);
        }
        End::Sigterm | End::Sigint | End::Sigkill | End::Normal => {}
    }
    cmd.arg("job.vox")
        .current_dir(dir)
        .env("PATH", SAFE_PATH)
        .env_remove("VOX_JAIL_SIMULATE_UNSUPPORTED")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Waits (bounded) until every survivor has started, then sends `sig` to `vox`.
fn signal_when_started(child: &Child, out: &Path, kinds: &[&str], sig: i32) {
    let start = Instant::now();
    while !kinds
        .iter()
        .all(|k| out.join(format!("started-{k}")).exists())
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the survivors never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the script reach its wait for `sleep 30`.
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: sends a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// Processes whose working directory is `dir` or beneath it (the run's processes: `vox`'s
/// keepers, the survivors, the background child), other than this test process.
fn processes_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let me = std::process::id().to_string();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == me || !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(cwd) = std::fs::read_link(e.path().join("cwd")) else {
            continue;
        };
        if cwd.starts_with(dir) {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            out.push(format!(
                "{name}: {}",
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            ));
        }
    }
    out
}

/// Waits (bounded by `until`) until no process of the run is left in `dir`; returns those left.
fn left_in(dir: &Path, until: Instant) -> Vec<String> {
    loop {
        let left = processes_in(dir);
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run_case(case: Case) {
    let name = case.name();
    let dir = world(&name);
    std::fs::write(dir.join("job.vox"), script(&case)).unwrap();
    let out_dir = dir.join("out");
    let start = Instant::now();
    let child = command(&case, &dir).spawn().unwrap();
    if let Some(sig) = case.signal() {
        signal_when_started(&child, &out_dir, &case.kinds(), sig);
    }
    let output: Output = child.wait_with_output().unwrap();
    let returned = start.elapsed();
    let code = output.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let context =
        format!("{name}: exit {code} after {returned:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");

    // The case proves something only if vox returned before the survivors were due.
    assert!(
        returned + Duration::from_millis(300) < DELAY,
        "vox returned too late for the check to mean anything: {context}"
    );
    let want = match (case.runner, case.end) {
        (_, End::Sigkill) => -1,
        (Runner::Run, End::Timeout | End::Steps) => 78,
        (_, End::Sigterm | End::Sigint) => 130,
        (Runner::Run, End::Normal) | (Runner::Test, End::Normal) => 0,
        (Runner::Test, _) => 1,
    };
    assert_eq!(code, want, "{context}");
    assert!(!stdout.contains("NOT STOPPED"), "{context}");
    for k in case.kinds() {
        assert!(
            out_dir.join(format!("started-{k}")).exists(),
            "survivor {k} never started: {context}"
        );
    }
    // Nothing the run started is alive (a normal end spares the background child, checked
    // below by what it writes).
    if case.stopped() || !case.background() {
        let left = left_in(&dir, start + DELAY - Duration::from_millis(200));
        assert!(
            left.is_empty(),
            "processes of the run outlived it: {left:#?}\n{context}"
        );
    }

    // Watch past the moment the survivors would write.
    let until = start + DELAY + WATCH;
    let now = Instant::now();
    if until > now {
        std::thread::sleep(until - now);
    }
    let late: Vec<&str> = case
        .kinds()
        .into_iter()
        .filter(|k| out_dir.join(format!("late-{k}")).exists())
        .collect();
    assert!(
        late.is_empty(),
        "survivors wrote after vox returned: {late:?}\n{context}"
    );
    if case.background() {
        let alive = out_dir.join("bg-alive").exists();
        let grandchild = out_dir.join("bg-grandchild").exists();
        if case.stopped() {
            assert!(
                !alive && !grandchild,
                "the background child outlived a stopped run: {context}"
            );
        } else {
            assert!(
                alive && grandchild,
                "the background child (or what it started) did not survive a normal end \
                 (alive: {alive}, grandchild: {grandchild}): {context}"
            );
        }
        if case.jailed {
            assert!(
                !dir.join("outside/bg-pwned").exists(),
                "the background child wrote outside its roots: {context}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn case(end: End, runner: Runner, mesh: bool) -> Case {
    Case {
        end,
        runner,
        mesh,
        jailed: true,
    }
}

// ---- vox run --------------------------------------------------------------------------------

#[test]
fn run_timeout_ends_every_survivor() {
    run_case(case(End::Timeout, Runner::Run, false));
}

#[test]
fn run_timeout_ends_every_survivor_mesh() {
    run_case(case(End::Timeout, Runner::Run, true));
}

#[test]
fn run_sigterm_ends_every_survivor() {
    run_case(case(End::Sigterm, Runner::Run, false));
}

#[test]
fn run_sigterm_ends_every_survivor_mesh() {
    run_case(case(End::Sigterm, Runner::Run, true));
}

#[test]
fn run_step_ceiling_ends_every_survivor() {
    run_case(case(End::Steps, Runner::Run, false));
}

/// Also acceptance 2: the `spawn_background` child survives, with what it started, and cannot
/// write outside the roots.
#[test]
fn run_normal_end_leaves_only_the_background_child() {
    run_case(case(End::Normal, Runner::Run, false));
}

#[test]
fn run_normal_end_leaves_nothing_mesh() {
    run_case(case(End::Normal, Runner::Run, true));
}

#[test]
fn run_timeout_ends_every_survivor_developer_default() {
    run_case(Case {
        jailed: false,
        ..case(End::Timeout, Runner::Run, false)
    });
}

#[test]
fn run_normal_end_leaves_only_the_background_child_developer_default() {
    run_case(Case {
        jailed: false,
        ..case(End::Normal, Runner::Run, false)
    });
}

/// Runs independent cases on threads of their own (they mostly wait), then reports which failed
/// (each failure's message is printed by its thread).
fn run_cases(cases: Vec<Case>) {
    let handles: Vec<_> = cases
        .into_iter()
        .map(|c| (c.name(), std::thread::spawn(move || run_case(c))))
        .collect();
    let failed: Vec<String> = handles
        .into_iter()
        .filter_map(|(name, h)| h.join().err().map(|_| name))
        .collect();
    assert!(failed.is_empty(), "failed cases: {failed:?}");
}

#[test]
fn run_sigint_ends_every_survivor() {
    run_case(case(End::Sigint, Runner::Run, false));
}

/// Decision 55: `vox` killed with SIGKILL runs no code of its own any more; the keepers of its
/// children see their lines close and end their trees. Jailed, under `--mesh`, and under
/// `vox test` (the background child included).
#[test]
fn sigkill_of_vox_ends_every_survivor() {
    run_cases(vec![
        case(End::Sigkill, Runner::Run, false),
        case(End::Sigkill, Runner::Run, true),
        case(End::Sigkill, Runner::Test, false),
    ]);
}

/// The developer default's fallback (decision 55, docs/jail.md "Run lifetime"): its ordinary
/// children are started directly with SIGKILL as their parent-death signal, and background
/// children under a keeper, so `vox` killed with SIGKILL takes both along. (What those children
/// left detached is not covered there: `vox doctor` says so.)
#[test]
fn sigkill_of_vox_ends_the_children_in_the_developer_default() {
    let dir = world("sigkill-direct");
    let marker = format!("{}.{}", 40 + std::process::id() % 50, std::process::id());
    let secs = DELAY.as_secs_f64();
    std::fs::write(
        dir.join("job.vox"),
        format!(
            "process.spawn_background(\"sh\", [\"-c\", \"(sleep {secs}; echo > out/late-bg-grandchild) & \
             sleep {secs}; echo > out/late-bg\"])\n\
             process.run_ex(\"sleep\", [\"{marker}\"], \"\", {{}})\n"
        ),
    )
    .unwrap();
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "job.vox"])
        .current_dir(&dir)
        .env("PATH", SAFE_PATH)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Once the direct child runs (the background child was started before it).
    while !processes_in(&dir)
        .iter()
        .any(|p| p.ends_with(&format!("sleep {marker} ")))
    {
        assert!(start.elapsed() < Duration::from_secs(20), "never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let left = left_in(&dir, start + DELAY - Duration::from_millis(200));
    assert!(
        left.is_empty(),
        "processes of the run outlived it: {left:#?}"
    );
    let until = start + DELAY + WATCH;
    if let Some(d) = until.checked_duration_since(Instant::now()) {
        std::thread::sleep(d);
    }
    for f in ["late-bg", "late-bg-grandchild"] {
        assert!(!dir.join("out").join(f).exists(), "{f} was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shape of issue 22 (a): a `setsid` grandchild that keeps the captured stdout pipe open.
/// `process.run` returns when the pipe closes, as `$(…)` in a shell does, so the grandchild's
/// late write happens while the run is still active and its output is the call's; once `vox`
/// has returned nothing of the run is left.
#[test]
fn run_waits_for_a_grandchild_holding_the_pipe_and_leaves_nothing() {
    let dir = world("pipe-normal");
    std::fs::write(
        dir.join("job.vox"),
        "let r = process.run(\"bash\", [\"tools/holder.sh\", \"0.5\", \"out\"]).unwrap()\n\
         print(r.stdout.trim())\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "--caps", "process:allow", "--caps", "fs:rw=out"])
        .args(["--caps", "fs:ro=tools", "job.vox"])
        .current_dir(&dir)
        .env("PATH", SAFE_PATH)
        .output()
        .unwrap();
    let late = dir.join("out/late-pipe").exists();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(stdout, "done\n", "{stderr}");
    assert!(late, "vox returned before the pipe's holder ended");
    let left = left_in(&dir, Instant::now() + Duration::from_secs(2));
    assert!(
        left.is_empty(),
        "processes of the run outlived it: {left:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- vox test -------------------------------------------------------------------------------

#[test]
fn test_timeout_ends_every_survivor() {
    run_case(case(End::Timeout, Runner::Test, false));
}

#[test]
fn test_timeout_ends_every_survivor_mesh() {
    run_case(case(End::Timeout, Runner::Test, true));
}

#[test]
fn test_sigterm_ends_every_survivor() {
    run_case(case(End::Sigterm, Runner::Test, false));
}

#[test]
fn test_sigterm_ends_every_survivor_mesh() {
    run_case(case(End::Sigterm, Runner::Test, true));
}

#[test]
fn test_normal_end_leaves_only_the_background_child() {
    run_case(case(End::Normal, Runner::Test, false));
}

#[test]
fn test_normal_end_leaves_nothing_mesh() {
    run_case(case(End::Normal, Runner::Test, true));
}

// ---- fail closed ----------------------------------------------------------------------------

fn simulated_run(extra: &[&str]) -> (i32, String, String) {
    let dir = world(&format!("simulated{}", extra.len()));
    std::fs::write(
        dir.join("job.vox"),
        "print(process.run(\"true\", []).unwrap().code)\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "--caps", "process:allow", "--caps", "fs:rw=out"])
        .args(extra)
        .arg("job.vox")
        .current_dir(&dir)
        .env("PATH", SAFE_PATH)
        .env("VOX_JAIL_SIMULATE_UNSUPPORTED", "lifetime")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_a_subreaper_jailed_spawns_are_refused() {
    let (code, out, err) = simulated_run(&[]);
    assert_eq!((code, out.as_str()), (77, ""), "{err}");
    assert!(
        err.starts_with(
            "vox: cannot confine child: this host cannot end the child's processes when the run \
             ends (simulated by VOX_JAIL_SIMULATE_UNSUPPORTED=lifetime"
        ) && err.contains("--unconfined-children"),
        "{err}"
    );
}

#[test]
fn without_a_subreaper_the_opt_out_still_runs() {
    let (code, out, err) = simulated_run(&["--unconfined-children"]);
    assert_eq!((code, out.as_str()), (0, "0\n"), "{err}");
}

/// `vox test` runs each test as a run of its own: a later test's stop does not end the
/// background child an earlier test left after its normal end.
#[test]
fn test_background_of_an_earlier_test_survives_a_later_stop() {
    let dir = world("test-earlier-background");
    std::fs::write(
        dir.join("job.vox"),
        format!(
            "@test\nfn starts_background() {{\n    process.spawn_background(\"sh\", [\"-c\", \
             \"sleep {secs}; echo alive > out/bg-first\"])\n}}\n\n\
             @test\nfn times_out() {{\n    process.run(\"sleep\", [\"30\"])\n}}\n",
            secs = DELAY.as_secs_f64()
        ),
    )
    .unwrap();
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["test", "--caps", "process:allow", "--caps", "fs:rw=out"])
        .args(["--timeout", "1", "job.vox"])
        .current_dir(&dir)
        .env("PATH", SAFE_PATH)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("test starts_background ... ok")
            && stdout.contains("test times_out ... FAILED"),
        "{stdout}"
    );
    let until = start + DELAY + WATCH;
    if let Some(left) = until.checked_duration_since(Instant::now()) {
        std::thread::sleep(left);
    }
    assert!(
        dir.join("out/bg-first").exists(),
        "the first test's background child did not survive: {stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
