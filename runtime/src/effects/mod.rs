//! The builtin namespaces with effects (voxscript.md §5.3–§5.6, §5.9; decisions 9–11, 16–18, 20–26):
//! `fs`, `io`, `env`, `time`, `path.resolve`, `process`, `http`, `secrets` and `agentos`.
//!
//! Every builtin is a row naming its capability. The evaluator gates the non-filesystem ones
//! before the call; filesystem rows are gated here, path by path, through
//! [`RunContext::fs_path`] (the single filesystem choke point), because only the function knows
//! which of its arguments are paths and what it does with each.
//!
//! Failures of the operation itself (a missing file, a program that exits non-zero, a refused
//! connection) are `Err(<message>)` *values*; wrong argument kinds are runtime errors; denials,
//! quotas and ceilings unwind as [`Exc`].

use vox_hir::{Cap, Nondet};

use crate::value::BuiltinDef;

mod base;
mod children;
mod command;
mod env;
mod fs;
mod glob;
mod http;
mod io;
mod process;
mod refusal;

pub use children::end_run;
pub use command::{restore_huge_pages_in_children, run_denies};
pub use process::run_exit_commands;

macro_rules! row {
    ($ns:literal, $name:literal, $f:path, $cap:ident, $nondet:ident) => {
        BuiltinDef {
            ns: $ns,
            name: $name,
            cap: Cap::$cap,
            nondet: Nondet::$nondet,
            f: $f,
        }
    };
}

static TABLE: &[BuiltinDef] = &[
    // fs (§5.3). Aliases are separate rows so a denial names the builtin the script called.
    row!("fs", "read", fs::read, FsRead, External),
    row!("fs", "read_file", fs::read, FsRead, External),
    row!("fs", "read_to_string", fs::read, FsRead, External),
    row!("fs", "read_bytes", fs::read_bytes, FsRead, External),
    row!("fs", "write", fs::write, FsWrite, None),
    row!("fs", "write_file", fs::write, FsWrite, None),
    row!("fs", "write_to_file", fs::write, FsWrite, None),
    row!("fs", "exists", fs::exists, FsRead, External),
    row!("fs", "is_file", fs::is_file, FsRead, External),
    row!("fs", "is_dir", fs::is_dir, FsRead, External),
    row!("fs", "canonicalize", fs::canonicalize, FsRead, External),
    row!("fs", "cwd", fs::cwd, FsRead, Environment),
    // Reads its source and writes its destination: the row names the stronger need.
    row!("fs", "copy", fs::copy, FsWrite, None),
    row!("fs", "remove", fs::remove, FsWrite, None),
    row!("fs", "remove_dir_all", fs::remove_dir_all, FsWrite, None),
    row!("fs", "mkdir", fs::mkdir, FsWrite, None),
    row!("fs", "list_dir", fs::list_dir, FsRead, Order),
    row!(
        "fs",
        "list_dir_detailed",
        fs::list_dir_detailed,
        FsRead,
        Order
    ),
    row!("fs", "stat", fs::stat, FsRead, External),
    row!("fs", "glob", fs::glob, FsRead, External),
    row!("fs", "walk", fs::walk, FsRead, External),
    row!("fs", "list_recursive", fs::walk, FsRead, External),
    // io (§5.3, decision 10): stdin needs no capability; its values are environment input.
    row!("io", "open", io::open, FsRead, External),
    row!("io", "save", io::save, FsWrite, None),
    row!("io", "stdin", io::stdin, None, Environment),
    row!("io", "read_line", io::read_line, None, Environment),
    // path.resolve (§5.4): the one path function that touches the filesystem.
    row!("path", "resolve", fs::resolve, FsRead, External),
    // env and time (§5.5).
    row!("env", "get", env::get, EnvRo, Environment),
    row!("env", "args", env::args, EnvRo, Environment),
    row!("env", "set", env::set, EnvRw, None),
    row!("time", "now_ms", env::now_ms, Time, Clock),
    row!("time", "now", env::now_ms, Time, Clock),
    row!("time", "monotonic_ms", env::monotonic_ms, Time, Clock),
    // http (§5.5).
    row!("http", "get_text", http::get_text, Net, External),
    row!("http", "post_json", http::post_json, Net, External),
    // process (§5.6); `exit` needs no capability (decision 9).
    row!("process", "run", process::run, Process, External),
    row!("process", "spawn", process::run, Process, External),
    row!("process", "run_ex", process::run_ex, Process, External),
    row!(
        "process",
        "run_capture",
        process::run_capture,
        Process,
        External
    ),
    row!(
        "process",
        "run_capture_ex",
        process::run_capture_ex,
        Process,
        External
    ),
    row!(
        "process",
        "run_capture_lines",
        process::run_capture_lines,
        Process,
        External
    ),
    row!(
        "process",
        "run_capture_json",
        process::run_capture_json,
        Process,
        External
    ),
    row!(
        "process",
        "spawn_background",
        process::spawn_background,
        Process,
        External
    ),
    row!("process", "exec", process::exec, Process, External),
    row!(
        "process",
        "register_exit_command",
        process::register_exit_command,
        Process,
        External
    ),
    row!("process", "exit", process::exit, None, None),
    row!("process", "cwd", process::cwd, Process, Environment),
    row!("process", "which", process::which, Process, Environment),
    // secrets and agentos (§5.9, decision 11).
    row!(
        "secrets",
        "resolve",
        env::secrets_resolve,
        Secrets,
        Environment
    ),
    row!(
        "agentos",
        "mutation_kind_for_tool",
        env::mutation_kind_for_tool,
        Agentos,
        Environment
    ),
];

/// Every row with effects, for the evaluator's catalog.
pub fn table() -> &'static [BuiltinDef] {
    TABLE
}

#[cfg(test)]
mod tests;
