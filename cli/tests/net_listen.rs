//! Inbound ports (issue 39 item 3): `net:listen=PORT` lets a jailed child accept connections on
//! that port from outside its sandbox (it shares the host's network), while it still cannot
//! connect anywhere without `net:allow`, bind another port, or use another socket family.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-listen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.canonicalize().unwrap()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn vox(dir: &Path, src: &str, flags: &[String]) -> Command {
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let bin = std::env::var_os("VOX_TEST_BIN")
        .unwrap_or_else(|| std::ffi::OsString::from(env!("CARGO_BIN_EXE_vox")));
    let mut cmd = Command::new(bin);
    cmd.arg("run")
        .args(flags)
        .arg("s.vox")
        .current_dir(dir)
        // The system python3, not a user's shim that lives outside every grant.
        .env("PATH", "/usr/bin:/bin")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// A one-shot server: accepts one connection on `argv[1]`, answers what it read upper-cased,
/// prints it; then tries to connect out to `argv[2]`.
const SERVER: &str = r#"
let a = env.args()
let code = r"
import socket, sys
port, other = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', port))
s.listen()
c, _ = s.accept()
got = c.recv(100)
c.sendall(got.upper())
c.close()
print('served', got.decode())
try:
    socket.create_connection(('127.0.0.1', other), timeout=2)
    print('connect out: ESCAPED')
except OSError as e:
    print('connect out:', e.strerror)
"
let r = process.run_capture("python3", ["-c", code, a[1].unwrap(), a[2].unwrap()]).unwrap()
print(r.stdout.trim())
"#;

#[test]
fn a_child_serves_on_its_port_and_cannot_connect_out() {
    let d = scratch("serve");
    let port = free_port();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let other_port = other.local_addr().unwrap().port();
    let flags: Vec<String> = [
        "--caps",
        "process:allow",
        "--caps",
        "env:ro",
        "--caps",
        &format!("net:listen={port}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut cmd = vox(&d, SERVER, &flags);
    cmd.arg("--")
        .arg(port.to_string())
        .arg(other_port.to_string());
    let mut child = cmd.spawn().unwrap();
    // Connect from outside the sandbox once the child listens.
    let start = Instant::now();
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => break s,
            Err(e)
                if start.elapsed() > Duration::from_secs(20)
                    || child.try_wait().unwrap().is_some() =>
            {
                let _ = child.kill();
                let out = child.wait_with_output().unwrap();
                panic!(
                    "never listened: {e}\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    stream.write_all(b"hello").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert_eq!(answer, "HELLO");
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "served hello\nconnect out: Permission denied\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success());
    assert!(
        other.accept().is_err(),
        "the child reached the other listener"
    );
}

#[test]
fn the_token_parses_prints_and_refuses() {
    let d = scratch("token");
    let run = |flags: &[&str]| {
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        let out = vox(&d, "print(1)\n", &flags).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&[
        "--verbose",
        "--caps",
        "net:listen=9000",
        "--caps",
        "net:listen=8080",
        "--caps",
        "net:listen=8080",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("net:listen=8080 net:listen=9000"), "{err}");
    // With net:none and with net:allow alike: no conflict.
    assert_eq!(run(&["--caps", "net:none", "--caps", "net:listen=1"]).0, 0);
    assert_eq!(run(&["--caps", "net:allow", "--caps", "net:listen=1"]).0, 0);
    for (token, why) in [
        (
            "net:listen",
            "net:listen needs a port, e.g. net:listen=8080",
        ),
        (
            "net:listen=0",
            "net:listen takes a port from 1 to 65535, got \"0\"",
        ),
        (
            "net:listen=65536",
            "net:listen takes a port from 1 to 65535, got \"65536\"",
        ),
        (
            "net:listen=http",
            "net:listen takes a port from 1 to 65535, got \"http\"",
        ),
    ] {
        let (code, err) = run(&["--caps", token]);
        assert_eq!(code, 1, "{token}: {err}");
        assert_eq!(
            err,
            format!("vox: invalid --caps token {token:?}: {why}\n"),
            "{token}"
        );
    }
}
