//! One file's published diagnostics as JSON: the text between a `publishDiagnostics`' `[` and
//! `]`, held as runs of whole diagnostics in shared buffers.
//!
//! Runs of bytes rather than a string per diagnostic: a render takes what the last publish said
//! of unchanged findings as runs (a finding-dense file's diagnostics are half a megabyte in 1,500
//! pieces, and touching each piece's own allocation was most of a keystroke's render). Runs
//! *shared* rather than copied: a keystroke's render takes nearly all of the last publish's half
//! megabyte and adds a few diagnostics, and copying it into a new buffer (whose pages were
//! faulted in afresh) was a tenth of the render; now it takes references to the buffers, and
//! the writer sends their bytes as they lie ([`crate::transport::FrameBody`]).

use std::ops::Range;
use std::sync::Arc;

/// Runs at most: past this, or when the buffers the runs hold are more than twice the bytes
/// they show, [`DiagnosticsJson::settle`] copies the runs into one buffer.
const MAX_RUNS: usize = 32;

/// Whole diagnostics, joined by commas, lying in `buf[start..end]`.
#[derive(Clone, Debug)]
struct Run {
    buf: Arc<String>,
    start: u32,
    end: u32,
    /// The index of its first diagnostic.
    first: u32,
}

/// Diagnostics as JSON, joined by commas; each one's end is kept, so they can be read one by one.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticsJson {
    runs: Vec<Run>,
    /// Where each diagnostic ends in its run's buffer (the next in the same run starts one byte
    /// later, after a comma).
    ends: Vec<u32>,
}

impl DiagnosticsJson {
    pub fn with_capacity(items: usize) -> DiagnosticsJson {
        DiagnosticsJson {
            runs: Vec::new(),
            ends: Vec::with_capacity(items),
        }
    }

    /// Adds one diagnostic's JSON: to the last run when its buffer is this one's own and ends
    /// there, else in a new buffer.
    pub fn push(&mut self, item: &str) {
        let first = self.ends.len() as u32;
        let end = match self.runs.last_mut() {
            Some(r) => match Arc::get_mut(&mut r.buf) {
                Some(b) if b.len() == r.end as usize => {
                    b.push(',');
                    b.push_str(item);
                    r.end = b.len() as u32;
                    Some(r.end)
                }
                _ => None,
            },
            None => None,
        };
        let end = end.unwrap_or_else(|| {
            let mut b = String::with_capacity(item.len());
            b.push_str(item);
            let end = b.len() as u32;
            self.runs.push(Run {
                buf: Arc::new(b),
                start: 0,
                end,
                first,
            });
            end
        });
        self.ends.push(end);
    }

    /// Adds diagnostics `items` of `other` (consecutive): references to its buffers, no copy.
    pub fn extend_from(&mut self, other: &DiagnosticsJson, items: Range<usize>) {
        if items.is_empty() {
            return;
        }
        let mut k = other.run_of(items.start);
        let mut i = items.start;
        while i < items.end {
            let r = &other.runs[k];
            let to = other.items_of(k).end.min(items.end);
            let (start, end) = (other.start_in(k, i), other.ends[to - 1]);
            let first = self.ends.len() as u32;
            match self.runs.last_mut() {
                // Right after the last run in the same buffer (a comma between): one run.
                Some(last) if Arc::ptr_eq(&last.buf, &r.buf) && last.end + 1 == start => {
                    last.end = end;
                }
                _ => self.runs.push(Run {
                    buf: r.buf.clone(),
                    start,
                    end,
                    first,
                }),
            }
            self.ends.extend_from_slice(&other.ends[i..to]);
            i = to;
            k += 1;
        }
    }

    /// The diagnostics of run `k`.
    fn items_of(&self, k: usize) -> Range<usize> {
        let end = self
            .runs
            .get(k + 1)
            .map_or(self.ends.len(), |n| n.first as usize);
        self.runs[k].first as usize..end
    }

    /// The run holding diagnostic `i`.
    fn run_of(&self, i: usize) -> usize {
        self.runs.partition_point(|r| r.first as usize <= i) - 1
    }

    /// Where diagnostic `i` (in run `k`) starts in its buffer.
    fn start_in(&self, k: usize, i: usize) -> u32 {
        if i == self.runs[k].first as usize {
            self.runs[k].start
        } else {
            self.ends[i - 1] + 1
        }
    }

    /// Copies the runs into one buffer when there are many of them, or when the buffers they
    /// hold are more than twice what they show (each publish's buffers would otherwise live on
    /// in the next for as long as one diagnostic of theirs is unchanged).
    pub fn settle(&mut self) {
        let shown = self.body_len();
        let mut held = 0;
        for (k, r) in self.runs.iter().enumerate() {
            if !self.runs[..k].iter().any(|o| Arc::ptr_eq(&o.buf, &r.buf)) {
                held += r.buf.capacity();
            }
        }
        if self.runs.len() <= MAX_RUNS && held <= 2 * shown + (64 << 10) {
            return;
        }
        let mut buf = String::with_capacity(shown);
        let mut ends = Vec::with_capacity(self.ends.len());
        for (k, r) in self.runs.iter().enumerate() {
            if k > 0 {
                buf.push(',');
            }
            let base = buf.len() as i64 - r.start as i64;
            buf.push_str(&r.buf[r.start as usize..r.end as usize]);
            ends.extend(
                self.ends[self.items_of(k)]
                    .iter()
                    .map(|&e| (e as i64 + base) as u32),
            );
        }
        let end = buf.len() as u32;
        self.runs = vec![Run {
            buf: Arc::new(buf),
            start: 0,
            end,
            first: 0,
        }];
        self.ends = ends;
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Diagnostic `i`'s JSON.
    pub fn get(&self, i: usize) -> &str {
        let k = self.run_of(i);
        &self.runs[k].buf[self.start_in(k, i) as usize..self.ends[i] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The bytes of every diagnostic's JSON joined by commas: the runs with a comma between.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.runs.iter().enumerate().flat_map(|(k, r)| {
            let comma: &[u8] = if k > 0 { b"," } else { b"" };
            [comma, &r.buf.as_bytes()[r.start as usize..r.end as usize]]
        })
    }

    /// The length of every diagnostic's JSON joined by commas.
    pub fn body_len(&self) -> usize {
        let bytes: usize = self.runs.iter().map(|r| (r.end - r.start) as usize).sum();
        bytes + self.runs.len().saturating_sub(1)
    }

    /// Every diagnostic's JSON, joined by commas, in one string.
    #[cfg(test)]
    pub fn body(&self) -> String {
        let mut out = String::with_capacity(self.body_len());
        for p in self.pieces() {
            out.push_str(std::str::from_utf8(p).unwrap_or_default());
        }
        out
    }
}

/// The same diagnostics, however their bytes are held.
impl PartialEq for DiagnosticsJson {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for DiagnosticsJson {}

impl crate::transport::FrameBody for DiagnosticsJson {
    fn pieces(&self) -> Vec<&[u8]> {
        // (The writer leaves out empty pieces, such as the first run's missing comma.)
        DiagnosticsJson::pieces(self).collect()
    }
}

impl<S: AsRef<str>> Extend<S> for DiagnosticsJson {
    fn extend<I: IntoIterator<Item = S>>(&mut self, items: I) {
        for item in items {
            self.push(item.as_ref());
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for DiagnosticsJson {
    fn from_iter<I: IntoIterator<Item = S>>(items: I) -> DiagnosticsJson {
        let mut out = DiagnosticsJson::default();
        out.extend(items);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items pushed one by one or copied as runs read back as they were, and the body is them
    /// joined by commas.
    #[test]
    fn runs_copied_read_back_as_pushed() {
        let a: DiagnosticsJson = ["{\"a\":1}", "{}", "{\"c\":[3]}", "{\"d\":\"x,y\"}"]
            .into_iter()
            .collect();
        assert_eq!(a.body(), "{\"a\":1},{},{\"c\":[3]},{\"d\":\"x,y\"}");
        let mut b = DiagnosticsJson::default();
        b.extend_from(&a, 1..3);
        b.push("{\"new\":0}");
        b.extend_from(&a, 0..1);
        b.extend_from(&a, 3..3);
        b.extend_from(&a, 3..4);
        let items: Vec<&str> = b.iter().collect();
        assert_eq!(
            items,
            [
                "{}",
                "{\"c\":[3]}",
                "{\"new\":0}",
                "{\"a\":1}",
                "{\"d\":\"x,y\"}"
            ]
        );
        assert_eq!(b.body(), items.join(","));
        let mut c = DiagnosticsJson::default();
        c.extend_from(&a, 0..4);
        assert_eq!(c, a);
    }

    /// Runs taken from another publish share its buffer (no byte is copied), pushes never write
    /// into a buffer another holds, and `settle` copies many runs into one buffer without
    /// changing what they say.
    #[test]
    fn runs_are_shared_then_settled() {
        let items: Vec<String> = (0..200).map(|i| format!("{{\"n\":{i}}}")).collect();
        let a: DiagnosticsJson = items.iter().collect();
        assert_eq!(a.runs.len(), 1);
        let mut b = DiagnosticsJson::default();
        b.extend_from(&a, 0..50);
        b.push("{\"new\":1}");
        b.extend_from(&a, 51..200);
        assert_eq!(b.runs.len(), 3);
        assert!(Arc::ptr_eq(&b.runs[0].buf, &a.runs[0].buf));
        assert!(Arc::ptr_eq(&b.runs[2].buf, &a.runs[0].buf));
        let mut want: Vec<&str> = items.iter().map(String::as_str).collect();
        want[50] = "{\"new\":1}";
        assert_eq!(b.iter().collect::<Vec<_>>(), want);
        assert_eq!(b.body(), want.join(","));
        assert_eq!(b.body_len(), b.body().len());
        // Consecutive runs of one buffer join; a push after a shared run starts a buffer.
        let mut c = DiagnosticsJson::default();
        c.extend_from(&a, 0..10);
        c.extend_from(&a, 10..20);
        assert_eq!(c.runs.len(), 1);
        c.push("{}");
        assert!(!Arc::ptr_eq(&c.runs[1].buf, &a.runs[0].buf));
        assert_eq!(a.iter().collect::<Vec<_>>(), items);
        // Many runs: one buffer after `settle`, the same diagnostics.
        let mut d = DiagnosticsJson::default();
        for i in 0..100 {
            d.extend_from(&a, 2 * i..2 * i + 1);
            d.push("{\"x\":\"a,b\"}");
        }
        let before: Vec<String> = d.iter().map(String::from).collect();
        assert!(d.runs.len() > MAX_RUNS);
        d.settle();
        assert_eq!(d.runs.len(), 1);
        assert_eq!(d.iter().collect::<Vec<_>>(), before);
        assert_eq!(d.body(), before.join(","));
        // A few runs of a large buffer showing little of it: settled too.
        let mut e = DiagnosticsJson::default();
        let big: DiagnosticsJson = (0..20_000).map(|i| format!("{{\"n\":{i}}}")).collect();
        e.extend_from(&big, 5..8);
        e.settle();
        assert!(!Arc::ptr_eq(&e.runs[0].buf, &big.runs[0].buf));
        assert_eq!(e.body(), "{\"n\":5},{\"n\":6},{\"n\":7}");
    }
}
