//! The `vox` command.

mod check;
mod render;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "vox",
    version,
    about = "VoxScript tooling: check, run and test scripts"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Report syntax errors and warnings of VoxScript files.
    Check {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check { files } => check::run(&files),
    };
    ExitCode::from(code as u8)
}
