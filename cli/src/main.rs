//! The `vox` command.

// On Linux with glibc the C library calls `main` below directly (see there).
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

mod caps;
mod check;
mod confine;
mod doctor;
mod lint;
mod man;
mod memory;
mod output;
mod parallel;
mod quick_run;
mod read_error;
mod render;
mod run;
mod test_runner;
mod workspace;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("VOX_COMMIT"), ")");
const ABOUT: &str = "VoxScript tooling: lint, infer capabilities, check, run and test scripts";

#[derive(Parser)]
#[command(name = "vox", version = VERSION, about = ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `vox run …` alone. clap builds every command's arguments before it parses; for a script's
/// run that was a fifth of start-up (`bench/interp.py`'s hello world), so `vox run` is parsed by
/// a `vox` that knows only `run`, from the same [`RunArgs`]: its help, usage and errors are the
/// full parser's.
#[derive(Parser)]
#[command(name = "vox", version = VERSION, about = ABOUT)]
struct RunOnlyCli {
    #[command(subcommand)]
    command: RunOnly,
}

#[derive(Subcommand)]
enum RunOnly {
    /// Run a script in the sandboxed interpreter.
    Run(RunArgs),
}

/// `vox run`'s arguments.
#[derive(clap::Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    flags: run::RunFlags,
    /// The script to run (with --config, the configuration's script when left out).
    #[arg(required_unless_present = "config")]
    file: Option<PathBuf>,
    /// Arguments passed to the script (after `--`).
    #[arg(last = true)]
    args: Vec<String>,
}

/// The command line: a common `vox run` one without clap ([`quick_run`]), any other `run` through
/// the run-only parser.
fn parse_command() -> Command {
    let words: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if words.get(1).is_some_and(|a| a == "run") {
        if let Some((flags, file, args)) = quick_run::parse(&words[2..]) {
            let file = Some(file);
            return Command::Run(RunArgs { flags, file, args });
        }
        let RunOnly::Run(args) = RunOnlyCli::parse_from(words).command;
        return Command::Run(args);
    }
    Cli::parse().command
}

#[derive(Subcommand)]
enum Command {
    /// Report syntax errors and warnings of VoxScript files.
    Check {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Run a script in the sandboxed interpreter.
    Run(RunArgs),
    /// Report nondeterminism, unchecked inputs and capability drift of VoxScript files.
    Lint(lint::LintFlags),
    /// Print the least `--caps` set a script needs; check run configurations against it.
    Caps(caps::CapsFlags),
    /// Serve the language server protocol on standard input and output (editors.md §2).
    Lsp {
        /// Accepted for clients that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Report what this host can enforce (the child jail) and where vox and its configuration are.
    Doctor,
    /// Print the shell completion script for SHELL (bash, zsh, fish, elvish, powershell).
    ///
    /// bash: `vox completions bash > ~/.local/share/bash-completion/completions/vox`;
    /// zsh: `vox completions zsh > "${fpath[1]}/_vox"`; fish:
    /// `vox completions fish > ~/.config/fish/completions/vox.fish`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the manual pages: vox.1 and vox-COMMAND.1 for each command (vox.1 to standard output without --out).
    ///
    /// `vox man --out ~/.local/share/man/man1`, then `man vox` or `man vox-run`; or read one at
    /// once with `vox man | man -l -`.
    Man {
        /// The directory to write the pages to (created when missing).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run the @test functions of a file or of every .vox file under a directory.
    Test {
        #[command(flatten)]
        flags: run::RunFlags,
        /// A file or a directory.
        target: PathBuf,
        /// Run only the test with this name.
        #[arg(long = "test", value_name = "NAME")]
        only: Option<String>,
    },
}

/// Counted for `--max-memory` (in the commands that run scripts); mimalloc underneath, because the analysis allocates many small
/// short-lived values (trees, lowered bodies) and glibc's malloc spent a quarter of `vox lint`.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static ALLOC: vox_runtime::alloc::CountingAlloc<memory::Mimalloc> =
    vox_runtime::alloc::CountingAlloc(memory::Mimalloc);

/// The C library's malloc instead, for heap profilers (heaptrack, massif) that hook malloc and
/// see nothing of mimalloc: `cargo build --features system-alloc`. Not for measuring time or RSS.
#[cfg(feature = "system-alloc")]
#[global_allocator]
static ALLOC: vox_runtime::alloc::CountingAlloc<std::alloc::System> =
    vox_runtime::alloc::CountingAlloc(std::alloc::System);

/// Parses on a thread with a large stack: deep nesting must be a diagnostic, never a crash
/// (decisions.md 12).
pub fn parse_on_big_stack(bytes: Vec<u8>) -> vox_syntax::SyntaxTree {
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || vox_syntax::parse(&bytes));
    match handle {
        Ok(h) => match h.join() {
            Ok(tree) => tree,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        Err(e) => {
            eprintln!("vox: cannot start the parser thread: {e}");
            std::process::exit(101);
        }
    }
}

/// The process's entry, called by the C library: the standard library's own set-up before `main`
/// is left out, because on Linux it reads /proc/self/maps to find the main thread's stack guard
/// (glibc's `pthread_getattr_np` formats and parses every mapping); with the main thread's signal
/// stack and thread record, that set-up took 0.24 ms of a hello world's 1.51 ms `vox run`
/// (interleaved launcher runs). What else that set-up does that `vox` relies on is done here:
/// standard streams that are closed are opened on /dev/null (so a file opened later cannot become
/// stdout), and SIGPIPE is ignored (a closed pipe is an error to report, not a silent death). Left
/// out with it: the "has overflowed its stack" message (an overflow ends the process with SIGSEGV
/// instead; every recursion in `vox` is bounded before the stack ends, so either is a bug). The
/// arguments need nothing (glibc hands them to the standard library before `main`), and
/// `std::process::exit` flushes stdout as returning from a Rust `main` does.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    standard_streams_open();
    // SAFETY: setting a signal's disposition to "ignore", before any other thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // A panic has been reported by the hook `vox_main` sets; 101 as Rust's own `main` exits.
    let code = std::panic::catch_unwind(vox_main).unwrap_or(101);
    std::process::exit(code)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(vox_main() as u8)
}

/// Opens /dev/null on each of stdin, stdout and stderr that is closed, as the standard library's
/// set-up does.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn standard_streams_open() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: polls three descriptors for nothing, without waiting; `fds` outlives the call.
    if unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } < 0 {
        return;
    }
    for p in fds {
        if p.revents & libc::POLLNVAL != 0 {
            // The lowest free descriptor: this one, as the lower ones are open by now.
            // SAFETY: opens a path given as a C string.
            if unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } != p.fd {
                std::process::abort();
            }
        }
    }
}

/// The command line's command, run; its exit code.
fn vox_main() -> i32 {
    // A Rust panic is an interpreter bug: say so, and exit 101 (runtime.md §3).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("vox: internal error (this is a bug in vox; please report it with the script that triggered it): {info}");
    }));
    let command = parse_command();
    // Huge pages are off since before `main` (see `memory`).
    match command {
        // The analyses of whole files and workspaces keep them off (a large file's turns them back
        // on) and purge freed pages sooner.
        Command::Lint(_) | Command::Caps(_) | Command::Check { .. } => memory::short_purge_delay(),
        // An edit's work must not wait on the kernel making a huge page; the server's runs get
        // the kernel's default back (`vox_server::runs::child_command`).
        Command::Lsp { .. } => {}
        Command::Run(_) => {
            memory::huge_pages_for_run_children();
            memory::short_purge_delay();
        }
        _ => memory::huge_pages_as_started(),
    }
    // Only a script's run has a memory limit (`--max-memory`); the server runs scripts in child
    // `vox run` processes. `VOX_LINT_TIMING` keeps the count, to print the live heap per phase.
    let lint_timing =
        matches!(command, Command::Lint(_)) && std::env::var_os("VOX_LINT_TIMING").is_some();
    if matches!(
        command,
        Command::Lint(_) | Command::Caps(_) | Command::Check { .. } | Command::Lsp { .. }
    ) && !lint_timing
    {
        vox_runtime::alloc::stop_counting();
    }
    let code = match command {
        Command::Check { files } => check::run(&files),
        Command::Run(RunArgs { flags, file, args }) => {
            // `vox run --config NAME`: the entry's script.
            let file = match (file, &flags.config) {
                (Some(f), _) => f,
                (None, Some(name)) => {
                    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                    match vox_caps::config::resolve_named(&cwd, name) {
                        // As the user would have typed it (the script sees it in env.args()).
                        Ok(c) => c
                            .script
                            .strip_prefix(&cwd)
                            .map(PathBuf::from)
                            .unwrap_or(c.script),
                        Err(msg) => {
                            eprintln!("{msg}");
                            return 1;
                        }
                    }
                }
                (None, None) => unreachable!("clap requires FILE without --config"),
            };
            run::run(flags, file, args)
        }
        Command::Test {
            flags,
            target,
            only,
        } => test_runner::test(flags, target, only),
        Command::Doctor => doctor::run(),
        Command::Completions { shell } => {
            use clap::CommandFactory as _;
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "vox", &mut std::io::stdout());
            0
        }
        Command::Man { out } => {
            use clap::CommandFactory as _;
            man::run(Cli::command(), out.as_deref())
        }
        Command::Lsp { stdio: _ } => vox_server::run_stdio(),
        Command::Lint(flags) => lint::run(flags),
        Command::Caps(flags) => caps::run(flags),
    };
    code
}
