//! The stdio edge: LSP framing checked before `tower-lsp-server` sees a message.
//!
//! `tower-lsp-server` stops reading its input after the first message it cannot decode (bad
//! headers, a body that is not JSON, an `id` that is not an integer or a string). So every frame
//! is read and validated here first: a malformed one is answered with a JSON-RPC error (parse
//! error, invalid request) written by this module, and only well-formed messages are passed on.
//! Outgoing frames from the service and those errors share one writer, frame by frame.

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The largest message accepted (a 64 MiB document is already far beyond what editors send).
const MAX_BODY: usize = 256 << 20;
/// The largest header block; anything longer is garbage.
const MAX_HEADER: usize = 8 << 10;

/// One frame read from a stream, or why it could not be read.
pub enum Frame {
    Body(Vec<u8>),
    /// Bad headers: the reader skipped ahead to the next `Content-Length`.
    BadHeader(String),
    Eof,
}

/// Reads LSP frames (`Content-Length: N\r\n\r\n` then N bytes) from a byte stream, resyncing on
/// the next `Content-Length` after a malformed header.
pub struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
    eof: bool,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(inner: R) -> Self {
        FrameReader {
            inner,
            buf: Vec::new(),
            eof: false,
        }
    }

    async fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        let mut chunk = [0u8; 64 << 10];
        match self.inner.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                self.eof = true;
                false
            }
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// Drops bytes up to the next `Content-Length` at or after `from` (or all but a possible
    /// partial one).
    fn resync(&mut self, from: usize) {
        let skip_from = from.min(self.buf.len());
        match find(&self.buf[skip_from..], b"Content-Length") {
            Some(i) => {
                self.buf.drain(..skip_from + i);
            }
            None => {
                let keep = self.buf.len().min(13);
                let cut = self.buf.len() - keep;
                self.buf.drain(..cut);
            }
        }
    }

    pub async fn next(&mut self) -> Frame {
        loop {
            // Skip blank bytes between frames.
            while self
                .buf
                .first()
                .is_some_and(|b| matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
            {
                self.buf.remove(0);
            }
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                let header = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                let mut len = None;
                let mut bad = None;
                for line in header.split("\r\n") {
                    let Some((name, value)) = line.split_once(':') else {
                        bad = Some(format!("malformed header line {line:?}"));
                        break;
                    };
                    if name.trim().eq_ignore_ascii_case("content-length") {
                        match value.trim().parse::<usize>() {
                            Ok(n) if n <= MAX_BODY => len = Some(n),
                            Ok(n) => bad = Some(format!("message of {n} bytes is too large")),
                            Err(_) => bad = Some(format!("invalid Content-Length {value:?}")),
                        }
                    }
                }
                let Some(n) = len.filter(|_| bad.is_none()) else {
                    self.buf.drain(..end + 4);
                    self.resync(0);
                    return Frame::BadHeader(
                        bad.unwrap_or_else(|| "missing Content-Length header".into()),
                    );
                };
                let start = end + 4;
                while self.buf.len() < start + n {
                    if !self.fill().await {
                        return Frame::Eof;
                    }
                }
                let body = self.buf[start..start + n].to_vec();
                self.buf.drain(..start + n);
                return Frame::Body(body);
            }
            if self.buf.len() > MAX_HEADER {
                self.resync(1);
                return Frame::BadHeader("header too long".into());
            }
            if !self.fill().await {
                return Frame::Eof;
            }
        }
    }
}

pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn valid_id(v: &Value) -> bool {
    v.is_null() || v.is_string() || v.as_i64().is_some()
}

/// Why a message cannot be handed to the service: the error response to send (if the message
/// expects one).
pub fn check_message(body: &[u8]) -> Result<(), Option<Value>> {
    let err = |id: Value, code: i64, message: &str| {
        Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
    };
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => {
            return Err(err(
                Value::Null,
                -32700,
                "Parse error: the message is not JSON",
            ))
        }
    };
    let Some(obj) = v.as_object() else {
        return Err(err(
            Value::Null,
            -32600,
            "Invalid request: expected a JSON object",
        ));
    };
    let id = obj.get("id").cloned();
    let id_ok = id.as_ref().is_none_or(valid_id);
    let reply_id = id.clone().filter(valid_id).unwrap_or(Value::Null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(err(
            reply_id,
            -32600,
            "Invalid request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    match obj.get("method") {
        Some(Value::String(_)) => {
            if !id_ok {
                return Err(err(Value::Null, -32600, "Invalid request: bad \"id\""));
            }
            match obj.get("params") {
                None | Some(Value::Object(_)) | Some(Value::Array(_)) | Some(Value::Null) => Ok(()),
                Some(_) => {
                    if id.is_some() {
                        Err(err(
                            reply_id,
                            -32600,
                            "Invalid request: \"params\" must be an object or an array",
                        ))
                    } else {
                        Err(None)
                    }
                }
            }
        }
        Some(_) => {
            if id.is_some() {
                Err(err(
                    reply_id,
                    -32600,
                    "Invalid request: \"method\" must be a string",
                ))
            } else {
                Err(None)
            }
        }
        None => {
            // A response to one of our requests.
            let has_outcome = obj.contains_key("result") || obj.contains_key("error");
            let error_ok = obj.get("error").is_none_or(|e| {
                e.get("code").and_then(Value::as_i64).is_some()
                    && e.get("message").is_some_and(Value::is_string)
            });
            if id_ok && id.is_some() && has_outcome && error_ok {
                Ok(())
            } else {
                Err(None)
            }
        }
    }
}

/// The notification a request the edge answers itself becomes on its way to the service:
/// `{"id", "method", "params"}` of the request (`Backend::direct_request`).
pub const DIRECT_METHOD: &str = "vox/directRequest";

/// Requests whose results are large (a 5 MB file's semantic tokens are millions of numbers):
/// the edge answers them itself, so that the result is serialised once, as text.
const DIRECT: &[&str] = &[
    "textDocument/semanticTokens/full",
    "textDocument/semanticTokens/full/delta",
    "textDocument/semanticTokens/range",
];

/// What the edge does with a checked message from the client.
enum Route {
    Forward(Vec<u8>),
    /// Answered here (a cancelled direct request).
    Answered,
}

/// Turns a direct request into the notification the service serves in order with the other
/// messages, and answers `$/cancelRequest` for one: its flag stops the work, and the edge
/// replies -32800 at once.
fn route(shared: &crate::Shared, body: Vec<u8>, tx: &mpsc::UnboundedSender<Vec<u8>>) -> Route {
    let finder = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    let small = body.len() < 1 << 16;
    if !small || !(finder(b"semanticTokens") || finder(b"$/cancelRequest")) {
        return Route::Forward(body);
    }
    let Ok(v) = serde_json::from_slice::<Value>(&body) else {
        return Route::Forward(body);
    };
    let method = v.get("method").and_then(Value::as_str).unwrap_or("");
    if method == "$/cancelRequest" {
        let Some(id) = v.get("params").and_then(|p| p.get("id")) else {
            return Route::Forward(body);
        };
        let flag = crate::lock(&shared.direct_requests).remove(&id.to_string());
        let Some(flag) = flag else {
            return Route::Forward(body);
        };
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "the request was cancelled"}});
        let _ = tx.send(encode(reply.to_string().as_bytes()));
        return Route::Answered;
    }
    let Some(id) = v.get("id").filter(|id| !id.is_null()) else {
        return Route::Forward(body);
    };
    if !DIRECT.contains(&method) {
        return Route::Forward(body);
    }
    crate::lock(&shared.direct_requests).insert(id.to_string(), Default::default());
    let note = json!({"jsonrpc": "2.0", "method": DIRECT_METHOD,
        "params": {"id": id, "method": method, "params": v.get("params").cloned().unwrap_or(Value::Null)}});
    Route::Forward(note.to_string().into_bytes())
}

/// Serves `service` over `input`/`output` with the checks above.
pub async fn serve<I, O>(
    input: I,
    mut output: O,
    service: tower_lsp_server::LspService<crate::Backend>,
    socket: tower_lsp_server::ClientSocket,
) where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (to_service, service_in) = tokio::io::duplex(1 << 20);
    let (service_out, from_service) = tokio::io::duplex(1 << 20);
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    // Published diagnostics are written here directly (`crate::send_diagnostics`), and so are the
    // answers to the requests `route` takes over.
    let shared = service.inner().shared.clone();
    let _ = shared.direct.set(out_tx.clone());

    // The single writer.
    let writer = tokio::spawn(async move {
        while let Some(frame) = out_rx.recv().await {
            if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });

    // Frames from the service, whole, to the writer.
    let tx = out_tx.clone();
    let relay = tokio::spawn(async move {
        let mut frames = FrameReader::new(from_service);
        loop {
            match frames.next().await {
                Frame::Body(b) => {
                    if tx.send(encode(&b)).is_err() {
                        break;
                    }
                }
                Frame::BadHeader(_) => {}
                Frame::Eof => break,
            }
        }
    });

    // Checked frames from the client to the service.
    let tx = out_tx.clone();
    let reader = tokio::spawn(async move {
        let mut to_service = to_service;
        let mut frames = FrameReader::new(input);
        loop {
            match frames.next().await {
                Frame::Body(b) => match check_message(&b) {
                    Ok(()) => {
                        let b = match route(&shared, b, &tx) {
                            Route::Forward(b) => b,
                            Route::Answered => continue,
                        };
                        if to_service.write_all(&encode(&b)).await.is_err() {
                            break;
                        }
                    }
                    Err(Some(reply)) => {
                        let _ = tx.send(encode(reply.to_string().as_bytes()));
                    }
                    Err(None) => {}
                },
                Frame::BadHeader(why) => {
                    let reply = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("Parse error: {why}")}});
                    let _ = tx.send(encode(reply.to_string().as_bytes()));
                }
                Frame::Eof => break,
            }
        }
        let _ = to_service.shutdown().await;
    });

    tower_lsp_server::Server::new(service_in, service_out, socket)
        .concurrency_level(32)
        .serve(service)
        .await;
    reader.abort();
    // Let the last responses out.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), relay).await;
    drop(out_tx);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<i64> {
        match check_message(body.as_bytes()) {
            Ok(()) => None,
            Err(Some(v)) => v["error"]["code"].as_i64(),
            Err(None) => Some(0),
        }
    }

    #[test]
    fn messages_are_checked() {
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            None
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":"initialized"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"a","result":null}"#), None);
        assert_eq!(code("{"), Some(-32700));
        assert_eq!(code("[]"), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#),
            Some(-32600)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":3}"#), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#),
            Some(-32600)
        );
        // Notifications and stray responses that cannot be answered are dropped.
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":3}"#), Some(0));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), Some(0));
    }

    #[tokio::test]
    async fn frames_resync_after_garbage() {
        let input: &[u8] = b"Content-Length: 2\r\n\r\n{}junk\r\n\r\nContent-Length: x\r\n\r\nContent-Length: 3\r\n\r\n[1]";
        let mut r = FrameReader::new(input);
        assert!(matches!(r.next().await, Frame::Body(b) if b == b"{}"));
        assert!(matches!(r.next().await, Frame::BadHeader(_)));
        assert!(matches!(r.next().await, Frame::BadHeader(_)));
        assert!(matches!(r.next().await, Frame::Body(b) if b == b"[1]"));
        assert!(matches!(r.next().await, Frame::Eof));
    }
}
