//! The interpreter runs the functions' own bodies (decision 47): `lower_by_function` lowers each
//! function alone, as the analysis does, and links the bodies. The linked module is the one the
//! whole-file lowering gives, id for id and range for range, on every corpus file.

use std::path::{Path, PathBuf};

use vox_hir::{file_imports, lower, lower_by_function, ImportedNames};
use vox_runtime::catalog::Catalog;

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = ["tests/corpus", "examples", "tests/lint", "bench"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "vox") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn linked_bodies_equal_the_whole_file_lowering() {
    let mut compared = 0;
    for path in corpus() {
        let text = std::fs::read(&path).unwrap();
        let tree = vox_syntax::parse(&text);
        if tree.has_errors() {
            continue;
        }
        // Each import exports one function and one variant, so imported names resolve too.
        let imported: Vec<ImportedNames> = file_imports(&tree)
            .iter()
            .map(|_| ImportedNames {
                functions: vec!["helper".into()],
                variants: vec!["Shade".into()],
            })
            .collect();
        let whole = lower(&tree, Catalog::get(), &imported);
        let linked = lower_by_function(&tree, Catalog::get(), &imported);
        assert_eq!(
            format!("{linked:#?}"),
            format!("{whole:#?}"),
            "{}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared > 50, "only {compared} files compared");
}
