//! One file's published diagnostics as JSON, written one after another in one buffer: the text
//! between a `publishDiagnostics`' `[` and `]`.
//!
//! One buffer rather than a string per diagnostic: a render copies what the last publish said of
//! unchanged findings as runs of bytes (a finding-dense file's diagnostics are half a megabyte in
//! 1,500 pieces, and touching each piece's own allocation was most of a keystroke's render), and
//! the publish copies it into the message whole.

use std::ops::Range;

/// Diagnostics as JSON, joined by commas; each one's end is kept, so they can be read one by one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiagnosticsJson {
    body: String,
    /// Where each diagnostic ends in `body` (the next starts one byte later, after a comma).
    ends: Vec<u32>,
}

impl DiagnosticsJson {
    pub fn with_capacity(bytes: usize, items: usize) -> DiagnosticsJson {
        DiagnosticsJson {
            body: String::with_capacity(bytes),
            ends: Vec::with_capacity(items),
        }
    }

    /// Adds one diagnostic's JSON.
    pub fn push(&mut self, item: &str) {
        self.comma();
        self.body.push_str(item);
        self.ends.push(self.body.len() as u32);
    }

    /// Adds diagnostics `items` of `other` (consecutive, so one copy).
    pub fn extend_from(&mut self, other: &DiagnosticsJson, items: Range<usize>) {
        if items.is_empty() {
            return;
        }
        self.comma();
        let from = other.start(items.start);
        let to = other.ends[items.end - 1] as usize;
        let here = self.body.len();
        self.body.push_str(&other.body[from..to]);
        self.ends.extend(
            other.ends[items]
                .iter()
                .map(|&e| (e as usize - from + here) as u32),
        );
    }

    fn comma(&mut self) {
        if !self.ends.is_empty() {
            self.body.push(',');
        }
    }

    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Diagnostic `i`'s JSON.
    pub fn get(&self, i: usize) -> &str {
        &self.body[self.start(i)..self.ends[i] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Every diagnostic's JSON, joined by commas.
    pub fn body(&self) -> &str {
        &self.body
    }
}

impl AsRef<[u8]> for DiagnosticsJson {
    fn as_ref(&self) -> &[u8] {
        self.body.as_bytes()
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
}
