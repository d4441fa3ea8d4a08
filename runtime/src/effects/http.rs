//! `http.get_text` and `http.post_json` (§5.5): blocking, 30 s timeout (shortened to what is left
//! of `--timeout`), a non-2xx status is `Err("HTTP status N")`. https uses rustls with bundled
//! root certificates, so it needs no system certificate store.

use std::io::Read as _;
use std::time::{Duration, Instant};

use super::base::{ctx, err_str, ok_str};
use crate::context::RunContext;
use crate::exc::{CeilingKind, Exc, Res};
use crate::value::{Args, Host, Value};

const TIMEOUT: Duration = Duration::from_secs(30);

fn timeout_exc(ctx: &RunContext) -> Exc {
    Exc::Ceiling {
        kind: CeilingKind::Timeout,
        limit: ctx.limits.timeout_secs.unwrap_or(0),
        loc: None,
    }
}

/// An agent whose overall timeout ends no later than the run's deadline.
fn agent(ctx: &RunContext) -> Res<ureq::Agent> {
    let mut timeout = TIMEOUT;
    if let Some(deadline) = ctx.deadline {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timeout_exc(ctx));
        }
        timeout = timeout.min(left);
    }
    Ok(ureq::AgentBuilder::new().timeout(timeout).build())
}

fn finish(ctx: &RunContext, result: Result<ureq::Response, ureq::Error>) -> Res<Value> {
    match result {
        Ok(resp) if (200..300).contains(&resp.status()) => {
            let mut body = Vec::new();
            Ok(match resp.into_reader().read_to_end(&mut body) {
                Ok(_) => ok_str(String::from_utf8_lossy(&body)),
                Err(e) => err_str(e.to_string()),
            })
        }
        Ok(resp) => Ok(err_str(format!("HTTP status {}", resp.status()))),
        Err(ureq::Error::Status(code, _)) => Ok(err_str(format!("HTTP status {code}"))),
        Err(ureq::Error::Transport(t)) => {
            if ctx.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(timeout_exc(ctx));
            }
            Ok(err_str(t.to_string()))
        }
    }
}

pub(super) fn get_text(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let url = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    ctx.flush_stdout();
    let result = agent(ctx)?.get(url).call();
    finish(ctx, result)
}

pub(super) fn post_json(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let url = args.str(0)?;
    let body = args.str(1)?;
    let ctx = ctx(host, &args.name)?;
    ctx.flush_stdout();
    let result = agent(ctx)?
        .post(url)
        .set("Content-Type", "application/json")
        .send_string(body);
    finish(ctx, result)
}
