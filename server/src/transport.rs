//! The stdio edge: LSP framing checked before `tower-lsp-server` sees a message.
//!
//! `tower-lsp-server` stops reading its input after the first message it cannot decode (bad
//! headers, a body that is not JSON, an `id` that is not an integer or a string). So every frame
//! is read and validated here first: a malformed one is answered with a JSON-RPC error (parse
//! error, invalid request) written by this module, and only well-formed messages are passed on.
//! Outgoing frames from the service and those errors share one writer, frame by frame.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

/// The largest message accepted from the client (a 64 MiB document is already far beyond what
/// editors send). A larger `Content-Length` is a framing error; nothing is allocated for it.
pub const MAX_BODY: usize = 64 << 20;
/// The largest header block; anything longer is garbage.
const MAX_HEADER: usize = 8 << 10;
/// Bytes of a body scanned again after each read, so that a header cut by a read boundary is
/// still found (`Content-Length: ` + 20 digits + `\r\n` is shorter).
const HEADER_OVERLAP: usize = 64;

/// One frame read from a stream, or why it could not be read.
pub enum Frame {
    Body(Vec<u8>),
    /// A framing error (bad headers, a frame shorter than its `Content-Length`): the reader
    /// resynchronises on the next `Content-Length` header by itself.
    BadHeader(String),
    Eof,
}

/// Reads LSP frames (`Content-Length: N\r\n\r\n` then N bytes) from a byte stream. After a
/// framing error it resynchronises on the next `Content-Length` header, dropping the bytes
/// before it without another error, so one mistake is answered once:
///
/// - headers that do not end with `\r\n\r\n` (bare `\n`), lack a valid `Content-Length`, give a
///   length above the limit, or run past [`MAX_HEADER`]: the bytes up to the next header go;
/// - a frame shorter than its `Content-Length` (a truncated frame, a wrong length) swallows the
///   start of the next frame: a header line inside a body cannot be JSON (a raw line break is
///   never inside a JSON string, and `Content-Length` is no JSON token outside one), so the body
///   ends there and reading restarts at that header, without waiting for bytes that never come;
/// - a frame longer than its `Content-Length` leaves a body that is not JSON: the caller
///   answers it and calls [`FrameReader::reject`], which resynchronises the same way.
pub struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
    eof: bool,
    limit: usize,
    /// After a framing error: bytes before the next `Content-Length` are dropped.
    skipping: bool,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The first complete `Content-Length: DIGITS` header line in `hay` (the offset of its `C`):
/// the name, optional blanks, digits, optional blanks, then `\r` or `\n`.
fn find_header_line(hay: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"Content-Length:";
    let mut from = 0;
    while let Some(i) = find(&hay[from..], NAME) {
        let at = from + i;
        let rest = &hay[at + NAME.len()..];
        let blanks = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let digits = rest[blanks..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = &rest[blanks + digits..];
        let trailing = after
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if digits > 0 && matches!(after.get(trailing), Some(b'\r' | b'\n')) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// A reader of the client's frames, which refuses bodies above [`MAX_BODY`].
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_BODY)
    }

    pub fn with_limit(inner: R, limit: usize) -> Self {
        FrameReader {
            inner,
            buf: Vec::new(),
            eof: false,
            limit,
            skipping: false,
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

    /// A framing error at the start of the buffer: drops at least one byte (so that reading
    /// always advances) and skips to the next `Content-Length`.
    fn fail(&mut self, drop: usize, why: String) -> Frame {
        let n = drop.max(1).min(self.buf.len());
        self.buf.drain(..n);
        self.skipping = true;
        Frame::BadHeader(why)
    }

    /// The caller found `body` (the last frame read) unusable as a message (not JSON): the
    /// bytes after it up to the next `Content-Length` are dropped without another error. A
    /// header inside the body (a frame longer than the bytes sent, which swallowed the next
    /// one's start) is read again from there.
    pub fn reject(&mut self, body: &[u8]) {
        let from = match find(body.get(1..).unwrap_or_default(), b"Content-Length") {
            Some(i) => i + 1,
            // The end of a header's name may have been cut by the body's end.
            None => body.len().saturating_sub(13),
        };
        self.buf.splice(0..0, body[from..].iter().copied());
        self.skipping = true;
    }

    pub async fn next(&mut self) -> Frame {
        loop {
            if self.skipping {
                match find(&self.buf, b"Content-Length") {
                    Some(i) => {
                        self.buf.drain(..i);
                        self.skipping = false;
                    }
                    None => {
                        // Keep what may be the start of a header cut by the read.
                        let cut = self.buf.len().saturating_sub(13);
                        self.buf.drain(..cut);
                        if !self.fill().await {
                            return Frame::Eof;
                        }
                        continue;
                    }
                }
            }
            // Skip blank bytes between frames.
            let blank = self
                .buf
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
                .count();
            self.buf.drain(..blank);
            // Only the header block is searched (the buffer may hold large bodies after it).
            let head = &self.buf[..self.buf.len().min(MAX_HEADER + 4)];
            let crlf = find(head, b"\r\n\r\n");
            let lf = find(&head[..crlf.unwrap_or(head.len())], b"\n\n");
            if let Some(at) = lf {
                return self.fail(
                    at + 2,
                    "the headers end with a bare \\n; LSP headers end with \\r\\n\\r\\n".into(),
                );
            }
            if let Some(end) = crlf {
                let header = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                let mut len = None;
                let mut bad = None;
                for line in header.split("\r\n") {
                    let Some((name, value)) = line.split_once(':') else {
                        bad = Some(format!("malformed header line {line:?}"));
                        break;
                    };
                    if name.trim().eq_ignore_ascii_case("content-length") {
                        if len.is_some() {
                            // A cut header followed by the next one.
                            bad = Some("two Content-Length headers".into());
                            break;
                        }
                        match value.trim().parse::<usize>() {
                            Ok(n) if n <= self.limit => len = Some(n),
                            _ if !value.trim().is_empty()
                                && value.trim().bytes().all(|b| b.is_ascii_digit()) =>
                            {
                                bad = Some(format!(
                                    "a message of {} bytes is too large (the limit is {} bytes)",
                                    value.trim(),
                                    self.limit
                                ))
                            }
                            Err(_) | Ok(_) => {
                                bad = Some(format!("invalid Content-Length {:?}", value.trim()))
                            }
                        }
                    }
                }
                let Some(n) = len.filter(|_| bad.is_none()) else {
                    return self.fail(
                        1,
                        bad.unwrap_or_else(|| "missing Content-Length header".into()),
                    );
                };
                let start = end + 4;
                let mut scanned = start;
                loop {
                    let avail = self.buf.len().min(start + n);
                    if let Some(i) = find_header_line(&self.buf[scanned..avail]) {
                        // The next frame's header: this one was shorter than it said.
                        self.buf.drain(..scanned + i);
                        return Frame::BadHeader(format!(
                            "the message ended after {} of its {n} bytes (Content-Length), \
                             where the next header starts",
                            scanned + i - start
                        ));
                    }
                    if self.buf.len() >= start + n {
                        break;
                    }
                    scanned = avail.saturating_sub(HEADER_OVERLAP).max(start);
                    if !self.fill().await {
                        return Frame::Eof;
                    }
                }
                let body = self.buf[start..start + n].to_vec();
                self.buf.drain(..start + n);
                return Frame::Body(body);
            }
            if self.buf.len() > MAX_HEADER {
                return self.fail(1, "header too long".into());
            }
            if !self.fill().await {
                return Frame::Eof;
            }
        }
    }
}

/// When the client reads our standard output through a pipe, asks for a pipe of 1 MiB (the
/// unprivileged maximum by default) instead of 64 KiB: a finding-dense file's publish is half a
/// megabyte, which then goes into the pipe without the writer waiting for the client to read
/// each 64 KiB and being woken again. A refusal keeps the pipe as it was.
pub fn widen_output_pipe() {
    // SAFETY: fstat and fcntl on our own standard output; neither touches memory we own.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFIFO {
            libc::fcntl(1, libc::F_SETPIPE_SZ, 1 << 20);
        }
    }
}

/// A frame's body held in pieces (a publish's diagnostics: runs of shared buffers), written as
/// they lie.
pub trait FrameBody: Send + Sync {
    /// The body's bytes, in order.
    fn pieces(&self) -> Vec<&[u8]>;
}

impl FrameBody for Vec<u8> {
    fn pieces(&self) -> Vec<&[u8]> {
        vec![self]
    }
}

/// A frame for the writer: its bytes, or a head, a body in pieces and a tail written together
/// (gathered into few system calls, no copy: a publish's half-megabyte body is written from the
/// buffers the renders made, which the next render reads again).
pub enum Outgoing {
    Whole(Vec<u8>),
    Parts(Vec<u8>, Arc<dyn FrameBody>, Vec<u8>),
}

impl From<Vec<u8>> for Outgoing {
    fn from(bytes: Vec<u8>) -> Outgoing {
        Outgoing::Whole(bytes)
    }
}

impl Outgoing {
    /// The frame's bytes, in one buffer.
    #[cfg(test)]
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = self.write_to(&mut out);
        out
    }

    /// Writes the frame whole, at most [`WRITE_PIECE`] bytes and [`WRITE_SLICES`] pieces per
    /// system call.
    fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut parts: Vec<&[u8]> = Vec::new();
        match self {
            Outgoing::Whole(b) => parts.push(b),
            Outgoing::Parts(h, b, t) => {
                parts.push(h);
                parts.extend(b.pieces());
                parts.push(t);
            }
        }
        // Empty parts are left out: a write of nothing is not a closed output.
        parts.retain(|p| !p.is_empty());
        // Where the next write starts: a part, and an offset in it.
        let (mut part, mut at) = (0, 0);
        let mut slices: Vec<std::io::IoSlice<'_>> = Vec::with_capacity(WRITE_SLICES);
        while part < parts.len() {
            slices.clear();
            let (mut room, mut p, mut a) = (WRITE_PIECE, part, at);
            while p < parts.len() && room > 0 && slices.len() < WRITE_SLICES {
                let take = (parts[p].len() - a).min(room);
                slices.push(std::io::IoSlice::new(&parts[p][a..a + take]));
                room -= take;
                (p, a) = if a + take == parts[p].len() {
                    (p + 1, 0)
                } else {
                    (p, a + take)
                };
            }
            let mut written = match out.write_vectored(&slices) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(w) => w,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            while written > 0 {
                let take = (parts[part].len() - at).min(written);
                written -= take;
                at += take;
                if at == parts[part].len() {
                    (part, at) = (part + 1, 0);
                }
            }
        }
        Ok(())
    }
}

/// The most pieces one write gathers.
const WRITE_SLICES: usize = 64;

/// The most of a frame one write hands the kernel. A pipe's writer holds it until its write is
/// done, so a client could not start reading a half-megabyte publish before all of it was in the
/// pipe; in pieces, it reads one while the next is written (the two copies overlap on two
/// cores).
const WRITE_PIECE: usize = 64 << 10;

pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut out = header(body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// The header that frames a body of `len` bytes.
pub fn header(len: usize) -> String {
    format!("Content-Length: {len}\r\n\r\n")
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

/// What the edge shares with the service: the writer, where published diagnostics and the
/// answers to direct requests go straight, and the direct requests in flight with their cancel
/// flags.
#[derive(Default)]
pub struct Direct {
    pub out: std::sync::OnceLock<mpsc::UnboundedSender<Outgoing>>,
    pub requests: std::sync::Mutex<std::collections::HashMap<String, crate::work::CancelFlag>>,
}

/// What the edge does with a checked message from the client.
enum Route {
    Forward(Vec<u8>),
    /// Answered here (a cancelled direct request).
    Answered,
}

/// Turns a direct request into the notification the service serves in order with the other
/// messages, and answers `$/cancelRequest` for one: its flag stops the work, and the edge
/// replies -32800 at once.
fn route(direct: &Direct, body: Vec<u8>, tx: &mpsc::UnboundedSender<Outgoing>) -> Route {
    let finder = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    let small = body.len() < 1 << 16;
    if !small || !(finder(b"semanticTokens") || finder(b"$/")) {
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
        let flag = crate::base::lock(&direct.requests).remove(&id.to_string());
        let Some(flag) = flag else {
            return Route::Forward(body);
        };
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "the request was cancelled"}});
        let _ = tx.send(encode(reply.to_string().as_bytes()).into());
        return Route::Answered;
    }
    let Some(id) = v.get("id").filter(|id| !id.is_null()) else {
        return Route::Forward(body);
    };
    // A request (it has an id) whose method starts with `$/` is answered like any request (LSP
    // 3.17: "$/" messages may be ignored only when they are notifications). `$/setTrace` is
    // known: it goes on as the notification it should have been, and is answered with null.
    if let Some(name) = method.strip_prefix("$/") {
        if name == "setTrace" {
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": null});
            let _ = tx.send(encode(reply.to_string().as_bytes()).into());
            let note = json!({"jsonrpc": "2.0", "method": method,
                "params": v.get("params").cloned().unwrap_or(Value::Null)});
            return Route::Forward(note.to_string().into_bytes());
        }
        let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
            "message": format!("method not found: {method}")}});
        let _ = tx.send(encode(reply.to_string().as_bytes()).into());
        return Route::Answered;
    }
    if !DIRECT.contains(&method) {
        return Route::Forward(body);
    }
    crate::base::lock(&direct.requests).insert(id.to_string(), Default::default());
    let note = json!({"jsonrpc": "2.0", "method": DIRECT_METHOD,
        "params": {"id": id, "method": method, "params": v.get("params").cloned().unwrap_or(Value::Null)}});
    Route::Forward(note.to_string().into_bytes())
}

/// Serves `service` over `input`/`output` with the checks above.
pub async fn serve<I, O, S>(
    input: I,
    output: O,
    service: tower_lsp_server::LspService<S>,
    socket: tower_lsp_server::ClientSocket,
    direct: std::sync::Arc<Direct>,
) where
    I: AsyncRead + Unpin + Send + 'static,
    O: std::io::Write + Send + 'static,
    S: tower_lsp_server::LanguageServer,
{
    let (to_service, service_in) = tokio::io::duplex(1 << 20);
    let (service_out, from_service) = tokio::io::duplex(1 << 20);
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Outgoing>();
    // Published diagnostics are written here directly (`crate::publish::send_diagnostics`), and so are the
    // answers to the requests `route` takes over.
    let _ = direct.out.set(out_tx.clone());

    // The single writer: a thread of its own, writing each frame straight from the buffer it was
    // handed (one system call for a whole publish, the pipe being wide). Through tokio's stdout a
    // frame was first copied into its buffer, then written on a blocking thread, whose end the
    // flush waited for: a half-megabyte publish reached the client later by a copy and two
    // thread hand-overs.
    let (written_tx, written) = tokio::sync::oneshot::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("vox-lsp-writer".into())
        .spawn(move || {
            let mut output = output;
            while let Some(frame) = out_rx.blocking_recv() {
                if frame.write_to(&mut output).is_err() || output.flush().is_err() {
                    break;
                }
            }
            let _ = written_tx.send(());
        });
    if let Err(e) = spawned {
        eprintln!("vox lsp: cannot start the thread that writes to the client: {e}");
        return;
    }

    // Frames from the service, whole, to the writer.
    let tx = out_tx.clone();
    let relay = tokio::spawn(async move {
        let mut frames = FrameReader::with_limit(from_service, usize::MAX);
        loop {
            match frames.next().await {
                Frame::Body(b) => {
                    if tx.send(encode(&b).into()).is_err() {
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
                        let b = match route(&direct, b, &tx) {
                            Route::Forward(b) => b,
                            Route::Answered => continue,
                        };
                        if to_service.write_all(&encode(&b)).await.is_err() {
                            break;
                        }
                    }
                    Err(Some(reply)) => {
                        if reply["error"]["code"] == -32700 {
                            // Not JSON: a frame longer than its Content-Length; what follows
                            // up to the next header is the rest of it.
                            frames.reject(&b);
                        }
                        let _ = tx.send(encode(reply.to_string().as_bytes()).into());
                    }
                    Err(None) => {}
                },
                Frame::BadHeader(why) => {
                    let reply = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("Parse error: {why}")}});
                    let _ = tx.send(encode(reply.to_string().as_bytes()).into());
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
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), written).await;
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

    /// A frame in parts reaches an output that takes a few bytes per write whole and in order,
    /// empty parts included.
    #[test]
    fn a_frame_in_parts_is_written_whole() {
        struct Trickle(Vec<u8>, usize);
        impl std::io::Write for Trickle {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                let n = b.len().min(self.1);
                self.0.extend_from_slice(&b[..n]);
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let body: Arc<dyn FrameBody> = Arc::new(b"0123456789".to_vec());
        let empty: Arc<dyn FrameBody> = Arc::new(Vec::<u8>::new());
        for (head, body, tail) in [
            (&b"head:"[..], body.clone(), &b":tail"[..]),
            (b"", body.clone(), b""),
            (b"head:", empty.clone(), b":tail"),
            (b"", empty, b""),
        ] {
            let want: Vec<u8> = [head, &body.pieces().concat(), tail].concat();
            for step in [1, 3, 7, 64] {
                let frame = Outgoing::Parts(head.to_vec(), body.clone(), tail.to_vec());
                let mut out = Trickle(Vec::new(), step);
                frame.write_to(&mut out).unwrap();
                assert_eq!(out.0, want, "{step} bytes per write");
            }
        }
    }

    /// A large frame goes out in writes of at most 64 KiB (so that a client can read
    /// one while the next is written), the head in the first and the tail in the last, whole
    /// and in order.
    #[test]
    fn a_large_frame_is_written_in_pieces() {
        struct Writes(Vec<usize>, Vec<u8>);
        impl std::io::Write for Writes {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.write_vectored(&[std::io::IoSlice::new(b)])
            }
            fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
                let n = bufs.iter().map(|b| b.len()).sum();
                self.0.push(n);
                bufs.iter().for_each(|b| self.1.extend_from_slice(b));
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        // A finding-dense file's publish is about half a megabyte.
        let body: Vec<u8> = (0..500_000).map(|i| (i % 251) as u8).collect();
        let (head, tail) = (b"Content-Length: 1\r\n\r\n".to_vec(), b"]}}".to_vec());
        let want = [&head[..], &body, &tail].concat();
        let frame = Outgoing::Parts(head, Arc::new(body), tail);
        let mut out = Writes(Vec::new(), Vec::new());
        frame.write_to(&mut out).unwrap();
        assert_eq!(out.1, want);
        assert_eq!(out.0.len(), want.len().div_ceil(64 << 10), "{:?}", out.0);
        assert!(out.0.iter().all(|&n| n <= 64 << 10), "{:?}", out.0);
        let mut out = Writes(Vec::new(), Vec::new());
        Outgoing::Whole(want.clone()).write_to(&mut out).unwrap();
        assert_eq!(out.1, want);
        assert!(out.0.iter().all(|&n| n <= 64 << 10), "{:?}", out.0);
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

    /// Every framing error is one `BadHeader` (or, for a body that is not JSON, one rejected
    /// body), and the frame after it is read whole.
    #[tokio::test]
    async fn each_framing_error_is_reported_once_and_the_next_frame_read() {
        let good = b"Content-Length: 7\r\n\r\n[1,2,3]";
        let cases: &[&[u8]] = &[
            // A truncated frame: its length swallows the next header.
            b"Content-Length: 30\r\n\r\n{\"jsonrpc\"",
            // Headers ended with a bare \n.
            b"Content-Length: 2\n\n{}",
            // A huge length, and one under the limit that never comes.
            b"Content-Length: 99999999999999999999999\r\n\r\n{}",
            b"Content-Length: 60000000\r\n\r\n{",
            // A header cut after its line.
            b"Content-Length: 45\r\n",
            b"Content-Len",
            b"Content-Length: x\r\n\r\n",
            b"\x07\xff random \n\n bytes",
        ];
        for case in cases {
            let input = [*case, good, good].concat();
            let mut r = FrameReader::new(&input[..]);
            let mut errors = 0;
            loop {
                match r.next().await {
                    Frame::BadHeader(_) => errors += 1,
                    Frame::Body(b) => {
                        assert_eq!(b, b"[1,2,3]", "{:?}", String::from_utf8_lossy(case));
                        break;
                    }
                    Frame::Eof => {
                        panic!("lost the frame after {:?}", String::from_utf8_lossy(case))
                    }
                }
            }
            assert_eq!(errors, 1, "{:?}", String::from_utf8_lossy(case));
            assert!(matches!(r.next().await, Frame::Body(b) if b == b"[1,2,3]"));
            assert!(matches!(r.next().await, Frame::Eof));
        }
        // A length shorter than the body: the body is not JSON; rejecting it skips the rest
        // without another error, also when the next header's name was cut by the body's end.
        for len in [3, 5, 10] {
            let input = [
                format!("Content-Length: {len}\r\n\r\n{{\"a\":1}}").as_bytes(),
                good,
            ]
            .concat();
            let mut r = FrameReader::new(&input[..]);
            let Frame::Body(b) = r.next().await else {
                panic!("no body")
            };
            r.reject(&b);
            assert!(
                matches!(r.next().await, Frame::Body(b) if b == b"[1,2,3]"),
                "{len}"
            );
        }
        let input = [
            b"Content-Length: 12\r\n\r\n{\"a\":Content-Len".as_slice(),
            b"gth: 7\r\n\r\n[1,2,3]",
        ]
        .concat();
        let mut r = FrameReader::new(&input[..]);
        let Frame::Body(b) = r.next().await else {
            panic!("no body")
        };
        r.reject(&b);
        assert!(matches!(r.next().await, Frame::Body(b) if b == b"[1,2,3]"));
    }
}
