//! Path arguments: what each fs/io/process path argument is statically (a constant, a constant
//! directory prefix, or unknown: capability inference and C004), and how it was written (a
//! literal, `+ "/"` building, input used unnormalised: D005).

use vox_hir::{Expr, Literal, Stmt, TemplatePart};

use super::builtin::Builtin;
use super::model::{Access, FactsBuilder, PathArg, PathFact, PathShape};
use crate::body::{builtin_name, pat_slots, single_inits, Body};
use crate::kinds::Kinds;

/// Which arguments of a builtin are paths, with their access.
pub fn path_params(ns: &str, name: &str) -> &'static [(usize, Access)] {
    use Access::*;
    match (ns, name) {
        (
            "fs",
            "read" | "read_file" | "read_to_string" | "read_bytes" | "exists" | "is_file"
            | "is_dir" | "canonicalize" | "stat",
        ) => &[(0, Read)],
        (
            "fs",
            "write" | "write_file" | "write_to_file" | "remove" | "remove_dir_all" | "mkdir",
        ) => &[(0, Write)],
        ("fs", "list_dir" | "list_dir_detailed" | "walk" | "list_recursive" | "glob") => {
            &[(0, List)]
        }
        ("fs", "copy") => &[(0, Read), (1, Write)],
        ("io", "open") => &[(0, Read)],
        ("io", "save") => &[(0, Write)],
        ("path", "resolve") => &[(0, Read)],
        _ => &[],
    }
}

/// Builtins whose results are input (D005's "a value from input").
fn is_input_source(ns: &str, name: &str) -> bool {
    match ns {
        "env" => matches!(name, "get" | "args"),
        "process" => !matches!(name, "exit" | "register_exit_command" | "spawn_background"),
        // File contents. Not listings: an entry is one name of the directory listed, so joined
        // to it names exactly the file listed (normalising it could only change that); `glob`
        // and `walk` return paths built from their (checked) argument, sorted and normalised.
        "fs" => matches!(name, "read" | "read_file" | "read_to_string" | "read_bytes"),
        "io" => matches!(name, "open" | "stdin" | "read_line"),
        "json" | "csv" | "toml" | "yaml" | "http" | "secrets" => true,
        _ => false,
    }
}

struct Eval<'a, 'b> {
    body: &'a Body<'b>,
    inits: &'a [Option<u32>],
    /// For each global slot that is a `for` loop's value, the loop's iterable.
    for_iters: Vec<Option<u32>>,
}

impl Eval<'_, '_> {
    /// Follows a local bound once to its initialiser.
    fn resolve(&self, e: u32) -> u32 {
        let mut e = e;
        for _ in 0..64 {
            match self.body.m.exprs[e as usize] {
                Expr::Local(s) => match self.inits[self.body.gslot(e, s) as usize] {
                    Some(init) => e = init,
                    None => return e,
                },
                _ => return e,
            }
        }
        e
    }

    fn const_str(&self, e: u32, depth: u32) -> Option<String> {
        if depth > 64 {
            return None;
        }
        let e = self.resolve(e);
        let m = self.body.m;
        match &m.exprs[e as usize] {
            Expr::Lit(Literal::Str(s)) => Some(s.to_string()),
            Expr::Template(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        TemplatePart::Lit(s) => out.push_str(s),
                        TemplatePart::Var(v) => out.push_str(&self.const_str(*v, depth + 1)?),
                    }
                }
                Some(out)
            }
            Expr::Binary(vox_hir::BinOp::Add, a, b) => {
                Some(self.const_str(*a, depth + 1)? + &self.const_str(*b, depth + 1)?)
            }
            _ => match self.body.builtin_call(e) {
                Some(("path", "join", [a, b])) => Some(vox_caps::lexical::join_str(
                    &self.const_str(*a, depth + 1)?,
                    &self.const_str(*b, depth + 1)?,
                )),
                Some(("path", "normalize", [a])) => Some(vox_caps::lexical::normalize_str(
                    &self.const_str(*a, depth + 1)?,
                )),
                // `join` folded over a list literal of constants.
                Some(("path", "join_many", [l])) => match &m.exprs[self.resolve(*l) as usize] {
                    Expr::List(xs) if !xs.is_empty() => {
                        let mut acc = self.const_str(xs[0], depth + 1)?;
                        for x in &xs[1..] {
                            acc =
                                vox_caps::lexical::join_str(&acc, &self.const_str(*x, depth + 1)?);
                        }
                        Some(acc)
                    }
                    _ => None,
                },
                _ => None,
            },
        }
    }

    /// The directory every element of `fs.glob(c)` / `fs.walk(c)` lies in (through `?`,
    /// `unwrap`, `expect`, `unwrap_or`), as a prefix ending in `/`.
    fn listing_base(&self, iter: u32) -> Option<String> {
        let m = self.body.m;
        let mut e = self.resolve(iter);
        for _ in 0..8 {
            match &m.exprs[e as usize] {
                Expr::Try(x) => e = self.resolve(*x),
                Expr::MethodCall { recv, name, .. }
                    if matches!(
                        &**name,
                        "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default"
                    ) =>
                {
                    e = self.resolve(*recv)
                }
                _ => break,
            }
        }
        let base = match self.body.builtin_call(e)? {
            ("fs", "glob", [p]) => glob_base(&self.const_str(*p, 1)?),
            ("fs", "walk" | "list_recursive", [d]) => {
                vox_caps::lexical::normalize_str(&self.const_str(*d, 1)?)
            }
            _ => return None,
        };
        Some(if base.ends_with('/') {
            base
        } else {
            format!("{base}/")
        })
    }

    /// The constant text a path starts with (`"data/" + x` → `data/`).
    fn const_prefix(&self, e: u32, depth: u32) -> Option<String> {
        if depth > 64 {
            return None;
        }
        if let Some(s) = self.const_str(e, depth) {
            return Some(s);
        }
        let e = self.resolve(e);
        let m = self.body.m;
        if let Expr::Local(l) = m.exprs[e as usize] {
            let g = self.body.gslot(e, l) as usize;
            if let Some(Some(iter)) = self.for_iters.get(g) {
                return self.listing_base(*iter);
            }
        }
        match &m.exprs[e as usize] {
            Expr::Template(parts) => match parts.first() {
                Some(TemplatePart::Lit(s)) => Some(s.to_string()),
                _ => None,
            },
            Expr::Binary(vox_hir::BinOp::Add, a, _) => self.const_prefix(*a, depth + 1),
            _ => match self.body.builtin_call(e) {
                Some(("path", "join", [a, _])) => {
                    let a = self.const_str(*a, depth + 1)?;
                    Some(if a.is_empty() || a.ends_with('/') {
                        a
                    } else {
                        format!("{a}/")
                    })
                }
                Some(("path", "normalize", [a])) => self.const_prefix(*a, depth + 1),
                _ => None,
            },
        }
    }

    fn fact(&self, e: u32, glob: bool) -> PathFact {
        match self.const_str(e, 0) {
            Some(s) if glob => PathFact::Const(glob_base(&s)),
            // The file the kernel opens: no NFC, `\` kept, `..` resolved later against the
            // filesystem (capability inference), never lexically.
            Some(s) => PathFact::Const(vox_caps::lexical::normalize_access(&s)),
            None => match self.const_prefix(e, 0) {
                Some(p) => {
                    let p = if glob { glob_base(&p) } else { p };
                    // Only whole components count: `data/in` + x might be `data/input.txt`.
                    let dir = match p.rfind('/') {
                        Some(0) => "/".to_string(),
                        Some(i) => p[..i].to_string(),
                        None => String::new(),
                    };
                    if dir.is_empty() {
                        PathFact::Dynamic
                    } else {
                        PathFact::Prefix(vox_caps::lexical::normalize_access(&dir))
                    }
                }
                None => PathFact::Dynamic,
            },
        }
    }

    /// A path from input: with the constant it takes where the input is absent, if it has one.
    fn input_fact(&self, e: u32) -> PathFact {
        match self.default_str(e, 0) {
            Some((d, true)) => PathFact::InputOr(vox_caps::lexical::normalize_access(&d)),
            Some((d, false)) => match d.rfind('/') {
                Some(0) => PathFact::InputUnder("/".to_string()),
                Some(i) => PathFact::InputUnder(vox_caps::lexical::normalize_access(&d[..i])),
                None => PathFact::Input,
            },
            None => PathFact::Input,
        }
    }

    /// What a path built from input is where the input is absent: the default of an
    /// `unwrap_or`, joined with constants (`true`: the whole path), or followed by more that is
    /// not constant (`false`: the text the path starts with).
    fn default_str(&self, e: u32, depth: u32) -> Option<(String, bool)> {
        if depth > 64 {
            return None;
        }
        let e = self.resolve(e);
        let m = self.body.m;
        let either = |a: u32, b: u32, f: &dyn Fn(&str, &str) -> String| {
            if let Some(ca) = self.const_str(a, depth + 1) {
                let (db, exact) = self.default_str(b, depth + 1)?;
                return Some((f(&ca, &db), exact));
            }
            let (da, exact) = self.default_str(a, depth + 1)?;
            match self.const_str(b, depth + 1) {
                Some(cb) if exact => Some((f(&da, &cb), true)),
                // What follows is not constant: the path starts with the default.
                _ => Some((f(&da, ""), false)),
            }
        };
        match &m.exprs[e as usize] {
            Expr::MethodCall { name, args, .. } if &**name == "unwrap_or" && args.len() == 1 => {
                Some((self.const_str(args[0], depth + 1)?, true))
            }
            Expr::Binary(vox_hir::BinOp::Add, a, b) => either(*a, *b, &|a, b| format!("{a}{b}")),
            _ => match self.body.builtin_call(e) {
                Some(("path", "join", [a, b])) => either(*a, *b, &|a, b| {
                    if b.is_empty() {
                        format!("{}/", a.trim_end_matches('/'))
                    } else {
                        vox_caps::lexical::join_str(a, b)
                    }
                }),
                Some(("path", "normalize", [a])) => {
                    let (d, exact) = self.default_str(*a, depth + 1)?;
                    exact.then(|| (vox_caps::lexical::normalize_str(&d), true))
                }
                _ => None,
            },
        }
    }

    fn slash_concat(&self, e: u32, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        let e = self.resolve(e);
        let m = self.body.m;
        match &m.exprs[e as usize] {
            Expr::Binary(vox_hir::BinOp::Add, a, b) => {
                let lit_slash = |x: u32| {
                    matches!(&m.exprs[self.resolve(x) as usize],
                        Expr::Lit(Literal::Str(s)) if s.starts_with('/') || s.ends_with('/'))
                };
                lit_slash(*a)
                    || lit_slash(*b)
                    || self.slash_concat(*a, depth + 1)
                    || self.slash_concat(*b, depth + 1)
            }
            _ => false,
        }
    }
}

/// The directory a glob pattern starts from: the components before the first with a wildcard.
fn glob_base(pattern: &str) -> String {
    let mut base: Vec<&str> = Vec::new();
    for comp in pattern.split('/') {
        if comp.contains(['*', '?', '[']) {
            break;
        }
        base.push(comp);
    }
    let joined = base.join("/");
    let joined = if pattern.starts_with('/') && joined.is_empty() {
        "/".to_string()
    } else {
        joined
    };
    vox_caps::lexical::normalize_str(if joined.is_empty() { "." } else { &joined })
}

/// Which expressions carry input (flow-insensitive over locals, through unwraps, matches and
/// loops; `path.normalize` cleans).
fn input_taint(body: &Body<'_>) -> Vec<bool> {
    let m = body.m;
    let mut slot = vec![false; body.n_slots as usize];
    let mut expr = vec![false; m.exprs.len()];
    for _round in 0..8 {
        // Arena order puts children before parents, so one forward pass settles expressions.
        for i in 0..m.exprs.len() {
            let id = i as u32;
            let t = |x: u32| expr[x as usize];
            let v = match &m.exprs[i] {
                Expr::Local(s) => slot[body.gslot(id, *s) as usize],
                Expr::Call { .. } => match body.builtin_call(id) {
                    Some(("path", "normalize", _)) => false,
                    Some((ns, name, a)) => is_input_source(ns, name) || a.iter().any(|x| t(*x)),
                    None => false,
                },
                Expr::MethodCall { recv, args, .. } => t(*recv) || args.iter().any(|x| t(*x)),
                Expr::Field(x, _) | Expr::Try(x) => t(*x),
                Expr::Index(a, _) => t(*a),
                Expr::Binary(vox_hir::BinOp::Add, a, b) => t(*a) || t(*b),
                Expr::Template(parts) => parts
                    .iter()
                    .any(|p| matches!(p, TemplatePart::Var(v) if t(*v))),
                Expr::If { then, els, .. } => t(*then) || els.is_some_and(t),
                Expr::Match { arms, .. } => arms.iter().any(|(_, x)| t(*x)),
                Expr::Block(stmts) => match stmts.last().map(|s| &m.stmts[*s as usize]) {
                    Some(Stmt::Expr { expr: x, .. }) => t(*x),
                    _ => false,
                },
                _ => false,
            };
            expr[i] = v;
        }
        let mut changed = false;
        let mut mark = |g: u32, slot: &mut Vec<bool>| {
            if !slot[g as usize] {
                slot[g as usize] = true;
                changed = true;
            }
        };
        for (si, st) in m.stmts.iter().enumerate() {
            match st {
                Stmt::Let { pat, init } if expr[*init as usize] => {
                    let mut ss = Vec::new();
                    pat_slots(m, *pat, &mut ss);
                    for s in ss {
                        mark(body.gslot_stmt(si as u32, s), &mut slot);
                    }
                }
                Stmt::Assign { place, value, .. } if expr[*value as usize] => {
                    if let vox_hir::PlaceRoot::Local(s) = place.root {
                        mark(body.gslot_stmt(si as u32, s), &mut slot);
                    }
                }
                _ => {}
            }
        }
        for (i, e) in m.exprs.iter().enumerate() {
            match e {
                Expr::For {
                    iter,
                    value: Some(v),
                    ..
                } if expr[*iter as usize] => {
                    mark(body.gslot(i as u32, *v), &mut slot);
                }
                Expr::Match { scrutinee, arms } if expr[*scrutinee as usize] => {
                    for (p, _) in arms {
                        let mut ss = Vec::new();
                        pat_slots(m, *p, &mut ss);
                        for s in ss {
                            mark(body.gslot(i as u32, s), &mut slot);
                        }
                    }
                }
                _ => {}
            }
        }
        if !changed {
            break;
        }
    }
    expr
}

/// Whether builtin `ns.name` takes a path argument (or a child's working directory).
fn takes_path(ns: &str, name: &str) -> bool {
    !path_params(ns, name).is_empty()
        || (ns == "process" && matches!(name, "run_ex" | "run_capture_ex"))
}

pub(super) fn path_args(body: &Body<'_>, _kinds: &Kinds, facts: &mut FactsBuilder) {
    let m = body.m;
    // Most functions pass no paths: they need none of the analyses below.
    // (`"data/x.txt" |> fs.read` counts: the pipe calls the builtin with its left side.)
    let any_path = (0..m.exprs.len() as u32).any(|e| {
        let piped = match m.exprs[e as usize] {
            Expr::Pipe(_, rhs) => match m.exprs[rhs as usize] {
                Expr::Builtin(b) => {
                    let (ns, name) = builtin_name(body.catalog, b);
                    takes_path(ns, name)
                }
                _ => false,
            },
            _ => false,
        };
        piped
            || body
                .builtin_call(e)
                .is_some_and(|(ns, name, _)| takes_path(ns, name))
    });
    if !any_path {
        return;
    }
    let inits = single_inits(body);
    let mut for_iters = vec![None; body.n_slots as usize];
    let mut assigned = vec![0u32; body.n_slots as usize];
    for (i, e) in m.exprs.iter().enumerate() {
        if let Expr::For {
            iter,
            value: Some(v),
            ..
        } = e
        {
            let g = body.gslot(i as u32, *v) as usize;
            for_iters[g] = Some(*iter);
            assigned[g] += 1;
        }
    }
    // Only loop variables nothing else assigns.
    for (si, st) in m.stmts.iter().enumerate() {
        if let Stmt::Assign { place, .. } = st {
            if let vox_hir::PlaceRoot::Local(l) = place.root {
                for_iters[body.gslot_stmt(si as u32, l) as usize] = None;
            }
        }
    }
    for (g, n) in assigned.iter().enumerate() {
        if *n > 1 {
            for_iters[g] = None;
        }
    }
    let ev = Eval {
        body,
        inits: &inits,
        for_iters,
    };
    let taint = input_taint(body);
    for i in 0..m.exprs.len() {
        let id = i as u32;
        // `"data/x.txt" |> fs.read`: the builtin's first argument is the piped value.
        if let Expr::Pipe(lhs, rhs) = &m.exprs[i] {
            if let Expr::Builtin(b) = m.exprs[*rhs as usize] {
                let (ns, name) = builtin_name(body.catalog, b);
                if let Some(&(0, access)) = path_params(ns, name).first() {
                    let fact = match ev.fact(*lhs, false) {
                        PathFact::Dynamic if taint[*lhs as usize] => ev.input_fact(*lhs),
                        f => f,
                    };
                    facts.paths.push(PathArg {
                        builtin: Builtin::new(ns, name),
                        access,
                        range: m.expr_ranges[*lhs as usize],
                        // The builtin's own range: the effect of the builtin named as a value
                        // is then described by this path.
                        call: m.expr_ranges[*rhs as usize],
                        fact,
                        shape: shape_of(&ev, &taint, *lhs),
                        glob: ns == "fs" && name == "glob",
                    });
                }
            }
        }
        let Some((ns, name, args)) = body.builtin_call(id) else {
            continue;
        };
        let glob = ns == "fs" && name == "glob";
        let builtin = Builtin::new(ns, name);
        let call = m.expr_ranges[i];
        let mut params: Vec<(Option<u32>, Access)> = path_params(ns, name)
            .iter()
            .map(|&(ix, acc)| (args.get(ix).copied(), acc))
            .collect();
        if ns == "process" && matches!(name, "run_ex" | "run_capture_ex") {
            // The working directory of a child: checked for its form (D005); a constant one
            // (not "" or ".", the run's own) is also where the jailed child must read (issue 36), so it
            // is a listing of that directory. Any other stays out of the inferred capabilities.
            if let Some(&cwd) = args.get(2) {
                let shape = shape_of(&ev, &taint, cwd);
                let (access, fact) = match ev.fact(cwd, false) {
                    PathFact::Const(dir) if !matches!(dir.trim_end_matches('/'), "" | ".") => {
                        (Access::List, PathFact::Const(dir))
                    }
                    _ => (Access::Read, PathFact::Dynamic),
                };
                facts.paths.push(PathArg {
                    builtin,
                    access,
                    range: m.expr_ranges[cwd as usize],
                    call,
                    fact,
                    shape,
                    glob: false,
                });
            }
            continue;
        }
        if params.is_empty() {
            continue;
        }
        if ns == "fs" && name == "list_dir" && args.is_empty() {
            params = vec![(None, Access::List)];
        }
        for (arg, access) in params {
            let (fact, shape, range) = match arg {
                Some(a) => {
                    let fact = match ev.fact(a, glob) {
                        PathFact::Dynamic if taint[a as usize] && !glob => ev.input_fact(a),
                        PathFact::Dynamic if taint[a as usize] => PathFact::Input,
                        f => f,
                    };
                    (fact, shape_of(&ev, &taint, a), m.expr_ranges[a as usize])
                }
                None => (PathFact::Const(".".into()), PathShape::Other, call),
            };
            facts.paths.push(PathArg {
                builtin,
                access,
                range,
                call,
                fact,
                shape,
                glob,
            });
        }
    }
}

fn shape_of(ev: &Eval<'_, '_>, taint: &[bool], a: u32) -> PathShape {
    let m = ev.body.m;
    let r = ev.resolve(a);
    if let Expr::Lit(Literal::Str(s)) = &m.exprs[r as usize] {
        return PathShape::Literal(s.to_string(), m.expr_ranges[r as usize]);
    }
    if ev.body.is_builtin_call(r, "path", "normalize") {
        return PathShape::Other;
    }
    if ev.slash_concat(a, 0) {
        return PathShape::SlashConcat;
    }
    if taint[a as usize] {
        return PathShape::Input;
    }
    PathShape::Other
}
