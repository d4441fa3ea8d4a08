//! A `Host` for unit tests: calls builtins and registered Rust closures, draws SplitMix64 from seed 0,
//! collects output and can enforce a byte budget on `reserve`.

use std::rc::Rc;

use crate::exc::{CeilingKind, Exc, Res};
use crate::value::{Args, CodeFn, Func, Host, Tagged, Value};

type Hook = Rc<dyn Fn(&mut MockHost, Vec<Value>) -> Res<Value>>;

pub struct MockHost {
    pub state: u64,
    pub stdout: String,
    pub stderr: String,
    /// `reserve` fails beyond this many bytes in one request.
    pub limit: Option<usize>,
    hooks: Vec<Hook>,
}

impl Default for MockHost {
    fn default() -> Self {
        Self::new()
    }
}

impl MockHost {
    pub fn new() -> MockHost {
        MockHost {
            state: 0,
            stdout: String::new(),
            stderr: String::new(),
            limit: None,
            hooks: Vec::new(),
        }
    }

    /// Registers a Rust closure and returns it as a closure value.
    pub fn hook(&mut self, f: impl Fn(&mut MockHost, Vec<Value>) -> Res<Value> + 'static) -> Value {
        self.hooks.push(Rc::new(f));
        let code = CodeFn {
            name: None,
            module: u32::MAX,
            func: (self.hooks.len() - 1) as u32,
            captures: vec![],
        };
        Value::Func(Rc::new(Func::Code(Rc::new(code))))
    }
}

impl Host for MockHost {
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Res<Value> {
        let Value::Func(func) = f else {
            return Err(Exc::error(format!(
                "cannot call a value of type {}",
                crate::kind::message_name(f)
            )));
        };
        match &**func {
            Func::Builtin(def) => (def.f)(self, &mut Args::new(def.qualified(), args)),
            Func::Ctor { variant, fields } => Ok(Value::Tagged(Rc::new(Tagged {
                variant: variant.clone(),
                fields: fields.clone(),
                values: args.into(),
            }))),
            Func::Code(code) => {
                let hook = self
                    .hooks
                    .get(code.func as usize)
                    .cloned()
                    .ok_or_else(|| Exc::error("no such hook"))?;
                hook(self, args)
            }
            Func::JsonCodec { .. } => Err(Exc::error("the test host does not run @json_as codecs")),
        }
    }

    fn next_random(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn write_stdout(&mut self, text: &str) -> Res<()> {
        self.stdout.push_str(text);
        Ok(())
    }

    fn write_stderr(&mut self, text: &str) -> Res<()> {
        self.stderr.push_str(text);
        Ok(())
    }

    fn reserve(&mut self, bytes: usize) -> Res<()> {
        match self.limit {
            Some(limit) if bytes > limit => Err(Exc::Ceiling {
                kind: CeilingKind::Memory,
                limit: limit as u64,
                loc: None,
            }),
            _ => Ok(()),
        }
    }
}

/// A map value from `(key, value)` pairs, in order.
pub fn map_of(pairs: &[(&str, Value)]) -> Value {
    let mut m = crate::value::VMap::new();
    for (k, v) in pairs {
        m.insert(Rc::from(*k), v.clone());
    }
    Value::map(m)
}
