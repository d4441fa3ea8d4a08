//! Value kinds of a function's locals and expressions (voxscript.md §4.1), as far as the body
//! shows them: literals, builtin and method results, annotations. Flow-insensitive: a local's kind
//! is the join of everything assigned to it; anything unclear is `Unknown`, and rules that need a
//! kind stay silent on `Unknown` (no guessing).

use vox_hir::{BinOp, Ctor, Expr, Global, Literal, Pat, Stmt, UnOp};

use crate::body::{builtin_name, Body};
use crate::kind::Kind;

/// Kinds of every slot and expression of a lowered body.
pub struct Kinds {
    pub slots: Vec<Kind>,
    pub exprs: Vec<Kind>,
    /// For each global slot bound once to a list literal of int literals (`let xs = [1, -2]`,
    /// never assigned or pushed to again), that literal: its elements are ints.
    pub int_lists: Vec<Option<u32>>,
    /// The initialiser of each global slot bound once and never changed.
    pub inits: Vec<Option<u32>>,
}

impl Kinds {
    /// The literal `e` is, following locals bound once (`job` in `let job = {…}`).
    pub fn literal(&self, body: &Body<'_>, e: u32) -> u32 {
        crate::body::through_inits(body, &self.inits, e)
    }

    /// The value written for field `name` of the record literal `x` is (`job.env` of
    /// `let job = {env: {…}}`).
    pub fn field_value(&self, body: &Body<'_>, x: u32, name: &str) -> Option<u32> {
        match &body.m.exprs[self.literal(body, x) as usize] {
            Expr::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| &**k == name)
                .map(|(_, v)| *v),
            _ => None,
        }
    }

    /// The elements of the list literal `x` is.
    pub fn list_items<'m>(&self, body: &Body<'m>, x: u32) -> Option<&'m [u32]> {
        match &body.m.exprs[self.literal(body, x) as usize] {
            Expr::List(items) => Some(items),
            _ => None,
        }
    }
}

impl Kinds {
    pub fn expr(&self, e: u32) -> Kind {
        self.exprs.get(e as usize).copied().unwrap_or(Kind::Unknown)
    }
    pub fn slot(&self, s: u32) -> Kind {
        self.slots.get(s as usize).copied().unwrap_or(Kind::Unknown)
    }
}

/// Slot kinds (by global slot, see `Body::gslot`) start as "not yet assigned" and join upwards.
pub fn infer(body: &Body<'_>) -> Kinds {
    let m = body.m;
    let n_slots = body.n_slots as usize;
    let mut slots: Vec<Option<Kind>> = vec![None; n_slots];
    // The function's own parameters come from their annotations; closure parameters and
    // captures are unknown.
    let base = body.slot_base[body.root as usize] as usize;
    for (i, ann) in body.param_kinds.iter().enumerate() {
        if let Some(s) = slots.get_mut(base + i) {
            *s = Some(*ann);
        }
    }
    for (fi, f) in m.functions.iter().enumerate() {
        if fi as u32 == body.root {
            continue;
        }
        let b = body.slot_base[fi] as usize;
        for i in 0..f.params.len() {
            if let Some(s) = slots.get_mut(b + i) {
                *s = Some(Kind::Unknown);
            }
        }
        // Captures take the kind of the variable they copy (joined in the rounds below).
    }
    // (captured variable, capture slot), both global slots.
    let mut closures: Vec<(u32, u32)> = Vec::new();
    for (i, e) in m.exprs.iter().enumerate() {
        if let Expr::Closure { func, captures } = e {
            let inner = &m.functions[*func as usize];
            let b = body.slot_base[*func as usize];
            for (outer, slot) in captures.iter().zip(&inner.capture_slots) {
                closures.push((body.gslot(i as u32, *outer), b + *slot));
            }
        }
    }
    let inits = crate::body::single_inits(body);
    let int_lists = inits
        .iter()
        .map(|init| init.filter(|&e| int_list_literal(m, e)))
        .collect();
    let mut kinds = Kinds {
        slots: vec![Kind::Unknown; n_slots],
        exprs: vec![Kind::Unknown; m.exprs.len()],
        int_lists,
        inits,
    };
    let changing = slot_dependent(body, &kinds);
    let loops = for_loops(body);
    let mut converged = false;
    for round in 0..6 {
        for (i, s) in slots.iter().enumerate() {
            kinds.slots[i] = s.unwrap_or(Kind::Unset);
        }
        if round == 0 {
            for e in 0..m.exprs.len() {
                kinds.exprs[e] = expr_kind(body, &kinds, e as u32);
            }
        } else {
            for &e in &changing {
                kinds.exprs[e as usize] = expr_kind(body, &kinds, e);
            }
        }
        let mut next = slots.clone();
        let mut assign = |slot: u32, k: Kind| {
            if let Some(s) = next.get_mut(slot as usize) {
                *s = Some(match *s {
                    None => k,
                    Some(old) => old.join(k),
                });
                if *s == Some(Kind::Unset) {
                    *s = None;
                }
            }
        };
        for (si, st) in m.stmts.iter().enumerate() {
            let g = |slot: u32| body.gslot_stmt(si as u32, slot);
            match st {
                Stmt::Let { pat, init } => {
                    if let Pat::Bind(slot) = m.pats[*pat as usize] {
                        assign(g(slot), kinds.expr(*init));
                    }
                }
                Stmt::Assign { place, op, value } if place.steps.is_empty() => {
                    if let vox_hir::PlaceRoot::Local(slot) = place.root {
                        let k = match op {
                            None => kinds.expr(*value),
                            Some(op) => binary_kind(*op, kinds.slot(g(slot)), kinds.expr(*value)),
                        };
                        assign(g(slot), k);
                    }
                }
                Stmt::Expr {
                    expr,
                    writeback: Some(slot),
                } => {
                    let k = kinds.expr(*expr);
                    if k != Kind::Unknown && k == kinds.slot(g(*slot)) {
                        assign(g(*slot), k);
                    }
                }
                _ => {}
            }
        }
        for &(outer, inner) in &closures {
            assign(inner, kinds.slot(outer));
        }
        for l in &loops {
            let ik = kinds.expr(l.iter);
            if let Some(v) = l.value {
                let k = match ik {
                    Kind::Str => Kind::Str,
                    Kind::Map => Kind::Str,
                    _ if l.is_range => Kind::Int,
                    _ if l.str_items => Kind::Str,
                    // `for b in [1, 2, 3]`, `for r in rows` of `let rows = [{…}, {…}]`: an
                    // element of a list literal whose elements share a kind has it (issue 36:
                    // D004 saw `b * factor` as unknown kinds, D002 `for k, v in r` too).
                    _ => kinds
                        .list_items(body, l.iter)
                        .and_then(|xs| {
                            let first = kinds.expr(*xs.first()?);
                            xs.iter().all(|&x| kinds.expr(x) == first).then_some(first)
                        })
                        .filter(|k| !matches!(k, Kind::Unknown | Kind::Unset))
                        .unwrap_or(Kind::Unknown),
                };
                assign(v, k);
            }
            if let Some(i) = l.index {
                let k = if ik == Kind::Map {
                    Kind::Unknown
                } else {
                    Kind::Int
                };
                assign(i, k);
            }
        }
        if next == slots {
            converged = true;
            break;
        }
        slots = next;
    }
    for (i, s) in slots.iter().enumerate() {
        kinds.slots[i] = match s {
            Some(Kind::Unset) | None => Kind::Unknown,
            Some(k) => *k,
        };
    }
    // When every slot is set, the last round saw these very slot kinds and no expression came
    // out `Unset` (only unset slots start one); an expression's kind depends only on slots and
    // on expressions before it (children come first in the arena), so that round's kinds are
    // final. Debug builds check it.
    let last_round_final = converged
        && slots
            .iter()
            .all(|s| matches!(s, Some(k) if *k != Kind::Unset));
    if !last_round_final || cfg!(debug_assertions) {
        let last = last_round_final.then(|| kinds.exprs.clone());
        // The other expressions never read a slot, so they are final and never `Unset`.
        for &e in &changing {
            kinds.exprs[e as usize] = match expr_kind(body, &kinds, e) {
                Kind::Unset => Kind::Unknown,
                k => k,
            };
        }
        if let Some(last) = last {
            debug_assert_eq!(last, kinds.exprs, "the last round's kinds are final");
        }
    }
    // `slot_dependent` must list every expression whose kind reads a slot: computed once in the
    // first round, the others would keep a kind from before the slots were known.
    if cfg!(debug_assertions) {
        for e in 0..m.exprs.len() as u32 {
            let again = match expr_kind(body, &kinds, e) {
                Kind::Unset => Kind::Unknown,
                k => k,
            };
            debug_assert_eq!(
                kinds.exprs[e as usize], again,
                "expression {e} is slot-dependent"
            );
        }
    }
    kinds
}

/// The expressions whose kinds may change between rounds, ascending: those that read a slot's
/// kind, directly or through an operand `expr_kind` looks at. The others come out the same in
/// every round.
fn slot_dependent(body: &Body<'_>, k: &Kinds) -> Vec<u32> {
    let m = body.m;
    let mut dependent = vec![false; m.exprs.len()];
    // Room for the usual share (a third or so): it would otherwise grow a few times per body.
    let mut out = Vec::with_capacity(m.exprs.len() / 2);
    for (i, e) in m.exprs.iter().enumerate() {
        // An operand later in the arena is read before it is computed in the round: it counts as
        // changing.
        let reads = |x: u32| x as usize >= i || dependent[x as usize];
        let d = match e {
            Expr::Local(_) => true,
            Expr::Unary(UnOp::Neg, x) => reads(*x),
            Expr::Binary(_, a, b) => reads(*a) || reads(*b),
            // `builtin_kind` looks at the first argument's kind.
            Expr::Call { callee, args, .. } => {
                matches!(m.exprs[*callee as usize], Expr::Builtin(_))
                    && args.first().is_some_and(|a| reads(*a))
            }
            // `unwrap_or(d)` and `get_or(k, d)` look at their default's kind too.
            Expr::MethodCall { recv, args, .. } => reads(*recv) || args.iter().any(|a| reads(*a)),
            // A record literal's field has the kind of the value written for it.
            Expr::Field(x, name) => k.field_value(body, *x, name).is_some_and(reads),
            Expr::If {
                then,
                els: Some(els),
                ..
            } => reads(*then) || reads(*els),
            Expr::Block(stmts) => match stmts.last().map(|s| &m.stmts[*s as usize]) {
                Some(Stmt::Expr { expr, .. }) => reads(*expr),
                _ => false,
            },
            _ => false,
        };
        if d {
            dependent[i] = true;
            out.push(i as u32);
        }
    }
    out
}

/// A `for` loop as the inference needs it: its bindings' global slots and its iterable.
struct ForLoop {
    iter: u32,
    value: Option<u32>,
    index: Option<u32>,
    is_range: bool,
    /// Iterates `chars`, `split` or `keys`: strings.
    str_items: bool,
}

fn for_loops(body: &Body<'_>) -> Vec<ForLoop> {
    let m = body.m;
    let mut out = Vec::new();
    for (ei, e) in m.exprs.iter().enumerate() {
        if let Expr::For {
            iter, value, index, ..
        } = e
        {
            out.push(ForLoop {
                iter: *iter,
                value: value.map(|v| body.gslot(ei as u32, v)),
                index: index.map(|i| body.gslot(ei as u32, i)),
                is_range: body.is_builtin_call(*iter, "", "range"),
                str_items: matches!(&m.exprs[*iter as usize],
                    Expr::MethodCall { name, .. } if matches!(&**name, "chars" | "split" | "keys")),
            });
        }
    }
    out
}

fn binary_kind(op: BinOp, a: Kind, b: Kind) -> Kind {
    use Kind::*;
    if op == BinOp::Add && (a == Str || b == Str) {
        return Str;
    }
    if a == Unset || b == Unset {
        return if matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod
        ) {
            Unset
        } else {
            Bool
        };
    }
    match op {
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => Bool,
        // A str on either side concatenates display forms (§4.6); lists do not concatenate.
        BinOp::Add => match (a, b) {
            (Str, _) | (_, Str) => Str,
            (Int, Int) => Int,
            (Float, Int | Float) | (Int, Float) => Float,
            (Dec, Dec | Int) | (Int, Dec) => Dec,
            _ => Unknown,
        },
        BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => match (a, b) {
            (Int, Int) => Int,
            (Float, Int | Float) | (Int, Float) => Float,
            (Dec, Dec | Int) | (Int, Dec) => Dec,
            _ => Unknown,
        },
    }
}

fn expr_kind(body: &Body<'_>, k: &Kinds, e: u32) -> Kind {
    let m = body.m;
    use Kind::*;
    match &m.exprs[e as usize] {
        Expr::Lit(l) => match l {
            Literal::Null => Null,
            Literal::Bool(_) => Bool,
            Literal::Int(_) => Int,
            Literal::Float(_) => Float,
            Literal::Dec(_) => Dec,
            Literal::Str(_) => Str,
        },
        Expr::Template(_) => Str,
        Expr::Local(s) => k.slot(body.gslot(e, *s)),
        Expr::Global(g) => match m.globals.get(*g as usize) {
            Some(Global::Fn(_)) => Func,
            Some(Global::ImportAlias { .. }) => Namespace,
            _ => Unknown,
        },
        Expr::Builtin(_) | Expr::Ctor(_) | Expr::Closure { .. } => Func,
        Expr::Namespace(_) | Expr::Std => Namespace,
        Expr::NoneValue => Option,
        Expr::List(_) => List,
        Expr::Tuple(_) => Tuple,
        Expr::Map(_) => Map,
        Expr::Unary(UnOp::Not, _) => Bool,
        Expr::Unary(UnOp::Neg, x) => match k.expr(*x) {
            Unset => Unset,
            Int => Int,
            Float => Float,
            Dec => Dec,
            _ => Unknown,
        },
        Expr::Binary(op, a, b) => binary_kind(*op, k.expr(*a), k.expr(*b)),
        Expr::And(..) | Expr::Or(..) => Bool,
        Expr::Call { callee, args, .. } => match &m.exprs[*callee as usize] {
            Expr::Builtin(id) => {
                let (ns, name) = builtin_name(body.catalog, *id);
                builtin_kind(ns, name, args.first().map(|a| k.expr(*a)))
            }
            Expr::Ctor(Ctor::Some) => Option,
            Expr::Ctor(Ctor::Ok | Ctor::Err) => Result,
            Expr::Global(g) => match m.globals.get(*g as usize) {
                Some(Global::Fn(i)) => body.fn_return_kind(*i),
                _ => Unknown,
            },
            _ => Unknown,
        },
        Expr::MethodCall {
            recv, name, args, ..
        } if unwraps_int(body, k, *recv, name, args) => Int,
        // `teams.get_or("ops", {})`: the default says what the caller expects.
        Expr::MethodCall { name, args, .. }
            if &**name == "get_or" && args.len() == 2 && matches!(k.expr(args[1]), Map | List) =>
        {
            k.expr(args[1])
        }
        Expr::Field(x, name) => match k.field_value(body, *x, name) {
            Some(v) => k.expr(v),
            None => Unknown,
        },
        Expr::MethodCall { recv, name, .. } => match method_kind(k.expr(*recv), name) {
            Unknown if k.expr(*recv) == Unset => Unset,
            kind => kind,
        },
        Expr::If {
            then,
            els: Some(els),
            ..
        } => k.expr(*then).join(k.expr(*els)),
        Expr::Block(stmts) => match stmts.last().map(|s| &m.stmts[*s as usize]) {
            Some(Stmt::Expr { expr, .. }) => k.expr(*expr),
            _ => Unknown,
        },
        _ => Unknown,
    }
}

/// A list literal of int literals (negated ones included), not empty.
pub(crate) fn int_list_literal(m: &vox_hir::Module, e: u32) -> bool {
    let int = |x: u32| match &m.exprs[x as usize] {
        Expr::Lit(Literal::Int(_)) => true,
        Expr::Unary(UnOp::Neg, y) => matches!(m.exprs[*y as usize], Expr::Lit(Literal::Int(_))),
        _ => false,
    };
    matches!(&m.exprs[e as usize], Expr::List(xs) if !xs.is_empty() && xs.iter().all(|&x| int(x)))
}

/// The int list literal `e` is or names (`[1, 2]`, or a local bound once to one).
pub(crate) fn int_list_of(body: &Body<'_>, k: &Kinds, e: u32) -> Option<u32> {
    match &body.m.exprs[e as usize] {
        Expr::List(_) if int_list_literal(body.m, e) => Some(e),
        Expr::Local(s) => k
            .int_lists
            .get(body.gslot(e, *s) as usize)
            .copied()
            .flatten(),
        _ => None,
    }
}

/// The Option `recv` holds an int: a `checked_*` operation on an int, or an element of an int
/// list literal (`xs[0]`, `xs.get(i)`, `xs.first()`, `xs.last()`).
pub(crate) fn int_option(body: &Body<'_>, k: &Kinds, recv: u32) -> bool {
    match &body.m.exprs[recv as usize] {
        Expr::MethodCall { recv: r, name, .. } if name.starts_with("checked_") => {
            k.expr(*r) == Kind::Int
        }
        Expr::MethodCall { recv: r, name, .. } if matches!(&**name, "get" | "first" | "last") => {
            int_list_of(body, k, *r).is_some()
        }
        Expr::Index(r, _) => int_list_of(body, k, *r).is_some(),
        _ => false,
    }
}

/// `o.unwrap()`, `o.expect(…)` or `o.unwrap_or(int)` of an Option that holds an int (so
/// `a.checked_mul(b).expect(…) * c` is an int product to D004, issue 36).
fn unwraps_int(body: &Body<'_>, k: &Kinds, recv: u32, name: &str, args: &[u32]) -> bool {
    let unwraps = match name {
        "unwrap" | "expect" => true,
        "unwrap_or" => args.first().is_some_and(|&d| k.expr(d) == Kind::Int),
        _ => false,
    };
    unwraps && int_option(body, k, recv)
}

/// Result kinds of builtins, by name (`arg` is the first argument's kind).
fn builtin_kind(ns: &str, name: &str, arg: Option<Kind>) -> Kind {
    use Kind::*;
    match (ns, name) {
        ("", "len" | "int" | "ord") => Int,
        ("", "float") => Float,
        ("", "str" | "type_of" | "chr") => Str,
        ("", "bool") => Bool,
        ("", "range" | "sorted") => List,
        ("", "abs") => match arg {
            Some(Unset) => Unset,
            Some(Int) => Int,
            Some(Float) => Float,
            _ => Unknown,
        },
        ("random", "int") => Int,
        ("random", "float") => Float,
        ("random", "shuffle") => List,
        ("random", "choice") => Option,
        ("time", _) => Int,
        ("math", _) => Float,
        ("path", "parent" | "file_name" | "stem") => Option,
        ("path", "is_absolute") => Bool,
        ("path", "resolve") => Result,
        ("path", _) => Str,
        ("env", "get") => Option,
        ("env", "args") => List,
        ("fs", "exists" | "is_file" | "is_dir") => Bool,
        ("fs", _) | ("io", _) | ("json", _) | ("csv", _) | ("toml", _) | ("yaml", _) => Result,
        ("http", _) => Result,
        ("process", "run" | "spawn" | "which") => Option,
        ("process", _) => Result,
        ("crypto", _) => Str,
        ("regex", "is_match") => Bool,
        ("regex", "replace") => Str,
        ("regex", "find" | "captures") => Option,
        ("secrets", _) | ("agentos", _) => Unknown,
        _ => Unknown,
    }
}

/// Result kinds of methods, by receiver kind and name.
fn method_kind(recv: Kind, name: &str) -> Kind {
    use Kind::*;
    match name {
        "to_str" | "to_string" => return Str,
        // Whatever the receiver, these give ints (they exist only on str, list and map).
        "len" | "chars_count" | "ord" if recv != Int && recv != Float => return Int,
        "count" if matches!(recv, Str | List | Unknown | Unset) => return Int,
        "as_str" | "as_int" | "as_float" | "as_bool" | "as_array" | "as_object" => return Option,
        // Only numbers have them, and they always give an Option (so `h.checked_mul(31) + c` is
        // seen as `Option + int` even where `h`'s kind is unclear).
        n if n.starts_with("checked_") => return Option,
        "is_empty" | "is_some" | "is_none" | "is_ok" | "is_err" | "contains" | "starts_with"
        | "ends_with" | "contains_key" | "has_key" | "has" | "any" | "all" | "is_alpha"
        | "is_digit" | "is_alnum" | "is_upper" | "is_lower" | "is_null" | "matches"
        | "is_match" => return Bool,
        _ => {}
    }
    match recv {
        Str => match name {
            "len" | "chars_count" | "count" | "ord" => Int,
            "split" | "chars" => List,
            "to_int" | "to_float" | "char_at" | "index_of" => Option,
            "trim" | "trim_start" | "trim_end" | "to_upper" | "to_uppercase" | "to_lower"
            | "to_lowercase" | "replace" | "repeat" | "slice" => Str,
            _ => Unknown,
        },
        List => match name {
            "len" | "count" | "index" | "find_index" => Int,
            "push" | "extend" | "remove" | "remove_at" | "reverse" | "reversed" | "sorted"
            | "sort_by_key" | "sorted_by_key" | "sort_by" | "sorted_by" | "map" | "filter"
            | "zip" | "enumerate" | "slice_list" | "flatten" => List,
            "join" => Str,
            "get" | "at" | "first" | "last" | "max" | "min" | "length" => Option,
            _ => Unknown,
        },
        Map => match name {
            "len" => Int,
            "keys" | "values" | "items" | "entries" => List,
            "insert" | "set" | "remove" | "delete" | "update" => Map,
            "get" | "pointer" => Option,
            _ => Unknown,
        },
        Int => match name {
            "abs" | "min" | "max" => Int,
            n if n.starts_with("checked_") => Option,
            n if n.starts_with("wrapping_") || n.starts_with("saturating_") => Int,
            _ => Unknown,
        },
        Float => Float,
        _ => Unknown,
    }
}
