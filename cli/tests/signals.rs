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
