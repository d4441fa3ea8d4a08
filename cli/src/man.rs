//! `vox man`: the manual pages, rendered by clap_mangen from the same definition as the flags
//! (like `vox completions`), so a page never describes flags the command does not have.

use std::path::Path;

/// Writes `vox.1` and `vox-COMMAND.1` for every command into `out` (created when missing) and
/// names each file on standard output; without `out`, prints `vox.1` to standard output.
pub fn run(cmd: clap::Command, out: Option<&Path>) -> i32 {
    // The `help` subcommand clap adds is not a command of its own worth a page.
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = out else {
        let mut stdout = std::io::stdout().lock();
        return match page(cmd).render(&mut stdout) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("vox: cannot write the manual page: {e}");
                1
            }
        };
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("vox: cannot create {}: {e}", dir.display());
        return 1;
    }
    match write_pages(cmd, dir) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(
                "vox: cannot write the manual pages to {}: {e}",
                dir.display()
            );
            1
        }
    }
}

fn page(cmd: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd).manual("VoxScript tooling")
}

/// One page for `cmd` and one for each of its visible subcommands, at any depth.
fn write_pages(cmd: clap::Command, dir: &Path) -> std::io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir)?;
    }
    let path = page(cmd).generate_to(dir)?;
    println!("{}", path.display());
    Ok(())
}
