//! The one way every command reports a file it cannot read: `cannot read PATH: REASON`, the
//! reason in plain words (`no such file or directory`, `permission denied`) without the OS's
//! error number. Callers put `vox: ` in front.

use std::fmt::Display;
use std::io;

pub fn cannot_read(path: impl Display, e: &io::Error) -> String {
    let reason = match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => {
            let text = e.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text);
            let mut chars = text.chars();
            match chars.next() {
                Some(c) => c.to_lowercase().chain(chars).collect(),
                None => "unknown error".to_string(),
            }
        }
    };
    format!("cannot read {path}: {reason}")
}

/// [`cannot_read`] for a path that does not exist.
pub fn not_found(path: impl Display) -> String {
    cannot_read(path, &io::Error::from(io::ErrorKind::NotFound))
}
