//! Every builtin row names the capability it needs; this test pins each one, so a new builtin
//! cannot slip past the gate unnoticed (it fails here until its capability is written down).

use vox_hir::Cap;
use vox_runtime::catalog::Catalog;

/// The expected capability of every gated builtin (voxscript.md §5, decisions.md 8–11). Anything
/// not listed must be `Cap::None`.
const GATED: &[(&str, Cap)] = &[
    ("fs.read", Cap::FsRead),
    ("fs.read_file", Cap::FsRead),
    ("fs.read_to_string", Cap::FsRead),
    ("fs.read_bytes", Cap::FsRead),
    ("fs.exists", Cap::FsRead),
    ("fs.is_file", Cap::FsRead),
    ("fs.is_dir", Cap::FsRead),
    ("fs.canonicalize", Cap::FsRead),
    ("fs.cwd", Cap::FsRead),
    ("fs.list_dir", Cap::FsRead),
    ("fs.list_dir_detailed", Cap::FsRead),
    ("fs.stat", Cap::FsRead),
    ("fs.glob", Cap::FsRead),
    ("fs.walk", Cap::FsRead),
    ("fs.list_recursive", Cap::FsRead),
    ("fs.write", Cap::FsWrite),
    ("fs.write_file", Cap::FsWrite),
    ("fs.write_to_file", Cap::FsWrite),
    ("fs.copy", Cap::FsWrite),
    ("fs.remove", Cap::FsWrite),
    ("fs.remove_dir_all", Cap::FsWrite),
    ("fs.mkdir", Cap::FsWrite),
    ("io.open", Cap::FsRead),
    ("io.save", Cap::FsWrite),
    ("path.resolve", Cap::FsRead),
    ("env.get", Cap::EnvRo),
    ("env.args", Cap::EnvRo),
    ("env.set", Cap::EnvRw),
    ("time.now_ms", Cap::Time),
    ("time.now", Cap::Time),
    ("time.monotonic_ms", Cap::Time),
    ("http.get_text", Cap::Net),
    ("http.post_json", Cap::Net),
    ("process.run", Cap::Process),
    ("process.spawn", Cap::Process),
    ("process.run_ex", Cap::Process),
    ("process.run_capture", Cap::Process),
    ("process.run_capture_ex", Cap::Process),
    ("process.run_capture_lines", Cap::Process),
    ("process.run_capture_json", Cap::Process),
    ("process.spawn_background", Cap::Process),
    ("process.exec", Cap::Process),
    ("process.register_exit_command", Cap::Process),
    ("process.cwd", Cap::Process),
    ("process.which", Cap::Process),
    ("random.int", Cap::Random),
    ("random.float", Cap::Random),
    ("random.choice", Cap::Random),
    ("random.shuffle", Cap::Random),
    ("crypto.uuid", Cap::Random),
    ("secrets.resolve", Cap::Secrets),
    ("agentos.mutation_kind_for_tool", Cap::Agentos),
];

/// Namespaces whose every member is gated (voxscript.md §5.1), with the documented exceptions.
const GATED_NAMESPACES: &[&str] = &[
    "fs", "env", "time", "http", "process", "random", "secrets", "agentos",
];
const UNGATED_EXCEPTIONS: &[&str] = &["process.exit", "io.stdin", "io.read_line"];

#[test]
fn every_builtin_has_its_documented_capability() {
    let mut problems = Vec::new();
    for row in Catalog::get().rows() {
        let name = row.qualified();
        let expected = GATED
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Cap::None, |(_, c)| *c);
        if row.cap != expected {
            problems.push(format!(
                "{name}: table says {:?}, expected {expected:?}",
                row.cap
            ));
        }
        if GATED_NAMESPACES.contains(&row.ns)
            && row.cap == Cap::None
            && !UNGATED_EXCEPTIONS.contains(&name.as_str())
        {
            problems.push(format!(
                "{name}: every member of `{}` must be gated",
                row.ns
            ));
        }
    }
    for (name, _) in GATED {
        let (ns, n) = name.split_once('.').unwrap();
        if Catalog::get().lookup(ns, n).is_none() {
            problems.push(format!(
                "{name}: listed here but missing from the catalogue"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "capability table drift:\n{}",
        problems.join("\n")
    );
}

#[test]
fn pure_namespaces_are_never_gated() {
    for row in Catalog::get().rows() {
        if [
            "path", "json", "csv", "toml", "yaml", "regex", "log", "math", "",
        ]
        .contains(&row.ns)
            && row.qualified() != "path.resolve"
        {
            assert_eq!(
                row.cap,
                Cap::None,
                "{} must not need a capability",
                row.qualified()
            );
        }
    }
    // crypto hashes are deterministic and free (decisions.md 8).
    assert_eq!(
        Catalog::get().lookup("crypto", "hash_fast").unwrap().cap,
        Cap::None
    );
    assert_eq!(
        Catalog::get().lookup("crypto", "hash_secure").unwrap().cap,
        Cap::None
    );
}
