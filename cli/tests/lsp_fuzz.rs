//! Decision 54: a framing error on the pipe is answered once with -32700 and the server
//! resynchronises on the next `Content-Length` header. A deterministic fuzz over the real
//! `vox lsp` pipe: random bytes, truncated frames, wrong lengths, headers ended with a bare `\n`,
//! non-numeric and huge lengths; after each, a valid request is answered, and `shutdown` and
//! `exit` end the server with status 0.

mod lsp_common;

use lsp_common::{frame, uri, Lsp, TempDir};
use serde_json::{json, Value};

/// xorshift64*: a small deterministic generator (the sequence is the same on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

const TEXT: &str = "fn main() {\n    print(\"hi\")\n}\n\nfn helper() -> int {\n    return 1\n}\n";

/// One damaged frame of kind `kind` carrying the request `body`.
fn corrupt(rng: &mut Rng, kind: usize, body: &[u8]) -> (String, Vec<u8>) {
    let whole = frame(body);
    match kind {
        0 => {
            let n = 1 + rng.below(200);
            ("random bytes".into(), rng.bytes(n))
        }
        1 => {
            // Cut anywhere: in the header, just after it, or in the body.
            let cut = 1 + rng.below(whole.len() - 1);
            (format!("truncated at {cut}"), whole[..cut].to_vec())
        }
        2 => {
            let delta = 1 + rng.below(40);
            let len = if rng.below(2) == 0 {
                body.len().saturating_sub(delta).max(1)
            } else {
                body.len() + delta
            };
            let mut out = format!("Content-Length: {len}\r\n\r\n").into_bytes();
            out.extend_from_slice(body);
            (format!("wrong length {len} for {}", body.len()), out)
        }
        3 => {
            let mut out = format!("Content-Length: {}\n\n", body.len()).into_bytes();
            out.extend_from_slice(body);
            ("LF-only headers".into(), out)
        }
        4 => {
            let len = match rng.below(3) {
                0 => "99999999999999999999999999".to_string(),
                1 => (1u64 << 40).to_string(),
                // Under no limit a client would notice, and never sent.
                _ => (60_000_000 + rng.below(1000)).to_string(),
            };
            let mut out = format!("Content-Length: {len}\r\n\r\n").into_bytes();
            out.extend_from_slice(&body[..rng.below(body.len())]);
            (format!("huge length {len}"), out)
        }
        _ => {
            let mut out = b"Content-Length: twelve\r\n\r\n".to_vec();
            out.extend_from_slice(body);
            ("non-numeric length".into(), out)
        }
    }
}

#[test]
fn framing_errors_are_answered_once_and_the_server_resynchronises() {
    let ws = TempDir::new("fuzz");
    let a = ws.write("a.vox", TEXT);
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, TEXT);
    let mut rng = Rng(0x5eed_1234_abcd_0042);
    for round in 0..72usize {
        let kind = round % 6;
        // The damaged frame carries a request that must never be answered.
        let bad_id = 100_000 + round as i64;
        let bad = json!({"jsonrpc": "2.0", "id": bad_id, "method": "workspace/symbol",
            "params": {"query": "main"}});
        let (what, bytes) = corrupt(&mut rng, kind, bad.to_string().as_bytes());
        lsp.send_raw(&bytes);
        // Then a valid request, answered with its result.
        let id = round as i64 + 1_000;
        let request = if round % 2 == 0 {
            json!({"jsonrpc": "2.0", "id": id, "method": "workspace/symbol",
                "params": {"query": "helper"}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
                "params": {"textDocument": {"uri": uri(&a)}, "position": {"line": 1, "character": 5}}})
        };
        lsp.send(&request);
        let answer = lsp.wait_for(&format!("the answer after {what}"), |m| m["id"] == id);
        assert!(answer.get("error").is_none(), "{what}: {answer}");
        if round % 2 == 0 {
            let names: Vec<&str> = answer["result"]
                .as_array()
                .unwrap_or_else(|| panic!("{what}: {answer}"))
                .iter()
                .filter_map(|s| s["name"].as_str())
                .collect();
            assert_eq!(names, ["helper"], "{what}");
        } else {
            assert!(
                answer["result"]["contents"].to_string().contains("print"),
                "{what}: {answer}"
            );
        }
        // The framing error was answered once (before the answer: one writer, in order), and
        // the damaged request was not served.
        let notes: Vec<Value> = lsp.notes.drain(..).collect();
        let parse_errors = notes
            .iter()
            .filter(|m| m["error"]["code"] == -32700)
            .count();
        assert_eq!(parse_errors, 1, "{what}: {notes:?}");
        assert!(notes.iter().all(|m| m["id"] != bad_id), "{what}: {notes:?}");
        assert!(
            notes
                .iter()
                .all(|m| m.get("error").is_none() || m["error"]["code"] == -32700),
            "{what}: {notes:?}"
        );
    }
    assert_eq!(lsp.shutdown(), Some(0));
}
