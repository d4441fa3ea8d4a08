//! Random VoxScript programs for the differential test: well-formed, terminating (loops and
//! recursion are bounded by counters), and mostly well-typed, with deliberate failures mixed in
//! (overflow, a zero divisor, an index out of range, `unwrap` of `None`, a `?` that ends the
//! script), so both tiers' error paths and locations are compared too.

/// A small deterministic generator (xorshift64*), seeded per program.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Int,
    Bool,
    Str,
    List,
    Map,
    Opt,
}

const TYS: [Ty; 6] = [Ty::Int, Ty::Bool, Ty::Str, Ty::List, Ty::Map, Ty::Opt];

struct Gen {
    rng: Rng,
    /// Variables in scope: (name, type), innermost last.
    vars: Vec<(String, Ty)>,
    next_var: u32,
    /// Helper functions `h0..`: (name, arity); callable from later functions and main.
    helpers: Vec<(String, usize)>,
    depth: u32,
    /// Inside a loop body of the current function (break/continue allowed).
    in_loop: bool,
    /// Inside a function returning a Result (`?` allowed on Results).
    in_result_fn: bool,
    out: String,
}

pub fn program(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng::new(seed),
        vars: Vec::new(),
        next_var: 0,
        helpers: Vec::new(),
        depth: 0,
        in_loop: false,
        in_result_fn: false,
        out: String::new(),
    };
    g.file();
    g.out
}

impl Gen {
    fn fresh(&mut self, ty: Ty) -> String {
        self.next_var += 1;
        let name = format!("v{}", self.next_var);
        self.vars.push((name.clone(), ty));
        name
    }

    fn var_of(&mut self, ty: Ty) -> Option<String> {
        let found: Vec<&String> = self
            .vars
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n)
            .collect();
        if found.is_empty() {
            return None;
        }
        Some(found[self.rng.below(found.len() as u64) as usize].clone())
    }

    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn file(&mut self) {
        // A bounded recursion, a Result producer and a `?` user come first.
        self.out.push_str(
            "fn rec(n: int, k: int) -> int {\n    if n <= 0 { return k % 7 }\n    rec(n - 1, k + n) + 1\n}\n",
        );
        self.out.push_str(
            "fn checked(x: int) {\n    if x % 5 == 0 { return Err(\"bad {x}\") }\n    Ok(x * 2)\n}\n",
        );
        self.out.push_str("fn twice(x: int) {\n    let y = checked(x)?\n    let z = checked(y + 1)?\n    Ok(y + z)\n}\n");
        let n_helpers = 1 + self.rng.below(3) as usize;
        for i in 0..n_helpers {
            let arity = 1 + self.rng.below(3) as usize;
            let name = format!("h{i}");
            let params: Vec<String> = (0..arity).map(|k| format!("p{k}")).collect();
            self.out
                .push_str(&format!("fn {name}({}) -> int {{\n", params.join(", ")));
            self.vars = params.iter().map(|p| (p.clone(), Ty::Int)).collect();
            self.in_result_fn = false;
            let n = 1 + self.rng.below(3);
            for _ in 0..n {
                self.stmt(1);
            }
            let e = self.expr(Ty::Int);
            self.line(1, &e);
            self.out.push_str("}\n");
            self.helpers.push((name, arity));
        }
        // A function returning a Result whose body may use `?`.
        self.vars = vec![("q".into(), Ty::Int)];
        self.in_result_fn = true;
        self.out.push_str("fn res(q: int) {\n");
        for _ in 0..1 + self.rng.below(2) {
            self.stmt(1);
        }
        self.line(1, "let w = twice(q)?");
        self.vars.push(("w".into(), Ty::Int));
        let e = self.expr(Ty::Int);
        self.line(1, &format!("Ok({e} + w)"));
        self.out.push_str("}\n");
        self.in_result_fn = false;
        self.vars.clear();
        self.out.push_str("fn main() {\n");
        let n = 3 + self.rng.below(6);
        for _ in 0..n {
            self.stmt(1);
        }
        if self.rng.chance(30) {
            let e = self.expr(Ty::Int);
            self.line(1, &e);
        }
        self.out.push_str("}\n");
    }

    fn block(&mut self, indent: usize, n: u64) {
        let saved = self.vars.len();
        for _ in 0..1 + self.rng.below(n) {
            self.stmt(indent);
        }
        self.vars.truncate(saved);
    }

    fn stmt(&mut self, indent: usize) {
        self.depth += 1;
        let deep = self.depth > 3;
        let choice = if deep {
            self.rng.below(5)
        } else {
            self.rng.below(16)
        };
        match choice {
            0 | 1 => {
                let ty = TYS[self.rng.below(6) as usize];
                let e = self.expr(ty);
                let v = self.fresh(ty);
                self.line(indent, &format!("let mut {v} = {e}"));
            }
            2 => {
                let e = self.any_expr();
                self.line(indent, &format!("print({e})"));
            }
            3 => match self.var_of(Ty::Int) {
                Some(v) => {
                    let op = self.rng.pick(&["=", "+=", "-=", "*="]);
                    let e = self.expr(Ty::Int);
                    self.line(indent, &format!("{v} {op} {e}"));
                }
                None => {
                    let e = self.expr(Ty::Int);
                    self.line(indent, &format!("print({e})"));
                }
            },
            4 => match self.var_of(Ty::List) {
                Some(v) => match self.rng.below(5) {
                    0 => self.line(indent, &format!("print({v}.pop())")),
                    1 => {
                        let i = self.small_index();
                        let op = self.rng.pick(&["=", "=", "+=", "*="]);
                        let e = self.expr(Ty::Int);
                        self.line(indent, &format!("{v}[{i}] {op} {e}"));
                    }
                    2 => {
                        let x = self.fresh(Ty::Int);
                        self.vars.pop();
                        self.line(indent, &format!("let {x} = {v}.pop()"));
                        self.line(indent, &format!("print({x})"));
                    }
                    _ => {
                        let e = self.expr(Ty::Int);
                        self.line(indent, &format!("{v}.push({e})"));
                    }
                },
                None => {
                    let e = self.expr(Ty::Str);
                    self.line(indent, &format!("print(\"s\", {e})"));
                }
            },
            5 => {
                let c = self.expr(Ty::Bool);
                self.line(indent, &format!("if {c} {{"));
                self.block(indent + 1, 3);
                if self.rng.chance(50) {
                    self.line(indent, "} else {");
                    self.block(indent + 1, 3);
                }
                self.line(indent, "}");
            }
            6 => {
                let k = self.fresh(Ty::Int);
                let bound = self.rng.below(6);
                self.line(indent, &format!("let mut {k} = 0"));
                self.line(indent, &format!("while {k} < {bound} {{"));
                self.line(indent + 1, &format!("{k} += 1"));
                let saved = self.in_loop;
                self.in_loop = true;
                self.block(indent + 1, 3);
                self.in_loop = saved;
                self.line(indent, "}");
            }
            7 => {
                let (head, ty) = match self.rng.below(4) {
                    0 => (self.expr(Ty::Map), Ty::Map),
                    1 => (self.expr(Ty::Str), Ty::Str),
                    _ => (self.expr(Ty::List), Ty::List),
                };
                let saved_vars = self.vars.len();
                let (a, b) = match ty {
                    Ty::Map => (self.fresh(Ty::Str), self.fresh(Ty::Int)),
                    Ty::Str => (self.fresh(Ty::Str), self.fresh(Ty::Int)),
                    _ => (self.fresh(Ty::Int), self.fresh(Ty::Int)),
                };
                if self.rng.chance(50) {
                    self.line(indent, &format!("for {a}, {b} in {head} {{"));
                } else {
                    self.vars.pop();
                    self.line(indent, &format!("for {a} in {head} {{"));
                }
                let saved = self.in_loop;
                self.in_loop = true;
                self.block(indent + 1, 3);
                self.in_loop = saved;
                self.vars.truncate(saved_vars);
                self.line(indent, "}");
            }
            8 => {
                let k = self.fresh(Ty::Int);
                let bound = 1 + self.rng.below(5);
                self.line(indent, &format!("let mut {k} = 0"));
                self.line(indent, "loop {");
                self.line(indent + 1, &format!("{k} += 1"));
                self.line(indent + 1, &format!("if {k} > {bound} {{ break }}"));
                let saved = self.in_loop;
                self.in_loop = true;
                self.block(indent + 1, 3);
                self.in_loop = saved;
                self.line(indent, "}");
            }
            9 if self.in_loop => {
                let c = self.expr(Ty::Bool);
                let what = self.rng.pick(&["break", "continue"]);
                self.line(indent, &format!("if {c} {{ {what} }}"));
            }
            10 => {
                let e = self.expr(Ty::Int);
                self.line(indent, &format!("match {e} % 3 {{"));
                self.line(indent + 1, "0 => print(\"zero\"),");
                self.line(indent + 1, "1 => {");
                self.block(indent + 2, 2);
                self.line(indent + 1, "}");
                self.line(indent + 1, "n => print(\"n\", n)");
                self.line(indent, "}");
            }
            11 => {
                let (a, b) = (self.expr(Ty::Int), self.expr(Ty::Str));
                let x = self.fresh(Ty::Int);
                let y = self.fresh(Ty::Str);
                self.line(indent, &format!("let ({x}, {y}) = ({a}, {b})"));
            }
            12 => {
                let e = self.expr(Ty::Int);
                if self.in_result_fn {
                    let v = self.fresh(Ty::Int);
                    self.line(indent, &format!("let {v} = checked({e})?"));
                } else {
                    self.line(indent, &format!("print(res({e}))"));
                }
            }
            13 => match self.var_of(Ty::Map) {
                Some(m) => {
                    let k = self.key();
                    let op = self.rng.pick(&["=", "=", "+=", "-="]);
                    let e = self.expr(Ty::Int);
                    self.line(indent, &format!("{m}[\"{k}\"] {op} {e}"));
                }
                None => {
                    let e = self.expr(Ty::Map);
                    self.line(indent, &format!("print({e})"));
                }
            },
            14 => {
                // A closure capturing a local, called now and through a method.
                let x = self.expr(Ty::Int);
                let f = self.fresh(Ty::Int);
                self.vars.pop();
                self.line(indent, &format!("let {f} = fn(y) {{ y * 2 + {x} }}"));
                let l = self.expr(Ty::List);
                self.line(indent, &format!("print({f}(3), {l}.map({f}))"));
            }
            _ => {
                let e = self.any_expr();
                self.line(indent, &e);
            }
        }
        self.depth -= 1;
    }

    fn key(&mut self) -> &'static str {
        self.rng.pick(&["a", "b", "c", "d"])
    }

    fn small_index(&mut self) -> String {
        if self.rng.chance(85) {
            format!("{}", self.rng.below(3))
        } else {
            format!("{}", self.rng.below(8))
        }
    }

    fn any_expr(&mut self) -> String {
        let ty = TYS[self.rng.below(6) as usize];
        self.expr(ty)
    }

    fn leaf(&mut self, ty: Ty) -> String {
        if self.rng.chance(60) {
            if let Some(v) = self.var_of(ty) {
                return v;
            }
        }
        match ty {
            Ty::Int => {
                if self.rng.chance(3) {
                    self.rng
                        .pick(&[
                            "9223372036854775807",
                            "4611686018427387904",
                            "-9223372036854775807",
                        ])
                        .to_string()
                } else {
                    format!("{}", self.rng.below(20) as i64 - 5)
                }
            }
            Ty::Bool => self.rng.pick(&["true", "false"]).to_string(),
            Ty::Str => format!("\"{}\"", self.rng.pick(&["", "a", "xy", "héllo", "Z9"])),
            Ty::List => "[1, 2, 3]".to_string(),
            Ty::Map if self.rng.chance(10) => "{\"a\": null, \"b\": 2}".to_string(),
            Ty::Map => "{\"a\": 1, \"b\": 2}".to_string(),
            Ty::Opt => "None".to_string(),
        }
    }

    fn expr(&mut self, ty: Ty) -> String {
        self.depth += 1;
        let e = if self.depth > 4 || self.rng.chance(30) {
            self.leaf(ty)
        } else {
            self.compound(ty)
        };
        self.depth -= 1;
        e
    }

    fn compound(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Int => match self.rng.below(14) {
                0..=2 => {
                    let op = self.rng.pick(&["+", "-", "*", "+", "-"]);
                    format!("({} {op} {})", self.expr(Ty::Int), self.expr(Ty::Int))
                }
                3 => {
                    let op = self.rng.pick(&["/", "%"]);
                    let d = if self.rng.chance(10) {
                        self.expr(Ty::Int)
                    } else {
                        format!("{}", 1 + self.rng.below(6))
                    };
                    format!("({} {op} {d})", self.expr(Ty::Int))
                }
                4 => {
                    let (name, arity) = match self.helpers.len() {
                        0 => ("rec".to_string(), 2),
                        n => self.helpers[self.rng.below(n as u64) as usize].clone(),
                    };
                    let args: Vec<String> = (0..arity).map(|_| self.expr(Ty::Int)).collect();
                    format!("{name}({})", args.join(", "))
                }
                5 => format!("rec({}, {})", self.rng.below(8), self.expr(Ty::Int)),
                6 => format!("{}.len()", self.expr(Ty::List)),
                7 => format!("{}.len()", self.expr(Ty::Str)),
                8 => format!(
                    "if {} {{ {} }} else {{ {} }}",
                    self.expr(Ty::Bool),
                    self.expr(Ty::Int),
                    self.expr(Ty::Int)
                ),
                9 => format!(
                    "match {} {{ Some(z) => z + 1, None => 0 }}",
                    self.expr(Ty::Opt)
                ),
                10 => {
                    let l = self.expr(Ty::List);
                    let i = self.small_index();
                    if self.rng.chance(30) {
                        format!("{l}[{i}].unwrap()")
                    } else {
                        format!("{l}[{i}].unwrap_or(-1)")
                    }
                }
                11 => format!("{}.fold(0, fn(acc, x) {{ acc + x }})", self.expr(Ty::List)),
                12 => {
                    let a = self.expr(Ty::Int);
                    let v = self.fresh(Ty::Int);
                    let b = self.expr(Ty::Int);
                    self.vars.pop();
                    format!("{{ let {v} = {a}\n {b} * 2 }}")
                }
                _ => format!(
                    "match checked({}) {{ Ok(v) => v, Err(e) => e.len() }}",
                    self.expr(Ty::Int)
                ),
            },
            Ty::Bool => match self.rng.below(6) {
                0 | 1 => {
                    let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    format!("{} {op} {}", self.expr(Ty::Int), self.expr(Ty::Int))
                }
                2 => {
                    let op = self.rng.pick(&["and", "or"]);
                    format!("({} {op} {})", self.expr(Ty::Bool), self.expr(Ty::Bool))
                }
                3 => format!("not {}", self.leaf(Ty::Bool)),
                4 => format!("{}.contains({})", self.expr(Ty::List), self.expr(Ty::Int)),
                _ => format!("{} == {}", self.expr(Ty::Str), self.expr(Ty::Str)),
            },
            Ty::Str => match self.rng.below(6) {
                0 => match (self.var_of(Ty::Int), self.var_of(Ty::Str)) {
                    (Some(a), Some(b)) => format!("\"{{{a}}}-{{{b}}}\""),
                    (Some(a), None) | (None, Some(a)) => format!("\"<{{{a}}}>\""),
                    (None, None) => "\"plain {1}\"".to_string(),
                },
                1 => format!("({} + str({}))", self.expr(Ty::Str), self.expr(Ty::Int)),
                2 => format!("{}.to_upper()", self.expr(Ty::Str)),
                3 => format!("str({})", self.expr(Ty::List)),
                4 => format!(
                    "{}.map(fn(x) {{ str(x) }}).join(\",\")",
                    self.expr(Ty::List)
                ),
                _ => format!(
                    "{}[{}].unwrap_or(\"?\")",
                    self.expr(Ty::Str),
                    self.small_index()
                ),
            },
            Ty::List => match self.rng.below(7) {
                0 => format!("[{}, {}]", self.expr(Ty::Int), self.expr(Ty::Int)),
                1 => format!("range(0, {})", self.rng.below(6)),
                6 => format!(
                    "range({} % 5, {} % 9)",
                    self.expr(Ty::Int),
                    self.expr(Ty::Int)
                ),
                2 => format!("{}.map(fn(x) {{ x * 3 }})", self.expr(Ty::List)),
                3 => format!("{}.filter(fn(x) {{ x % 2 == 0 }})", self.expr(Ty::List)),
                4 => format!("{}.sorted()", self.expr(Ty::List)),
                _ => format!("{}.push({})", self.expr(Ty::List), self.expr(Ty::Int)),
            },
            Ty::Map => match self.rng.below(3) {
                0 => format!(
                    "{{\"{}\": {}, \"{}\": {}}}",
                    self.key(),
                    self.expr(Ty::Int),
                    self.key(),
                    self.expr(Ty::Int)
                ),
                1 => format!(
                    "{}.insert(\"{}\", {})",
                    self.expr(Ty::Map),
                    self.key(),
                    self.expr(Ty::Int)
                ),
                _ => "{}".to_string(),
            },
            Ty::Opt => match self.rng.below(4) {
                0 => format!("Some({})", self.expr(Ty::Int)),
                1 => format!("{}[{}]", self.expr(Ty::List), self.small_index()),
                2 => format!("{}[\"{}\"]", self.expr(Ty::Map), self.key()),
                _ => "None".to_string(),
            },
        }
    }
}
