#!/usr/bin/env python3
"""Linter benchmark: `vox lint --determinism` on a generated workspace against ruff on the Python stdlib.

A benchmark, not a test: it prints figures and marks the targets met / NOT met; it never fails on a timing.

1. Generates (seeded, deterministic), for each of --shapes (mixed, chain, dense), a workspace of --files .vox
   files (default 850, about 1,000 lines each: about 850,000 lines): CI-glue and data-job scripts in the root and helper modules in lib/, joined by
   unaliased file imports (`import "./lib/util_17.vox"`, no cycles), with every rule's triggers spread through
   them (D001-D007, I001-I004, C001-C005), a Vox.toml with [run.NAME] entries and a small data/ tree. That is
   the `mixed` shape; `chain` makes every file import the next (library k imports k-1: an 848-deep chain),
   and `dense` puts a trigger in nearly every function (1.25x the lines, more than 100,000 findings). Also a
   single 100,000-line file for the `vox check` figure. Every file is validated with `vox check` first.
2. Measures, best of --runs (default 5: a shared machine's speed drifts by tens of percent over minutes),
   each as a whole process with its peak RSS (os.wait4):
   for each shape, `vox lint --determinism WS` on one core (taskset -c 0) and on all cores, in the default and
   in `--format compact` (the memory target's format); on the dense shape also `--format json` and `sarif`
   on one core (streamed output: their peak RSS against compact's);
   `ruff check --no-cache --quiet` on the running python3's stdlib directory on one core and all cores (default
   rules, and --select ALL on one core for reference; --isolated so that no configuration file changes the rule set; its lines are those of the files
   `ruff check --show-files` lists, counted like vox's: all lines);
   `vox check BIG` on all cores (the target: a whole process on this machine) and, for comparison, on one.
3. Prints a table, the host's steal time while measuring (/proc/stat: time the hypervisor gave these cores to
   others; a run it hits is slower, which best-of only partly hides) and the target ratios.

Usage: python3 bench/lint.py [--files N] [--shapes mixed,chain,dense] [--keep DIR] [--runs N] [--seed N]
                             [--vox PATH] [--generate-only]
The binary is target/release/vox of this repository (built with `cargo build --release -p vox-cli` when
missing or older than the sources) unless --vox is given. Needs taskset (util-linux) and python3 only;
ruff is installed with pip (ruff==0.17.5) when missing.
"""
import argparse, collections, os, random, shutil, subprocess, sys, sysconfig, tempfile, time

import host  # bench/host.py, beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUFF_VERSION = "0.17.5"

# ---------------------------------------------------------------------------------------------------------
# Generator
#
# A file is a list of units. A unit is a top-level declaration (a function, sometimes a type) plus the
# statements that call it from main (or from a library's `run_all`). Templates use <<KEY>> placeholders so
# that VoxScript's own braces need no escaping. <<N>> is a per-file counter: every top-level name is unique.
# ---------------------------------------------------------------------------------------------------------

WORDS = ["api", "worker", "billing", "search", "gateway", "auth", "ledger", "metrics", "ingest", "export",
         "mailer", "cache", "scheduler", "reports", "inventory", "orders", "payments", "catalog", "audit", "sync"]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"]
JOB_KINDS = ["deploy", "nightly_report", "etl_orders", "release_notes", "backup_check", "lint_gate",
             "sync_assets", "rotate_logs", "build_matrix", "invoice_run", "metrics_rollup", "cache_warm"]
BAD_PATHS = ["./data//in_<<N>>.txt", "data/./reports/q<<N>>.csv", "data/reports/", "data\\\\win_<<N>>.txt",
             "data/inbox/../archive/a_<<N>>.json", "./data/config.json"]


# How many trigger templates were planted, by template name (for the summary line).
PLANTED = collections.Counter()


def sub(text, **kw):
    for k, v in kw.items():
        text = text.replace("<<" + k + ">>", str(v))
    return text


# Each template: (name, weight, is_trigger, body, calls). `calls` are statements for main.

CLEAN = [
    ("count", 6, """
// Count the lines of a log that mention a marker, skipping blank lines.
fn count_marked_<<N>>(text: str, marker: str) to int {
    let mut n = 0
    for line in text.split("\\n") {
        let t = line.trim()
        if t.is_empty() { continue }
        if t.contains(marker) { n += 1 }
    }
    n
}
""", ['print("marked:", count_marked_<<N>>("ok\\nTODO: <<W>>\\n\\nTODO: tests", "TODO"))']),

    ("table", 6, """
// Render service rows as a Markdown table.
fn render_rows_<<N>>(rows: list) to str {
    let mut out = "| name | status | region |\\n|---|---|---|\\n"
    for row in rows {
        let name = row.get("name").and_then(fn(v) v.as_str()).unwrap_or("?")
        let status = row.get("status").and_then(fn(v) v.as_str()).unwrap_or("unknown")
        let region = row.get("region").and_then(fn(v) v.as_str()).unwrap_or("-")
        out += "| {name} | {status} | {region} |\\n"
    }
    out
}
""", ['print(render_rows_<<N>>([{name: "<<W>>", status: "green", region: "<<R>>"}, {name: "<<W2>>", status: "red"}]))']),

    ("tally", 6, """
// Tally words and report them in sorted key order.
fn tally_<<N>>(words: list) to str {
    let mut counts = {}
    for w in words {
        counts[w] = counts.get_or(w, 0) + 1
    }
    let mut parts = []
    for k in sorted(counts.keys()) {
        parts.push(k + "=" + counts.get_or(k, 0))
    }
    parts.join(", ")
}
""", ['print(tally_<<N>>(["<<W>>", "<<W2>>", "<<W>>", "cache"]))']),

    ("slug", 5, """
// Turn a title into a URL slug.
fn slugify_<<N>>(title: str) to str {
    let mut out = ""
    for c in title.to_lower().chars() {
        if c.is_alnum() {
            out += c
        } else if not out.ends_with("-") {
            out += "-"
        }
    }
    if out.ends_with("-") {
        out = out.slice(0, out.chars_count() - 1)
    }
    out
}
""", ['print(slugify_<<N>>("Release Notes for <<W>> v<<I>>"))']),

    ("manifest", 5, """
// Read name and version out of a JSON manifest.
fn parse_manifest_<<N>>(text: str) to Result[str, str] {
    let data = json.parse(text)?
    let name = data.get("name").and_then(fn(v) v.as_str()).unwrap_or("unnamed")
    let version = data.get("version").and_then(fn(v) v.as_str()).unwrap_or("0.0.0")
    let deps = data.get("deps").and_then(fn(v) v.as_array()).unwrap_or([])
    let n = deps.len()
    Ok(name + " " + version + " (" + n + " deps)")
}
""", ['match parse_manifest_<<N>>("{\\"name\\": \\"<<W>>\\", \\"version\\": \\"1.<<I>>.0\\", \\"deps\\": [\\"a\\"]}") {',
      '    Ok(line) => print(line)',
      '    Err(e) => log.warn("bad manifest:", e)',
      '}']),

    ("csv", 4, """
// Sum the amount column of a CSV export with exact decimals.
fn csv_total_<<N>>(text: str) to str {
    match csv.parse_records(text) {
        Ok(rows) => {
            let mut total = 0.00dec
            for r in rows {
                let amount = r.get("amount").and_then(fn(v) v.as_str()).unwrap_or("0")
                total += dec(amount)
            }
            "total " + total + " over " + rows.len() + " rows"
        }
        Err(e) => "bad csv: " + e
    }
}
""", ['print(csv_total_<<N>>("item,amount\\n<<W>>,12.50\\n<<W2>>,0.99\\n"))']),

    ("adt", 4, """
type Step<<N>> = | Pending<<N>> | Done<<N>>(code: int) | Failed<<N>>(reason: str)

// Describe the state of one pipeline step.
fn describe_step_<<N>>(s) to str {
    match s {
        Pending<<N>> => "pending"
        Done<<N>>(0) => "ok"
        Done<<N>>(code) => "exit " + code
        Failed<<N>>(why) => "failed: " + why
    }
}
""", ['print(describe_step_<<N>>(Done<<N>>(<<I>>)), describe_step_<<N>>(Pending<<N>>), describe_step_<<N>>(Failed<<N>>("timeout")))']),

    ("closures", 5, """
// The three largest artifact sizes above a threshold, doubled for the compressed estimate.
fn top_sizes_<<N>>(sizes: list) to list {
    let big = sizes.filter(fn(x) x > <<I>>)
    let doubled = big.map(x => x * 2)
    doubled.sorted().reversed().slice_list(0, 3)
}
""", ['print("top:", top_sizes_<<N>>([<<I>>0, 3, <<I>>7, 120, 64, 9]))']),

    ("regex", 4, """
// Collect the version tags mentioned in a changelog.
fn versions_<<N>>(text: str) to list {
    let mut found = []
    for line in text.split("\\n") {
        let m = regex.captures(line, r"v(\\d+)\\.(\\d+)\\.(\\d+)")
        if m isnt null {
            found.push(m.unwrap().get(0).unwrap_or(""))
        }
    }
    found
}
""", ['print(versions_<<N>>("## v1.<<I>>.0\\n- fix\\n## v1.2.3\\n"))']),

    ("render_report", 4, """
// Summarise test results as JSON and a one-line status.
fn summarize_results_<<N>>(results: list) to str {
    let mut passed = 0
    let mut failed = 0
    let mut names = []
    for r in results {
        let ok = r.get("ok").and_then(fn(v) v.as_bool()).unwrap_or(false)
        if ok {
            passed += 1
        } else {
            failed += 1
            names.push(r.get("name").and_then(fn(v) v.as_str()).unwrap_or("?"))
        }
    }
    let body = json.render({ passed: passed, failed: failed, total: results.len() }).unwrap_or("{}")
    let status = if failed == 0 { "PASS" } else { "FAIL: " + names.join(", ") }
    status + " " + body
}
""", ['print(summarize_results_<<N>>([{name: "<<W>>", ok: true}, {name: "<<W2>>", ok: false}]))']),

    ("retry_plan", 3, """
// A capped exponential backoff schedule, in milliseconds.
fn backoff_<<N>>(attempts: int) to list {
    let mut out = []
    for i in range(0, 8) {
        if i >= attempts { break }
        let delay = 100 * (i + 1) * (i + 1)
        out.push(min(delay, 5000))
    }
    out
}
""", ['print("backoff:", backoff_<<N>>(<<S>>))']),

    ("paths_ok", 4, """
// Build normalised output paths for each target.
fn artifact_paths_<<N>>(targets: list) to list {
    let mut out = []
    for t in targets {
        let dir = path.join("out", t)
        out.push(path.normalize(path.join(dir, "<<W>>.tar.gz")))
    }
    out
}
""", ['print(artifact_paths_<<N>>(["x86_64-linux", "aarch64-linux"]))']),

    ("money", 3, """
// Invoice total with tax, exact to the cent.
fn invoice_<<N>>(lines: list) to dec {
    let mut total = 0.00dec
    for line in lines {
        let (unit, qty) = line
        total += unit * qty
    }
    (total * 1.0825dec).round(2)
}
""", ['print("invoice:", invoice_<<N>>([(12.50dec, 2), (0.99dec, <<S>>), (100dec, 1)]))']),

    ("test", 3, """
@test
fn checks_<<N>>() to Unit {
    let xs = [3, 1, 2]
    assert(xs.sorted() == [1, 2, 3], "sorted")
    assert("a,b,,c".split(",").len() == 4, "split keeps empty pieces")
    assert(path.normalize("a/./b/../c//") == "a/c")
}
""", []),

    ("math_ok", 3, """
// Portable libm: identical results on every machine.
fn curve_<<N>>(t: float) to float {
    let y = math.sin(t) * 0.5 + math.cos(t * 2.0)
    math.round(y * 1000.0) / 1000.0
}
""", ['print("curve:", curve_<<N>>(<<F>>))']),

    ("listing_ok", 3, """
// Sorted directory listing: the order is stable on every OS.
fn inbox_sorted_<<N>>() to list {
    sorted(fs.list_dir("data/inbox").unwrap_or([]))
}
""", ['print("inbox:", inbox_sorted_<<N>>().join(", "))']),

    ("checked", 3, """
// Quota arithmetic written with explicit overflow handling.
fn quota_checked_<<N>>(mb: int, replicas: int) to int {
    let per = mb.checked_mul(2).unwrap_or(0)
    per.saturating_mul(replicas).saturating_add(<<I>>)
}
""", ['print("quota:", quota_checked_<<N>>(<<I>>, 3))']),

    ("config", 4, """
// Merge defaults with overrides; the result keeps the defaults' key order.
fn merged_config_<<N>>(overrides: map[str, str]) to map[str, str] {
    let mut cfg = {region: "<<R>>", tier: "standard", owner: "<<W>>"}
    for k in sorted(overrides.keys()) {
        cfg[k] = overrides.get_or(k, "")
    }
    cfg
}
""", ['let cfg_<<N>> = merged_config_<<N>>({tier: "premium"})',
      'print("tier:", cfg_<<N>>.tier, "region:", cfg_<<N>>.region)']),

    ("pipeline", 3, """
// Plan the stages of a pipeline and render them, one per line.
fn plan_<<N>>(service: str, run_tests: bool) to str {
    let mut stages = ["checkout", "build"]
    if run_tests {
        stages.push("test")
        stages.push("coverage")
    }
    stages.push("package")
    stages.push("publish")
    let mut out = "pipeline for " + service + "\\n"
    for s, i in stages {
        let step = i + 1
        out += "  {step}. {s}\\n"
    }
    out
}
""", ['print(plan_<<N>>("<<W>>", true))']),
]

TRIGGERS = [
    ("D001", 3, """
// Sample a signal with the host's float methods.
fn wave_<<N>>(t: float) to float {
    let a = t.sin() * 0.5
    let b = (t * 2.0).cos()
    math.round((a + b) * 1000.0) / 1000.0
}
""", ['print("wave:", wave_<<N>>(<<F>>))']),

    ("D001b", 2, """
// Compound growth over some years.
fn growth_<<N>>(base: float, years: int) to float {
    let rate = 1.0 + base / 100.0
    let f = rate.powf(float(years))
    let l = f.ln()
    math.round((f + l) * 100.0) / 100.0
}
""", ['print("growth:", growth_<<N>>(<<F>>, <<S>>))']),

    ("D002", 3, """
// Print a deploy configuration.
fn show_settings_<<N>>() {
    let settings = {region: "<<R>>", replicas: <<S>>, image: "<<W>>:1.<<I>>.2", timeout_s: 30}
    for k, v in settings {
        print(k + "=" + v)
    }
}
""", ['show_settings_<<N>>()']),

    ("D002b", 2, """
// Report the services of a map in its order.
fn service_list_<<N>>(ports: map[str, int]) to str {
    let names = ports.keys()
    "services: " + names.join(" ")
}
""", ['print(service_list_<<N>>({<<W>>: 8080, <<W2>>: 9090}))']),

    ("D003", 3, """
// A banner stamped with the wall clock.
fn banner_<<N>>(job: str) to str {
    let started = time.now_ms()
    "[" + job + "] started at " + started
}
""", ['print(banner_<<N>>("<<W>>-<<N>>"))']),

    ("D003s", 1, """
// A banner stamped with the wall clock; the stamp is informational only.
fn banner_quiet_<<N>>(job: str) to str {
    let started = time.now_ms() // vox:allow(D003): informational banner, never compared
    "[" + job + "] at " + started
}
""", ['log.info(banner_quiet_<<N>>("<<W>>"))']),

    ("D003m", 1, """
// The newest file of a directory, by modification time.
fn newest_<<N>>() to str {
    let mut best = ""
    let mut best_ms = 0
    match fs.list_dir_detailed("data/inbox") {
        Ok(entries) => {
            for e in entries {
                if e.modified_ms > best_ms {
                    best_ms = e.modified_ms
                    best = e.name
                }
            }
        }
        Err(e) => log.warn("cannot list data/inbox:", e)
    }
    best
}
""", ['print("newest:", newest_<<N>>())']),

    ("D004", 3, """
// Memory quota for a service; parameters have no known bound.
fn quota_<<N>>(mb: int, replicas: int) to int {
    let per = mb * 2
    per * replicas + <<I>>
}
""", ['print("quota:", quota_<<N>>(<<I>>, <<S>>), "MB")']),

    ("D005", 3, """
// Load an input file, or nothing.
fn load_input_<<N>>() to str {
    match fs.read("<<BAD>>") {
        Ok(text) => text.trim()
        Err(e) => {
            log.warn("no input:", e)
            ""
        }
    }
}
""", ['print("input bytes:", len(load_input_<<N>>()))']),

    ("D005b", 2, """
// Write a summary beside the other reports.
fn write_summary_<<N>>(out_dir: str, text: str) to bool {
    match fs.write(out_dir + "/summary_<<N>>.txt", text) {
        Ok(_) => true
        Err(e) => {
            log.error("write failed:", e)
            false
        }
    }
}
""", ['write_summary_<<N>>("out", "ok <<W>>")']),

    ("D006", 3, """
// Pick a shard for the next batch.
fn pick_shard_<<N>>(shards: list) to str {
    let i = random.int(0, shards.len())
    shards.get(i).unwrap_or("shard-0")
}
""", ['print("shard:", pick_shard_<<N>>(["<<W>>-a", "<<W>>-b", "<<W>>-c"]))']),

    ("D006b", 1, """
// A run id for the log.
fn run_id_<<N>>() to str {
    "run-" + crypto.uuid()
}
""", ['log.info("run", run_id_<<N>>())']),

    ("D007", 3, """
// Show what is waiting in the inbox.
fn inbox_<<N>>() {
    let names = fs.list_dir("data/inbox").unwrap_or([])
    print("inbox:", names.join(", "))
}
""", ['inbox_<<N>>()']),

    ("I001", 3, """
// Are we running in CI?
fn ci_mode_<<N>>() to bool {
    match env.get("CI") {
        Some(v) => v == "true" or v == "1"
        None => false
    }
}
""", ['if ci_mode_<<N>>() { print("running in CI") }']),

    ("I002", 2, """
// The short hash of HEAD, or "unknown".
fn git_head_<<N>>() to str {
    match process.run("git", ["rev-parse", "--short", "HEAD"]) {
        Some(res) => {
            if res.code != 0 { return "unknown" }
            res.stdout.trim()
        }
        None => "unknown"
    }
}
""", ['print("commit:", git_head_<<N>>())']),

    ("I003", 2, """
// Ask the status page of a service.
fn fetch_status_<<N>>(url: str) to str {
    match http.get_text(url) {
        Ok(body) => body.trim()
        Err(e) => "unreachable: " + e
    }
}
""", ['print(fetch_status_<<N>>("https://status.example.com/<<W>>"))']),

    ("I004", 2, """
// The deploy token, or an empty string.
fn deploy_token_<<N>>() to str {
    let t = secrets.resolve("DEPLOY_TOKEN_<<N>>")
    if t is null { return "" }
    t
}
""", ['print("token set:", deploy_token_<<N>>() != "")']),

    ("C004", 2, """
// Count the lines of the file named on the command line.
fn arg_file_lines_<<N>>() to int {
    let input = env.args().get(1).unwrap_or("data/a.txt")
    let text = fs.read(input).unwrap_or("")
    text.split("\\n").len()
}
""", ['print("lines:", arg_file_lines_<<N>>())']),

    ("C005", 1, """
// Start a log watcher that outlives the script.
fn start_watcher_<<N>>() {
    match process.spawn_background("sleep", ["1"]) {
        Ok(pid) => log.info("watcher pid", pid)
        Err(e) => log.warn("watcher failed:", e)
    }
}
""", ['start_watcher_<<N>>()']),

    ("deploy", 2, """
// Build and roll out one service; reports the step that failed.
fn roll_out_<<N>>(service: str, tag: str) to str {
    let args = ["build", "-t", service + ":" + tag, "."]
    match process.run_ex("docker", args, "services/<<W>>/") {
        Ok(code) => {
            if code != 0 { return "build failed with " + code }
        }
        Err(e) => return "docker missing: " + e
    }
    let region = env.get("DEPLOY_REGION").unwrap_or("<<R>>")
    let started = time.now_ms()
    match process.run_capture("kubectl", ["rollout", "restart", "deployment/" + service]) {
        Ok(res) => {
            if res.exit != 0 { return "rollout failed: " + res.stderr.trim() }
        }
        Err(e) => return "kubectl missing: " + e
    }
    "rolled out " + service + " to " + region + " at " + started
}
""", ['print(roll_out_<<N>>("<<W>>", "v1.<<I>>"))']),
]

# The public API every library exports (names prefixed u<K>_ so that unaliased imports never clash).
LIB_API = [
    ('u<<K>>_slug', 'print(u<<K>>_slug("Release <<W>> <<I>>"))'),
    ('u<<K>>_stamp', 'print(u<<K>>_stamp("<<W>>"))'),
    ('u<<K>>_wave', 'print("wave", u<<K>>_wave(<<F>>))'),
    ('u<<K>>_scale', 'print("scaled", u<<K>>_scale(<<I>>, <<S>>))'),
    ('u<<K>>_load', 'print("loaded", len(u<<K>>_load("in_<<S>>.txt")))'),
    ('u<<K>>_summary', 'print(u<<K>>_summary({<<W>>: <<S>>, <<W2>>: 1}))'),
    ('u<<K>>_pick', 'print(u<<K>>_pick(["<<W>>", "<<W2>>"]))'),
    ('u<<K>>_env', 'print(u<<K>>_env("<<ENV>>", "unset"))'),
    ('u<<K>>_report', 'print(u<<K>>_report("<<W>> weekly"))'),
]


def lib_api_lines(k, imports, rng):
    """The public functions of library k. Which ones carry a trigger depends on k (each about 1 in 3)."""
    kind = k % 3
    PLANTED.update(["lib:D003 D005", "lib:D001 D002", "lib:D004 D006"][kind:kind + 1] + ["lib:I001"])
    out = []
    out.append(sub("""
// Public: a URL slug for titles and branch names.
pub fn u<<K>>_slug(s: str) to str {
    let mut out = []
    for part in s.to_lower().split(" ") {
        let t = part.trim()
        if not t.is_empty() { out.push(t) }
    }
    out.join("-")
}
""", K=k))
    if kind == 0:   # D003 reached through two private calls, and from importers across files
        out.append(sub("""
// Public: a header stamp; the clock is read two calls below.
pub fn u<<K>>_stamp(label: str) to str {
    label + " | " + stamp_line_<<K>>()
}

fn stamp_line_<<K>>() to str {
    "generated at " + now_text_<<K>>()
}

fn now_text_<<K>>() to str {
    str(time.now_ms())
}
""", K=k))
    else:
        out.append(sub("""
// Public: a header stamp from the build number.
pub fn u<<K>>_stamp(label: str) to str {
    label + " | build <<K>>"
}
""", K=k))
    out.append(sub("""
// Public: a smooth wave for load shaping.
pub fn u<<K>>_wave(t: float) to float {
    let y = <<EXPR>>
    math.round(y * 1000.0) / 1000.0
}
""", K=k, EXPR="t.sin() + (t / 2.0).exp()" if kind == 1 else "math.sin(t) + math.exp(t / 2.0)"))
    out.append(sub("""
// Public: scale a count by a factor.
pub fn u<<K>>_scale(n: int, k: int) to int {
    <<EXPR>>
}
""", K=k, EXPR="n * k + 1" if kind == 2 else "n.checked_mul(k).unwrap_or(0)"))
    out.append(sub("""
// Public: load a data file by name, or "".
pub fn u<<K>>_load(name: str) to str {
    let p = <<EXPR>>
    match fs.read(p) {
        Ok(text) => text
        Err(e) => {
            log.warn("cannot read", p, e)
            ""
        }
    }
}
""", K=k, EXPR='"./data/" + name' if kind == 0 else 'path.join("data", name)'))
    if kind == 1:
        out.append(sub("""
// Public: a one-line summary of counts, in map order.
pub fn u<<K>>_summary(m: map[str, int]) to str {
    let mut s = ""
    for k, v in m {
        s += k + ":" + v + " "
    }
    s.trim()
}
""", K=k))
    else:
        out.append(sub("""
// Public: a one-line summary of counts, sorted by key.
pub fn u<<K>>_summary(m: map[str, int]) to str {
    let mut parts = []
    for k in m.keys().sorted() {
        parts.push(k + ":" + m.get_or(k, 0))
    }
    parts.join(" ")
}
""", K=k))
    out.append(sub("""
// Public: pick one element.
pub fn u<<K>>_pick(xs: list) to str {
    <<EXPR>>
}
""", K=k, EXPR='random.choice(xs).unwrap_or("none")' if kind == 2 else 'xs.first().unwrap_or("none")'))
    out.append(sub("""
// Public: an environment setting with a default.
pub fn u<<K>>_env(name: str, default: str) to str {
    match env.get(name) {
        Some(v) => v
        None => default
    }
}
""", K=k))
    # The report calls the imported libraries' functions: cross-file chains (job -> uK_report -> uJ_stamp ...).
    parts = ['title']
    for j in imports:
        parts.append(sub('u<<J>>_stamp("<<K>>")', J=j, K=k))
        parts.append(sub('u<<J>>_slug(title)', J=j))
    parts.append(sub('u<<K>>_stamp("report")', K=k))
    out.append(sub("""
// Public: a report header built from the helpers of this and the imported libraries.
pub fn u<<K>>_report(title: str) to str {
    let parts = [<<PARTS>>]
    parts.join(" | ")
}
""", K=k, PARTS=", ".join(parts)))
    return out


class FileGen:
    def __init__(self, rng):
        self.rng = rng
        self.n = 0

    def fill(self, template, calls):
        r = self.rng
        self.n += 1
        w, w2 = r.sample(WORDS, 2)
        kw = dict(N=self.n, W=w, W2=w2, R=r.choice(REGIONS), I=r.randint(1, 99), S=r.randint(2, 9),
                  F="%d.%d" % (r.randint(0, 9), r.randint(0, 99)), ENV=r.choice(["HOME", "CI", "USER", "LANG"]))
        kw["BAD"] = sub(r.choice(BAD_PATHS), N=self.n)
        return sub(template, **kw).strip("\n").split("\n"), [sub(c, **kw) for c in calls]

    def unit(self, trigger_share):
        r = self.rng
        pool = TRIGGERS if r.random() < trigger_share else CLEAN
        name, _, body, calls = r.choices(pool, weights=[t[1] for t in pool])[0]
        if pool is TRIGGERS:
            PLANTED[name] += 1
        return self.fill(body, calls)

    def lib_call(self, k):
        r = self.rng
        self.n += 1
        w, w2 = r.sample(WORDS, 2)
        _, call = r.choice(LIB_API)
        return sub(call, K=k, W=w, W2=w2, I=r.randint(1, 99), S=r.randint(2, 9),
                   F="%d.%d" % (r.randint(0, 9), r.randint(0, 99)), ENV=r.choice(["HOME", "CI", "USER"]))


def gen_body(rng, target_lines, header, trigger_share, entry, lib_calls=(), indent="    "):
    """Units until target_lines is reached, then the entry point calling them all. Returns a list of lines."""
    g = FileGen(rng)
    lines = []
    for h in header:
        if "\n" in h.strip("\n"):           # a declaration: set off by a blank line
            lines.append("")
        lines.extend(h.strip("\n").split("\n"))
    groups = []                # one group of call statements per unit (a statement may span lines)
    ncalls = 0
    lib_calls = list(lib_calls)
    while True:
        body, c = g.unit(trigger_share)
        lines.append("")
        lines.extend(body)
        if c:
            groups.append(c)
            ncalls += len(c)
        # the entry point's size: its calls, the library calls and a few lines of frame
        if len(lines) + ncalls + len(lib_calls) + 4 >= target_lines:
            break
    lines.append("")
    # Interleave library calls with local ones, as a real job would.
    all_calls = []
    step = max(1, len(groups) // (len(lib_calls) + 1))
    for i, grp in enumerate(groups):
        all_calls.extend(grp)
        if lib_calls and i % step == step - 1:
            all_calls.append(lib_calls.pop(0))
    all_calls.extend(lib_calls)
    if entry is None:          # top-level statements (synthetic main)
        lines.append("// ---- main ----")
        lines.extend(all_calls)
    else:
        lines.append(entry + " {")
        lines.extend(indent + c for c in all_calls)
        lines.append("}")
    return lines, g


# The workspace shapes (issue 20): the figures must hold whatever the import graph and the finding count.
SHAPES = {
    # jobs importing 1-3 of nfiles/8 libraries, libraries importing up to two earlier ones (a shallow DAG)
    "mixed": dict(chain=False, lib_share=0.12, job_share=0.15, scale=1.0),
    # every file imports the next: library k imports library k-1 only, two jobs import the last
    "chain": dict(chain=True, lib_share=0.12, job_share=0.15, scale=1.0),
    # the mixed layout with a trigger in nearly every function, and a quarter more lines: more than 100,000
    # findings (about one per 9 lines)
    "dense": dict(chain=False, lib_share=1.0, job_share=1.0, scale=1.25),
}


def generate(ws, nfiles, total_lines, seed, shape="mixed"):
    """Writes the workspace of the given shape into ws. Returns the list of .vox paths."""
    conf = SHAPES[shape]
    rng = random.Random("vox-bench:%d" % seed if shape == "mixed" else "vox-bench-%s:%d" % (shape, seed))
    nlibs = nfiles - 2 if conf["chain"] else max(4, nfiles // 8)
    njobs = nfiles - nlibs
    os.makedirs(os.path.join(ws, "lib"))
    for d in ("data/inbox", "data/reports", "data/archive", "out", "services"):
        os.makedirs(os.path.join(ws, d), exist_ok=True)
    for name in ("a.txt", "b.txt", "c.txt"):
        with open(os.path.join(ws, "data/inbox", name), "w") as f:
            f.write("order " + name + "\n")
    with open(os.path.join(ws, "data/config.json"), "w") as f:
        f.write('{"report_dir": "data/reports", "name": "bench"}\n')
    with open(os.path.join(ws, ".vox-bench"), "w") as f:
        f.write("generated by bench/lint.py; safe to delete\n")

    # per-file line targets: weights normalised to the total
    weights = [rng.uniform(0.6, 1.4) for _ in range(nfiles)]
    scale = total_lines / sum(weights)
    targets = [max(60, int(w * scale)) for w in weights]
    paths = []

    # libraries: lib k imports up to two libraries j < k (a DAG: no cycles)
    lib_imports = {}
    for k in range(nlibs):
        if conf["chain"]:
            imports = [k - 1] if k else []
        else:
            imports = sorted(set(rng.sample(range(k), min(k, rng.randint(0, 2))))) if k else []
        lib_imports[k] = imports
        header = ["// Shared helpers for CI jobs: library util_%d." % k]
        header += ['import "./util_%d.vox"' % j for j in imports]
        header += lib_api_lines(k, imports, rng)
        lines, _ = gen_body(rng, targets[k], header, conf["lib_share"], "pub fn u%d_run_all()" % k)
        p = os.path.join(ws, "lib", "util_%d.vox" % k)
        write_lines(p, lines)
        paths.append(p)

    # jobs: each imports 1-3 libraries and calls their public functions
    run_entries = []
    for i in range(njobs):
        t = targets[nlibs + i]
        kind = JOB_KINDS[i % len(JOB_KINDS)]
        name = "%s_%d.vox" % (kind, i)
        if conf["chain"]:
            imports = [nlibs - 1]
        else:
            imports = sorted(rng.sample(range(nlibs), rng.randint(1, 3)))
        header = []
        if i % 37 == 5:        # a legacy directive naming too few namespaces (C003)
            header.append("// vox:caps fs")
            PLANTED["C003"] += 1
        header.append("// %s: %s job %d, generated for the linter benchmark." % (name, kind.replace("_", " "), i))
        header += ['import "./lib/util_%d.vox"' % k for k in imports]
        lib_calls = []
        fg = FileGen(rng)
        for k in imports:
            for _ in range(rng.randint(2, 5)):
                lib_calls.append(fg.lib_call(k))
        entry = None if i % 3 == 2 else "fn main()"
        lines, _ = gen_body(rng, t, header, conf["job_share"], entry, lib_calls)
        p = os.path.join(ws, name)
        write_lines(p, lines)
        paths.append(p)
        if len(run_entries) < 8 and i % 11 == 0:
            run_entries.append(name)

    # Vox.toml: some complete, some lacking a token (C001), some granting an unused one (C002)
    toml = ["# Run configurations of the generated benchmark workspace.", ""]
    grants = [
        ['"fs:ro=data"', '"env:ro"', '"time:real"'],
        ['"fs:ro=."', '"fs:rw=out"', '"env:ro"', '"process:allow"', '"net:allow"', '"secrets:allow"',
         '"time:frozen=0"', '"random:seed=0"'],
        ['"deterministic"', '"fs:ro=data"'],
        ['"fs:ro=data"', '"agentos:allow"'],
    ]
    for j, name in enumerate(run_entries):
        toml.append("[run.%s]" % name[:-4])
        toml.append('script = "%s"' % name)
        toml.append("caps = [%s]" % ", ".join(grants[j % len(grants)]))
        toml.append("")
    PLANTED["Vox.toml:C001/C002"] += len(run_entries)
    with open(os.path.join(ws, "Vox.toml"), "w") as f:
        f.write("\n".join(toml))
    return paths


def generate_big(path, nlines, seed):
    """One script of exactly nlines lines, no imports: for the `vox check` figure."""
    rng = random.Random("vox-bench-big:%d" % seed)
    header = ["// A single large job script (%d lines) for the vox check benchmark." % nlines]
    lines, _ = gen_body(rng, nlines - 40, header, 0.15, "fn main()")
    main_at = max(i for i, l in enumerate(lines) if l == "fn main() {")
    pad = ["// padding to an exact line count"] * (nlines - len(lines))
    lines = lines[:main_at] + pad + lines[main_at:]
    write_lines(path, lines)


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def count_lines(paths):
    """All lines, blank and comment lines included: newlines, plus a final line without one."""
    total = 0
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        total += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return total


# ---------------------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------------------

class Failed(Exception):
    pass


def measure(cmd, ok_codes, cwd=None):
    """Runs cmd as a whole process: (wall s, cpu s, peak RSS in KiB, exit code, stdout path, stderr text)."""
    out = tempfile.NamedTemporaryFile(prefix="vox-bench-out-", delete=False)
    err = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    p.returncode = code       # reaped by wait4: keep Popen from waiting again
    out.close()
    err.seek(0)
    stderr = err.read().decode("utf-8", "replace")
    err.close()
    if code not in ok_codes:
        os.unlink(out.name)
        raise Failed("%s exited %s\n%s" % (" ".join(cmd), code, stderr[-4000:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, code, out.name, stderr


def newest_source_mtime(root):
    newest = 0.0
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not (x.startswith("target") or x.startswith(".") or x in ("node_modules",
                                                                                               "fuzz", "bench"))]
        for f in files:
            if f.endswith(".rs") or f in ("Cargo.toml", "Cargo.lock"):
                newest = max(newest, os.path.getmtime(os.path.join(d, f)))
    return newest


def ensure_vox(explicit):
    if explicit:
        return os.path.abspath(explicit)
    vox = os.path.join(ROOT, "target", "release", "vox")
    why = None
    if not os.path.exists(vox):
        why = "missing"
    elif os.path.getmtime(vox) < newest_source_mtime(ROOT):
        why = "older than the sources"
    if why:
        print("target/release/vox is %s: running cargo build --release -p vox-cli" % why, flush=True)
        subprocess.run(["cargo", "build", "--release", "-p", "vox-cli"], cwd=ROOT, check=True)
    return vox


def ensure_ruff():
    ruff = shutil.which("ruff")
    if ruff:
        return ruff
    print("ruff not found: installing ruff==%s with pip" % RUFF_VERSION, flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "ruff==" + RUFF_VERSION], check=True)
    ruff = shutil.which("ruff")
    if not ruff:   # installed into a scripts directory that is not on PATH
        cand = os.path.join(sysconfig.get_paths()["scripts"], "ruff")
        ruff = cand if os.path.exists(cand) else None
    if not ruff:
        sys.exit("ruff was installed but is not on PATH")
    return ruff


def validate(vox, paths, big):
    """`vox check` on every generated file (untimed): the workspace must parse cleanly."""
    r = subprocess.run([vox, "check", *paths, big], capture_output=True, text=True)
    bad = [l for l in r.stderr.splitlines() + r.stdout.splitlines() if l.startswith("error")]
    if r.returncode != 0 or bad:
        print("\n".join((r.stderr + r.stdout).splitlines()[:60]))
        sys.exit("generator bug: `vox check` reports errors in the generated files (exit %d)" % r.returncode)
    summary = (r.stdout + r.stderr).strip().splitlines()
    return summary[-1] if summary else ""


def findings_summary(path):
    """Counts of `severity[CODE]` headers in vox lint's human output."""
    counts = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if "[" in line and (line.startswith("error[") or line.startswith("warning[")):
                code = line[line.index("[") + 1:line.index("]")]
                counts[code] = counts.get(code, 0) + 1
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=850, help="number of .vox files per workspace (default 850)")
    ap.add_argument("--lines-per-file", type=int, default=1000, help="average lines per file (default 1000)")
    ap.add_argument("--shapes", default="mixed,chain,dense",
                    help="comma-separated workspace shapes to generate and measure (default mixed,chain,dense)")
    ap.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it (default: a temp dir, removed)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each command; the best is reported")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vox", metavar="PATH", help="use this vox binary instead of target/release/vox")
    ap.add_argument("--big-lines", type=int, default=100_000, help="lines of the single file for vox check")
    ap.add_argument("--generate-only", action="store_true", help="generate and validate, measure nothing")
    ap.add_argument("--skip-validate", action="store_true", help="do not run vox check on the generated files")
    args = ap.parse_args()
    if args.files < 10:
        sys.exit("--files must be at least 10")
    shapes = [x.strip() for x in args.shapes.split(",") if x.strip()]
    unknown = [x for x in shapes if x not in SHAPES]
    if unknown or not shapes:
        sys.exit("--shapes: unknown shape %s; choose from %s" % (", ".join(unknown) or "(none)", ", ".join(SHAPES)))

    if args.keep:
        base = os.path.abspath(args.keep)
        for sub_dir in ["big"] + [ws_dir(x) for x in SHAPES]:
            d = os.path.join(base, sub_dir)
            if os.path.exists(d):
                if sub_dir != "big" and not os.path.exists(os.path.join(d, ".vox-bench")):
                    sys.exit("%s exists and was not generated by this script; not touching it" % d)
                shutil.rmtree(d)
        os.makedirs(base, exist_ok=True)
    else:
        base = tempfile.mkdtemp(prefix="vox-lint-bench-")
    big = os.path.join(base, "big", "big_%d.vox" % args.big_lines)
    os.makedirs(os.path.dirname(big))
    try:
        run(args, base, shapes, big)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


def ws_dir(shape):
    """The mixed workspace keeps its old directory name (`workspace`), so that --keep paths stay valid."""
    return "workspace" if shape == "mixed" else "workspace-" + shape


def run(args, base, shapes, big):
    vox = ensure_vox(args.vox)
    workspaces = []           # (shape, ws, lines)
    all_paths = []
    for shape in shapes:
        t0 = time.perf_counter()
        PLANTED.clear()
        ws = os.path.join(base, ws_dir(shape))
        total = int(args.files * args.lines_per_file * SHAPES[shape]["scale"])
        paths = generate(ws, args.files, total, args.seed, shape)
        ws_lines = count_lines(paths)
        workspaces.append((shape, ws, ws_lines))
        all_paths += paths
        print("generated %s workspace: %d files, %d lines in %s (%.1f s)"
              % (shape, len(paths), ws_lines, ws, time.perf_counter() - t0), flush=True)
        print("  planted triggers (template instances):",
              ", ".join("%s %d" % kv for kv in sorted(PLANTED.items())), flush=True)
    generate_big(big, args.big_lines, args.seed)
    big_lines = count_lines([big])
    print("%s: %d lines" % (os.path.basename(big), big_lines), flush=True)
    if args.skip_validate:
        print("vox check of the generated files skipped (--skip-validate)")
    else:
        t0 = time.perf_counter()
        summary = validate(vox, all_paths, big)
        print("vox check on every generated file (%.0f s, untimed): %s" % (time.perf_counter() - t0, summary),
              flush=True)
    if args.generate_only:
        return

    if not shutil.which("taskset"):
        sys.exit("taskset not found: install util-linux (apt-get install -y util-linux)")
    ruff = ensure_ruff()
    stdlib = sysconfig.get_paths()["stdlib"]
    # The files ruff checks (its default excludes apply, e.g. site-packages), counted like vox's.
    shown = subprocess.run([ruff, "check", "--no-cache", "--isolated", "--show-files", stdlib],
                           capture_output=True, text=True)
    py_files = [l.strip() for l in shown.stdout.splitlines() if l.strip().endswith((".py", ".pyi"))]
    py_lines = count_lines(py_files)
    ruff_version = subprocess.run([ruff, "--version"], capture_output=True, text=True).stdout.strip()
    vox_version = subprocess.run([vox, "--version"], capture_output=True, text=True).stdout.strip()
    ncpu = len(os.sched_getaffinity(0))
    print("%s (%s); %s; python stdlib %s: %d files, %d lines; %d cores; best of %d runs"
          % (vox_version, vox, ruff_version, stdlib, len(py_files), py_lines, ncpu, args.runs), flush=True)

    one = ["taskset", "-c", "0"]
    ruff_cmd = [ruff, "check", "--no-cache", "--isolated", "--quiet", stdlib]
    lint = [vox, "lint", "--determinism"]
    cases = []  # key, label, command, lines, accepted exit codes
    for shape, ws, ws_lines in workspaces:
        cases += [
            ("lint1:" + shape, "vox lint, 1 core", one + lint + [ws], ws_lines, (0, 1)),
            ("lintN:" + shape, "vox lint, %d cores" % ncpu, lint + [ws], ws_lines, (0, 1)),
            ("lintC:" + shape, "vox lint --format compact, 1 core", one + lint + ["--format", "compact", ws],
             ws_lines, (0, 1)),
            ("lintCN:" + shape, "vox lint --format compact, %d cores" % ncpu, lint + ["--format", "compact", ws],
             ws_lines, (0, 1)),
        ]
        if shape == "dense" or len(workspaces) == 1:
            # Streamed output (issue 20): JSON and SARIF hold no more than compact does, where findings abound.
            cases += [
                ("lintJ:" + shape, "vox lint --format json, 1 core", one + lint + ["--format", "json", ws],
                 ws_lines, (0, 1)),
                ("lintS:" + shape, "vox lint --format sarif, 1 core", one + lint + ["--format", "sarif", ws],
                 ws_lines, (0, 1)),
            ]
    cases += [
        ("ruff1", "ruff check (default rules), 1 core", one + ruff_cmd, py_lines, (0, 1)),
        ("ruffN", "ruff check (default rules), %d cores" % ncpu, ruff_cmd, py_lines, (0, 1)),
        ("ruffA", "ruff check --select ALL, 1 core", one + ruff_cmd[:-1] + ["--select", "ALL", stdlib],
         py_lines, (0, 1)),
        ("check", "vox check %d-line file, 1 core" % big_lines, one + [vox, "check", big], big_lines, (0,)),
        ("checkN", "vox check %d-line file, %d cores" % (big_lines, ncpu), [vox, "check", big], big_lines, (0,)),
    ]
    best, best_cpu, rss = {}, {}, {}
    findings = {}
    steal0, t0 = host.steal_seconds(), time.time()
    for r in range(args.runs):
        for key, label, cmd, lines, ok in cases:
            try:
                wall, cpu, maxrss, code, out, stderr = measure(cmd, ok, cwd=base)
            except Failed as e:
                print("\nFAILED: %s" % e, file=sys.stderr)
                sys.exit(2)
            if key.startswith("lint1:") and key not in findings:
                findings[key.split(":")[1]] = findings_summary(out)
            os.unlink(out)
            best[key] = min(best.get(key, wall), wall)
            best_cpu[key] = min(best_cpu.get(key, cpu), cpu)
            rss[key] = max(rss.get(key, 0), maxrss)
        print("run %d of %d done" % (r + 1, args.runs), flush=True)
    if steal0 is not None:
        print("host steal while measuring: %.1f s over %.0f s (all %d cores)"
              % (host.steal_seconds() - steal0, time.time() - t0, os.cpu_count() or 1))

    print()
    print("%-50s %9s %8s %8s %11s %9s" % ("best of %d" % args.runs, "lines", "wall s", "cpu s", "lines/s",
                                           "peak MiB"))
    for key, label, cmd, lines, ok in cases:
        name = "%s: %s" % (key.split(":")[1], label) if ":" in key else label
        print("%-50s %9d %8.3f %8.3f %11.0f %9.1f"
              % (name, lines, best[key], best_cpu[key], lines / best[key], rss[key] / 1024))
    print("(lines/s from wall time; cpu s = user + sys of the process, less sensitive to a busy machine)")
    for shape, counts in findings.items():
        print("\n%s: vox lint findings by code (%d in all): %s"
              % (shape, sum(counts.values()), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
        if shape == "dense" and sum(counts.values()) < 100_000 and args.files >= 850:
            print("  (fewer than the 100,000 findings the dense shape is meant to have: a generator or rule change)")

    def verdict(ok):
        return "met" if ok else "NOT met"

    def line(text, value, extra, target, ok):
        print("  %-60s %7.2f  %-22s target %-9s %s" % (text, value, extra, target, verdict(ok)))
    print("\ntargets (every shape):")
    for shape, ws, ws_lines in workspaces:
        k = ":" + shape
        sp = (ws_lines / best["lint1" + k]) / (py_lines / best["ruff1"])
        sp_cpu = (ws_lines / best_cpu["lint1" + k]) / (py_lines / best_cpu["ruff1"])
        line("%s: vox lint lines/s per core / ruff's" % shape, sp, "(by cpu time %.2f)" % sp_cpu, ">= 1.5",
             sp >= 1.5)
        su = best["lint1" + k] / best["lintN" + k]
        line("%s: vox lint speed-up on %d cores" % (shape, ncpu), su,
             "(compact: %.2f)" % (best["lintC" + k] / best["lintCN" + k]), ">= 1.6", su >= 1.6)
        mem = rss["lintC" + k] / rss["ruff1"]
        line("%s: vox lint --format compact peak RSS / ruff's" % shape, mem, "", "<= 2", mem <= 2)
        for key, name in (("lintJ", "json"), ("lintS", "sarif")):
            if key + k in rss:
                m = rss[key + k] / rss["lintC" + k]
                line("%s: vox lint --format %s peak RSS / compact's" % (shape, name), m, "", "<= 1.15",
                     m <= 1.15)
    # The target is for the whole process on this machine (all its cores); the one-core figure
    # shows what a pinned run gives.
    chk = big_lines / best["checkN"]
    print("  %-60s %7.0f  %-22s target %-9s %s"
          % ("vox check lines/s, %d-line file, %d cores" % (big_lines, ncpu), chk, "", ">= 500000",
             verdict(chk >= 500_000)))
    print("  %-60s %7.0f  %-22s (for comparison)"
          % ("vox check lines/s, %d-line file, 1 core" % big_lines, big_lines / best["check"],
             "(by cpu time %.0f)" % (big_lines / best_cpu["check"])))
    print("  %-60s %7.2fx (for comparison)" % ("ruff speed-up on %d cores" % ncpu, best["ruff1"] / best["ruffN"]))


if __name__ == "__main__":
    main()
