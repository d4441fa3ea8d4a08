//! Runtime values. Values never alias (voxscript.md §4.3): containers are `Rc`-shared and copied on
//! write with `Rc::make_mut`, which is indistinguishable from copying.
//!
//! Host stack safety (decisions.md 12): every container records its nesting depth, computed in O(1)
//! from its direct children when it is built or grown, so the evaluator can refuse a value nested
//! deeper than `--max-depth` (see [`check_depth`]); and containers drop iteratively (a worklist, not
//! recursion), so dropping a value millions of levels deep cannot overflow the host stack.

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use indexmap::IndexMap;
use rust_decimal::Decimal;
use vox_hir::{Cap, Nondet};

use crate::exc::{CeilingKind, Exc, Res};

/// A map with str keys in insertion order (records are maps too).
pub type VMap = IndexMap<Rc<str>, Value>;

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Dec(Decimal),
    Str(Rc<str>),
    List(Rc<List>),
    Map(Rc<Map>),
    /// Two or more elements.
    Tuple(Rc<List>),
    /// `Some(v)` is `Opt(Some(..))`, `None` is `Opt(None)`.
    Opt(Option<Rc<Wrapped>>),
    /// `Ok(v)` is `Res(Ok(..))`, `Err(e)` / `Error(e)` is `Res(Err(..))`.
    Res(Result<Rc<Wrapped>, Rc<Wrapped>>),
    Tagged(Rc<Tagged>),
    Func(Rc<Func>),
    Namespace(Rc<Namespace>),
    Regex(Rc<RegexValue>),
    Match(Rc<MatchValue>),
}

/// Whether dropping `v` does nothing (no heap part).
#[inline(always)]
pub(crate) fn is_scalar(v: &Value) -> bool {
    matches!(
        v,
        Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Dec(_)
            | Value::Opt(None)
    )
}

// ---- nesting depth ------------------------------------------------------------------------------

/// The nesting depth of `v` in O(1): 0 for scalars (and `None`, functions, namespaces, regexes), and
/// for containers (list, tuple, map, `Some`/`Ok`/`Err`, tagged values) one more than their deepest
/// direct child, so `[]` is 1 and `[[1]]` is 2.
///
/// The stored depth is exact when a container is built and when it grows (`push`, `insert`, `set`),
/// and an UPPER BOUND after elements are removed or replaced (a container never lowers its depth):
/// it never under-counts, so the `--max-depth` ceiling can never be bypassed.
pub fn depth(v: &Value) -> u32 {
    match v {
        Value::List(l) | Value::Tuple(l) => l.depth,
        Value::Map(m) => m.depth,
        Value::Opt(Some(w)) | Value::Res(Ok(w) | Err(w)) => w.depth,
        Value::Tagged(t) => t.values.depth,
        _ => 0,
    }
}

/// Depth of a container whose deepest direct child has depth `child`.
#[inline]
fn above(child: u32) -> u32 {
    child.saturating_add(1)
}

/// The `--max-depth` ceiling on values (decisions.md 12): `v` nested deeper than `max_depth` is exit
/// 78. `None` (or `u64::MAX`) is unlimited.
pub fn check_depth(v: &Value, max_depth: Option<u64>) -> Res<()> {
    match max_depth {
        Some(limit) if u64::from(depth(v)) > limit => Err(Exc::Ceiling {
            kind: CeilingKind::Depth,
            limit,
            loc: None,
        }),
        _ => Ok(()),
    }
}

// ---- containers -----------------------------------------------------------------------------------

/// The elements of a list or tuple (and the field values of a tagged value), with their nesting
/// depth. Reads go through `Deref<Target = Vec<Value>>`; writes go through the methods below, which
/// keep the depth (there is deliberately no `DerefMut`).
#[derive(Clone)]
pub struct List {
    depth: u32,
    items: Vec<Value>,
}

impl Default for List {
    fn default() -> List {
        List {
            depth: 1,
            items: Vec::new(),
        }
    }
}

impl List {
    pub fn new(items: Vec<Value>) -> List {
        let child = items.iter().map(depth).max().unwrap_or(0);
        List {
            depth: above(child),
            items,
        }
    }

    pub fn with_capacity(n: usize) -> List {
        List {
            depth: 1,
            items: Vec::with_capacity(n),
        }
    }

    /// See [`depth`]: exact after building and growing, an upper bound after removals.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    #[inline]
    fn raise(&mut self, child: u32) {
        self.depth = self.depth.max(above(child));
    }

    pub fn push(&mut self, v: Value) {
        self.raise(depth(&v));
        self.items.push(v);
    }

    pub fn extend<I: IntoIterator<Item = Value>>(&mut self, iter: I) {
        let mut child = 0;
        self.items
            .extend(iter.into_iter().inspect(|v| child = child.max(depth(v))));
        self.raise(child);
    }

    pub fn try_reserve(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        self.items.try_reserve(n)
    }

    /// Replaces element `i`; `false` (and no change) when out of range.
    pub fn set(&mut self, i: usize, v: Value) -> bool {
        let d = depth(&v);
        match self.items.get_mut(i) {
            Some(slot) => {
                *slot = v;
                self.raise(d);
                true
            }
            None => false,
        }
    }

    /// Runs `f` on element `i` in place, then raises the depth to cover what `f` left there. `None`
    /// when out of range.
    pub fn update<R>(&mut self, i: usize, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let slot = self.items.get_mut(i)?;
        let r = f(slot);
        let d = depth(slot);
        self.raise(d);
        Some(r)
    }

    pub fn pop(&mut self) -> Option<Value> {
        self.items.pop()
    }

    pub fn remove(&mut self, i: usize) -> Value {
        self.items.remove(i)
    }

    /// Mutable access for removing or reordering elements only (`reverse`, sorting, `retain`): the
    /// depth is not recomputed, so it stays an upper bound. Adding or replacing elements through it
    /// would under-count: use `push`, `extend`, `set` or `update` for that.
    pub fn shrink_or_reorder(&mut self) -> &mut Vec<Value> {
        &mut self.items
    }

    pub fn into_vec(mut self) -> Vec<Value> {
        std::mem::take(&mut self.items)
    }
}

impl Deref for List {
    type Target = Vec<Value>;
    fn deref(&self) -> &Vec<Value> {
        &self.items
    }
}

impl From<Vec<Value>> for List {
    fn from(items: Vec<Value>) -> List {
        List::new(items)
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> List {
        let mut l = List::default();
        l.extend(iter);
        l
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl Drop for List {
    fn drop(&mut self) {
        if self.items.iter().any(owns_nested) {
            drop_iteratively(std::mem::take(&mut self.items));
        }
    }
}

/// Maps with at most this many entries (records, mostly) are searched key by key: a field read
/// (`t.left`) hashed the name with SipHash on every read, a third of `bench/interp.py`'s tree walk;
/// comparing a few short keys costs less.
const SCAN_MAX: usize = 8;

/// The entries of a map (or record), with its nesting depth; like [`List`], reads go through
/// `Deref<Target = VMap>` and writes through methods that keep the depth.
#[derive(Clone)]
pub struct Map {
    depth: u32,
    entries: VMap,
}

impl Default for Map {
    fn default() -> Map {
        Map {
            depth: 1,
            entries: VMap::new(),
        }
    }
}

impl Map {
    pub fn new(entries: VMap) -> Map {
        let child = entries.values().map(depth).max().unwrap_or(0);
        Map {
            depth: above(child),
            entries,
        }
    }

    /// See [`depth`]: exact after building and growing, an upper bound after removals.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    #[inline]
    fn raise(&mut self, child: u32) {
        self.depth = self.depth.max(above(child));
    }

    /// The position of `k`. A map this small is searched in order rather than hashed
    /// ([`SCAN_MAX`]).
    #[inline]
    pub fn get_index_of(&self, k: &str) -> Option<usize> {
        if self.entries.len() <= SCAN_MAX {
            self.entries.keys().position(|key| **key == *k)
        } else {
            self.entries.get_index_of(k)
        }
    }

    /// The value under `k` (see [`Map::get_index_of`]).
    #[inline]
    pub fn get(&self, k: &str) -> Option<&Value> {
        let i = self.get_index_of(k)?;
        self.entries.get_index(i).map(|(_, v)| v)
    }

    pub fn contains_key(&self, k: &str) -> bool {
        self.get_index_of(k).is_some()
    }

    /// `IndexMap::insert`: an existing key keeps its position, a new key goes last.
    pub fn insert(&mut self, k: Rc<str>, v: Value) -> Option<Value> {
        self.raise(depth(&v));
        self.entries.insert(k, v)
    }

    /// Runs `f` on the value under `k` in place, then raises the depth to cover what `f` left there.
    /// `None` when the key is missing.
    pub fn update<R>(&mut self, k: &str, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let i = self.get_index_of(k)?;
        let (_, slot) = self.entries.get_index_mut(i)?;
        let r = f(slot);
        let d = depth(slot);
        self.raise(d);
        Some(r)
    }

    pub fn shift_remove(&mut self, k: &str) -> Option<Value> {
        self.entries.shift_remove(k)
    }

    pub fn into_vmap(mut self) -> VMap {
        std::mem::take(&mut self.entries)
    }
}

impl Deref for Map {
    type Target = VMap;
    fn deref(&self) -> &VMap {
        &self.entries
    }
}

impl From<VMap> for Map {
    fn from(entries: VMap) -> Map {
        Map::new(entries)
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.entries.fmt(f)
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        if self.entries.values().any(owns_nested) {
            let work: Vec<Value> = self.entries.drain(..).map(|(_, v)| v).collect();
            drop_iteratively(work);
        }
    }
}

/// The payload of `Some`/`Ok`/`Err`, with its nesting depth (one more than the payload's). Reads go
/// through `Deref<Target = Value>`; it is immutable once built.
pub struct Wrapped {
    depth: u32,
    value: Value,
}

impl Wrapped {
    pub fn new(value: Value) -> Wrapped {
        Wrapped {
            depth: above(depth(&value)),
            value,
        }
    }
}

impl Deref for Wrapped {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.value
    }
}

impl fmt::Debug for Wrapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl Drop for Wrapped {
    fn drop(&mut self) {
        if owns_nested(&self.value) {
            drop_iteratively(vec![std::mem::replace(&mut self.value, Value::Null)]);
        }
    }
}

/// Runs `f`, one level of a recursive walk over a value, with at least 64 KiB of host stack left,
/// growing the stack in 1 MiB heap segments when it runs low: a walk (display, `==`, ordering, JSON)
/// over a value of any depth cannot overflow, even with `--max-depth 0` (decisions.md 12).
#[inline]
pub fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

// ---- iterative drop -------------------------------------------------------------------------------

/// Whether dropping `v` in place could run a nested container drop: `v` is the only reference to a
/// container that still holds something droppable. A value for which this is false drops within a
/// constant stack depth.
fn owns_nested(v: &Value) -> bool {
    match v {
        Value::List(l) | Value::Tuple(l) => Rc::strong_count(l) == 1 && !l.items.is_empty(),
        Value::Map(m) => Rc::strong_count(m) == 1 && !m.entries.is_empty(),
        Value::Opt(Some(w)) | Value::Res(Ok(w) | Err(w)) => {
            Rc::strong_count(w) == 1
                && matches!(
                    w.value,
                    Value::List(_)
                        | Value::Map(_)
                        | Value::Tuple(_)
                        | Value::Opt(Some(_))
                        | Value::Res(_)
                        | Value::Tagged(_)
                        | Value::Func(_)
                )
        }
        Value::Tagged(t) => Rc::strong_count(t) == 1 && !t.values.items.is_empty(),
        Value::Func(f) => {
            Rc::strong_count(f) == 1
                && matches!(&**f, Func::Code(c) if Rc::strong_count(c) == 1 && !c.captures.is_empty())
        }
        _ => false,
    }
}

/// Moves the children of a uniquely owned container onto `work`, leaving it empty (so its own drop
/// is shallow).
fn detach(v: &mut Value, work: &mut Vec<Value>) {
    match v {
        Value::List(l) | Value::Tuple(l) => {
            if let Some(l) = Rc::get_mut(l) {
                work.append(&mut l.items);
            }
        }
        Value::Map(m) => {
            if let Some(m) = Rc::get_mut(m) {
                work.extend(m.entries.drain(..).map(|(_, v)| v));
            }
        }
        Value::Opt(Some(w)) | Value::Res(Ok(w) | Err(w)) => {
            if let Some(w) = Rc::get_mut(w) {
                work.push(std::mem::replace(&mut w.value, Value::Null));
            }
        }
        Value::Tagged(t) => {
            if let Some(t) = Rc::get_mut(t) {
                work.append(&mut t.values.items);
            }
        }
        Value::Func(f) => {
            if let Some(Func::Code(c)) = Rc::get_mut(f) {
                if let Some(c) = Rc::get_mut(c) {
                    work.append(&mut c.captures);
                }
            }
        }
        _ => {}
    }
}

/// Drops every value in `work` (and everything they own) with a worklist instead of recursion.
fn drop_iteratively(mut work: Vec<Value>) {
    while let Some(mut v) = work.pop() {
        if owns_nested(&v) {
            detach(&mut v, &mut work);
        }
        drop(v);
    }
}

/// A value of an ADT variant: `Circle(2.0)`, `Empty`.
#[derive(Debug)]
pub struct Tagged {
    pub variant: Rc<str>,
    /// Declared field names, by position.
    pub fields: Rc<[Rc<str>]>,
    /// The field values; their depth is the tagged value's depth.
    pub values: List,
}

/// Anything callable.
#[derive(Debug)]
pub enum Func {
    /// A builtin from the table in `builtins`.
    Builtin(&'static BuiltinDef),
    /// An ADT variant constructor (`Circle`), with its declared field names.
    Ctor {
        variant: Rc<str>,
        fields: Rc<[Rc<str>]>,
    },
    /// A named user function or a closure; opaque outside the evaluator.
    Code(Rc<CodeFn>),
    /// `T_from_json` / `T_to_json` generated by `@json_as` for type `ty` of file `module`.
    JsonCodec {
        module: u32,
        ty: u32,
        to_json: bool,
        name: Rc<str>,
    },
}

/// A user function or closure. The evaluator owns the meaning of `module` and `func`.
#[derive(Debug)]
pub struct CodeFn {
    /// `Some(name)` for a named function, `None` for a closure.
    pub name: Option<Rc<str>>,
    pub module: u32,
    pub func: u32,
    /// The closure's snapshot of visible locals (empty for named functions).
    pub captures: Vec<Value>,
}

/// A chain of closures each capturing the next drops iteratively too.
impl Drop for CodeFn {
    fn drop(&mut self) {
        if self.captures.iter().any(owns_nested) {
            drop_iteratively(std::mem::take(&mut self.captures));
        }
    }
}

#[derive(Debug)]
pub struct Namespace {
    pub name: Rc<str>,
    pub kind: NamespaceKind,
}

#[derive(Debug)]
pub enum NamespaceKind {
    /// `fs`, `math`, …: members come from the builtin table.
    Builtin,
    /// `std`: its members are the builtin namespaces.
    Std,
    /// `import "./x.vox" as x`: the imported file's public functions and variants.
    Module(VMap),
}

#[derive(Debug)]
pub struct RegexValue {
    pub pattern: Rc<str>,
    pub regex: regex::Regex,
}

#[derive(Debug)]
pub struct MatchValue {
    /// The whole match.
    pub text: Rc<str>,
    /// Group 0 is the whole match; `None` when a group did not take part.
    pub groups: Vec<Option<Rc<str>>>,
}

/// A one-character str. The ASCII ones are made once per thread and shared: `chars()`, `for c in s`
/// and `s[i]` make one per character, and a separate allocation each took 32 bytes more per
/// character (a 300,000-character text's `chars()`: 10 MB) and a call into the allocator.
pub fn char_str(c: char) -> Rc<str> {
    thread_local! {
        static ASCII: [Rc<str>; 128] = std::array::from_fn(|i| Rc::from(char::from(i as u8).to_string()));
    }
    if c.is_ascii() {
        ASCII.with(|t| t[c as usize].clone())
    } else {
        Rc::from(&*c.encode_utf8(&mut [0; 4]))
    }
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }
    pub fn some(v: Value) -> Value {
        Value::Opt(Some(Rc::new(Wrapped::new(v))))
    }
    pub fn none() -> Value {
        Value::Opt(None)
    }
    pub fn ok(v: Value) -> Value {
        Value::Res(Ok(Rc::new(Wrapped::new(v))))
    }
    pub fn err(v: Value) -> Value {
        Value::Res(Err(Rc::new(Wrapped::new(v))))
    }
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Rc::new(List::new(v)))
    }
    /// A tuple (callers guarantee two or more elements).
    pub fn tuple(v: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(List::new(v)))
    }
    pub fn map(m: VMap) -> Value {
        Value::Map(Rc::new(Map::new(m)))
    }
    /// A value of ADT variant `variant` with declared `fields` and their `values`.
    pub fn tagged(variant: Rc<str>, fields: Rc<[Rc<str>]>, values: Vec<Value>) -> Value {
        Value::Tagged(Rc::new(Tagged {
            variant,
            fields,
            values: List::new(values),
        }))
    }
    /// See [`depth`].
    pub fn depth(&self) -> u32 {
        depth(self)
    }
}

// ---- builtin functions ----------------------------------------------------------------------------
//
// The shape of the builtin table. Every builtin is a row that names its capability; the evaluator
// calls `Host::gate` with that capability before running the function, which makes the table the
// single choke point (a test enumerates the table). These types live with `Value` because a builtin
// is a value (`Func::Builtin`) and a builtin takes and returns values; the argument checks are in
// `args.rs`.

pub type BuiltinFn = fn(&mut dyn Host, &mut Args) -> Res<Value>;

#[derive(Debug)]
pub struct BuiltinDef {
    /// Namespace (`"fs"`), or `""` for a global function (`print`).
    pub ns: &'static str,
    pub name: &'static str,
    pub cap: Cap,
    pub nondet: Nondet,
    pub f: BuiltinFn,
}

impl BuiltinDef {
    /// `fs.read`, or `print` for a global.
    pub fn qualified(&self) -> String {
        CallName::builtin(self).to_string()
    }
}

/// What builtins need from the evaluator.
pub trait Host {
    /// Calls any function value with positional arguments (closures passed to `map`, `sorted_by`, …).
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Res<Value>;
    /// `call` with one argument; hosts may avoid building a `Vec` (closures in `map`, `filter`).
    fn call1(&mut self, f: &Value, a: Value) -> Res<Value> {
        self.call(f, vec![a])
    }
    /// `call` with two arguments (`fold`, `sorted_by`).
    fn call2(&mut self, f: &Value, a: Value, b: Value) -> Res<Value> {
        self.call(f, vec![a, b])
    }
    /// The next value of the run's SplitMix64 stream (voxscript.md §5.7). The capability was checked
    /// already, through the builtin's `Cap::Random`.
    fn next_random(&mut self) -> u64;
    /// Writes script output (counted against `--max-output`).
    fn write_stdout(&mut self, text: &str) -> Res<()>;
    fn write_stderr(&mut self, text: &str) -> Res<()>;
    /// Called before a builtin builds a value of about `bytes` bytes, so `--max-memory` trips before
    /// the allocation instead of after it.
    fn reserve(&mut self, bytes: usize) -> Res<()>;
    /// The run's state, for builtins with effects (filesystem, processes, clock). `None` in
    /// hosts that only run pure code (unit tests).
    fn ctx(&mut self) -> Option<&mut crate::context::RunContext> {
        None
    }
}

/// Positional arguments of a builtin call, with the checks every builtin shares.
pub struct Args {
    /// The qualified name used in messages (`fs.read`, `len`, `str.split`).
    pub name: CallName,
    pub values: Vec<Value>,
}

/// A builtin's or method's qualified name (`fs.read`, `len`, `str.split`), kept as its parts and
/// joined only when something reads it as a `str` (a message, a capability check): a call that
/// succeeds formats nothing (every method call formatted its name: a tenth of a map-heavy run).
#[derive(Debug)]
pub struct CallName {
    /// The namespace or receiver kind (`fs`, `str`), or `""`.
    prefix: &'static str,
    name: NamePart,
    joined: std::cell::OnceCell<String>,
}

#[derive(Debug)]
enum NamePart {
    Static(&'static str),
    Shared(Rc<str>),
    Owned(String),
}

impl CallName {
    /// `fs.read`, or `print` for a global.
    pub fn builtin(def: &BuiltinDef) -> CallName {
        CallName {
            prefix: def.ns,
            name: NamePart::Static(def.name),
            joined: std::cell::OnceCell::new(),
        }
    }

    /// `str.split`: a method `name` on a receiver of kind `kind`.
    pub fn method(kind: &'static str, name: Rc<str>) -> CallName {
        CallName {
            prefix: kind,
            name: NamePart::Shared(name),
            joined: std::cell::OnceCell::new(),
        }
    }
}

impl From<String> for CallName {
    fn from(name: String) -> CallName {
        CallName {
            prefix: "",
            name: NamePart::Owned(name),
            joined: std::cell::OnceCell::new(),
        }
    }
}

impl From<&'static str> for CallName {
    fn from(name: &'static str) -> CallName {
        CallName {
            prefix: "",
            name: NamePart::Static(name),
            joined: std::cell::OnceCell::new(),
        }
    }
}

impl Deref for CallName {
    type Target = str;
    fn deref(&self) -> &str {
        let name: &str = match &self.name {
            NamePart::Static(s) => s,
            NamePart::Shared(s) => s,
            NamePart::Owned(s) => s,
        };
        if self.prefix.is_empty() {
            return name;
        }
        self.joined
            .get_or_init(|| format!("{}.{name}", self.prefix))
    }
}

impl fmt::Display for CallName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::{display, json_render};
    use crate::equality::equals;
    use crate::order::total_cmp;

    fn int(i: i64) -> Value {
        Value::Int(i)
    }

    fn tagged(values: Vec<Value>) -> Value {
        Value::tagged(
            Rc::from("T"),
            Rc::from(vec![Rc::from("a"); values.len()]),
            values,
        )
    }

    /// Runs `f` on a thread with a small stack: anything recursing once per level of a deep value
    /// overflows it.
    fn on_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn depth_is_one_more_than_the_deepest_child() {
        assert_eq!(depth(&int(1)), 0);
        assert_eq!(depth(&Value::str("x")), 0);
        assert_eq!(depth(&Value::none()), 0);
        assert_eq!(depth(&Value::list(vec![])), 1);
        assert_eq!(
            depth(&Value::list(vec![int(1), Value::list(vec![int(2)])])),
            2
        );
        assert_eq!(depth(&Value::tuple(vec![int(1), Value::some(int(2))])), 2);
        assert_eq!(depth(&Value::some(Value::ok(Value::err(int(1))))), 3);
        assert_eq!(depth(&Value::map(VMap::new())), 1);
        let mut m = VMap::new();
        m.insert(Rc::from("k"), Value::list(vec![]));
        assert_eq!(depth(&Value::map(m)), 2);
        assert_eq!(depth(&tagged(vec![])), 1);
        assert_eq!(depth(&tagged(vec![Value::some(int(1))])), 2);
        let l: List = vec![Value::list(vec![])].into_iter().collect();
        assert_eq!(l.depth(), 2);
    }

    #[test]
    fn growth_raises_the_depth_and_removal_keeps_an_upper_bound() {
        let deep = Value::list(vec![Value::list(vec![Value::list(vec![])])]); // 3
        let mut l = List::new(vec![int(1)]);
        assert_eq!(l.depth(), 1);
        l.push(deep.clone());
        assert_eq!(l.depth(), 4);
        l.pop();
        assert_eq!(l.depth(), 4, "an upper bound, never an under-count");
        let mut l = List::new(vec![int(1), int(2)]);
        assert!(l.set(1, deep.clone()));
        assert_eq!(l.depth(), 4);
        assert!(!l.set(9, deep.clone()));
        let mut l = List::new(vec![Value::list(vec![])]);
        l.update(0, |x| *x = Value::some(deep.clone()));
        assert_eq!(l.depth(), 5);
        assert_eq!(l.update(7, |_| ()), None);
        let mut l = List::new(vec![]);
        l.extend(vec![int(1), deep.clone(), int(2)]);
        assert_eq!((l.depth(), l.len()), (4, 3));

        let mut m = Map::new(VMap::new());
        m.insert(Rc::from("a"), deep.clone());
        assert_eq!(m.depth(), 4);
        m.insert(Rc::from("b"), int(1));
        m.update("b", |x| *x = Value::list(vec![deep.clone()]));
        assert_eq!(m.depth(), 5);
        assert_eq!(m.update("zz", |_| ()), None);
    }

    #[test]
    fn the_ceiling_is_exit_78_only_past_the_limit() {
        let mut v = int(0);
        for _ in 0..50 {
            v = Value::list(vec![v]);
        }
        assert!(check_depth(&v, Some(50)).is_ok());
        assert!(check_depth(&v, None).is_ok());
        match check_depth(&Value::list(vec![v]), Some(50)) {
            Err(Exc::Ceiling {
                kind: CeilingKind::Depth,
                limit: 50,
                loc: None,
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    /// A chain `levels` deep that cycles through every container kind (and closures).
    fn chain(levels: usize) -> Value {
        let mut v = int(0);
        for i in 0..levels {
            v = match i % 7 {
                0 => Value::list(vec![v]),
                1 => Value::some(v),
                2 => {
                    let mut m = VMap::new();
                    m.insert(Rc::from("k"), v);
                    Value::map(m)
                }
                3 => Value::tuple(vec![int(1), v]),
                4 => Value::ok(v),
                5 => tagged(vec![v]),
                _ => Value::Func(Rc::new(Func::Code(Rc::new(CodeFn {
                    name: None,
                    module: 0,
                    func: 0,
                    captures: vec![v],
                })))),
            };
        }
        v
    }

    #[test]
    fn deep_values_drop_without_recursion() {
        on_small_stack(|| {
            drop(chain(1_000_000));
            // Also through a shared tail: the unique part drops, the shared part survives.
            let tail = Value::list(vec![chain(1000)]);
            let mut v = tail.clone();
            for _ in 0..200_000 {
                v = Value::err(Value::list(vec![v, int(1)]));
            }
            drop(v);
            // Closures are scalars: the depth counts the six containers after the last one, plus `[..]`.
            assert_eq!(depth(&tail), 7);
        });
    }

    #[test]
    fn deep_values_display_compare_and_render_on_a_small_stack() {
        on_small_stack(|| {
            let n = if cfg!(debug_assertions) {
                100_000
            } else {
                1_000_000
            };
            let mut v = int(7);
            let mut w = int(7);
            for _ in 0..n {
                v = Value::list(vec![v]);
                w = Value::list(vec![w]);
            }
            assert_eq!(depth(&v) as usize, n);
            let text = display(&v);
            assert_eq!(text.len(), 2 * n + 1);
            assert_eq!(json_render(&v).unwrap(), text);
            assert!(equals(&v, &w));
            assert_eq!(total_cmp(&v, &w), std::cmp::Ordering::Equal);
            let mut o = int(1);
            for _ in 0..n {
                o = Value::some(o);
            }
            assert_eq!(display(&o).len(), 6 * n + 1);
            assert!(equals(&o, &o.clone()));
        });
    }

    /// Small maps are searched key by key, larger ones hashed: both find every key, at its
    /// insertion position, and miss absent ones (including a key's prefix).
    #[test]
    fn map_lookups_small_and_hashed() {
        for n in [0usize, 1, 3, SCAN_MAX, SCAN_MAX + 1, 40] {
            let mut m = Map::default();
            for i in 0..n {
                m.insert(Rc::from(format!("key{i}")), int(i as i64));
            }
            for i in 0..n {
                let k = format!("key{i}");
                assert_eq!(m.get_index_of(&k), Some(i), "{n} entries: {k}");
                assert!(matches!(m.get(&k), Some(Value::Int(v)) if *v == i as i64));
                assert!(m.contains_key(&k));
                assert!(m.update(&k, |v| std::mem::replace(v, int(-1))).is_some());
                assert!(matches!(m.get(&k), Some(Value::Int(-1))));
            }
            assert_eq!(m.get_index_of("key"), None, "{n} entries");
            assert!(m.get("absent").is_none());
            assert!(!m.contains_key("key1000"));
        }
    }
}
