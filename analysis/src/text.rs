//! A file's text as the database holds it.
//!
//! An editor's texts stay in memory. A command-line run may let a file's text go once what reads
//! it has been computed (its parse and its functions' facts) and read it again from disk when a
//! later step asks for it (the rules of that file, the output), checking that it is the text it
//! first read: a workspace's texts are then never all held at once, which on a large workspace
//! is a sixth of what `vox lint` keeps.

use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How many released texts were read again, all databases together (`VOX_LINT_TIMING` shows
/// it: a step that reads texts it should not shows here).
static READ_AGAIN: AtomicUsize = AtomicUsize::new(0);

/// A shared handle: clones are the same text, and letting it go lets it go for every holder
/// (those holding the bytes from [`Text::get`] keep their copy alive until they drop it).
#[derive(Clone)]
pub struct Text(Arc<Inner>);

struct Inner {
    /// `None` while released.
    bytes: Mutex<Option<Arc<[u8]>>>,
    len: usize,
    disk: Option<OnDisk>,
}

/// Where a released text is read again from, and what it must be.
struct OnDisk {
    path: PathBuf,
    /// The bytes' hash, taken when they are first released (a run that releases nothing, such
    /// as `vox check`, hashes nothing).
    hash: std::sync::OnceLock<u64>,
    /// Called when the file no longer holds the text first read (edited, removed): the run
    /// cannot go on with two versions of a file, so this does not return.
    changed: fn(&Path) -> !,
}

impl Text {
    /// A text that stays in memory.
    pub fn new(bytes: Arc<[u8]>) -> Text {
        Text(Arc::new(Inner {
            len: bytes.len(),
            bytes: Mutex::new(Some(bytes)),
            disk: None,
        }))
    }

    /// Reads `path` into a text that [`Text::release`] may let go: the next [`Text::get`]
    /// reads the file again, and calls `changed` if it no longer holds what this read. What is
    /// not a regular file (a pipe) cannot be read twice, so its text stays in memory.
    pub fn read(path: &Path, changed: fn(&Path) -> !) -> std::io::Result<Text> {
        let (bytes, regular) = read_bytes(path)?;
        if !regular {
            return Ok(Text::new(bytes));
        }
        Ok(Text(Arc::new(Inner {
            len: bytes.len(),
            disk: Some(OnDisk {
                path: path.to_path_buf(),
                hash: std::sync::OnceLock::new(),
                changed,
            }),
            bytes: Mutex::new(Some(bytes)),
        })))
    }

    /// The bytes, read again from disk if they were released (and then kept until the next
    /// [`Text::release`]).
    pub fn get(&self) -> Arc<[u8]> {
        self.load(true)
    }

    /// The bytes for this caller alone: a released text is read again without being kept (what
    /// reads a file once, late, such as the output).
    pub fn peek(&self) -> Arc<[u8]> {
        self.load(false)
    }

    fn load(&self, keep: bool) -> Arc<[u8]> {
        let mut slot = self.0.bytes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = &*slot {
            return b.clone();
        }
        let disk = self
            .0
            .disk
            .as_ref()
            .expect("only a text read from disk is ever released");
        READ_AGAIN.fetch_add(1, Ordering::Relaxed);
        let bytes = match read_bytes(&disk.path) {
            Ok((b, _)) if b.len() == self.0.len && disk.hash.get() == Some(&hash(&b)) => b,
            _ => (disk.changed)(&disk.path),
        };
        if keep {
            *slot = Some(bytes.clone());
        }
        bytes
    }

    /// Lets the bytes go until the next [`Text::get`], for a text read from disk (an in-memory
    /// text keeps them: it has nowhere to read them again from).
    pub fn release(&self) {
        if let Some(disk) = &self.0.disk {
            let mut slot = self.0.bytes.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(bytes) = slot.take() {
                disk.hash.get_or_init(|| hash(&bytes));
            }
        }
    }

    /// Whether the bytes are in memory now.
    pub fn is_held(&self) -> bool {
        self.0
            .bytes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    pub fn len(&self) -> usize {
        self.0.len
    }

    /// How many released texts have been read again so far, all databases together.
    pub fn read_again() -> usize {
        READ_AGAIN.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// The handle's identity (equal for clones of one handle, while one is alive).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Whether both are the same handle (then equal without reading either).
    pub fn same(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Holds `bytes`, equal to its own, from now on: two equal texts then share one buffer, and
    /// a later comparison of them finds the same bytes without reading them (see
    /// `items::FnSource`'s equality). A released text is left as it is.
    pub fn share_bytes(&self, bytes: Arc<[u8]>) {
        let mut slot = self.0.bytes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(own) = &*slot {
            debug_assert!(**own == *bytes, "only equal bytes are shared");
            *slot = Some(bytes);
        }
    }
}

/// A file's bytes, read straight into the shared buffer the database keeps (a large file is
/// not read into a vector first and then copied), and whether it is a regular file.
fn read_bytes(path: &Path) -> std::io::Result<(Arc<[u8]>, bool)> {
    use std::io::{ErrorKind, Read};
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let len = meta.len() as usize;
    let mut text: Arc<[u8]> = std::iter::repeat_n(0u8, len).collect();
    let buf = Arc::get_mut(&mut text).expect("a new buffer has one owner");
    let mut read = |into: &mut [u8]| loop {
        match file.read(into) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            r => return r,
        }
    };
    let mut n = 0;
    while n < len {
        match read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    let mut probe = [0u8; 1];
    let more = read(&mut probe)?;
    if n == len && more == 0 {
        return Ok((text, meta.is_file()));
    }
    // The file changed size since `metadata` (or is a pipe): what was read, then the rest.
    let mut all = buf[..n].to_vec();
    all.extend_from_slice(&probe[..more]);
    file.read_to_end(&mut all)?;
    Ok((Arc::from(all), meta.is_file()))
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(bytes);
    h.finish()
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.same(other) || (self.len() == other.len() && self.get() == other.get())
    }
}
impl Eq for Text {}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Text({} bytes)", self.0.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gone(_: &Path) -> ! {
        panic!("the file changed")
    }

    #[test]
    fn a_released_text_is_read_again_and_checked() {
        let dir = std::env::temp_dir().join(format!("vox-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.vox");
        std::fs::write(&path, "fn main() {}\n").unwrap();
        let text = Text::read(&path, gone).unwrap();
        let held = text.get();
        text.release();
        assert!(!text.is_held());
        // What a holder got stays valid.
        assert_eq!(&*held, b"fn main() {}\n");
        assert_eq!(&*text.peek(), b"fn main() {}\n");
        assert!(!text.is_held());
        assert_eq!(&*text.get(), b"fn main() {}\n");
        assert!(text.is_held());
        // An in-memory text is never released.
        let mem = Text::new(Arc::from(&b"x"[..]));
        mem.release();
        assert!(mem.is_held());
        // Changed on disk, at the same length: the run cannot go on.
        text.release();
        std::fs::write(&path, "fn mair() {}\n").unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| text.get()));
        assert!(r.is_err());
        // Removed.
        std::fs::remove_file(&path).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| text.get()));
        assert!(r.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_read_whole_once_and_kept() {
        let dir = std::env::temp_dir().join(format!("vox-text-pipe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.vox");
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("no mkfifo here: skipped");
            return;
        }
        let body = "fn main() {\n    print(1)\n}\n".repeat(1000);
        let writer = {
            let (path, body) = (path.clone(), body.clone());
            std::thread::spawn(move || std::fs::write(&path, body).unwrap())
        };
        let text = Text::read(&path, gone).unwrap();
        writer.join().unwrap();
        assert_eq!(&*text.get(), body.as_bytes());
        text.release();
        assert!(text.is_held());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
