//! Small helpers every floor of the server uses: a lock that survives a poisoned mutex, the
//! JSON-RPC errors the handlers answer, the message of a caught panic, and whether to print
//! timings (`VOX_LSP_TIMING`). Imports nothing of the crate.

use std::sync::{Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, ErrorCode};

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `VOX_LSP_TIMING` is set: the server then prints on stderr how long each part of an
/// edit's diagnostics took, and what the lint memo kept.
pub(crate) fn timing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("VOX_LSP_TIMING").is_some())
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

pub(crate) fn internal(msg: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: msg.into().into(),
        data: None,
    }
}

pub(crate) fn invalid_params(msg: impl Into<String>) -> Error {
    Error::invalid_params(msg.into())
}
