//! `vox doctor`: what this host can enforce, where things were found, and what will not work.

use vox_jail::DoctorStatus;

pub fn run() -> i32 {
    let mut failed = false;
    match std::env::current_exe() {
        Ok(p) => println!(
            "ok   vox binary: {} (version {})",
            p.display(),
            env!("CARGO_PKG_VERSION")
        ),
        Err(e) => println!(
            "warn vox binary: cannot tell where it is ({e}) — reinstall vox or put it on PATH"
        ),
    }
    match std::env::current_dir() {
        Ok(cwd) => match vox_caps::config::find_vox_toml(&cwd) {
            Some(path) => match vox_caps::config::load_vox_toml(&path) {
                Ok(configs) => {
                    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
                    println!(
                        "ok   configuration: {} ({} run configuration{}{})",
                        path.display(),
                        configs.len(),
                        if configs.len() == 1 { "" } else { "s" },
                        if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) }
                    );
                }
                Err(e) => {
                    failed = true;
                    println!("fail configuration: {e} — fix the file; `vox run` refuses to use it");
                }
            },
            None => println!("ok   configuration: no Vox.toml in {} or its parents (runs use --caps or the defaults)", cwd.display()),
        },
        Err(e) => println!("warn configuration: cannot read the working directory ({e})"),
    }
    for line in vox_jail::doctor_lines() {
        if line.status == DoctorStatus::Fail {
            failed = true;
        }
        println!("{line}");
    }
    if failed {
        1
    } else {
        0
    }
}
