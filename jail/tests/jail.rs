//! Escapes a confined child tries, against real processes. These run as root in CI: root
//! bypasses file permissions but not Landlock, so every denial here is the jail's.
#![cfg(target_os = "linux")]

mod common;

use std::io::{ErrorKind, Read as _};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::PermissionsExt as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use vox_jail::{
    confine_command, doctor_lines, env_fingerprint, probe, ChildPolicy, DoctorStatus, EnvPolicy,
    Mode, ProcessGroup, RuleKind,
};

#[test]
fn host_supports_the_jail() {
    let p = probe();
    assert!(p.landlock_abi.unwrap_or(0) >= 4, "{p:?}");
    assert!(p.user_namespaces, "{p:?}");
    assert!(p.child_gap(false).is_none());
    let lines = doctor_lines();
    assert!(
        lines.iter().all(|l| l.status != DoctorStatus::Fail),
        "{lines:#?}"
    );
}

#[test]
fn applied_reports_rule_kinds() {
    let d = Dirs::new();
    let mut cmd = Command::new("/bin/true");
    let policy = d.policy(false).with_rlimit_fsize(Some(1 << 20));
    let applied = confine_command(&mut cmd, &policy, Mode::Confined).unwrap();
    for k in [
        RuleKind::EnvScrub,
        RuleKind::ProcessGroup,
        RuleKind::RlimitFsize(1 << 20),
        RuleKind::NoNewPrivs,
        RuleKind::LandlockFs,
        RuleKind::LandlockTcp,
        RuleKind::NetworkNamespace,
    ] {
        assert!(applied.has(&k), "{k} missing from {}", applied.describe());
    }
    assert!(applied.landlock_abi.unwrap() >= 4);
    assert!(applied.describe().starts_with("landlock ABI "));
    assert!(cmd.status().unwrap().success());

    let mut cmd = Command::new("/bin/true");
    let applied = confine_command(&mut cmd, &d.policy(true), Mode::Confined).unwrap();
    assert!(!applied.has(&RuleKind::LandlockTcp));
    assert!(!applied.has(&RuleKind::NetworkNamespace));
}

#[test]
fn write_outside_roots_fails() {
    let d = Dirs::new();
    let target = d.outside.path().join("OUTSIDE");
    let o = sh(&d.policy(true), &format!("echo x > {}", s(&target)));
    assert_denied(&o, "write outside");
    assert!(!target.exists(), "the file was created");
    // Nor in the read-only root, nor in the current directory.
    let target = d.ro.path().join("f");
    assert_denied(
        &sh(&d.policy(true), &format!("echo x > {}", s(&target))),
        "ro",
    );
    assert!(!target.exists());
}

#[test]
fn write_root_and_temp_dir_are_writable() {
    let d = Dirs::new();
    let root = s(d.rw.path());
    let script = format!(
        "set -e; echo hello > {root}/f; echo again > {root}/f; mkdir {root}/sub; \
         mv {root}/f {root}/sub/g; ln -s sub/g {root}/link; cat {root}/link; \
         rm {root}/link; echo t > \"$TMPDIR/t\"; cat \"$TMPDIR/t\"; echo x > /dev/null"
    );
    let o = sh(&d.policy(true), &script);
    assert_ok(&o, "write inside");
    assert_eq!(stdout(&o), "again\nt\n");
    assert!(d.rw.path().join("sub/g").exists());
}

#[test]
fn read_outside_roots_fails() {
    let d = Dirs::new();
    let secret = d.outside_file("secret");
    let o = run(&d.policy(true), "/bin/cat", &[&s(&secret)]);
    assert_denied(&o, "cat outside");
    assert!(!stdout(&o).contains("secret"));
    assert_denied(
        &run(&d.policy(true), "/bin/ls", &[&s(d.outside.path())]),
        "ls",
    );
    // /root is not a system path either (it exists on this machine).
    if std::path::Path::new("/root").is_dir() {
        assert_denied(&run(&d.policy(true), "/bin/ls", &["/root"]), "ls /root");
    }
    // The read root is readable, and system paths are.
    std::fs::write(d.ro.path().join("r"), "readable\n").unwrap();
    let o = run(&d.policy(true), "/bin/cat", &[&s(&d.ro.path().join("r"))]);
    assert_ok(&o, "cat ro");
    assert_eq!(stdout(&o), "readable\n");
    assert_ok(&run(&d.policy(true), "/bin/cat", &["/etc/passwd"]), "/etc");
}

#[test]
fn symlink_out_of_a_root_fails() {
    let d = Dirs::new();
    let secret = d.outside_file("secret");
    let link = d.rw.path().join("link");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let dlink = d.ro.path().join("dlink");
    std::os::unix::fs::symlink(d.outside.path(), &dlink).unwrap();
    let o = run(&d.policy(true), "/bin/cat", &[&s(&link)]);
    assert_denied(&o, "file symlink");
    let o = run(&d.policy(true), "/bin/cat", &[&s(&dlink.join("secret"))]);
    assert_denied(&o, "dir symlink");
    // Writing through the symlink does not reach the target either.
    assert_denied(
        &sh(&d.policy(true), &format!("echo pwn > {}", s(&link))),
        "write",
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret\n");
}

/// Landlock is path-based: a hard link that already exists beneath a root names the same inode
/// by a path inside the root, so the child can read it (the interpreter's own fs check is what
/// stops scripts from planting one). The child cannot make such a link itself: linking a file
/// from a place without rights into a root would give it rights (Landlock refuses, EXDEV/EACCES).
#[test]
fn hard_links_follow_the_path_rule() {
    let d = Dirs::new();
    let secret = d.outside_file("secret");
    let planted = d.rw.path().join("planted");
    std::fs::hard_link(&secret, &planted).unwrap();
    let o = run(&d.policy(true), "/bin/cat", &[&s(&planted)]);
    assert_ok(&o, "pre-existing hard link (documented Landlock behaviour)");
    assert_eq!(stdout(&o), "secret\n");

    let other = d.outside_file("other");
    let made = d.rw.path().join("made");
    let o = run(&d.policy(true), "/bin/ln", &[&s(&other), &s(&made)]);
    assert_failed(&o, "child-made hard link");
    assert!(
        stderr(&o).contains("Invalid cross-device link"),
        "{}",
        stderr(&o)
    );
    assert!(!made.exists());
}

#[test]
fn proc_self_tricks_fail() {
    let d = Dirs::new();
    let secret = d.outside_file("secret");
    let via_root = format!("/proc/self/root{}", s(&secret));
    assert_denied(&run(&d.policy(true), "/bin/cat", &[&via_root]), "root");
    let o = sh(&d.policy(true), &format!("cat /proc/$$/root{}", s(&secret)));
    assert_denied(&o, "/proc/$$/root");
    // A cwd outside the roots does not help: /proc/self/cwd resolves to the real path.
    let mut cmd = Command::new("/bin/cat");
    cmd.arg("/proc/self/cwd/secret")
        .current_dir(d.outside.path())
        .stdin(Stdio::null());
    confine_command(&mut cmd, &d.policy(true), Mode::Confined).unwrap();
    let o = cmd.output().unwrap();
    assert_denied(&o, "/proc/self/cwd");
    assert!(!stdout(&o).contains("secret"));
    // The child's own /proc entry stays readable.
    let o = run(&d.policy(true), "/bin/cat", &["/proc/self/status"]);
    assert_ok(&o, "/proc/self/status");
    assert!(stdout(&o).contains("NoNewPrivs:\t1"), "{}", stdout(&o));
    // …but not another process's.
    let other = format!("/proc/{}/status", std::process::id());
    assert_denied(&run(&d.policy(true), "/bin/cat", &[&other]), "parent /proc");
}

#[test]
fn exec_only_from_readable_places() {
    let d = Dirs::new();
    let outside_true = d.outside.path().join("mytrue");
    std::fs::copy("/bin/true", &outside_true).unwrap();
    let mut cmd = Command::new(&outside_true);
    confine_command(&mut cmd, &d.policy(true), Mode::Confined).unwrap();
    let err = cmd.status().expect_err("exec outside roots");
    assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{err}");
    // From the program's directory (an exec path) it runs.
    let policy = d.policy(true).with_exec_path(d.outside.path());
    let mut cmd = Command::new(&outside_true);
    confine_command(&mut cmd, &policy, Mode::Confined).unwrap();
    assert!(cmd.status().unwrap().success());
    // A shell cannot exec it either.
    let o = sh(&d.policy(true), &s(&outside_true));
    assert_denied(&o, "sh exec outside");
    let mode = std::fs::metadata(&outside_true)
        .unwrap()
        .permissions()
        .mode();
    assert!(mode & 0o111 != 0);
}

fn python_connect(port: u16) -> String {
    format!(
        "import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=3); \
         s.sendall(b'hi'); s.close()"
    )
}

fn accepted(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept: {e}"),
    }
}

#[test]
fn net_off_blocks_tcp_connect() {
    let d = Dirs::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let o = run(&d.policy(false), "python3", &["-c", &python_connect(port)]);
    assert_denied(&o, "python connect");
    let o = run(
        &d.policy(false),
        "/bin/bash",
        &["-c", &format!("echo hi > /dev/tcp/127.0.0.1/{port}")],
    );
    assert_denied(&o, "bash /dev/tcp");
    assert!(!accepted(&listener), "a connection got through");
}

#[test]
fn net_off_blocks_bind_and_udp() {
    let d = Dirs::new();
    let o = run(
        &d.policy(false),
        "python3",
        &[
            "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()",
        ],
    );
    assert_denied(&o, "tcp bind");
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = udp.local_addr().unwrap().port();
    // Landlock has no UDP rules at this ABI: the empty network namespace stops it.
    let o = run(
        &d.policy(false),
        "python3",
        &[
            "-c",
            &format!(
                "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\
                 .sendto(b'leak', ('127.0.0.1', {port}))"
            ),
        ],
    );
    assert_failed(&o, "udp send");
    assert!(
        stderr(&o).contains("Network is unreachable"),
        "{}",
        stderr(&o)
    );
    udp.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut buf = [0u8; 16];
    assert!(udp.recv(&mut buf).is_err(), "a UDP datagram got through");
}

#[test]
fn net_on_allows_tcp() {
    let d = Dirs::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let o = run(&d.policy(true), "python3", &["-c", &python_connect(port)]);
    assert_ok(&o, "python connect with net on");
    let o = run(
        &d.policy(true),
        "/bin/bash",
        &["-c", &format!("echo hi > /dev/tcp/127.0.0.1/{port}")],
    );
    assert_ok(&o, "bash /dev/tcp with net on");
    listener.set_nonblocking(false).unwrap();
    let (mut conn, _) = listener.accept().unwrap();
    let mut got = String::new();
    conn.read_to_string(&mut got).unwrap();
    assert_eq!(got, "hi");
}

/// `net:listen=`: the child keeps the host's network, binds its port and accepts from outside;
/// it binds nothing else, connects nowhere and opens no UDP socket.
#[test]
fn listen_ports_bind_only_and_connect_nowhere() {
    let d = Dirs::new();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    outside.set_nonblocking(true).unwrap();
    let other = outside.local_addr().unwrap().port();
    let policy = d.policy(false).with_listen_ports(&[port]);
    let mut cmd = Command::new("/bin/true");
    let applied = confine_command(&mut cmd, &policy, Mode::Confined).unwrap();
    assert!(
        applied.has(&RuleKind::InboundTcp(vec![port])),
        "{}",
        applied.describe()
    );
    assert!(!applied.has(&RuleKind::NetworkNamespace));
    let code = format!(
        "import socket\n\
         def t(name, f):\n    try:\n        f(); print(name, 'ok')\n    except OSError as e:\n        print(name, e.errno)\n\
         s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen(); print('listening')\n\
         t('other', lambda: socket.socket().bind(('127.0.0.1', 0)))\n\
         t('connect', lambda: socket.create_connection(('127.0.0.1', {other}), timeout=2))\n\
         t('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))\n\
         c, _ = s.accept(); c.sendall(b'served'); c.close()\n"
    );
    let mut cmd = Command::new("python3");
    cmd.args(["-c", &code])
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    confine_command(&mut cmd, &policy, Mode::Confined).unwrap();
    let child = cmd.spawn().unwrap();
    let start = std::time::Instant::now();
    let mut conn = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(c) => break c,
            Err(e) if start.elapsed() > Duration::from_secs(10) => panic!("never listened: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let mut got = String::new();
    conn.read_to_string(&mut got).unwrap();
    assert_eq!(got, "served");
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "listening\nother 13\nconnect 13\nudp 13\n"
    );
    assert!(outside.accept().is_err(), "the child connected out");
}

#[test]
fn signals_to_outside_processes_are_scoped() {
    if !probe().scoping {
        eprintln!("skipped: Landlock ABI < 6 has no signal scoping");
        return;
    }
    let d = Dirs::new();
    let mut victim = Command::new("/bin/sleep").arg("30").spawn().unwrap();
    let o = run(
        &d.policy(true),
        "/bin/kill",
        &["-TERM", &victim.id().to_string()],
    );
    let alive = victim.try_wait().unwrap().is_none();
    let _ = victim.kill();
    let _ = victim.wait();
    assert_denied(&o, "kill outside process");
    assert!(alive, "the victim was killed");
}

#[test]
fn abstract_unix_sockets_outside_are_scoped() {
    use std::os::linux::net::SocketAddrExt as _;
    use std::os::unix::net::{SocketAddr, UnixListener};
    if !probe().scoping {
        eprintln!("skipped: Landlock ABI < 6 has no abstract unix scoping");
        return;
    }
    let d = Dirs::new();
    let name = format!("vox-jail-test-{}", std::process::id());
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = UnixListener::bind_addr(&addr).unwrap();
    let script = format!(
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0{name}'); s.close()"
    );
    // Network on, so only the Landlock scope stands in the way.
    let o = run(&d.policy(true), "python3", &["-c", &script]);
    assert_denied(&o, "abstract unix connect");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err());
}

#[test]
fn rlimit_fsize_stops_a_big_write() {
    let d = Dirs::new();
    let policy = d.policy(true).with_rlimit_fsize(Some(64 * 1024));
    let big = d.rw.path().join("big");
    let o = sh(&policy, &format!("head -c 1000000 /dev/zero > {}", s(&big)));
    assert_failed(&o, "big write");
    let len = std::fs::metadata(&big).map(|m| m.len()).unwrap_or(0);
    assert!(len <= 64 * 1024, "wrote {len} bytes");
}

#[test]
fn rlimit_data_bounds_memory() {
    let d = Dirs::new();
    let policy = d.policy(true).with_rlimit_data(Some(256 << 20));
    let o = run(
        &policy,
        "python3",
        &["-c", "b = bytearray(1024 * 1024 * 1024); print(len(b))"],
    );
    assert_failed(&o, "1 GiB allocation under a 256 MiB RLIMIT_DATA");
    assert!(stderr(&o).contains("MemoryError"), "{}", stderr(&o));
}

#[test]
fn explicit_env_is_visible_and_tmpdir_is_private() {
    let d = Dirs::new();
    let env = EnvPolicy::new()
        .pass("VOX_GIVEN", "given-value")
        .set("VOX_SET", "set-value")
        .pass("LD_PRELOAD", "/nonexistent/evil.so");
    let policy = d.policy_env(true, env);
    let o = run(&policy, "/usr/bin/env", &[]);
    assert_ok(&o, "env");
    let out = stdout(&o);
    assert!(out.contains("VOX_GIVEN=given-value\n"), "{out}");
    assert!(out.contains("VOX_SET=set-value\n"), "{out}");
    assert!(!out.contains("LD_PRELOAD"), "{out}");
    assert!(
        out.contains(&format!("TMPDIR={}\n", s(d.tmp.path()))),
        "{out}"
    );
    // The fingerprint shows exactly the child's names, and no value.
    let child = vox_jail::child_env(std::env::vars_os(), &policy.env);
    let fp = env_fingerprint(&child);
    let mut fp_names: Vec<&str> = fp.lines().map(|l| l.split(' ').next().unwrap()).collect();
    let mut seen: Vec<&str> = out.lines().filter_map(|l| l.split('=').next()).collect();
    fp_names.sort();
    seen.sort();
    assert_eq!(fp_names, seen);
    assert!(!fp.contains("given-value") && !fp.contains("set-value"));
}

#[test]
fn process_group_own_or_inherited() {
    let d = Dirs::new();
    let script = "import os; print(os.getpgrp() == os.getpid())";
    let o = run(&d.policy(true), "python3", &["-c", script]);
    assert_eq!(stdout(&o), "True\n");
    let policy = d.policy(true).with_process_group(ProcessGroup::Inherit);
    let o = run(&policy, "python3", &["-c", script]);
    assert_eq!(stdout(&o), "False\n");
    let policy = d.policy(true).with_process_group(ProcessGroup::Session);
    let o = run(
        &policy,
        "python3",
        &["-c", "import os; print(os.getsid(0) == os.getpid())"],
    );
    assert_eq!(stdout(&o), "True\n");
}

#[test]
fn net_off_child_keeps_its_uid() {
    let d = Dirs::new();
    let o = run(&d.policy(false), "/usr/bin/id", &["-u"]);
    assert_ok(&o, "id");
    // SAFETY: a plain getter.
    let uid = unsafe { libc::geteuid() };
    assert_eq!(stdout(&o).trim(), uid.to_string());
}

#[test]
fn unconfined_mode_only_scrubs_and_limits() {
    let d = Dirs::new();
    let target = d.outside.path().join("allowed");
    let policy = d.policy(false);
    let o = run_mode(
        &policy,
        Mode::Unconfined,
        "/bin/sh",
        &["-c", &format!("echo x > {}; env", s(&target))],
    );
    assert_ok(&o, "unconfined write");
    assert!(target.exists());
    assert!(stdout(&o).contains("TMPDIR="));
    let mut cmd = Command::new("/bin/true");
    let applied = confine_command(&mut cmd, &policy, Mode::Unconfined).unwrap();
    assert_eq!(applied.landlock_abi, None);
    assert!(!applied.has(&RuleKind::LandlockFs));
    assert!(applied.describe().starts_with("unconfined"));
}

#[test]
fn missing_roots_are_skipped() {
    let d = Dirs::new();
    let policy = ChildPolicy::new(
        vec!["/nonexistent/vox-root".into()],
        vec![d.rw.path().to_path_buf()],
        true,
        d.tmp.path(),
        EnvPolicy::new(),
    );
    assert_ok(&run(&policy, "/bin/true", &[]), "missing root skipped");
    assert!(policy
        .system
        .iter()
        .all(|g| g.path.symlink_metadata().is_ok()));
}

#[test]
fn shell_plumbing_works_inside() {
    let d = Dirs::new();
    // Process substitution (/dev/fd → the shell's own /proc entry, pipes), /dev/stderr on a pipe,
    // /dev/null, /dev/urandom.
    let o = run(
        &d.policy(false),
        "/bin/bash",
        &[
            "-c",
            "cat <(echo sub); echo err > /dev/stderr; head -c 4 /dev/urandom | wc -c; \
             echo x > /dev/null",
        ],
    );
    assert_ok(&o, "bash plumbing");
    assert_eq!(stdout(&o), "sub\n4\n");
    assert_eq!(stderr(&o), "err\n");
}

/// Landlock (ABI ≤ 7) does not cover `chmod`, `utimensat` or extended attributes: the
/// read-only mount namespace does. Outside the writable places every mount is read-only, so
/// the metadata of a file the child's uid owns cannot change there; inside, it can, and files
/// the child creates belong to the interpreter's uid and gid as before.
#[test]
fn metadata_outside_the_writable_places_is_read_only() {
    use std::os::unix::fs::MetadataExt as _;
    let d = Dirs::new();
    let secret = d.outside_file("secret");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = std::fs::metadata(&secret).unwrap();
    let host_mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    for net in [false, true] {
        let mut cmd = Command::new("/bin/true");
        let applied = confine_command(&mut cmd, &d.policy(net), Mode::Confined).unwrap();
        assert!(
            applied.has(&RuleKind::ReadOnlyMounts),
            "{}",
            applied.describe()
        );
        assert!(applied.describe().contains("ro-mounts"));
        let target = s(&secret);
        for (what, script) in [
            ("chmod", format!("chmod 666 {target}")),
            ("setuid", format!("chmod u+s {target}")),
            ("touch", format!("touch -d 2001-01-01 {target}")),
            (
                "xattr",
                format!(
                    "/usr/bin/python3 -c \"import os; os.setxattr('{target}', 'user.x', b'1')\""
                ),
            ),
            // A system file: the same mode again, so that a failure of the jail changes nothing.
            (
                "system file",
                "chmod --reference=/bin/true /bin/true".to_string(),
            ),
        ] {
            let o = sh(&d.policy(net), &script);
            assert_failed(&o, what);
            // The setuid bit is refused by the seccomp filter first, wherever the file lives.
            let why = if what == "setuid" {
                "Operation not permitted"
            } else {
                "Read-only file system"
            };
            assert!(stderr(&o).contains(why), "{what}: {}", stderr(&o));
        }
        let after = std::fs::metadata(&secret).unwrap();
        assert_eq!(after.mode(), before.mode());
        assert_eq!(after.mtime(), before.mtime());
        assert_eq!(after.mtime_nsec(), before.mtime_nsec());
        assert!(
            xattr_names(&secret).is_empty(),
            "{:?}",
            xattr_names(&secret)
        );
        // Inside the write root and the temp dir metadata may change.
        let root = s(d.rw.path());
        let f = format!("{root}/m{net}");
        let o = sh(
            &d.policy(net),
            &format!(
                "set -e; echo x > {f}; chmod 640 {f}; touch -d 2001-01-01 {f}; \
                 echo t > \"$TMPDIR/t{net}\"; chmod 600 \"$TMPDIR/t{net}\"; id -u; id -g"
            ),
        );
        assert_ok(&o, "metadata inside");
        // SAFETY: plain getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        assert_eq!(stdout(&o), format!("{uid}\n{gid}\n"));
        let m = std::fs::metadata(&f).unwrap();
        assert_eq!((m.uid(), m.gid()), (uid, gid));
        assert_eq!(m.mode() & 0o777, 0o640);
        assert_eq!(m.mtime(), 978_307_200);
    }
    // Nothing propagated back to the host.
    assert_eq!(
        std::fs::read_to_string("/proc/self/mountinfo").unwrap(),
        host_mounts
    );
}

fn xattr_names(p: &std::path::Path) -> Vec<u8> {
    let c = std::ffi::CString::new(s(p)).unwrap();
    let mut buf = vec![0u8; 4096];
    // SAFETY: a buffer of the given size.
    let n = unsafe { libc::listxattr(c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    buf.truncate(n.max(0) as usize);
    buf
}

/// The child joins its mount namespace after `current_dir` was applied and returns there by
/// path: relative paths resolve in the new namespace (writable in the root, read-only outside).
#[test]
fn working_directory_is_kept_in_the_mount_namespace() {
    let d = Dirs::new();
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", "pwd; echo x > rel"])
        .current_dir(d.rw.path());
    confine_command(&mut cmd, &d.policy(false), Mode::Confined).unwrap();
    let o = cmd.output().unwrap();
    assert_ok(&o, "relative write in the root");
    assert_eq!(stdout(&o).trim(), s(d.rw.path()));
    assert!(d.rw.path().join("rel").exists());

    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", "pwd; chmod 777 ."])
        .current_dir(d.outside.path());
    confine_command(&mut cmd, &d.policy(false), Mode::Confined).unwrap();
    let o = cmd.output().unwrap();
    assert_failed(&o, "chmod of the working directory outside");
    assert_eq!(stdout(&o).trim(), s(d.outside.path()));
    assert!(
        stderr(&o).contains("Read-only file system"),
        "{}",
        stderr(&o)
    );
}
