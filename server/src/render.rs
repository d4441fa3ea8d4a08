//! Published diagnostics as JSON, converted once per finding (issue 20, acceptance 4).
//!
//! A publish used to convert every finding to a protocol `Diagnostic` (positions through the
//! rope, message, chain, link) and serialise all of them again, so on a file with a finding in
//! every function each keystroke paid for the whole file. Here a finding is written as JSON once,
//! with its positions left as holes relative to an *anchor*: the start of the function it lies in
//! (`vox_analysis::fn_starts`; before the first function, the file's start). The template is cached
//! under everything its JSON depends on: the finding's code, severity, message, help, its range as
//! lines and columns from the anchor, and the same for each chain step. A publish measures each
//! finding from its anchor (a scan of the text between them) and fills in the anchor's current
//! start, so a function that an edit only moved (lines added above it, or text on the line of its
//! start) costs a lookup and a copy, and only findings whose own text changed are converted.
//!
//! Before any of that, a finding equal to one of the last publish whose offsets the edit since
//! cannot have moved (`Unmoved`: before the first byte that changed, or, after an edit that kept
//! the length and every line break, on a later line) takes that publish's JSON whole: typing
//! inside one function of a finding-dense file then compares findings and copies runs of the
//! last publish's bytes (a publish's diagnostics are one buffer, [`DiagnosticsJson`]). The
//! findings of functions the edit did not touch come from the file's lint memo
//! (`vox_lints::FileMemo`) as the very `Arc`s of the last publish, placed where the edit moved
//! them (`vox_lints::Placed`), so most compares are a pointer compare.
//!
//! The JSON is what `serde_json` writes for the `Diagnostic` that [`crate::diagnostics`] builds
//! (a test compares the two after random edits).

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};
use tower_lsp_server::ls_types::Position;
use vox_lints::{
    Finding, Held, Piece, Placed, Run, SamePath, Severity, SharedPath, SharedStr, Shown,
};
use vox_syntax::TextRange;

use crate::convert::{Encoding, TextIndex};
use crate::diag_json::DiagnosticsJson;
use crate::session::Snapshot;

/// One file's anchors at this revision.
struct FileAnchors {
    text: Arc<[u8]>,
    /// Anchor starts, increasing; the first is 0.
    starts: Vec<u32>,
    /// Each anchor's start position, computed in one pass once [`LOCAL_SCANS`] have been asked.
    bases: Option<Vec<Position>>,
    /// The first few asked, found through the document's rope (typing in one function fills one
    /// or two templates: a pass over the whole text for their anchors was a fifth of the render).
    few: Vec<(usize, Position)>,
    /// The open document's rope, when it holds this text.
    rope: Option<ropey::Rope>,
    /// Where each line after a line break starts (`\n`, `\r\n` or a lone `\r`, as the protocol
    /// counts lines), found in one pass once a render has found [`LOCAL_SCANS`] positions by a scan
    /// from their function's start: a finding's position is then two binary searches (scans
    /// were a third of a dense file's first conversion).
    breaks: std::cell::OnceCell<Vec<u32>>,
    /// Positions found by a scan from their anchor so far (see [`LOCAL_SCANS`]).
    scans: std::cell::Cell<u32>,
    uri_json: Option<Arc<str>>,
}

/// How many positions a render finds by scanning from their anchor before it indexes the file's
/// lines.
const LOCAL_SCANS: u32 = 64;

impl FileAnchors {
    fn new(snap: &Snapshot, path: &Path) -> FileAnchors {
        let (text, mut starts): (Arc<[u8]>, Vec<u32>) = match snap.file(path) {
            Some(f) => (
                f.text(&snap.db).get(),
                vox_analysis::fn_starts(&snap.db, f).to_vec(),
            ),
            None => (crate::session::rope_shared(&snap.rope(path)), Vec::new()),
        };
        let len = text.len() as u32;
        starts.retain(|&s| s > 0 && s < len);
        starts.push(0);
        starts.sort_unstable();
        starts.dedup();
        let rope = snap
            .docs
            .get(path)
            .map(|d| d.rope.clone())
            .filter(|r| r.len_bytes() == text.len());
        FileAnchors {
            text,
            starts,
            bases: None,
            few: Vec::new(),
            rope,
            breaks: std::cell::OnceCell::new(),
            scans: std::cell::Cell::new(0),
            uri_json: crate::diagnostics::uri_of(path)
                .and_then(|u| serde_json::to_string(u.as_str()).ok())
                .map(Arc::from),
        }
    }

    /// The anchor holding `offset`.
    fn anchor_of(&self, offset: u32) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The position of `offset` relative to anchor `i`'s start (an offset inside a character
    /// counts from the character's start).
    fn relative(&self, i: usize, offset: u32, enc: Encoding) -> Rel {
        let text = &self.text;
        let a = self.starts[i] as usize;
        let mut end = (offset as usize).clamp(a, text.len());
        while end > a && end < text.len() && text[end] & 0xC0 == 0x80 {
            end -= 1;
        }
        // The first few positions of a render are found by a scan from the anchor (typing in
        // one function converts one or two findings: indexing the whole file's lines for them
        // was most of the render); after that, by the file's index.
        if self.breaks.get().is_none() && self.scans.get() < LOCAL_SCANS {
            self.scans.set(self.scans.get() + 1);
            let (mut lines, mut line_start) = (0u32, a);
            for b in breaks_in(text, a, end) {
                lines += 1;
                line_start = b;
            }
            return Rel {
                line: lines,
                col: column(&text[line_start..end], enc),
            };
        }
        let breaks = self.breaks.get_or_init(|| line_breaks(text));
        let first = breaks.partition_point(|&b| b as usize <= a);
        let last = breaks.partition_point(|&b| b as usize <= end);
        let line_start = if last > first {
            breaks[last - 1] as usize
        } else {
            a
        };
        Rel {
            line: (last - first) as u32,
            col: column(&text[line_start..end], enc),
        }
    }

    fn base(&mut self, i: usize, enc: Encoding) -> Position {
        if self.bases.is_none() {
            if let Some(&(_, p)) = self.few.iter().find(|(k, _)| *k == i) {
                return p;
            }
            if let Some(rope) = self
                .rope
                .as_ref()
                .filter(|_| self.few.len() < LOCAL_SCANS as usize)
            {
                let p = self.starts.get(i).map_or_else(Position::default, |&s| {
                    crate::convert::position(rope, enc, s)
                });
                self.few.push((i, p));
                return p;
            }
        }
        let bases = self.bases.get_or_insert_with(|| {
            let index = TextIndex::new(&self.text);
            self.starts
                .iter()
                .map(|&s| index.position(enc, s))
                .collect()
        });
        bases.get(i).copied().unwrap_or_default()
    }
}

/// A position within an anchor: lines after its start, and the column (added to the start's
/// column on its first line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Rel {
    line: u32,
    col: u32,
}

/// Where the positions of a template point: the finding's anchor, or a chain step's.
#[derive(Clone, Copy, Debug)]
struct Hole {
    /// 0: the finding; k: chain step k - 1.
    anchor: usize,
    rel: Rel,
    /// Whether it is a line (else a column).
    is_line: bool,
}

/// A diagnostic's JSON with holes for its positions.
struct Template {
    /// Text pieces; a hole follows each piece but the last.
    pieces: Vec<Box<str>>,
    holes: Vec<Hole>,
    /// What it was made from (checked on every hit: the map is keyed by a 64-bit hash).
    key: OwnedKey,
    /// The publish that last used it.
    used: u64,
}

#[derive(PartialEq, Eq)]
struct OwnedKey {
    code: SharedStr,
    severity: Severity,
    message: SharedStr,
    help: Option<SharedStr>,
    range: (Rel, Rel),
    chain: Vec<(SharedPath, (Rel, Rel), SharedStr)>,
}

/// A finding's key, borrowed: what the template's JSON depends on besides the anchors' starts.
struct KeyRef<'f> {
    f: &'f Finding,
    range: (Rel, Rel),
    chain: Vec<(Rel, Rel)>,
}

impl KeyRef<'_> {
    fn hash(&self) -> u64 {
        let mut h = FxHasher::default();
        self.f.code.hash(&mut h);
        (self.f.severity == Severity::Error).hash(&mut h);
        self.f.message.hash(&mut h);
        self.f.help.hash(&mut h);
        self.range.hash(&mut h);
        for (step, r) in self.f.chain.iter().zip(&self.chain) {
            step.file.as_os_str().as_encoded_bytes().hash(&mut h);
            r.hash(&mut h);
            step.function.hash(&mut h);
        }
        h.finish()
    }

    fn matches(&self, k: &OwnedKey) -> bool {
        k.range == self.range
            && k.code == self.f.code
            && k.severity == self.f.severity
            && k.message == self.f.message
            && k.help == self.f.help
            && k.chain.len() == self.f.chain.len()
            && k.chain
                .iter()
                .zip(self.f.chain.iter().zip(&self.chain))
                .all(|(o, (step, r))| o.0 == step.file && o.1 == *r && o.2 == step.function)
    }

    fn to_owned(&self) -> OwnedKey {
        OwnedKey {
            code: self.f.code.clone(),
            severity: self.f.severity,
            message: self.f.message.clone(),
            help: self.f.help.clone(),
            range: self.range,
            chain: self
                .f
                .chain
                .iter()
                .zip(&self.chain)
                .map(|(s, r)| (s.file.clone(), *r, s.function.clone()))
                .collect(),
        }
    }
}

/// The templates of one script's findings, kept between publishes.
#[derive(Default)]
pub struct RenderCache {
    templates: FxHashMap<u64, Vec<Template>>,
    round: u64,
    /// Templates made by the last render (a test's and the benchmark's measure of the work).
    pub made: usize,
    /// Findings whose JSON the last render took whole from the publish before it.
    pub reused: usize,
    previous: Option<Previous>,
    spent: Option<Previous>,
}

/// The last publish: its text, findings and JSON, in order. A finding equal to one of it whose
/// positions the edit since cannot have moved takes that JSON as it is: no position, hash or
/// template (on a finding-dense file, most of an edit's publish).
struct Previous {
    text: Arc<[u8]>,
    shown: Shown,
    /// Where each piece of `shown` starts among its findings.
    starts: Vec<u32>,
    /// The piece each run of `shown` is, by the run's address (it holds them alive).
    runs: FxHashMap<usize, usize>,
    json: Arc<DiagnosticsJson>,
    /// Each finding's template key, to keep a reused finding's template alive.
    keys: Vec<u64>,
}

impl Previous {
    /// Its finding `at` (counted through its pieces; `k` is where the last call found one, as
    /// the calls go forward).
    fn get(&self, at: usize, k: &mut usize) -> Option<Placed> {
        if at >= self.shown.len() {
            return None;
        }
        if self.starts[*k] as usize > at {
            *k = 0;
        }
        while self.starts.get(*k + 1).is_some_and(|&s| s as usize <= at) {
            *k += 1;
        }
        let i = at - self.starts[*k] as usize;
        match &self.shown.pieces()[*k] {
            Piece::One(p) => Some(p.clone()),
            Piece::Run(r, shift) => Some(Placed {
                finding: r.findings()[i].clone(),
                shift: *shift,
            }),
        }
    }

    /// Takes its diagnostics `items` whole: they extend `run`, the pending stretch of its JSON
    /// (copied into `out` once the stretch breaks), and keep their template keys.
    fn take(
        &self,
        items: std::ops::Range<usize>,
        run: &mut std::ops::Range<usize>,
        out: &mut DiagnosticsJson,
        keys: &mut Vec<u64>,
    ) {
        if run.end != items.start {
            out.extend_from(&self.json, std::mem::replace(run, items.start..items.start));
        }
        run.end = items.end;
        keys.extend_from_slice(&self.keys[items]);
    }

    /// Where a run of the last publish lay among its findings, and how far it was shifted then.
    fn run(&self, run: &Arc<Run>) -> Option<(std::ops::Range<usize>, i64)> {
        let k = *self.runs.get(&(Arc::as_ptr(run) as usize))?;
        let Piece::Run(_, shift) = &self.shown.pieces()[k] else {
            return None;
        };
        let start = self.starts[k] as usize;
        Some((start..start + run.len(), *shift))
    }
}

/// Which offsets of the new text have the same line and column as an offset of the old one:
/// those before the first byte that differs (the same offset), and, when the bytes that differ
/// hold no line break in either text, those on a line after the one the difference ends on (the
/// offset less `delta`, what the edit added).
struct Unmoved {
    prefix: usize,
    /// Offsets past this one, when no break differs.
    after: Option<usize>,
    delta: i64,
}

impl Unmoved {
    fn new(old: &[u8], new: &[u8]) -> Unmoved {
        let (prefix, suffix) = vox_syntax::common_ends(old, new);
        let delta = new.len() as i64 - old.len() as i64;
        if prefix == new.len() && delta == 0 {
            return Unmoved {
                prefix: usize::MAX,
                after: None,
                delta,
            };
        }
        let breaks =
            |t: &[u8]| memchr::memchr2(b'\n', b'\r', &t[prefix..t.len() - suffix]).is_some();
        let end = new.len() - suffix;
        let after = if breaks(old) || breaks(new) {
            None
        } else {
            // The first break after the difference: offsets past it are on a later line.
            memchr::memchr2(b'\n', b'\r', &new[end..]).map(|i| end + i)
        };
        Unmoved {
            prefix,
            after,
            delta,
        }
    }

    fn holds(&self, offset: u32) -> bool {
        let x = offset as usize;
        x < self.prefix || self.after.is_some_and(|b| x > b)
    }

    /// The old text's offset with the line and column of `offset` (one that [`Self::holds`]).
    fn old(&self, offset: u32) -> u32 {
        if (offset as usize) < self.prefix {
            offset
        } else {
            (offset as i64 - self.delta) as u32
        }
    }

    fn old_range(&self, r: TextRange) -> TextRange {
        TextRange::new(self.old(r.start), self.old(r.end))
    }

    /// Whether every offset from `new.start` to `new.end` holds, with the line and column of
    /// the same offset of `old` (a run's extent now and at the last publish).
    fn span_same(&self, new: TextRange, old: TextRange) -> bool {
        ((new.end as usize) < self.prefix && new == old)
            || self.after.is_some_and(|b| new.start as usize > b)
                && TextRange::new(self.old(new.start), self.old(new.end)) == old
    }

    /// Whether `new` (of the new text, in `path`, as every step of its chain) gives the
    /// diagnostic `old` (of the old text) gave: each of its positions holds and is `old`'s, moved
    /// by the edit; the rest of what the JSON shows equal (a finding the lint memo kept is the
    /// very one published last time, placed where the edit moved it). Fixes are not in the JSON.
    fn same(&self, old: &Placed, new: &Placed) -> bool {
        let here = |r: TextRange, was: TextRange| {
            self.holds(r.start) && self.holds(r.end) && self.old_range(r) == was
        };
        let (q, f) = (&*old.finding, &*new.finding);
        let text = Arc::ptr_eq(&old.finding, &new.finding)
            || q.severity == f.severity
                && q.code == f.code
                && q.message == f.message
                && q.help == f.help
                && q.chain.len() == f.chain.len()
                && q.chain
                    .iter()
                    .zip(&f.chain)
                    .all(|(a, b)| a.function == b.function && a.file == b.file);
        text && here(new.range(), old.range())
            && q.chain
                .iter()
                .zip(&f.chain)
                .all(|(a, b)| here(new.at(&b.file, b.range), old.at(&a.file, a.range)))
    }
}

/// What the last render no longer needs, for its caller to free once the publish is on its way
/// (on the thread that rendered: see `publish::Pass::run`).
pub struct Spent(#[allow(dead_code)] Option<Previous>);

/// Templates not used by this many publishes in a row are dropped (those a publish reused
/// whole count as not used) once there are more than twice as many templates as findings and
/// [`SPARE_TEMPLATES`].
const KEEP_ROUNDS: u64 = 4;
const SPARE_TEMPLATES: usize = 64;

impl RenderCache {
    /// The publish before the last render's, kept from it so that freeing it costs that
    /// render nothing.
    pub fn take_spent(&mut self) -> Spent {
        Spent(self.spent.take())
    }

    /// The JSON of each finding's diagnostic (all in `path`), in order.
    pub fn render(&mut self, snap: &Snapshot, path: &Path, shown: Shown) -> Arc<DiagnosticsJson> {
        self.round += 1;
        self.made = 0;
        self.reused = 0;
        let enc = snap.encoding;
        // The files positions point into (the script first), and their index there.
        let mut files: Vec<FileAnchors> = vec![FileAnchors::new(snap, path)];
        let mut file_ix: FxHashMap<SharedPath, usize> = FxHashMap::default();
        file_ix.insert(SharedPath::from(path), 0);
        let previous = self.previous.take();
        let mut out = DiagnosticsJson::with_capacity(shown.len());
        let mut keys: Vec<u64> = Vec::with_capacity(shown.len());
        // The last publish's diagnostics taken whole and not yet copied: a run of them.
        let mut run = 0..0;
        let mut s = String::new();
        let unmoved = previous
            .as_ref()
            .map(|p| Unmoved::new(&p.text, &files[0].text));
        // Where the walk through the last publish's findings (in the same order) has got to, and
        // the piece it is in.
        let mut at = 0;
        let mut at_piece = 0;
        // Per finding: its anchors (file, anchor), then the key.
        let mut anchors: Vec<(usize, usize)> = Vec::new();
        // (Paths compared by pointer once one matched, else as bytes: an equal path written
        // otherwise only misses the shortcut below.)
        let mut here = SamePath::new(path);
        let mut run_here = SamePath::new(path);
        // A run of the last publish that the edit did not move in lines or columns (the same
        // run: the very findings) gives its diagnostics whole.
        let whole = |r: &Arc<Run>, shift: i64, run_here: &mut SamePath<'_>| {
            let (p, u) = (previous.as_ref()?, unmoved.as_ref()?);
            let (items, was) = p.run(r)?;
            (r.local() && run_here.test(r.file()) && u.span_same(r.extent(shift), r.extent(was)))
                .then_some(items)
        };
        let mut singles = Vec::new();
        for piece in shown.pieces() {
            singles.clear();
            match piece {
                Piece::One(p) => singles.push(p.clone()),
                Piece::Run(r, shift) => match whole(r, *shift, &mut run_here) {
                    Some(items) => {
                        let p = previous.as_ref().expect("a whole run was published");
                        self.reused += items.len();
                        at = at.max(items.end);
                        p.take(items, &mut run, &mut out, &mut keys);
                        continue;
                    }
                    None => singles.extend(r.placed(*shift)),
                },
            }
            for placed in &singles {
                let (f, range) = (&*placed.finding, placed.range());
                if let (Some(p), Some(u)) = (&previous, &unmoved) {
                    // The old findings in the same order, compared where they were.
                    let key = (u.old(range.start), u.old(range.end), &f.code);
                    while p.get(at, &mut at_piece).is_some_and(|q| {
                        let r = q.range();
                        (r.start, r.end, &q.finding.code) < key
                    }) {
                        at += 1;
                    }
                    // A finding the lint memo kept before the edit is the very one published last
                    // time; after it, one the memo moved with the text.
                    let same = here.test(&f.file)
                        && f.chain.iter().all(|s| here.test(&s.file))
                        && p.get(at, &mut at_piece).is_some_and(|q| u.same(&q, placed));
                    if same {
                        p.take(at..at + 1, &mut run, &mut out, &mut keys);
                        self.reused += 1;
                        at += 1;
                        continue;
                    }
                }
                if let Some(p) = &previous {
                    out.extend_from(&p.json, std::mem::replace(&mut run, 0..0));
                }
                anchors.clear();
                let mut key = KeyRef {
                    f,
                    range: (Rel { line: 0, col: 0 }, Rel { line: 0, col: 0 }),
                    chain: Vec::with_capacity(f.chain.len()),
                };
                for (k, (file, r)) in std::iter::once((&f.file, range))
                    .chain(
                        f.chain
                            .iter()
                            .map(|s| (&s.file, placed.at(&s.file, s.range))),
                    )
                    .enumerate()
                {
                    let known = if here.test(file) {
                        Some(0)
                    } else {
                        file_ix.get(file.as_path()).copied()
                    };
                    let fx = match known {
                        Some(x) => x,
                        None => {
                            files.push(FileAnchors::new(snap, file));
                            file_ix.insert(file.clone(), files.len() - 1);
                            files.len() - 1
                        }
                    };
                    let fa = &files[fx];
                    let i = fa.anchor_of(r.start);
                    let rel = (fa.relative(i, r.start, enc), fa.relative(i, r.end, enc));
                    if k == 0 {
                        key.range = rel;
                    } else {
                        key.chain.push(rel);
                    }
                    anchors.push((fx, i));
                }
                let h = key.hash();
                keys.push(h);
                let bucket = self.templates.entry(h).or_default();
                let pos = match bucket.iter().position(|t| key.matches(&t.key)) {
                    Some(p) => p,
                    None => {
                        self.made += 1;
                        bucket.push(make_template(&key, &anchors, &files));
                        bucket.len() - 1
                    }
                };
                let t = &mut bucket[pos];
                t.used = self.round;
                // Fill the holes from the anchors' current starts.
                s.clear();
                for (k, piece) in t.pieces.iter().enumerate() {
                    s.push_str(piece);
                    let Some(hole) = t.holes.get(k) else { break };
                    let (fx, i) = anchors[hole.anchor];
                    let base = files[fx].base(i, enc);
                    let v = if hole.is_line {
                        base.line + hole.rel.line
                    } else if hole.rel.line == 0 {
                        base.character + hole.rel.col
                    } else {
                        hole.rel.col
                    };
                    push_u32(&mut s, v);
                }
                out.push(&s);
            }
        }
        if let Some(p) = &previous {
            out.extend_from(&p.json, run);
        }
        out.settle();
        let out = Arc::new(out);
        // Forget what no recent publish used, once there is much of it: a publish that takes
        // every finding's JSON from the last one touches no template at all.
        if self.templates.len() > 2 * keys.len() + SPARE_TEMPLATES {
            let live: rustc_hash::FxHashSet<u64> = keys.iter().copied().collect();
            let round = self.round;
            self.templates.retain(|k, b| {
                live.contains(k) || {
                    b.retain(|t| round - t.used < KEEP_ROUNDS);
                    !b.is_empty()
                }
            });
        }
        // Freeing the last publish's findings (thousands of strings on a finding-dense file)
        // waits until this one is sent: see [`RenderCache::take_spent`]. Its table of runs is
        // emptied for this one's.
        let mut previous = previous;
        let mut runs = previous
            .as_mut()
            .map(|p| std::mem::take(&mut p.runs))
            .unwrap_or_default();
        runs.clear();
        let mut starts = Vec::with_capacity(shown.pieces().len());
        let mut n = 0u32;
        for (k, piece) in shown.pieces().iter().enumerate() {
            starts.push(n);
            n += match piece {
                Piece::One(_) => 1,
                Piece::Run(r, _) => {
                    runs.insert(Arc::as_ptr(r) as usize, k);
                    r.len() as u32
                }
            };
        }
        self.spent = previous;
        self.previous = Some(Previous {
            text: files.swap_remove(0).text,
            shown,
            starts,
            runs,
            json: out.clone(),
            keys,
        });
        out
    }
}

fn push_u32(s: &mut String, mut v: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        s.push(b as char);
    }
}

/// Where each line after a line break starts (line ends as in the rope: `\n`, `\r\n`, a lone
/// `\r`).
fn line_breaks(text: &[u8]) -> Vec<u32> {
    breaks_in(text, 0, text.len()).map(|b| b as u32).collect()
}

/// The starts of the lines that begin after `from` and at or before `to` (line breaks in
/// `text[from..to]`).
fn breaks_in(text: &[u8], from: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr2_iter(b'\n', b'\r', &text[from..to])
        .map(move |i| from + i)
        // A `\r\n` is one break, after its `\n`.
        .filter(|&p| !(text[p] == b'\r' && text.get(p + 1) == Some(&b'\n')))
        .map(|p| p + 1)
}

/// The column at the end of `seg`, the text of a line before a position.
fn column(seg: &[u8], enc: Encoding) -> u32 {
    match enc {
        Encoding::Utf8 => seg.len() as u32,
        Encoding::Utf16 => seg
            .iter()
            .map(|&c| match c {
                0x80..=0xBF => 0,
                0xF0..=0xFF => 2,
                _ => 1,
            })
            .sum(),
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Writes a finding's diagnostic as JSON with holes, in the field order `serde_json` uses for
/// `Diagnostic`.
fn make_template(key: &KeyRef<'_>, anchors: &[(usize, usize)], files: &[FileAnchors]) -> Template {
    let f = key.f;
    let mut pieces: Vec<Box<str>> = Vec::new();
    let mut holes: Vec<Hole> = Vec::new();
    let mut cur = String::new();
    let mut range = |cur: &mut String, anchor: usize, (s, e): (Rel, Rel)| {
        let mut hole = |cur: &mut String, rel: Rel, is_line: bool| {
            pieces.push(std::mem::take(cur).into_boxed_str());
            holes.push(Hole {
                anchor,
                rel,
                is_line,
            });
        };
        cur.push_str("{\"start\":{\"line\":");
        hole(cur, s, true);
        cur.push_str(",\"character\":");
        hole(cur, s, false);
        cur.push_str("},\"end\":{\"line\":");
        hole(cur, e, true);
        cur.push_str(",\"character\":");
        hole(cur, e, false);
        cur.push_str("}}");
    };
    cur.push_str("{\"range\":");
    range(&mut cur, 0, key.range);
    cur.push_str(",\"severity\":");
    cur.push_str(match f.severity {
        Severity::Error => "1",
        Severity::Warning => "2",
    });
    cur.push_str(",\"code\":");
    cur.push_str(&json_str(&f.code));
    if let Some(href) = crate::diagnostics::doc_href(&f.code) {
        cur.push_str(",\"codeDescription\":{\"href\":");
        cur.push_str(&json_str(&href));
        cur.push('}');
    }
    cur.push_str(",\"source\":\"vox\",\"message\":");
    let mut message = f.message.to_string();
    if let Some(h) = &f.help {
        message.push('\n');
        message.push_str(h);
    }
    cur.push_str(&json_str(&message));
    let steps: Vec<(usize, &vox_lints::ChainStep)> = f
        .chain
        .iter()
        .enumerate()
        .filter(|(k, _)| files[anchors[k + 1].0].uri_json.is_some())
        .collect();
    if !steps.is_empty() {
        cur.push_str(",\"relatedInformation\":[");
        for (n, (k, step)) in steps.iter().enumerate() {
            if n > 0 {
                cur.push(',');
            }
            let uri = files[anchors[k + 1].0]
                .uri_json
                .clone()
                .unwrap_or_else(|| Arc::from("\"\""));
            cur.push_str("{\"location\":{\"uri\":");
            cur.push_str(&uri);
            cur.push_str(",\"range\":");
            range(&mut cur, k + 1, key.chain[*k]);
            cur.push_str("},\"message\":");
            cur.push_str(&json_str(&format!("reached from `{}`", step.function)));
            cur.push('}');
        }
        cur.push(']');
    }
    if &*f.code == "L002" {
        cur.push_str(",\"tags\":[1]");
    }
    cur.push('}');
    pieces.push(cur.into_boxed_str());
    Template {
        pieces,
        holes,
        key: key.to_owned(),
        used: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan a position took before line breaks were indexed: from the anchor's start to
    /// the offset (`text` runs one byte past it, so that a `\r\n` straddling it reads whole).
    fn scanned(text: &[u8], rel: usize, enc: Encoding) -> Rel {
        let mut end = rel.min(text.len());
        while end > 0 && end < text.len() && text[end] & 0xC0 == 0x80 {
            end -= 1;
        }
        let (mut line, mut line_start, mut i) = (0u32, 0usize, 0usize);
        while let Some(j) = memchr::memchr2(b'\n', b'\r', &text[i..end]) {
            let at = i + j;
            if text[at] == b'\r' && text.get(at + 1) == Some(&b'\n') {
                i = at + 1;
                continue;
            }
            line += 1;
            line_start = at + 1;
            i = at + 1;
        }
        Rel {
            line,
            col: column(&text[line_start..end], enc),
        }
    }

    #[test]
    fn indexed_positions_equal_the_scan_from_the_anchor() {
        let pieces: [&[u8]; 8] = [
            b"a",
            b"\n",
            b"\r",
            b"\r\n",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"  ",
            b"xyz",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let mut text = Vec::new();
            for _ in 0..next(40) {
                text.extend_from_slice(pieces[next(pieces.len())]);
            }
            let len = text.len() as u32;
            let mut starts: Vec<u32> = (0..next(4)).map(|_| next(text.len() + 1) as u32).collect();
            starts.retain(|&s| s > 0 && s < len);
            starts.push(0);
            starts.sort_unstable();
            starts.dedup();
            // Positions by a scan from the anchor, and by the file's index of lines.
            for scans in [0, LOCAL_SCANS] {
                let fa = FileAnchors {
                    text: Arc::from(&text[..]),
                    starts: starts.clone(),
                    bases: None,
                    few: Vec::new(),
                    rope: None,
                    breaks: std::cell::OnceCell::new(),
                    scans: std::cell::Cell::new(scans),
                    uri_json: None,
                };
                for offset in 0..=len + 1 {
                    fa.scans.set(scans);
                    let i = fa.anchor_of(offset);
                    let a = starts[i] as usize;
                    let off = (offset as usize).clamp(a, text.len());
                    let upto = (off + 1).min(text.len());
                    for enc in [Encoding::Utf8, Encoding::Utf16] {
                        assert_eq!(
                            fa.relative(i, offset, enc),
                            scanned(&text[a..upto], off - a, enc),
                            "{:?} from anchor {a} at {offset}",
                            String::from_utf8_lossy(&text)
                        );
                    }
                }
            }
            // Anchor starts through the rope (the first few a render asks) and through the
            // file's index (after): the same positions.
            for enc in [Encoding::Utf8, Encoding::Utf16] {
                let make = |rope| FileAnchors {
                    text: Arc::from(&text[..]),
                    starts: starts.clone(),
                    bases: None,
                    few: Vec::new(),
                    rope,
                    breaks: std::cell::OnceCell::new(),
                    scans: std::cell::Cell::new(0),
                    uri_json: None,
                };
                let (mut by_rope, mut by_index) =
                    (make(Some(crate::convert::rope_of(&text))), make(None));
                for (i, at) in starts.iter().enumerate() {
                    assert_eq!(
                        by_rope.base(i, enc),
                        by_index.base(i, enc),
                        "{:?}: anchor {i} at {at}",
                        String::from_utf8_lossy(&text),
                    );
                }
                assert!(by_rope.bases.is_none(), "the index was built");
            }
        }
    }
}
