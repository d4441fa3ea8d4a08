//! What a directly started program is given and gives back ([`crate::lifetime::spawn_direct`]),
//! the same on every platform (off Linux nothing is ever started this way).

/// Where a directly started program's standard stream goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Inherit,
    Null,
    Pipe,
}

/// A directly started program: its pid, and the read ends of its piped output.
#[derive(Debug)]
pub struct Direct {
    pub pid: u32,
    pub stdout: Option<std::fs::File>,
    pub stderr: Option<std::fs::File>,
}
