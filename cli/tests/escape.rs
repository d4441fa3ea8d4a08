//! Sandbox-escape suite for the child jail (runtime.md §4, decisions 16–18, 21, 24–26).
//!
//! Every hostile script lives in `tests/escape/NN_name.vox`, its first line saying what it
//! attempts. Each case runs `vox run` with receiver-imposed capabilities in a fresh directory:
//!
//! ```text
//! <scratch>/NN_name/          the run's working directory (outside every root)
//!     root/                   fs:rw root (a.txt, keep-link -> ../outside/keep.txt)
//!     ro/                     fs:ro root (r.txt, secret-link -> ../outside/secret.txt)
//!     outside/                the sentinel: secret.txt, keep.txt, sub/inner.txt, tool
//! <scratch>/far/              a second sentinel, shared by every case
//! ```
//!
//! After each case: everything outside `root/` (listing, file contents, symlink targets) is
//! unchanged, the planted targets do not exist, no secret appears in the output or in a file of
//! the root, the loopback listeners received nothing, the dummy process is alive, no process is
//! left behind and the private temp dir is gone. A case that breaks one of these is an
//! **escape**; a wrong exit code or a missing expected line is a plain failure (the attempt
//! did not run as designed).
//!
//! The hostile cases run one after another (they share the listeners and the dummy); the other
//! tests each build their own world, so the test harness may run them in parallel.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `PATH` every run gets: system directories only, so `python3` is the system one.
const SAFE_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// Credentials and loader hijacks planted in the interpreter's environment.
const TOKEN: &str = "vox-escape-token-5b1f0c";
const AWS_KEY: &str = "vox-escape-aws-9d27e4";
const GH_TOKEN: &str = "vox-escape-gh-71c3aa";
const PRELOAD: &str = "/nonexistent/vox-escape-preload.so";

/// The `vox` under test: this build's, or `VOX_ESCAPE_BIN` (to watch a case fail on an older
/// build: `VOX_ESCAPE_BIN=/tmp/vox-old cargo test -p vox-cli --test escape`).
fn vox_bin() -> String {
    std::env::var("VOX_ESCAPE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_vox").to_string())
}

fn escape_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/escape")
}

fn fresh_dir(p: &Path) {
    let _ = std::fs::remove_dir_all(p);
    std::fs::create_dir_all(p).unwrap();
}

/// A 64-bit FNV-1a digest, enough to notice a changed file.
fn digest(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Path (relative to `dir`) → kind, size and digest (files) or target (symlinks); `skip` names
/// top-level entries left out. With `metadata`, mode, owner and modification time are included.
fn snapshot(dir: &Path, skip: &[&str], metadata: bool) -> BTreeMap<String, String> {
    fn walk(
        base: &Path,
        dir: &Path,
        skip: &[&str],
        metadata: bool,
        out: &mut BTreeMap<String, String>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if dir == base && skip.contains(&rel.as_str()) {
                continue;
            }
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let ft = m.file_type();
            let mut desc = if ft.is_symlink() {
                format!("link -> {}", std::fs::read_link(&p).unwrap().display())
            } else if ft.is_dir() {
                "dir".to_string()
            } else if ft.is_file() {
                let bytes = std::fs::read(&p).unwrap_or_default();
                format!("file {} bytes {:016x}", bytes.len(), digest(&bytes))
            } else {
                format!("special {:o}", m.mode())
            };
            if metadata && !ft.is_symlink() {
                desc.push_str(&format!(
                    " mode {:o} owner {}:{} mtime {}.{:09}",
                    m.permissions().mode(),
                    m.uid(),
                    m.gid(),
                    m.mtime(),
                    m.mtime_nsec()
                ));
            }
            out.insert(rel, desc);
            if ft.is_dir() {
                walk(base, &p, skip, metadata, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, skip, metadata, &mut out);
    out
}

fn diff(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in before {
        match after.get(k) {
            None => out.push(format!("removed {k} ({v})")),
            Some(w) if w != v => out.push(format!("changed {k}: {v} => {w}")),
            _ => {}
        }
    }
    for (k, v) in after {
        if !before.contains_key(k) {
            out.push(format!("created {k} ({v})"));
        }
    }
    out
}

/// Every entry under `dir` (symlinks not followed) with its metadata, depth first.
fn walk_tree(dir: &Path) -> Vec<(PathBuf, std::fs::Metadata)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.push((p, m));
        }
    }
    out
}

/// Files under `dir` (symlinks not followed) whose contents include `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    walk_tree(dir)
        .into_iter()
        .filter(|(p, m)| {
            m.is_file()
                && m.len() < 64 << 20
                && String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).contains(needle)
        })
        .map(|(p, _)| p)
        .collect()
}

/// Files and directories under `dir` with the setuid or setgid bit.
fn files_with_privilege_bits(dir: &Path) -> Vec<PathBuf> {
    walk_tree(dir)
        .into_iter()
        .filter(|(_, m)| m.mode() & 0o6000 != 0)
        .map(|(p, _)| p)
        .collect()
}

/// Pids whose command line matches `pattern` (`pgrep -f`).
fn pgrep(pattern: &str) -> Vec<i32> {
    let out = Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .expect("pgrep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Kills leftover processes that a failed case left behind (by pid: they are ours).
fn kill_pids(pids: &[i32]) {
    for pid in pids {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
}

/// `(major, minor)` of the device holding `/`.
fn root_device() -> (u64, u64) {
    let dev = std::fs::metadata("/").unwrap().dev();
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor)
}

/// Runs `cmd` to the end with a generous guard (a hung case must not hang the suite).
fn run_guarded(cmd: &mut Command, guard: Duration) -> (Output, Duration) {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start vox");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > guard {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    let stdout = t_out.join().unwrap();
    let stderr = t_err.join().unwrap();
    (
        Output {
            status,
            stdout,
            stderr,
        },
        elapsed,
    )
}

/// What a host segment holds; no child may change it.
const SHM_TEXT: &[u8] = b"host-segment-untouched";

/// IPC objects of the host: a System V shared-memory segment (mode 0600) with known contents, a
/// System V message queue and a POSIX message queue, all empty of children's traces; and the
/// key a child tries to leave a segment under.
struct HostIpc {
    shm_key: i32,
    shm_id: i32,
    msg_key: i32,
    msg_id: i32,
    child_shm_key: i32,
    mq_name: String,
    mq: libc::mqd_t,
}

impl HostIpc {
    fn new() -> HostIpc {
        use std::sync::atomic::{AtomicI32, Ordering};
        static NEXT: AtomicI32 = AtomicI32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = 0x5600_0000 + ((std::process::id() as i32 & 0xffff) << 6) + n * 4;
        // SAFETY: System V and POSIX IPC calls on values we own; the segment is attached once
        // to write its text and detached.
        unsafe {
            let mut shm_id = libc::shmget(base, 4096, libc::IPC_CREAT | libc::IPC_EXCL | 0o600);
            if shm_id < 0 {
                let old = libc::shmget(base, 0, 0);
                libc::shmctl(old, libc::IPC_RMID, std::ptr::null_mut());
                shm_id = libc::shmget(base, 4096, libc::IPC_CREAT | libc::IPC_EXCL | 0o600);
            }
            assert!(shm_id >= 0, "shmget: {}", std::io::Error::last_os_error());
            let p = libc::shmat(shm_id, std::ptr::null(), 0);
            assert!(p as isize != -1, "shmat");
            std::ptr::copy_nonoverlapping(SHM_TEXT.as_ptr(), p.cast::<u8>(), SHM_TEXT.len());
            libc::shmdt(p);
            let msg_id = libc::msgget(base + 2, libc::IPC_CREAT | 0o600);
            assert!(msg_id >= 0, "msgget: {}", std::io::Error::last_os_error());
            let child = libc::shmget(base + 1, 0, 0);
            if child >= 0 {
                libc::shmctl(child, libc::IPC_RMID, std::ptr::null_mut());
            }
            let mq_name = format!("/vox-escape-{}-{n}", std::process::id());
            let c = std::ffi::CString::new(mq_name.clone()).unwrap();
            libc::mq_unlink(c.as_ptr());
            let mq = libc::mq_open(
                c.as_ptr(),
                libc::O_CREAT | libc::O_RDWR | libc::O_NONBLOCK,
                0o600 as libc::mode_t,
                std::ptr::null_mut::<libc::mq_attr>(),
            );
            assert!(mq >= 0, "mq_open: {}", std::io::Error::last_os_error());
            HostIpc {
                shm_key: base,
                shm_id,
                msg_key: base + 2,
                msg_id,
                child_shm_key: base + 1,
                mq_name,
                mq,
            }
        }
    }

    /// What children did to the host's IPC objects (escapes), after removing a leftover.
    fn check(&self) -> Vec<String> {
        let mut out = Vec::new();
        // SAFETY: as in `new`.
        unsafe {
            let p = libc::shmat(self.shm_id, std::ptr::null(), libc::SHM_RDONLY);
            if p as isize != -1 {
                let got = std::slice::from_raw_parts(p.cast::<u8>(), SHM_TEXT.len());
                if got != SHM_TEXT {
                    out.push(format!(
                        "the host's shared-memory segment was written: {:?}",
                        String::from_utf8_lossy(got)
                    ));
                }
                libc::shmdt(p);
            }
            let mut ds: libc::msqid_ds = std::mem::zeroed();
            if libc::msgctl(self.msg_id, libc::IPC_STAT, &mut ds) == 0 && ds.msg_qnum != 0 {
                out.push(format!(
                    "the host's message queue got {} message(s)",
                    ds.msg_qnum
                ));
            }
            let mut attr: libc::mq_attr = std::mem::zeroed();
            if libc::mq_getattr(self.mq, &mut attr) == 0 && attr.mq_curmsgs != 0 {
                out.push(format!(
                    "the host's POSIX message queue got {} message(s)",
                    attr.mq_curmsgs
                ));
            }
            let child = libc::shmget(self.child_shm_key, 0, 0);
            if child >= 0 {
                out.push("a segment a child created outlived the run".to_string());
                libc::shmctl(child, libc::IPC_RMID, std::ptr::null_mut());
            }
        }
        out
    }
}

impl Drop for HostIpc {
    fn drop(&mut self) {
        // SAFETY: removing the objects `new` made.
        unsafe {
            libc::shmctl(self.shm_id, libc::IPC_RMID, std::ptr::null_mut());
            libc::msgctl(self.msg_id, libc::IPC_RMID, std::ptr::null_mut());
            libc::mq_close(self.mq);
            if let Ok(c) = std::ffi::CString::new(self.mq_name.clone()) {
                libc::mq_unlink(c.as_ptr());
            }
        }
    }
}

/// Descriptors the invoker of `vox` holds without close-on-exec, as a CI log, a lock file or a
/// socket to a scheduler would be: a file outside every root (7, append), a TCP connection to
/// the listener (8), a pipe whose reader the test holds (9), a connection to the pathname unix
/// socket (10). After the run nothing may have arrived through any of them.
struct Inherited {
    file: std::fs::File,
    tcp_ours: std::net::TcpStream,
    tcp_theirs: std::net::TcpStream,
    pipe_r: std::fs::File,
    pipe_w: std::fs::File,
    unix_ours: std::os::unix::net::UnixStream,
    unix_theirs: std::os::unix::net::UnixStream,
}

impl Inherited {
    fn new(world: &World, dir: &Path) -> Inherited {
        use std::os::fd::FromRawFd as _;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("outside/keep.txt"))
            .unwrap();
        let tcp_theirs = std::net::TcpStream::connect(world.tcp.local_addr().unwrap()).unwrap();
        let tcp_ours = loop {
            match world.tcp.accept() {
                Ok((s, _)) => break s,
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        tcp_ours.set_nonblocking(true).unwrap();
        let unix_theirs = std::os::unix::net::UnixStream::connect(&world.unix_path).unwrap();
        let unix_ours = loop {
            match world.unix_path_listener.accept() {
                Ok((s, _)) => break s,
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        unix_ours.set_nonblocking(true).unwrap();
        let mut p = [0; 2];
        // SAFETY: pipe2 fills two descriptors, which we then own.
        let (pipe_r, pipe_w) = unsafe {
            assert_eq!(
                libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK),
                0
            );
            (
                std::fs::File::from_raw_fd(p[0]),
                std::fs::File::from_raw_fd(p[1]),
            )
        };
        Inherited {
            file,
            tcp_ours,
            tcp_theirs,
            pipe_r,
            pipe_w,
            unix_ours,
            unix_theirs,
        }
    }

    /// Makes `cmd`'s child hold them as 7–10, without close-on-exec.
    fn pass(&self, cmd: &mut Command) {
        use std::os::fd::AsRawFd as _;
        use std::os::unix::process::CommandExt as _;
        let fds = [
            self.file.as_raw_fd(),
            self.tcp_theirs.as_raw_fd(),
            self.pipe_w.as_raw_fd(),
            self.unix_theirs.as_raw_fd(),
        ];
        // SAFETY: dup2 only, between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                for (i, fd) in fds.iter().enumerate() {
                    if libc::dup2(*fd, 7 + i as i32) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }

    /// What came through them (escapes).
    fn check(mut self) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = [0u8; 256];
        drop(self.pipe_w);
        if let Ok(n) = self.pipe_r.read(&mut buf) {
            if n > 0 {
                out.push(format!(
                    "the inherited pipe carried {:?}",
                    String::from_utf8_lossy(&buf[..n])
                ));
            }
        }
        if let Ok(n) = self.tcp_ours.read(&mut buf) {
            if n > 0 {
                out.push(format!(
                    "the inherited TCP socket carried {:?}",
                    String::from_utf8_lossy(&buf[..n])
                ));
            }
        }
        if let Ok(n) = self.unix_ours.read(&mut buf) {
            if n > 0 {
                out.push(format!(
                    "the inherited unix socket carried {:?}",
                    String::from_utf8_lossy(&buf[..n])
                ));
            }
        }
        drop(self.file);
        out
    }
}

/// What the receiver prepares once: scratch space, listeners, a dummy process.
struct World {
    scratch: PathBuf,
    tmp: PathBuf,
    far: PathBuf,
    secret: String,
    dummy_secret: String,
    tcp: TcpListener,
    udp: UdpSocket,
    unix: UnixListener,
    abstract_name: String,
    /// A pathname unix socket outside every root (the docker or D-Bus socket of a real host).
    unix_path: PathBuf,
    unix_path_listener: UnixListener,
    /// System V and POSIX IPC objects of the host, which no child may see.
    ipc: HostIpc,
    dummy: Child,
    marker: String,
    /// A port no listener holds, for `net:listen`.
    listen_port: u16,
}

impl World {
    fn new(tag: &str) -> World {
        let pid = std::process::id();
        let scratch = std::env::temp_dir().join(format!("vox-escape-{tag}-{pid}"));
        fresh_dir(&scratch);
        let tmp = scratch.join("tmp");
        fresh_dir(&tmp);
        let far = scratch.join("far");
        fresh_dir(&far);
        std::fs::write(far.join("far.txt"), "far away\n").unwrap();
        let secret = format!("VOX-ESCAPE-SECRET-{pid}-{:x}", digest(tag.as_bytes()));
        let dummy_secret = format!("VOX-ESCAPE-DUMMY-{pid}");
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let abstract_name = format!("vox-escape-{tag}-{pid}");
        let addr = SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        let unix = UnixListener::bind_addr(&addr).unwrap();
        unix.set_nonblocking(true).unwrap();
        let sock_dir = scratch.join("sock");
        fresh_dir(&sock_dir);
        let unix_path = sock_dir.join("host.sock");
        let unix_path_listener = UnixListener::bind(&unix_path).unwrap();
        unix_path_listener.set_nonblocking(true).unwrap();
        let ipc = HostIpc::new();
        let dummy = Command::new("sleep")
            .arg("600")
            .env("VOX_DUMMY_SECRET", &dummy_secret)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        World {
            scratch,
            tmp,
            far,
            secret,
            dummy_secret,
            tcp,
            udp,
            unix,
            abstract_name,
            unix_path,
            unix_path_listener,
            ipc,
            dummy,
            marker: format!("{pid}"),
            listen_port: TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port(),
        }
    }

    /// A fresh case directory with the roots and the sentinel.
    fn case_dir(&self, name: &str) -> PathBuf {
        let dir = self.scratch.join(name);
        fresh_dir(&dir);
        for d in ["root", "ro", "outside/sub"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        std::fs::write(dir.join("root/a.txt"), "data in the rw root\n").unwrap();
        std::fs::write(dir.join("ro/r.txt"), "data in the ro root\n").unwrap();
        std::fs::write(dir.join("outside/secret.txt"), format!("{}\n", self.secret)).unwrap();
        std::fs::write(dir.join("outside/keep.txt"), "keep\n").unwrap();
        std::fs::write(dir.join("outside/sub/inner.txt"), "inner\n").unwrap();
        let tool = dir.join("outside/tool");
        std::fs::write(&tool, "#!/bin/sh\nexec \"$@\"\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        symlink("../outside/keep.txt", dir.join("root/keep-link")).unwrap();
        symlink("../outside/secret.txt", dir.join("ro/secret-link")).unwrap();
        dir
    }

    /// Whatever reached the listeners since the last call.
    fn drain_listeners(&self) -> Vec<String> {
        /// What one accepted stream carried (read for at most 200 ms).
        fn carried(mut s: impl Read, set_timeout: impl FnOnce(Duration)) -> String {
            set_timeout(Duration::from_millis(200));
            let mut b = Vec::new();
            let _ = s.read_to_end(&mut b);
            format!("{:?}", String::from_utf8_lossy(&b))
        }
        let mut got = Vec::new();
        while let Ok((s, peer)) = self.tcp.accept() {
            let t = s.try_clone().unwrap();
            let what = carried(s, |d| drop(t.set_read_timeout(Some(d))));
            got.push(format!("tcp connection from {peer}: {what}"));
        }
        let mut buf = [0u8; 2048];
        while let Ok((n, peer)) = self.udp.recv_from(&mut buf) {
            got.push(format!(
                "udp datagram from {peer}: {:?}",
                String::from_utf8_lossy(&buf[..n])
            ));
        }
        while let Ok((s, _)) = self.unix_path_listener.accept() {
            let t = s.try_clone().unwrap();
            let what = carried(s, |d| drop(t.set_read_timeout(Some(d))));
            got.push(format!("pathname unix connection: {what}"));
        }
        while let Ok((s, _)) = self.unix.accept() {
            let t = s.try_clone().unwrap();
            let what = carried(s, |d| drop(t.set_read_timeout(Some(d))));
            got.push(format!("abstract unix connection: {what}"));
        }
        got
    }

    fn dummy_alive(&mut self) -> bool {
        matches!(self.dummy.try_wait(), Ok(None))
    }

    fn substitute(&self, s: &str, dir: &Path) -> String {
        let (major, minor) = root_device();
        s.replace("{root}", &dir.join("root").to_string_lossy())
            .replace("{ro}", &dir.join("ro").to_string_lossy())
            .replace("{tcp}", &self.tcp.local_addr().unwrap().port().to_string())
            .replace("{listen}", &self.listen_port.to_string())
            .replace("{udp}", &self.udp.local_addr().unwrap().port().to_string())
            .replace("{abstract}", &self.abstract_name)
            .replace("{unix_path}", &self.unix_path.to_string_lossy())
            .replace("{shm_key}", &self.ipc.shm_key.to_string())
            .replace("{child_shm_key}", &self.ipc.child_shm_key.to_string())
            .replace("{msg_key}", &self.ipc.msg_key.to_string())
            .replace("{mq_name}", &self.ipc.mq_name)
            .replace("{pid}", &self.dummy.id().to_string())
            .replace("{fork_marker}", &format!("1000.{}", self.marker))
            .replace("{daemon_marker}", &format!("2000.{}", self.marker))
            .replace("{daemon_marker2}", &format!("2001.{}", self.marker))
            .replace("{major}", &major.to_string())
            .replace("{minor}", &minor.to_string())
    }

    /// `vox run` in `dir` with a clean environment plus planted credentials and hijacks.
    fn vox(&self, dir: &Path, flags: &[String], script: &Path, args: &[String]) -> Command {
        let mut cmd = Command::new(vox_bin());
        cmd.env_clear()
            .env("PATH", SAFE_PATH)
            .env(
                "HOME",
                std::env::var_os("HOME").unwrap_or_else(|| "/root".into()),
            )
            .env("TMPDIR", &self.tmp)
            .env("LANG", "C.UTF-8")
            .env("SECRET_TOKEN", TOKEN)
            .env("AWS_SECRET_ACCESS_KEY", AWS_KEY)
            .env("GITHUB_TOKEN", GH_TOKEN)
            .env("LD_PRELOAD", PRELOAD)
            .current_dir(dir)
            .arg("run")
            .args(flags)
            .arg(script);
        if !args.is_empty() {
            cmd.arg("--").args(args);
        }
        cmd
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.dummy.kill();
        let _ = self.dummy.wait();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// What to wait for after the run, before comparing.
#[derive(Clone, Copy)]
enum After {
    Nothing,
    /// A background child is still working: wait until this file (relative to the case dir)
    /// appears, at most 5 s, then a little more.
    File(&'static str),
    /// No process whose command line matches `sleep <marker>` may remain.
    NoProcess(&'static str),
}

/// A check specific to one case: `Err` lines are escapes.
type Extra = fn(&Path, &Output) -> Result<(), String>;

struct Case {
    script: &'static str,
    flags: &'static [&'static str],
    args: &'static [&'static str],
    /// Acceptable exit codes (one, except where a race decides which of two safe outcomes).
    exit: &'static [i32],
    stdout_has: &'static [&'static str],
    stderr_has: &'static [&'static str],
    /// Must not exist after the run: relative to the case dir, or absolute.
    planted: &'static [&'static str],
    /// The run must end within this many seconds.
    max_secs: Option<u64>,
    after: After,
    extra: Option<Extra>,
    /// Start `vox` holding the descriptors of [`Inherited`] as 7–10.
    fds: bool,
    /// Prepares more of the case directory before the run (after [`World::case_dir`]).
    setup: Option<fn(&Path)>,
}

const CASE: Case = Case {
    script: "",
    flags: &[],
    args: &[],
    exit: &[0],
    stdout_has: &[],
    stderr_has: &[],
    planted: &[],
    max_secs: None,
    after: After::Nothing,
    extra: None,
    fds: false,
    setup: None,
};

/// The capabilities most cases run with.
const JAIL: &[&str] = &[
    "--caps",
    "fs:rw={root}",
    "--caps",
    "fs:ro={ro}",
    "--caps",
    "process:allow",
];
const JAIL_ARGS: &[&str] = &[
    "--caps",
    "fs:rw={root}",
    "--caps",
    "fs:ro={ro}",
    "--caps",
    "process:allow",
    "--caps",
    "env:ro",
];
const JAIL_NET: &[&str] = &[
    "--caps",
    "fs:rw={root}",
    "--caps",
    "fs:ro={ro}",
    "--caps",
    "process:allow",
    "--caps",
    "env:ro",
    "--caps",
    "net:allow",
];

/// The deny cases (issue 39): the rw root holds a read-only `.git`, a hidden `.env` and
/// `conf/app.key`, and `bin/` whose files children may read but not execute.
const DENY: &[&str] = &[
    "--caps",
    "fs:rw={root}",
    "--caps",
    "fs:ro={root}/.git",
    "--caps",
    "fs:none={root}/.env",
    "--caps",
    "fs:none={root}/conf/app.key",
    "--caps",
    "exec:none={root}/bin",
    "--caps",
    "process:allow",
];

/// What `.env` and `conf/app.key` hold; it may appear nowhere else.
const DENY_SECRET: &str = "vox-deny-secret-5e0c17";
const GIT_CONFIG: &str = "[core]\n\tbare = false\n";

/// The places of [`DENY`] inside `root/`: `.git` (config, hooks/README), `.env`,
/// `conf/app.key` beside `conf/app.toml`, `bin/tool` (a script that reports running) and
/// `bin/true` (a copy of the ELF `true`).
fn deny_setup(dir: &Path) {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::write(root.join(".git/config"), GIT_CONFIG).unwrap();
    std::fs::write(root.join(".git/hooks/README"), "hooks\n").unwrap();
    std::fs::write(root.join(".env"), format!("API_KEY={DENY_SECRET}\n")).unwrap();
    std::fs::create_dir_all(root.join("conf")).unwrap();
    std::fs::write(root.join("conf/app.key"), format!("{DENY_SECRET}\n")).unwrap();
    std::fs::write(root.join("conf/app.toml"), "port = 1\n").unwrap();
    std::fs::create_dir_all(root.join("bin")).unwrap();
    let tool = root.join("bin/tool");
    std::fs::write(&tool, "#!/bin/sh\necho ESCA\"\"PED-tool-ran\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t = root.join("bin/true");
    let real = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap();
    std::fs::copy(real, &t).unwrap();
    std::fs::set_permissions(&t, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// After a deny case: `.git` is exactly as set up (contents and modes), `.env` and
/// `conf/app.key` are where they were with their contents, and the secret is in no other file
/// of the root nor in the output.
fn deny_places_intact(dir: &Path, out: &Output) -> Result<(), String> {
    let root = dir.join("root");
    let mut bad = Vec::new();
    let git = snapshot(&root.join(".git"), &[], false);
    let want: Vec<(&str, String)> = vec![
        (
            "config",
            format!(
                "file {} bytes {:016x}",
                GIT_CONFIG.len(),
                digest(GIT_CONFIG.as_bytes())
            ),
        ),
        ("hooks", "dir".to_string()),
        (
            "hooks/README",
            format!("file 6 bytes {:016x}", digest(b"hooks\n")),
        ),
    ];
    let want: BTreeMap<String, String> =
        want.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    for change in diff(&want, &git) {
        bad.push(format!(".git: {change}"));
    }
    let mode = std::fs::metadata(root.join(".git/config")).map(|m| m.permissions().mode() & 0o777);
    if let Ok(m) = mode {
        if m != 0o644 {
            bad.push(format!(".git/config has mode {m:o}"));
        }
    }
    for (file, text) in [
        (".env", format!("API_KEY={DENY_SECRET}\n")),
        ("conf/app.key", format!("{DENY_SECRET}\n")),
    ] {
        let p = root.join(file);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_file() => {
                if std::fs::read_to_string(&p).unwrap_or_default() != text {
                    bad.push(format!("{file} was changed"));
                }
            }
            Ok(_) => bad.push(format!("{file} is no longer a plain file")),
            Err(e) => bad.push(format!("{file} is gone: {e}")),
        }
    }
    for f in files_containing(&root, DENY_SECRET) {
        if f != root.join(".env") && f != root.join("conf/app.key") {
            bad.push(format!("the denied secret is in {}", f.display()));
        }
    }
    if String::from_utf8_lossy(&out.stdout).contains(DENY_SECRET) {
        bad.push("stdout shows the denied secret".to_string());
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

/// Targets every writing case plants; none may exist afterwards.
const COMMON_PLANTED: &[&str] = &[
    "pwned.txt",
    "outside/pwned.txt",
    "../far/pwned.txt",
    "/tmp/vox-escape-pwned.txt",
    "/dev/shm/vox-escape-pwned.txt",
];

/// A root is its own mount (the rest is read-only), so `mv` across its boundary gets `EXDEV` and
/// falls back to copy-then-remove: it may leave in the root what the child could have made there
/// anyway, a copy of a readable file (`root/r.txt` from the ro root) or an empty directory
/// (`root/outside-stolen`, whose contents it cannot read). Nothing may have been *moved*: the
/// sources are unchanged (the snapshot checks that) and nothing from outside got in.
fn nothing_moved_into_the_root(dir: &Path, _: &Output) -> Result<(), String> {
    let mut bad = Vec::new();
    let stolen = dir.join("root/outside-stolen");
    if let Ok(entries) = std::fs::read_dir(&stolen) {
        let names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if !names.is_empty() {
            bad.push(format!("root/outside-stolen holds {names:?}"));
        }
    } else if stolen.symlink_metadata().is_ok() {
        bad.push("root/outside-stolen is not a directory".to_string());
    }
    let copy = dir.join("root/r.txt");
    if copy.symlink_metadata().is_ok() {
        let original = std::fs::read(dir.join("ro/r.txt"));
        match (std::fs::read(&copy), original) {
            (Ok(c), Ok(o)) if c == o => {}
            (_, Err(e)) => bad.push(format!("ro/r.txt is gone ({e}): it was moved")),
            _ => bad.push("root/r.txt is not a copy of ro/r.txt".to_string()),
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

/// The background child of case 54 found every inherited descriptor closed.
fn background_fds_closed(dir: &Path, _: &Output) -> Result<(), String> {
    let got = std::fs::read_to_string(dir.join("root/bg-fds.txt")).unwrap_or_default();
    if got.lines().collect::<Vec<_>>() == ["closed-7", "closed-8", "closed-9", "closed-10"] {
        Ok(())
    } else {
        Err(format!("the background child reports {got:?}"))
    }
}

/// Under `--max-output 1MiB` neither stream carried much more than a mebibyte.
fn output_within_ceiling(_: &Path, out: &Output) -> Result<(), String> {
    let (o, e) = (out.stdout.len(), out.stderr.len());
    if o + e <= (1 << 20) + 4096 {
        Ok(())
    } else {
        Err(format!(
            "{o} bytes on stdout and {e} on stderr under --max-output 1MiB"
        ))
    }
}

fn no_file_bigger_than_limit(dir: &Path, _: &Output) -> Result<(), String> {
    let mut bad = Vec::new();
    for name in ["big-head.bin", "big-dd.bin", "big-ulimit.bin", "big-py.bin"] {
        if let Ok(m) = std::fs::metadata(dir.join("root").join(name)) {
            if m.len() > 1 << 20 {
                bad.push(format!("root/{name} is {} bytes (> 1 MiB)", m.len()));
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            script: "01_sh_redirect_outside.vox",
            flags: JAIL,
            stdout_has: &[
                "sibling: exit=2",
                "append: exit=2",
                "parent: exit=2",
                "cwd: exit=2",
                "tmp: exit=2",
                // Outside the writable places every mount is read-only (checked before Landlock).
                "Read-only file system",
            ],
            planted: &["/tmp/vox-escape-pwned.txt", "/dev/shm/vox-escape-pwned.txt"],
            ..CASE
        },
        Case {
            script: "02_python_write_outside.vox",
            flags: JAIL,
            stdout_has: &[
                "open blocked: Read-only file system",
                "open-append blocked: Read-only file system",
                "copy blocked: Read-only file system",
                "rename blocked",
                "remove blocked: Read-only file system",
                "mkdir blocked: Read-only file system",
                "symlink blocked: Read-only file system",
                "truncate blocked: Read-only file system",
            ],
            planted: &["root/stolen.txt", "outside/pwned-copy.txt"],
            ..CASE
        },
        Case {
            script: "03_cp_outside.vox",
            flags: JAIL,
            stdout_has: &[
                "new: exit=1",
                "overwrite: exit=1",
                "into-dir: exit=1",
                "parent: exit=1",
                "Read-only file system",
            ],
            ..CASE
        },
        Case {
            script: "04_tee_outside.vox",
            flags: JAIL,
            stdout_has: &[
                "direct: exit=1",
                "append: exit=1",
                "pipe: exit=1",
                "Read-only file system",
            ],
            planted: &["outside/pwned2.txt"],
            ..CASE
        },
        Case {
            script: "05_mv_outside.vox",
            flags: JAIL,
            stdout_has: &[
                "out: exit=1",
                "in: exit=1",
                "dir: exit=1",
                "rename-outside: exit=1",
            ],
            planted: &[
                "outside/moved.txt",
                "root/stolen.txt",
                "outside/renamed.txt",
            ],
            extra: Some(nothing_moved_into_the_root),
            ..CASE
        },
        Case {
            script: "06_rm_truncate_outside.vox",
            flags: JAIL,
            stdout_has: &[
                "rm: exit=1",
                "truncate: exit=1",
                "mkdir: exit=1",
                "mkfifo: exit=1",
                "ln-s: exit=1",
                "touch-new: exit=1",
            ],
            planted: &[
                "outside/pwned-dir",
                "outside/pwned-fifo",
                "outside/pwned-link",
                "outside/pwned-touch.txt",
            ],
            ..CASE
        },
        Case {
            script: "07_read_secret_child.vox",
            flags: JAIL,
            stdout_has: &[
                "cat: exit=1",
                "head: exit=1",
                "dd: exit=1",
                "python: exit=1",
                "sh-read: exit=0 out=[] err=[sh: 1: cannot open outside/secret.txt: Permission denied]",
                "grep: exit=2",
                "ls: exit=2",
                "Permission denied",
            ],
            ..CASE
        },
        Case {
            script: "08_read_secret_script.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.read"],
            ..CASE
        },
        Case {
            script: "09_symlink_dir_script_write.vox",
            flags: JAIL,
            exit: &[77],
            stdout_has: &["planted, ln exit 0"],
            stderr_has: &["vox: capability denied: fs.write"],
            ..CASE
        },
        Case {
            script: "10_symlink_file_script_write.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.write"],
            ..CASE
        },
        Case {
            script: "11_symlink_child_write.vox",
            flags: JAIL,
            stdout_has: &[
                "plant: exit=0",
                "write-dir: exit=2",
                "write-file: exit=2",
                "read: exit=1",
                "python: exit=1",
            ],
            planted: &["outside/pwned2.txt"],
            ..CASE
        },
        Case {
            script: "12_symlink_script_read.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.read"],
            ..CASE
        },
        Case {
            script: "13_hardlink_child.vox",
            flags: JAIL,
            stdout_has: &["ln: exit=1", "ln-secret: exit=1", "python: exit=1"],
            // `root/hl` itself may appear: the last step writes a new file of that name.
            planted: &["root/hl-secret", "root/hl2"],
            ..CASE
        },
        Case {
            script: "14_dotdot_script_write.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.write"],
            ..CASE
        },
        Case {
            script: "15_dotdot_missing_tail.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.write"],
            planted: &["root/pwned.txt"],
            ..CASE
        },
        Case {
            script: "16_proc_self_root_script.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.write"],
            ..CASE
        },
        Case {
            script: "17_proc_self_root_child.vox",
            flags: JAIL,
            stdout_has: &[
                "read: exit=1",
                "write: exit=2",
                "cwd: exit=1",
                "pid1: exit=2",
                "python: exit=1",
            ],
            planted: &["outside/pwned2.txt"],
            ..CASE
        },
        Case {
            script: "18_fd_tricks_child.vox",
            flags: JAIL,
            stdout_has: &[
                "openat blocked: Read-only file system",
                "proc-fd blocked",
                "dev-fd blocked",
                "cwd-fd blocked",
                "read-secret blocked: Permission denied",
                "fd-keep blocked",
                "sh-exec: exit=2",
                "bash-devfd: exit=1",
            ],
            planted: &[
                "outside/pwned2.txt",
                "outside/pwned3.txt",
                "pwned4.txt",
                "outside/pwned5.txt",
                "outside/pwned6.txt",
            ],
            ..CASE
        },
        Case {
            script: "19_script_proc_fd.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.write"],
            ..CASE
        },
        Case {
            script: "20_toctou_symlink_race.vox",
            flags: &[
                "--verbose",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "fs:ro={ro}",
                "--caps",
                "process:allow",
            ],
            // Denied at the check (77) or written/refused at the use (0): both keep the
            // write inside the root.
            exit: &[0, 77],
            stderr_has: &["vox: self-confinement: landlock ABI"],
            planted: &["outside/f.txt"],
            after: After::File("root/swapper-done"),
            ..CASE
        },
        Case {
            script: "21_tcp_python.vox",
            flags: JAIL_ARGS,
            args: &["{tcp}"],
            stdout_has: &[
                "127.0.0.1 blocked",
                "localhost blocked",
                "::1 blocked",
                "bind blocked",
            ],
            ..CASE
        },
        Case {
            script: "22_tcp_bash_devtcp.vox",
            flags: JAIL_ARGS,
            args: &["{tcp}"],
            stdout_has: &["bash: exit=1", "bash-read: exit=1"],
            ..CASE
        },
        Case {
            script: "23_udp.vox",
            flags: JAIL_ARGS,
            args: &["{udp}"],
            stdout_has: &["udp blocked", "raw blocked", "bash: exit=1"],
            ..CASE
        },
        Case {
            script: "24_abstract_unix.vox",
            flags: JAIL_ARGS,
            args: &["{abstract}"],
            stdout_has: &["abstract blocked"],
            ..CASE
        },
        Case {
            script: "25_abstract_unix_net_allow.vox",
            flags: JAIL_NET,
            args: &["{abstract}"],
            stdout_has: &["abstract blocked"],
            ..CASE
        },
        Case {
            script: "26_env_secret_token.vox",
            flags: JAIL,
            stdout_has: &[
                "env: exit=0",
                "token=unset aws=unset gh=unset preload=unset",
                "environ: exit=0",
                "parent-environ: exit=1",
            ],
            ..CASE
        },
        Case {
            script: "27_env_set_hijack.vox",
            flags: &[
                "--caps",
                "fs:rw={root}",
                "--caps",
                "fs:ro={ro}",
                "--caps",
                "process:allow",
                "--caps",
                "env:rw",
            ],
            stdout_has: &[
                "set: exit=0 out=[preload=unset libpath=unset bash_env=unset env=unset \
                 startup=unset gitcfg=unset node=unset]",
                "passed: exit=0 out=[preload=unset libpath=unset bash_env=unset env=unset \
                 startup=unset gitcfg=unset node=unset]",
            ],
            planted: &["root/hijacked.txt"],
            ..CASE
        },
        Case {
            script: "28_fork_bomb.vox",
            flags: &[
                "--timeout",
                "2",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
                "--caps",
                "env:ro",
            ],
            args: &["{fork_marker}"],
            exit: &[78],
            stderr_has: &["vox: execution budget exceeded: --timeout 2"],
            max_secs: Some(8),
            after: After::NoProcess("sleep {fork_marker}"),
            ..CASE
        },
        Case {
            script: "29_setsid_daemon_mesh.vox",
            flags: &[
                "--mesh",
                "--timeout",
                "5",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
                "--caps",
                "env:ro",
            ],
            args: &["{daemon_marker}"],
            max_secs: Some(10),
            after: After::NoProcess("sleep {daemon_marker}"),
            ..CASE
        },
        Case {
            script: "30_disk_quota_script.vox",
            flags: &["--max-disk", "256K", "--caps", "fs:rw={root}"],
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.quota — raise --max-disk"],
            ..CASE
        },
        Case {
            script: "31_disk_child_fsize.vox",
            flags: &[
                "--max-disk",
                "1M",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
            ],
            stdout_has: &[
                "head: exit=153",
                "dd: exit=153",
                "ulimit: exit=2",
                "python: exit=1",
            ],
            extra: Some(no_file_bigger_than_limit),
            ..CASE
        },
        Case {
            script: "32_max_files.vox",
            flags: &["--max-files", "10", "--caps", "fs:rw={root}"],
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.quota — raise --max-files"],
            ..CASE
        },
        Case {
            script: "33_exec_escape.vox",
            flags: JAIL,
            exit: &[42],
            ..CASE
        },
        Case {
            script: "34_spawn_background.vox",
            flags: JAIL,
            stdout_has: &["started"],
            after: After::File("root/background-done"),
            ..CASE
        },
        Case {
            script: "35_spawn_background_mesh.vox",
            flags: &[
                "--mesh",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
            ],
            exit: &[77],
            stderr_has: &["vox: capability denied: process.spawn_background"],
            ..CASE
        },
        Case {
            script: "36_kill_outside.vox",
            flags: JAIL_ARGS,
            args: &["{pid}"],
            stdout_has: &["kill: exit=1", "sh-kill: exit=", "python: exit=1"],
            ..CASE
        },
        Case {
            script: "37_kill_outside_net_allow.vox",
            flags: JAIL_NET,
            args: &["{pid}"],
            stdout_has: &["kill: exit=1", "sh-kill: exit=", "python: exit=1"],
            ..CASE
        },
        Case {
            script: "38_proc_other_environ.vox",
            flags: JAIL_ARGS,
            args: &["{pid}"],
            stdout_has: &["environ: exit=1", "cmdline: exit=1", "maps: exit=1"],
            ..CASE
        },
        Case {
            script: "39_mknod_device.vox",
            flags: JAIL_NET,
            args: &["{major}", "{minor}"],
            stdout_has: &["disk: exit=1", "null: exit=1", "python: exit=1"],
            planted: &["root/disk", "root/null", "root/mem"],
            ..CASE
        },
        Case {
            script: "40_program_outside_roots.vox",
            flags: JAIL,
            planted: &["outside/pwned.txt"],
            ..CASE
        },
        Case {
            script: "41_cwd_argument_outside.vox",
            flags: JAIL,
            stdout_has: &["write: exit=2", "read: exit=1", "run_ex exit 2"],
            planted: &["outside/pwned-ex.txt"],
            ..CASE
        },
        Case {
            script: "42_script_copy_outside.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.copy"],
            planted: &["root/stolen.txt"],
            ..CASE
        },
        Case {
            script: "43_script_glob_outside.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.glob"],
            ..CASE
        },
        Case {
            script: "44_ro_root_child_write.vox",
            flags: JAIL,
            stdout_has: &[
                "write: exit=2",
                "overwrite: exit=2",
                "rm: exit=1",
                "mv: exit=1",
                "read: exit=0 out=[data in the ro root]",
            ],
            planted: &["ro/pwned.txt"],
            extra: Some(nothing_moved_into_the_root),
            ..CASE
        },
        Case {
            script: "45_ro_root_script_write.vox",
            flags: JAIL,
            exit: &[77],
            stderr_has: &["vox: capability denied: fs.write"],
            planted: &["ro/pwned.txt"],
            ..CASE
        },
        Case {
            script: "46_system_paths_write.vox",
            flags: JAIL,
            stdout_has: &[
                "etc: exit=2",
                "usr: exit=2",
                "proc-sys: exit=2",
                "sys: exit=2",
                "home: exit=2",
            ],
            planted: &["/etc/vox-escape-pwned", "/usr/local/bin/vox-escape-pwned"],
            ..CASE
        },
        Case {
            script: "47_tmp_and_tmpdir.vox",
            flags: JAIL,
            stdout_has: &["tmp: exit=2", "tmpdir: exit=2 out=[ok]", "mktemp: exit=1"],
            ..CASE
        },
        Case {
            script: "48_unconfined_flag_mesh.vox",
            flags: &[
                "--mesh",
                "--unconfined-children",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
            ],
            exit: &[1],
            stderr_has: &["vox: --unconfined-children is refused under --mesh"],
            ..CASE
        },
        Case {
            script: "49_exit_command.vox",
            flags: JAIL_ARGS,
            args: &["{udp}", "{pid}"],
            stdout_has: &["queued", "exit-command token=unset preload=unset"],
            ..CASE
        },
        Case {
            script: "50_setsid_daemon_mesh_timeout.vox",
            flags: &[
                "--mesh",
                "--timeout",
                "2",
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
                "--caps",
                "env:ro",
            ],
            args: &["{daemon_marker2}"],
            exit: &[78],
            stderr_has: &["vox: execution budget exceeded: --timeout 2"],
            max_secs: Some(8),
            after: After::NoProcess("sleep {daemon_marker2}"),
            ..CASE
        },
        // ---- The hostile-child suite of issue 35: descriptors, the terminal, unix sockets, IPC,
        // setuid files, the temp dir, the output ceiling, and their neighbours. Each was seen
        // failing on the jail before it (VOX_ESCAPE_BIN), or says in its `// Attempt:` line why
        // it passed there too.
        Case {
            script: "52_inherited_fds_capture.vox",
            flags: JAIL,
            fds: true,
            stdout_has: &["open: []", "write 7 blocked: Bad file descriptor", "write 10 blocked: Bad file descriptor"],
            ..CASE
        },
        Case {
            script: "53_inherited_fds_run_ex.vox",
            flags: JAIL,
            fds: true,
            stdout_has: &["open: []", "write 8 blocked: Bad file descriptor", "write 9 blocked: Bad file descriptor"],
            ..CASE
        },
        Case {
            script: "54_inherited_fds_background.vox",
            flags: JAIL,
            fds: true,
            stdout_has: &["started"],
            after: After::File("root/bg-done"),
            extra: Some(background_fds_closed),
            ..CASE
        },
        Case {
            script: "55_inherited_fds_mesh.vox",
            flags: &["--mesh", "--caps", "fs:rw={root}", "--caps", "process:allow"],
            fds: true,
            stdout_has: &["closed-7", "closed-8", "closed-9", "closed-10"],
            ..CASE
        },
        Case {
            script: "56_inherited_fds_exit_command.vox",
            flags: JAIL,
            fds: true,
            stdout_has: &["registered", "closed-7", "closed-8", "closed-9", "closed-10"],
            ..CASE
        },
        Case {
            script: "57_inherited_fds_via_parent_proc.vox",
            flags: JAIL,
            fds: true,
            stdout_has: &["parent fd 7 blocked: ", "parent fd list blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "58_tiocsti_capture.vox",
            flags: JAIL,
            stdout_has: &["tiocsti 0 blocked: Operation not permitted", "tiocsti 1 blocked: Operation not permitted", "tiocsti 2 blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "59_tiocsti_run_ex.vox",
            flags: JAIL,
            stdout_has: &["tiocsti 0 blocked: Operation not permitted", "tiocsti 1 blocked: Operation not permitted", "tiocsti 2 blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "60_tioclinux.vox",
            flags: JAIL,
            stdout_has: &["tioclinux 0 blocked: Operation not permitted", "tioclinux 2 blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "61_tiocsti_high_bits.vox",
            flags: JAIL,
            stdout_has: &["tiocsti-high blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "62_tiocsti_x32.vox",
            flags: JAIL,
            stdout_has: &["tiocsti-x32 refused: "],
            ..CASE
        },
        Case {
            script: "63_devtty_capture.vox",
            flags: JAIL,
            stdout_has: &["devtty blocked: No such device or address"],
            ..CASE
        },
        Case {
            script: "64_unix_path_connect.vox",
            flags: JAIL,
            stdout_has: &["unix-connect blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "65_unix_path_dgram.vox",
            flags: JAIL,
            stdout_has: &["unix-dgram blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "66_unix_path_perl.vox",
            flags: JAIL,
            stdout_has: &["perl blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "67_unix_bind_in_root.vox",
            flags: JAIL,
            stdout_has: &["unix-bind blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "68_unix_via_proc_root.vox",
            flags: JAIL,
            stdout_has: &["unix-proc-root blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "69_socketpair_still_works.vox",
            flags: JAIL,
            stdout_has: &["socketpair works: ping"],
            ..CASE
        },
        Case {
            script: "70_vsock.vox",
            flags: JAIL,
            stdout_has: &["vsock blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "71_packet_socket.vox",
            flags: JAIL,
            stdout_has: &["packet blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "72_sysv_shm_host.vox",
            flags: JAIL_ARGS,
            args: &["{shm_key}"],
            stdout_has: &["shm-host blocked: No such file or directory"],
            ..CASE
        },
        Case {
            script: "73_sysv_shm_leftover.vox",
            flags: JAIL_ARGS,
            args: &["{child_shm_key}"],
            stdout_has: &["shm-create: created"],
            ..CASE
        },
        Case {
            script: "74_sysv_msg_host.vox",
            flags: JAIL_ARGS,
            args: &["{msg_key}"],
            stdout_has: &["msg-host blocked: No such file or directory"],
            ..CASE
        },
        Case {
            script: "75_posix_mq_host.vox",
            flags: JAIL_ARGS,
            args: &["{mq_name}"],
            stdout_has: &["mq-host blocked: No such file or directory"],
            ..CASE
        },
        Case {
            script: "76_sysvipc_listing.vox",
            flags: JAIL,
            stdout_has: &["sysvipc blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "77_chmod_setuid.vox",
            flags: JAIL,
            stdout_has: &["Operation not permitted", "chmod=1"],
            ..CASE
        },
        Case {
            script: "78_chmod_setgid.vox",
            flags: JAIL,
            stdout_has: &["Operation not permitted", "chmod=1"],
            ..CASE
        },
        Case {
            script: "79_open_creat_setuid.vox",
            flags: JAIL,
            stdout_has: &["creat-suid blocked: Operation not permitted", "creat-sgid blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "80_mkdir_setgid.vox",
            flags: JAIL,
            stdout_has: &["mkdir-sgid blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "81_install_setuid.vox",
            flags: JAIL,
            stdout_has: &["install exit=1", "Operation not permitted"],
            ..CASE
        },
        Case {
            script: "82_fchmodat_dirfd.vox",
            flags: JAIL,
            stdout_has: &["fchmodat blocked: Operation not permitted", "fchmod blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "83_cp_preserve_setuid.vox",
            flags: JAIL,
            ..CASE
        },
        Case {
            script: "84_setcap_xattr.vox",
            flags: JAIL,
            stdout_has: &["setcap blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "85_mknod_setuid.vox",
            flags: JAIL,
            stdout_has: &["mknod-suid blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "86_tmpdir_flood_background.vox",
            flags: JAIL,
            stdout_has: &["started"],
            ..CASE
        },
        Case {
            script: "87_tmpdir_cwd_background.vox",
            flags: JAIL,
            stdout_has: &["started"],
            ..CASE
        },
        Case {
            script: "88_max_output_run_ex.vox",
            flags: &["--max-output", "1MiB", "--caps", "fs:rw={root}", "--caps", "process:allow"],
            exit: &[78],
            stderr_has: &["vox: execution budget exceeded: --max-output 1048576"],
            extra: Some(output_within_ceiling),
            ..CASE
        },
        Case {
            script: "89_max_output_exec.vox",
            flags: &["--max-output", "1MiB", "--caps", "fs:rw={root}", "--caps", "process:allow"],
            exit: &[78],
            stderr_has: &["vox: execution budget exceeded: --max-output 1048576"],
            extra: Some(output_within_ceiling),
            ..CASE
        },
        Case {
            script: "90_max_output_stderr.vox",
            flags: &["--max-output", "1MiB", "--caps", "fs:rw={root}", "--caps", "process:allow"],
            exit: &[78],
            stderr_has: &["vox: execution budget exceeded: --max-output 1048576"],
            extra: Some(output_within_ceiling),
            ..CASE
        },
        Case {
            script: "91_max_output_exit_command.vox",
            flags: &["--max-output", "1MiB", "--caps", "fs:rw={root}", "--caps", "process:allow"],
            stdout_has: &["registered"],
            extra: Some(output_within_ceiling),
            ..CASE
        },
        Case {
            script: "92_ptrace_parent.vox",
            flags: JAIL,
            stdout_has: &["ptrace-parent blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "93_proc_parent_root.vox",
            flags: JAIL,
            stdout_has: &["parent-root blocked: Permission denied", "parent-environ blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "94_mount_tmpfs.vox",
            flags: JAIL,
            stdout_has: &["mount blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "95_unshare_binary.vox",
            flags: JAIL,
            stdout_has: &["unshare refused: ", "Operation not permitted"],
            ..CASE
        },
        Case {
            script: "96_unshare_syscall.vox",
            flags: JAIL,
            stdout_has: &["unshare-user blocked: Operation not permitted", "unshare-ipc blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "97_clone_newuser.vox",
            flags: JAIL,
            stdout_has: &["clone-newuser blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "98_clone3_newuser.vox",
            flags: JAIL,
            stdout_has: &["clone3 blocked: Function not implemented"],
            ..CASE
        },
        Case {
            script: "99_setns.vox",
            flags: JAIL,
            stdout_has: &["setns blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "100_perf_event_open.vox",
            flags: JAIL,
            stdout_has: &["perf blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "101_userfaultfd.vox",
            flags: JAIL,
            stdout_has: &["userfaultfd blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "102_keyctl_session.vox",
            flags: JAIL,
            stdout_has: &["keyctl blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "103_add_key.vox",
            flags: JAIL,
            stdout_has: &["add_key blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "104_bpf.vox",
            flags: JAIL,
            stdout_has: &["bpf blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "105_io_uring.vox",
            flags: JAIL,
            stdout_has: &["io_uring blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "106_openat2_setuid.vox",
            flags: JAIL,
            stdout_has: &["openat2 blocked: Function not implemented"],
            ..CASE
        },
        Case {
            script: "107_kill_keeper.vox",
            flags: JAIL,
            stdout_has: &["kill-keeper blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "108_chroot.vox",
            flags: JAIL,
            stdout_has: &["chroot blocked: Operation not permitted"],
            ..CASE
        },
        Case {
            script: "109_unix_abstract_net_off_seccomp.vox",
            flags: JAIL_ARGS,
            args: &["{abstract}"],
            stdout_has: &["abstract blocked: Permission denied"],
            ..CASE
        },
        Case {
            script: "118_listen_outbound.vox",
            flags: &[
                "--caps",
                "fs:rw={root}",
                "--caps",
                "process:allow",
                "--caps",
                "env:ro",
                "--caps",
                "net:listen={listen}",
            ],
            args: &["{tcp}", "{udp}", "{listen}"],
            stdout_has: &[
                "connect blocked: Permission denied",
                "fastopen blocked: ",
                "udp blocked: Permission denied",
                "raw blocked: Permission denied",
                "netlink blocked: Permission denied",
                "sctp blocked: Permission denied",
                "unix blocked: Permission denied",
                "other-port blocked: Permission denied",
                "any-port blocked: Permission denied",
                "listen on the granted port: ok",
            ],
            ..CASE
        },
        Case {
            script: "111_deny_write_git.vox",
            flags: DENY,
            stdout_has: &[
                "hook: exit=2",
                "cp: exit=1",
                "append: exit=2",
                "touch: exit=1",
                "mkdir: exit=1",
                "rm: exit=1",
                "chmod: exit=1",
                "python: exit=1",
                "mv-hooks: exit=1",
                "mv-git: exit=1",
                "replace-git: exit=1",
                "Read-only file system",
                "Device or resource busy",
            ],
            planted: &[
                "root/.git/hooks/pre-commit",
                "root/.git/hooks/post-checkout",
                "root/.git/new",
                "root/.git/refs",
                "root/git-moved",
            ],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
        Case {
            script: "112_deny_read_env.vox",
            flags: DENY,
            stdout_has: &[
                "cat: exit=1 out=[] err=[cat: root/.env: Permission denied]",
                "head: exit=1",
                "dd: exit=1",
                "python: exit=1",
                "sh-read: exit=0 out=[] err=[sh: 1: cannot open root/.env: Permission denied]",
                "grep: exit=2",
                "cp: exit=1",
                "key: exit=1 out=[] err=[cat: root/conf/app.key: Permission denied]",
                "overwrite: exit=2",
                "rm: exit=1",
                "python-replace: exit=1",
            ],
            planted: &["root/env-copy"],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
        Case {
            script: "113_deny_symlink.vox",
            flags: DENY,
            stdout_has: &[
                "ln-s: exit=1 out=[] err=[cat: root/env-link: Permission denied]",
                "ln-s-abs: exit=1",
                "dir-link: exit=1",
                "python: exit=1",
                "dotdot: exit=1",
                "dotdot-conf: exit=1",
                "write-link: exit=2",
            ],
            planted: &["root/.git/hooks/pre-commit"],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
        Case {
            script: "114_deny_hardlink.vox",
            flags: DENY,
            stdout_has: &[
                "ln: exit=1",
                "ln-key: exit=1",
                "python: exit=1",
                "cp-l: exit=1",
                "ln-git: exit=1",
                "Invalid cross-device link",
            ],
            planted: &["root/hl", "root/hl-key", "root/hl2", "root/hl3", "root/hl-config"],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
        Case {
            script: "115_deny_rename_parent.vox",
            flags: DENY,
            stdout_has: &[
                "mv: exit=1 out=[] err=[mv: cannot move 'root/conf' to 'root/conf2': Device or resource busy]",
                "python: exit=1",
                "mv-in-place: exit=1",
                "script read root/conf2/app.key: error",
                "script read root/conf3/app.key: error",
                "script read root/new/conf/app.key: error",
            ],
            planted: &["root/conf2", "root/conf3", "root/new/conf"],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
        Case {
            script: "116_deny_exec.vox",
            flags: DENY,
            stdout_has: &[
                "direct: exit=126",
                "elf: exit=126",
                "failed to map segment from shared object",
                "python: exit=1",
                "env: exit=126",
                "read: exit=0 out=[#!/bin/sh]",
            ],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
        Case {
            script: "117_deny_unmount.vox",
            flags: DENY,
            stdout_has: &[
                "umount: exit=1",
                "umount-lazy: exit=2",
                "bind: exit=32",
                "python: exit=1 out=[-1 1]",
            ],
            planted: &["root/.git/pwned"],
            setup: Some(deny_setup),
            extra: Some(deny_places_intact),
            ..CASE
        },
    ]
}

/// Runs one case; returns (escapes, other failures).
fn run_case(world: &mut World, case: &Case) -> (Vec<String>, Vec<String>) {
    let name = case.script.trim_end_matches(".vox");
    let dir = world.case_dir(name);
    if let Some(setup) = case.setup {
        setup(&dir);
    }
    let skip = ["root"];
    let before = snapshot(&dir, &skip, false);
    let far_before = snapshot(&world.far, &[], false);
    let passwd_before = std::fs::read("/etc/passwd").unwrap_or_default();
    let mut planted: Vec<PathBuf> = case
        .planted
        .iter()
        .chain(COMMON_PLANTED)
        .map(|p| dir.join(p))
        .collect();
    planted.sort();
    planted.dedup();
    for p in &planted {
        if p.is_absolute() && !p.starts_with(&world.scratch) {
            let _ = std::fs::remove_file(p);
        }
    }
    let _ = world.drain_listeners();
    let flags: Vec<String> = case
        .flags
        .iter()
        .map(|f| world.substitute(f, &dir))
        .collect();
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| world.substitute(a, &dir))
        .collect();
    let script = escape_dir().join(case.script);
    let mut cmd = world.vox(&dir, &flags, &script, &args);
    let inherited = case.fds.then(|| Inherited::new(world, &dir));
    if let Some(i) = &inherited {
        i.pass(&mut cmd);
    }
    let (out, elapsed) = run_guarded(&mut cmd, Duration::from_secs(60));
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();

    let mut escapes = Vec::new();
    let mut failures = Vec::new();
    match case.after {
        After::Nothing => {}
        After::File(f) => {
            let start = Instant::now();
            while !dir.join(f).exists() && start.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(20));
            }
            if !dir.join(f).exists() {
                failures.push(format!(
                    "{f} never appeared (the background child did not run)"
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        After::NoProcess(pattern) => {
            let pattern = world.substitute(pattern, &dir);
            let start = Instant::now();
            let mut left = pgrep(&pattern);
            while !left.is_empty() && start.elapsed() < Duration::from_secs(3) {
                std::thread::sleep(Duration::from_millis(50));
                left = pgrep(&pattern);
            }
            if !left.is_empty() {
                escapes.push(format!(
                    "{} process(es) matching `{pattern}` outlived the run: {left:?}",
                    left.len()
                ));
                kill_pids(&left);
            }
        }
    }

    if !case.exit.contains(&code) {
        failures.push(format!("exit {code}, expected one of {:?}", case.exit));
    }
    for want in case.stdout_has {
        if !stdout.contains(want) {
            failures.push(format!("stdout lacks {want:?}"));
        }
    }
    for want in case.stderr_has {
        if !stderr.contains(want) {
            failures.push(format!("stderr lacks {want:?}"));
        }
    }
    if let Some(max) = case.max_secs {
        if elapsed > Duration::from_secs(max) {
            failures.push(format!("took {elapsed:?}, more than {max} s"));
        }
    }
    for secret in [
        world.secret.as_str(),
        world.dummy_secret.as_str(),
        TOKEN,
        AWS_KEY,
        GH_TOKEN,
    ] {
        if stdout.contains(secret) {
            escapes.push(format!("stdout shows the secret {secret:?}"));
        }
    }
    if stdout.contains(PRELOAD) {
        escapes.push("stdout shows the planted LD_PRELOAD value".to_string());
    }
    for change in diff(&before, &snapshot(&dir, &skip, false)) {
        escapes.push(format!("outside the roots: {change}"));
    }
    for change in diff(&far_before, &snapshot(&world.far, &[], false)) {
        escapes.push(format!("far sentinel: {change}"));
    }
    if std::fs::read("/etc/passwd").unwrap_or_default() != passwd_before {
        escapes.push("/etc/passwd changed".to_string());
    }
    for p in &planted {
        if std::fs::symlink_metadata(p).is_ok() {
            escapes.push(format!("planted target exists: {}", p.display()));
            if p.is_absolute() && !p.starts_with(&world.scratch) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
    for f in files_with_privilege_bits(&dir.join("root")) {
        escapes.push(format!("a setuid or setgid file landed: {}", f.display()));
    }
    for f in files_containing(&dir.join("root"), "ESCAPED") {
        escapes.push(format!("a child reports an escape in {}", f.display()));
    }
    for f in files_containing(&dir.join("root"), &world.secret) {
        escapes.push(format!("the secret was copied into {}", f.display()));
    }
    for got in world.drain_listeners() {
        escapes.push(format!("listener received: {got}"));
    }
    if let Some(i) = inherited {
        escapes.extend(i.check());
    }
    escapes.extend(world.ipc.check());
    // The hostile-child cases print ESCAPED when an attempt worked.
    for line in stdout.lines().filter(|l| l.contains("ESCAPED")) {
        escapes.push(format!("the child says: {line}"));
    }
    if !world.dummy_alive() {
        escapes.push("the dummy process outside the sandbox was killed".to_string());
    }
    if let Some(check) = case.extra {
        if let Err(e) = check(&dir, &out) {
            escapes.push(e);
        }
    }
    let leftover: Vec<_> = std::fs::read_dir(&world.tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if !leftover.is_empty() {
        failures.push(format!("private temp dir(s) left behind: {leftover:?}"));
        for l in leftover {
            let _ = std::fs::remove_dir_all(world.tmp.join(l));
        }
    }
    // `VOX_ESCAPE_SHOW=1` shows every case's output, not only the failing ones'.
    if !escapes.is_empty() || !failures.is_empty() || std::env::var_os("VOX_ESCAPE_SHOW").is_some()
    {
        eprintln!(
            "---- {name}: exit {code} in {elapsed:?}\n---- stdout:\n{stdout}\n---- stderr:\n{stderr}"
        );
    }
    (escapes, failures)
}

#[test]
fn hostile_scripts_do_not_escape() {
    let mut world = World::new("hostile");
    // `VOX_ESCAPE_ONLY=111,112` runs only the cases whose script starts with one of those, to
    // watch a few new cases against an older build.
    let only = std::env::var("VOX_ESCAPE_ONLY").ok();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|p| c.script.starts_with(&format!("{p}_"))))
        })
        .collect();
    let mut escapes = 0;
    let mut report = Vec::new();
    for case in &cases {
        let (esc, fail) = run_case(&mut world, case);
        if !esc.is_empty() {
            escapes += 1;
        }
        for e in esc {
            report.push(format!("{}: ESCAPE: {e}", case.script));
        }
        for f in fail {
            report.push(format!("{}: {f}", case.script));
        }
    }
    for line in &report {
        eprintln!("{line}");
    }
    println!("{} hostile scripts, {escapes} escapes", cases.len());
    assert_eq!(escapes, 0, "escapes:\n{}", report.join("\n"));
    assert!(report.is_empty(), "failures:\n{}", report.join("\n"));
    assert!(cases.len() >= 100 || only.is_some());
}

/// Every script file is used by a case, starts with an `// Attempt:` line, and vice versa.
#[test]
fn every_escape_script_is_a_case() {
    let mut files: Vec<String> = std::fs::read_dir(escape_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".vox"))
        .collect();
    files.sort();
    let mut used: Vec<String> = cases().iter().map(|c| c.script.to_string()).collect();
    used.extend(OTHER_SCRIPTS.iter().map(|s| s.to_string()));
    used.sort();
    used.dedup();
    assert_eq!(files, used);
    for f in files {
        let text = std::fs::read_to_string(escape_dir().join(&f)).unwrap();
        assert!(
            text.starts_with("// Attempt: "),
            "{f} must start with an `// Attempt:` comment"
        );
    }
}

/// Scripts of tests other than the hostile suite.
const OTHER_SCRIPTS: &[&str] = &["51_chmod_touch_outside.vox", "110_tiocsti_pty.vox"];

/// Drives `vox` on a pseudo-terminal whose controlling process it is, then reads what is left
/// in the terminal's input queue: what a shell would read once `vox` exits.
const PTY_DRIVER: &str = r#"
import fcntl, os, pty, select, subprocess, sys, termios, tty
master, slave = pty.openpty()
tty.setraw(slave)
def ctty():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave, preexec_fn=ctty)
out = b''
while True:
    r, _, _ = select.select([master], [], [], 0.1)
    if r:
        try:
            b = os.read(master, 65536)
        except OSError:
            b = b''
        out += b
    elif p.poll() is not None:
        break
print(out.decode(errors='replace'))
print('vox exit', p.returncode)
fl = fcntl.fcntl(slave, fcntl.F_GETFL)
fcntl.fcntl(slave, fcntl.F_SETFL, fl | os.O_NONBLOCK)
try:
    left = os.read(slave, 65536)
except BlockingIOError:
    left = b''
print('queued for the shell:', repr(left))
"#;

/// A jailed child on a real terminal cannot push input into it (bubblewrap CVE-2017-5226): the
/// seccomp filter refuses `ioctl(TIOCSTI)` with EPERM on every descriptor, and a captured child
/// has no controlling terminal at all. Nothing is left in the terminal's input queue.
#[test]
fn children_cannot_inject_into_the_terminal() {
    let world = World::new("pty");
    let dir = world.case_dir("110_tiocsti_pty");
    let flags: Vec<String> = JAIL.iter().map(|f| world.substitute(f, &dir)).collect();
    let script = escape_dir().join("110_tiocsti_pty.vox");
    let vox = world.vox(&dir, &flags, &script, &[]);
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(PTY_DRIVER)
        .arg(vox.get_program())
        .args(vox.get_args());
    cmd.env_clear();
    for (k, v) in vox.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    cmd.current_dir(&dir);
    let (out, _) = run_guarded(&mut cmd, Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = format!(
        "{text}\n---- stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("queued for the shell: b''"), "{report}");
    assert!(!text.contains("ESCAPED"), "{report}");
    assert!(text.contains("vox exit 0"), "{report}");
    // The ioctl itself is refused, whatever the kernel's dev.tty.legacy_tiocsti says.
    for want in [
        "captured: fd 0 blocked: Operation not permitted; fd 1 blocked: Operation not permitted; fd 2 blocked: Operation not permitted; dev-tty blocked: No such device or address",
        "fd 0 blocked: Operation not permitted",
        "dev-tty blocked: Operation not permitted",
    ] {
        assert!(text.contains(want), "lacks {want:?}:\n{report}");
    }
}

/// Landlock (ABI ≤ 7) does not restrict `chmod`, `utimensat`, `setxattr` or `chown`, so without
/// more a child could change the metadata of files outside the roots that its uid owns (for a
/// root interpreter: every root-owned file it can name). The child's mount namespace, read-only
/// outside the `fs:rw` roots and the temp dir, refuses them (`EROFS`). The suite above compares
/// listings and contents; this test compares modes, owners and times too.
#[test]
fn children_cannot_change_metadata_outside_the_roots() {
    let world = World::new("metadata");
    let dir = world.case_dir("51_chmod_touch_outside");
    let before = snapshot(&dir, &["root"], true);
    let flags: Vec<String> = JAIL.iter().map(|f| world.substitute(f, &dir)).collect();
    let script = escape_dir().join("51_chmod_touch_outside.vox");
    let (out, _) = run_guarded(
        &mut world.vox(&dir, &flags, &script, &[]),
        Duration::from_secs(60),
    );
    let changes = diff(&before, &snapshot(&dir, &["root"], true));
    assert!(
        changes.is_empty(),
        "metadata outside the roots changed:\n{}\n---- stdout:\n{}",
        changes.join("\n"),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Writes a one-off script into `dir` and runs it with `flags`, extra environment `env`.
fn run_script(
    world: &World,
    dir: &Path,
    text: &str,
    flags: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, String) {
    let script = dir.join("script.vox");
    std::fs::write(&script, text).unwrap();
    let flags: Vec<String> = flags.iter().map(|f| world.substitute(f, dir)).collect();
    let mut cmd = world.vox(dir, &flags, &script, &[]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (out, _) = run_guarded(&mut cmd, Duration::from_secs(60));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SHOW: &str = r#"fn show(label: str, r) {
    match r {
        Ok(x) => {
            let code = x.exit
            let out = x.stdout.trim()
            let err = x.stderr.trim()
            print("{label}: exit={code} out=[{out}] err=[{err}]")
        }
        Err(e) => print("{label}: not started: " + e)
    }
}
"#;

// ---- The jail is not a blanket denial ----

#[test]
fn child_may_write_in_rw_root_and_read_in_ro_root() {
    let world = World::new("pos-fs");
    let dir = world.case_dir("fs");
    let text = format!(
        "{SHOW}show(\"write\", process.run_capture(\"sh\", [\"-c\", \"echo made > root/made.txt && mkdir -p root/sub/deep && cp ro/r.txt root/sub/deep/copy.txt && rm root/a.txt && echo done\"]))\n\
         show(\"read\", process.run_capture(\"cat\", [\"ro/r.txt\", \"root/made.txt\"]))\n"
    );
    let (code, out, err) = run_script(&world, &dir, &text, JAIL, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("write: exit=0 out=[done]"), "{out}");
    assert!(
        out.contains("read: exit=0 out=[data in the ro root\nmade]"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("root/made.txt")).unwrap(),
        "made\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("root/sub/deep/copy.txt")).unwrap(),
        "data in the ro root\n"
    );
    assert!(!dir.join("root/a.txt").exists());
}

#[test]
fn child_may_connect_to_loopback_with_net_allow() {
    let world = World::new("pos-net");
    let dir = world.case_dir("net");
    let port = world.tcp.local_addr().unwrap().port();
    let text = format!(
        "{SHOW}show(\"connect\", process.run_capture(\"python3\", [\"-c\", \"import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=5); s.sendall(b'hello from the jail'); s.close(); print('sent')\"]))\n\
         show(\"bash\", process.run_capture(\"bash\", [\"-c\", \"echo hello via dev-tcp > /dev/tcp/127.0.0.1/{port}\"]))\n"
    );
    let flags = [
        "--caps",
        "fs:rw={root}",
        "--caps",
        "process:allow",
        "--caps",
        "net:allow",
    ];
    let (code, out, err) = run_script(&world, &dir, &text, &flags, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("connect: exit=0 out=[sent]"), "{out}");
    assert!(out.contains("bash: exit=0"), "{out}");
    let got = world.drain_listeners().join("\n");
    assert!(got.contains("hello from the jail"), "{got}");
    assert!(got.contains("hello via dev-tcp"), "{got}");
}

#[test]
fn child_sees_variables_passed_by_name_or_set_with_env_set() {
    let world = World::new("pos-env");
    let dir = world.case_dir("env");
    let text = format!(
        "{SHOW}env.set(\"MY_SETTING\", \"from-env-set\")\n\
         let token = env.get(\"SECRET_TOKEN\").unwrap()\n\
         let probe = 'echo \"setting=$MY_SETTING api=$API_TOKEN secret=$SECRET_TOKEN\"'\n\
         show(\"capture_ex\", process.run_capture_ex(\"sh\", [\"-c\", probe], \"\", {{API_TOKEN: \"passed-by-name\", SECRET_TOKEN: token}}))\n\
         show(\"plain\", process.run_capture(\"sh\", [\"-c\", probe]))\n\
         match process.run_ex(\"sh\", [\"-c\", 'echo \"run_ex api=$API_TOKEN\"'], \"\", {{API_TOKEN: \"passed-to-run-ex\"}}) {{\n\
             Ok(c) => print(\"run_ex exit\", c)\n\
             Err(e) => print(\"run_ex failed: \" + e)\n\
         }}\n"
    );
    let flags = [
        "--caps",
        "fs:rw={root}",
        "--caps",
        "process:allow",
        "--caps",
        "env:rw",
    ];
    let (code, out, err) = run_script(&world, &dir, &text, &flags, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!(
            "capture_ex: exit=0 out=[setting=from-env-set api=passed-by-name secret={TOKEN}]"
        )),
        "{out}"
    );
    // Not passed: the credential stays behind, the env.set variable still reaches the child.
    assert!(
        out.contains("plain: exit=0 out=[setting=from-env-set api= secret=]"),
        "{out}"
    );
    assert!(out.contains("run_ex api=passed-to-run-ex"), "{out}");
    assert!(out.contains("run_ex exit 0"), "{out}");
}

#[test]
fn child_tmpdir_is_private_and_removed_after_the_run() {
    let world = World::new("pos-tmp");
    let dir = world.case_dir("private-tmp");
    let text = format!(
        "{SHOW}show(\"tmp\", process.run_capture(\"sh\", [\"-c\", 'echo \"$TMPDIR\"; stat -c %a \"$TMPDIR\"; echo x > \"$TMPDIR/f\" && mkdir \"$TMPDIR/d\" && echo wrote']))\n"
    );
    let (code, out, err) = run_script(&world, &dir, &text, JAIL, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let line = out.lines().find(|l| l.starts_with("tmp: exit=0")).unwrap();
    let path = line
        .trim_start_matches("tmp: exit=0 out=[")
        .split('\n')
        .next()
        .unwrap()
        .to_string();
    let path = PathBuf::from(path);
    assert!(
        path.starts_with(world.tmp.canonicalize().unwrap()),
        "TMPDIR {} is not under the run's temp dir",
        path.display()
    );
    assert!(
        path.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("vox-run-"),
        "{out}"
    );
    assert!(out.contains("\n700\nwrote"), "{out}");
    assert!(!path.exists(), "{} survived the run", path.display());
    let left: Vec<_> = std::fs::read_dir(&world.tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in the temp dir: {left:?}");
}

#[test]
fn verbose_shows_the_jail_and_the_environment_fingerprint() {
    let world = World::new("pos-verbose");
    let dir = world.case_dir("verbose");
    let text = "process.run(\"true\", [])\n";
    let mut flags = vec!["--verbose"];
    flags.extend_from_slice(JAIL);
    let (code, out, err) = run_script(&world, &dir, text, &flags, &[]);
    assert_eq!(code, 0, "{out}{err}");
    // Where the capabilities came from, in words (issue 41 item 15: it printed `Flags`).
    assert!(err.contains("vox: capabilities (from --caps): "), "{err}");
    assert!(!err.contains("(Flags)"), "{err}");
    assert!(err.contains("vox: self-confinement: landlock ABI"), "{err}");
    assert!(err.contains("vox: child true: landlock ABI"), "{err}");
    for kind in [
        "env-scrub",
        "ro-mounts",
        "drop-caps",
        "landlock-fs",
        "landlock-tcp",
        "netns",
    ] {
        assert!(err.contains(kind), "{kind} missing: {err}");
    }
    let fp = err
        .lines()
        .find(|l| l.starts_with("vox: child environment: "))
        .unwrap();
    assert!(fp.contains("PATH ") && fp.contains("TMPDIR "), "{fp}");
    for hidden in ["SECRET_TOKEN", "AWS_", "GITHUB_TOKEN", "LD_PRELOAD", TOKEN] {
        assert!(!fp.contains(hidden), "{hidden} in {fp}");
    }
}

// ---- Fail closed ----

#[test]
fn unsupported_host_refuses_children_unless_opted_out() {
    let world = World::new("failclosed");
    let dir = world.case_dir("failclosed");
    let text = "print(\"before\")\nprocess.run(\"true\", [])\nprint(\"AFTER THE CHILD\")\n";
    let flags = ["--caps", "process:allow"];
    let sim = [("VOX_JAIL_SIMULATE_UNSUPPORTED", "1")];
    let (code, out, err) = run_script(&world, &dir, text, &flags, &sim);
    assert_eq!(code, 77, "{out}{err}");
    assert!(err.contains("vox: cannot confine child: "), "{err}");
    // The refusal names the opt-out it means (issue 41 item 15).
    assert!(
        err.contains("opt out explicitly with `vox run --unconfined-children`"),
        "{err}"
    );
    assert!(out.contains("before") && !out.contains("AFTER"), "{out}");

    let flags = ["--caps", "process:allow", "--unconfined-children"];
    let (code, out, err) = run_script(&world, &dir, text, &flags, &sim);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("AFTER THE CHILD"), "{out}");
    assert!(
        err.contains("vox: warning: --unconfined-children: child processes run without the jail"),
        "{err}"
    );

    // The network rules or the namespaces alone missing is enough to refuse a net:none child.
    for what in ["net", "userns"] {
        let (code, _, err) = run_script(
            &world,
            &dir,
            text,
            &["--caps", "process:allow"],
            &[("VOX_JAIL_SIMULATE_UNSUPPORTED", what)],
        );
        assert_eq!(code, 77, "{what}: {err}");
        assert!(err.contains("vox: cannot confine child: "), "{what}: {err}");
    }

    let flags = ["--mesh", "--unconfined-children", "--caps", "process:allow"];
    let (code, out, err) = run_script(&world, &dir, text, &flags, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("vox: --unconfined-children is refused under --mesh"),
        "{err}"
    );
    assert!(!out.contains("before"), "{out}");
}

/// `env:ro` does not open the `secrets` gate: a `VOX_SECRET_*` variable reads as unset through
/// `env.get` unless `secrets:allow` is granted too (then `secrets.resolve` and `env.get` agree).
#[test]
fn env_ro_does_not_read_secrets() {
    let world = World::new("secrets");
    let dir = world.case_dir("secrets");
    let text = "print(env.get(\"VOX_SECRET_DEPLOY\"))\nprint(env.get(\"LANG\"))\n";
    let secret = [("VOX_SECRET_DEPLOY", "s3cr3t")];
    let (code, out, err) = run_script(&world, &dir, text, &["--caps", "env:ro"], &secret);
    assert_eq!((code, out.as_str()), (0, "None\nSome(C.UTF-8)\n"), "{err}");
    let text = "print(env.get(\"VOX_SECRET_DEPLOY\"))\nprint(secrets.resolve(\"deploy\"))\n";
    let flags = ["--caps", "env:ro", "--caps", "secrets:allow"];
    let (code, out, err) = run_script(&world, &dir, text, &flags, &secret);
    assert_eq!((code, out.as_str()), (0, "Some(s3cr3t)\ns3cr3t\n"), "{err}");
    // Without --caps (the developer default) everything is granted.
    let (code, out, err) = run_script(
        &world,
        &dir,
        "print(env.get(\"VOX_SECRET_DEPLOY\"))\n",
        &[],
        &secret,
    );
    assert_eq!((code, out.as_str()), (0, "Some(s3cr3t)\n"), "{err}");
}
