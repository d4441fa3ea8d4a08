//! SIGINT and SIGTERM end a run with exit 130 after the queued exit commands (runtime.md §3,
//! decisions.md 20), and output printed before is delivered promptly, not held in a buffer.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn interrupt_with(signal: i32) {
    let dir = std::env::temp_dir().join(format!("vox-signals-{signal}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("s.vox"),
        "process.register_exit_command(\"sh\", [\"-c\", \"echo cleanup-ran\"])\nprint(\"start\")\nloop { }\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "--max-steps", "0", "s.vox"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first line arrives while the script is still running.
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let started = Instant::now();
    let mut buf = [0u8; 64];
    while !String::from_utf8_lossy(&seen).contains("start\n") {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no output while running"
        );
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "stdout closed early");
        seen.extend_from_slice(&buf[..n]);
    }
    // SAFETY: sends a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "stderr: {err}");
    assert_eq!(err, "vox: interrupted\n");
    assert_eq!(rest, "cleanup-ran\n", "exit commands run on 130");
}

#[test]
fn sigint_exits_130_after_exit_commands() {
    interrupt_with(libc::SIGINT);
}

#[test]
fn sigterm_exits_130_after_exit_commands() {
    interrupt_with(libc::SIGTERM);
}

/// SIGTERM while the script waits for a child: the child gets the signal first (decision 24)
/// and a moment to finish, then the run ends with 130 and nothing it started survives
/// (decision 48; the survivors themselves are in tests/lifetime.rs).
#[test]
fn sigterm_reaches_the_child_being_waited_for() {
    let dir = std::env::temp_dir().join(format!("vox-signals-fwd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("s.vox"),
        "process.run_ex(\"sh\", [\"-c\", \"trap 'echo child-got-term; exit 0' TERM; echo ready; \
         while true; do sleep 0.05; done\"], \"\", {})\nprint(\"NOT STOPPED\")\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "s.vox"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 64];
    let started = Instant::now();
    while !String::from_utf8_lossy(&seen).contains("ready\n") {
        assert!(started.elapsed() < Duration::from_secs(20), "no output");
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "stdout closed early");
        seen.extend_from_slice(&buf[..n]);
    }
    // SAFETY: sends a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    stdout.read_to_end(&mut seen).unwrap();
    let out = String::from_utf8_lossy(&seen);
    assert_eq!(status.code(), Some(130), "{out}");
    assert!(out.contains("child-got-term\n"), "{out}");
    assert!(!out.contains("NOT STOPPED"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
