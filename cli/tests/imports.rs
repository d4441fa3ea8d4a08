//! File imports end to end (voxscript.md §3.3): aliased and unaliased, nested directories, pub
//! types and their variants through an alias, private helpers behind a pub fn, clashes
//! (`syntax.duplicate`), a missing file and a cycle. Each test writes a small tree of files into a
//! fresh directory and runs `vox run` (or `vox check`) there.

use std::path::PathBuf;

mod common;
use common::vox_in;

/// Writes `files` (path, text) into a fresh directory and returns it.
fn tree(files: &[(&str, &str)]) -> PathBuf {
    let d = common::scratch_in("imports");
    for (path, text) in files {
        let p = d.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    d
}

/// `vox run main.vox` in a tree: (exit code, stdout, stderr).
fn run(files: &[(&str, &str)]) -> (i32, String, String) {
    vox_in(&tree(files), &["run", "main.vox"])
}

#[track_caller]
fn ok(files: &[(&str, &str)], stdout: &str) {
    let (code, out, err) = run(files);
    assert_eq!((code, out.as_str(), err.as_str()), (0, stdout, ""));
}

#[track_caller]
fn fails(files: &[(&str, &str)], message: &str, at: &str) {
    let (code, out, err) = run(files);
    let want = format!("vox: error: {message}\n  --> {at}\n");
    assert_eq!((code, out.as_str(), err.as_str()), (1, "", want.as_str()));
}

const SHAPES: &str = "pub type Shape = | Circle(r: float) | Square(side: float) | Empty\n\
    pub fn area(s) {\n    match s {\n        Circle(r) => 3.0 * r * r\n        Square(a) => square(a)\n        Empty => 0.0\n    }\n}\n\
    fn square(x) { x * x }\n\
    print(\"not run: top-level statements of an imported file\")\n";

#[test]
fn aliased_import_calls_members() {
    // The first report: `util.f()` failed with `undefined variable: util`.
    ok(
        &[
            ("lib/util.vox", "pub fn slug(s) { s.trim().to_lower().replace(\" \", \"-\") }\n"),
            (
                "main.vox",
                "import \"./lib/util.vox\" as util\nprint(util.slug(\"  Hello World \"))\nprint(util)\n",
            ),
        ],
        "hello-world\n<namespace util>\n",
    );
}

#[test]
fn unaliased_import_binds_pub_fns_as_globals() {
    ok(
        &[
            ("util.vox", "pub fn twice(x) { x * 2 }\n"),
            ("main.vox", "import \"./util.vox\"\nprint(twice(21))\n"),
        ],
        "42\n",
    );
}

#[test]
fn private_names_stay_private() {
    let (code, out, err) = run(&[
        (
            "util.vox",
            "pub fn twice(x) { helper(x) }\nfn helper(x) { x * 2 }\n",
        ),
        (
            "main.vox",
            "import \"./util.vox\"\nprint(twice(1))\nprint(helper(1))\n",
        ),
    ]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "2\n",
            "vox: error: undefined variable: helper\n  --> main.vox:3:7\n"
        )
    );
    let (code, out, err) = run(&[
        (
            "util.vox",
            "pub fn twice(x) { helper(x) }\nfn helper(x) { x * 2 }\n",
        ),
        (
            "main.vox",
            "import \"./util.vox\" as u\nprint(u.twice(1))\nprint(u.helper(1))\n",
        ),
    ]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "2\n",
            "vox: error: Method helper not found\n  --> main.vox:3:7\n"
        )
    );
}

#[test]
fn nested_directories_resolve_against_the_importing_file() {
    // main imports a/b/mid.vox, which imports ../leaf.vox (a/leaf.vox) relative to itself.
    ok(
        &[
            ("a/leaf.vox", "pub fn leaf() { \"leaf\" }\n"),
            (
                "a/b/mid.vox",
                "import \"../leaf.vox\" as l\npub fn mid() { \"mid>\" + l.leaf() }\n",
            ),
            ("main.vox", "import \"./a/b/mid.vox\"\nprint(mid())\n"),
        ],
        "mid>leaf\n",
    );
}

#[test]
fn pub_types_and_variants_through_an_alias() {
    ok(
        &[
            ("lib/shapes.vox", SHAPES),
            (
                "main.vox",
                "import \"./lib/shapes.vox\" as geo\n\
                 let shapes = [geo.Circle(1.0), geo.Square(2.0), geo.Empty]\n\
                 for s in shapes {\n\
                     let name = match s {\n\
                         Circle(r) => \"circle \" + r\n\
                         Square(a) => \"square \" + a\n\
                         Empty => \"empty\"\n\
                     }\n\
                     print(name, geo.area(s))\n\
                 }\n\
                 print(geo.Circle(1.0) == geo.Circle(1.0), type_of(geo.Empty))\n",
            ),
        ],
        "circle 1 3\nsquare 2 4\nempty 0\ntrue unknown\n",
    );
}

#[test]
fn pub_variants_without_an_alias_are_globals() {
    ok(
        &[
            ("shapes.vox", SHAPES),
            (
                "main.vox",
                "import \"./shapes.vox\"\nprint(area(Square(3.0)), match Circle(2.0) { Circle(r) => r, _ => 0 })\n",
            ),
        ],
        "9 2\n",
    );
}

#[test]
fn an_unaliased_name_clashing_with_a_local_declaration_is_a_duplicate() {
    let files = [
        ("util.vox", "pub fn twice(x) { x * 2 }\n"),
        (
            "main.vox",
            "import \"./util.vox\"\nfn twice(x) { x + x + 1 }\nprint(twice(1))\n",
        ),
    ];
    fails(
        &files,
        "`twice` is declared twice at the top level: imported from ./util.vox and declared on line 2; rename one, or import the file with `as NAME`",
        "main.vox:1:1",
    );
    let (code, out, err) = vox_in(&tree(&files), &["check", "main.vox"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.starts_with("error[syntax.duplicate]: `twice` is declared twice at the top level"),
        "{out}"
    );
    assert!(out.contains("main.vox:1:1"), "{out}");
}

#[test]
fn two_imports_exporting_one_name_are_a_duplicate() {
    fails(
        &[
            ("a.vox", "pub fn name() { \"a\" }\n"),
            ("b.vox", "pub fn name() { \"b\" }\n"),
            ("main.vox", "import \"./a.vox\"\nimport \"./b.vox\"\nprint(name())\n"),
        ],
        "`name` is declared twice at the top level: imported from ./a.vox and from ./b.vox; import one of the files with `as NAME`",
        "main.vox:2:1",
    );
}

#[test]
fn an_imported_variant_against_a_local_variant_is_a_duplicate() {
    fails(
        &[
            ("shapes.vox", SHAPES),
            ("main.vox", "import \"./shapes.vox\"\ntype Mine = | Empty | Full\nprint(Empty)\n"),
        ],
        "`Empty` is declared twice at the top level: imported from ./shapes.vox and declared on line 2; rename one, or import the file with `as NAME`",
        "main.vox:1:1",
    );
}

#[test]
fn an_alias_clashing_with_a_local_declaration_is_a_duplicate() {
    fails(
        &[
            ("util.vox", "pub fn f() { 1 }\n"),
            ("main.vox", "import \"./util.vox\" as util\nfn util() { 2 }\nprint(util())\n"),
        ],
        "`util` is declared twice at the top level: as the alias of import ./util.vox and on line 2; rename the alias or the declaration",
        "main.vox:1:1",
    );
}

#[test]
fn an_aliased_import_does_not_clash_with_local_names() {
    ok(
        &[
            ("util.vox", "pub fn twice(x) { x * 2 }\n"),
            (
                "main.vox",
                "import \"./util.vox\" as u\nfn twice(x) { x + 100 }\nprint(twice(1), u.twice(1))\n",
            ),
        ],
        "101 2\n",
    );
}

#[test]
fn a_missing_file_stops_the_program() {
    fails(
        &[("main.vox", "print(\"never\")\nimport \"./lib/nope.vox\" as nope\n")],
        "cannot import ./lib/nope.vox: no such file; the path is relative to the importing file's directory",
        "main.vox:2:1",
    );
}

#[test]
fn a_cycle_stops_the_program() {
    let d = tree(&[
        ("main.vox", "import \"./a.vox\"\nprint(a())\n"),
        ("a.vox", "import \"./b.vox\"\npub fn a() { 1 }\n"),
        ("b.vox", "import \"./a.vox\"\npub fn b() { 2 }\n"),
    ]);
    let (code, out, err) = vox_in(&d, &["run", "main.vox"]);
    // The error is in the imported file b.vox, shown by its resolved path (§4.13).
    let b = d.join("b.vox").canonicalize().unwrap();
    let want = format!(
        "vox: error: import cycle: a.vox -> b.vox -> a.vox\n  --> {}:1:1\n",
        b.display()
    );
    assert_eq!((code, out.as_str(), err.as_str()), (1, "", want.as_str()));
}

#[test]
fn an_imported_file_with_errors_stops_the_program() {
    fails(
        &[
            ("bad.vox", "pub fn f() { 1 $ 2 }\n"),
            ("main.vox", "import \"./bad.vox\"\nprint(f())\n"),
        ],
        "imported file ./bad.vox has errors",
        "main.vox:1:1",
    );
}

#[test]
fn reading_an_import_needs_fs_access() {
    let d = tree(&[
        ("lib/util.vox", "pub fn one() { 1 }\n"),
        (
            "main.vox",
            "import \"./lib/util.vox\" as util\nprint(util.one())\n",
        ),
    ]);
    let (code, out, err) = vox_in(&d, &["run", "--caps", "fs:ro=lib", "main.vox"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "1\n", ""));
    let (code, out, err) = vox_in(&d, &["run", "--caps", "none", "main.vox"]);
    assert_eq!((code, out.as_str()), (77, ""), "{err}");
    assert!(
        err.starts_with("vox: capability denied: fs.import — grant with --caps fs:ro="),
        "{err}"
    );
}

#[test]
fn an_imported_name_against_a_local_codec_is_a_duplicate() {
    // `@json_as` declares `Item_from_json` and `Item_to_json`: the clash is found at the type's
    // name, by `vox run` and `vox check` alike.
    let files = [
        ("util.vox", "pub type Codecs = | Item_to_json | Other\n"),
        (
            "main.vox",
            "import \"./util.vox\"\n@json_as(Item)\ntype Item { name: str }\nprint(1)\n",
        ),
    ];
    let message = "`Item_to_json` is declared twice at the top level: imported from ./util.vox and declared on line 3; rename one, or import the file with `as NAME`";
    fails(&files, message, "main.vox:1:1");
    let (code, out, err) = vox_in(&tree(&files), &["check", "main.vox"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.starts_with(&format!("error[syntax.duplicate]: {message}")),
        "{out}"
    );
    // Names that only begin or end like the codecs are no clash.
    let files = [
        (
            "util.vox",
            "pub type Codecs = | Item_as_json | Item_to_jso | Item_to_json_\n",
        ),
        (
            "main.vox",
            "import \"./util.vox\"\n@json_as(Item)\ntype Item { name: str }\nprint(1)\n",
        ),
    ];
    let (code, out, err) = vox_in(&tree(&files), &["check", "main.vox"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
}
