//! Standard input for the stdio edge, read by the runtime's own poller when it is a pipe or a
//! socket (what editors connect a language server through).
//!
//! tokio's `stdin()` reads on a blocking thread: a message from the client woke that thread,
//! which then woke the thread serving the protocol, and each read was handed to the blocking
//! pool again. Polled, the message wakes the serving thread itself. Anything else (a terminal,
//! a file) keeps tokio's reader: non-blocking mode is a property of the open file, which a
//! terminal shares with the shell that started us.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, ReadBuf};

/// Standard input as the edge reads it: polled when it can be, else through tokio.
pub fn open() -> Box<dyn AsyncRead + Unpin + Send> {
    match Polled::new() {
        Some(p) => Box::new(p),
        None => Box::new(tokio::io::stdin()),
    }
}

/// Standard input in non-blocking mode, registered with the runtime's poller; its flags are
/// put back when it is dropped.
struct Polled {
    fd: AsyncFd<std::fs::File>,
    flags: libc::c_int,
}

impl Polled {
    /// Standard input, when it is a pipe or a socket.
    fn new() -> Option<Polled> {
        // SAFETY: fstat on our own standard input; it writes only the struct given to it.
        let kind = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(0, &mut st) != 0 {
                return None;
            }
            st.st_mode & libc::S_IFMT
        };
        if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
            return None;
        }
        // A duplicate shares the open file, and so its flags.
        let own = std::os::fd::AsFd::as_fd(&std::io::stdin())
            .try_clone_to_owned()
            .ok()?;
        Polled::from_fd(own)
    }

    /// `own` in non-blocking mode and registered with the runtime's poller; `None`, its flags
    /// as they were, when it cannot be.
    fn from_fd(own: OwnedFd) -> Option<Polled> {
        let raw = own.as_raw_fd();
        // SAFETY: fcntl on a descriptor this owns; it touches no memory of ours.
        let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } != 0 {
            return None;
        }
        // SAFETY: the file owns its descriptor, which nothing replaces or closes while the
        // `AsyncFd` holds it.
        match unsafe { AsyncFd::register(std::fs::File::from(own)) } {
            Ok(fd) => Some(Polled { fd, flags }),
            Err(e) => {
                // Not pollable after all: blocking mode back, tokio's reader instead.
                let (file, _) = e.into_parts();
                // SAFETY: as above.
                unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags) };
                None
            }
        }
    }
}

impl AsyncRead for Polled {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        loop {
            let mut ready = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match ready.try_io(|f| f.get_ref().read(unfilled)) {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                // Not ready after all: wait for the poller again.
                Err(_would_block) => {}
            }
        }
    }
}

impl Drop for Polled {
    fn drop(&mut self) {
        // SAFETY: fcntl on the descriptor this owns.
        unsafe { libc::fcntl(self.fd.get_ref().as_raw_fd(), libc::F_SETFL, self.flags) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe's reader in non-blocking mode delivers what is written, in order, and then the
    /// end; its flags are put back when it goes.
    #[test]
    fn a_polled_pipe_reads_what_is_written_then_the_end() {
        use tokio::io::AsyncReadExt;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (r, w) = std::io::pipe().unwrap();
        let r: OwnedFd = r.into();
        let raw = r.as_raw_fd();
        // A second descriptor of the same open file, to read its flags after the reader goes.
        let dup = unsafe { libc::dup(raw) };
        rt.block_on(async move {
            let mut p = Polled::from_fd(r).expect("a pipe is pollable");
            let nonblocking = unsafe { libc::fcntl(dup, libc::F_GETFL) } & libc::O_NONBLOCK;
            assert_ne!(nonblocking, 0, "non-blocking while read");
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                let mut w = w;
                for i in 0..50u8 {
                    w.write_all(&[i; 3000]).unwrap();
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
            });
            let mut got = Vec::new();
            p.read_to_end(&mut got).await.unwrap();
            writer.join().unwrap();
            let want: Vec<u8> = (0..50u8).flat_map(|i| [i; 3000]).collect();
            assert_eq!(got, want);
            drop(p);
            let after = unsafe { libc::fcntl(dup, libc::F_GETFL) };
            unsafe { libc::close(dup) };
            assert_eq!(after & libc::O_NONBLOCK, 0, "blocking mode back");
        });
    }
}
