//! Times, in process, what the server does for each change of a replayed typing session: the
//! change applied, the findings, their JSON (`RenderCache`). Steadier than timing over a pipe;
//! `bench/lsp_replay.py` writes the changes of `bench/lsp_typing.py` and runs this.
//! `typing_replay FILE CHANGES.json [ROUNDS]`, where CHANGES.json is a list of
//! `[start_line, start_char, end_line, end_char, text]` whose last change gives the file's text
//! back (each round replays them all). `VOX_POLLUTE_MB=N` touches N MiB between changes;
//! `VOX_IDLE_MS=N` sleeps N ms between them, as a typist's pause does (on this kind of virtual
//! machine a pause alone makes the next change 2-3x slower: its caches gone cold).
use std::time::Instant;

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use vox_server::render::RenderCache;
use vox_server::session::{Session, Settings};
use vox_server::Encoding;

/// mimalloc, the allocator of the `vox` binary (`cli/src/memory.rs`, which also sets its
/// options), so that the figures are the server's: with the C library's malloc a change after a
/// pause measured 15-20% slower.
struct Mi;
// SAFETY: forwards to mimalloc with the layout's size and alignment; blocks are freed by mi_free.
unsafe impl std::alloc::GlobalAlloc for Mi {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        unsafe { libmimalloc_sys::mi_malloc_aligned(l.size(), l.align()).cast() }
    }
    unsafe fn dealloc(&self, p: *mut u8, _: std::alloc::Layout) {
        unsafe { libmimalloc_sys::mi_free(p.cast()) }
    }
}
#[global_allocator]
static ALLOC: Mi = Mi;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]).canonicalize().unwrap();
    let changes: Vec<(u32, u32, u32, u32, String)> =
        serde_json::from_str(&std::fs::read_to_string(&args[2]).unwrap()).unwrap();
    let rounds: usize = args.get(3).map_or(3, |r| r.parse().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    let root = path.parent().unwrap().to_path_buf();
    let mut s = Session::load(root, Settings::defaults(), Encoding::Utf16);
    let uri = Uri::from_file_path(&path).unwrap();
    s.open(path.clone(), uri, text, 1);
    let mut cache = RenderCache::default();
    let _ = cache.render(&s.snapshot(), &path, s.snapshot().shown_findings(&path));
    let mut times: [Vec<f64>; 4] = Default::default();
    let mut version = 2;
    // VOX_POLLUTE_MB: touch that much other memory between changes, as a client reading the
    // publish does (the caches are cold when the next change comes).
    let pollute: usize = std::env::var("VOX_POLLUTE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut junk = vec![0u8; pollute << 20];
    // VOX_IDLE_MS: sleep that long between changes, as a typist's pause does.
    let idle: u64 = std::env::var("VOX_IDLE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for _ in 0..rounds {
        for (l0, c0, l1, c1, new) in &changes {
            let t0 = Instant::now();
            let change = TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(*l0, *c0), Position::new(*l1, *c1))),
                range_length: None,
                text: new.clone(),
            };
            s.change(&path, vec![change], version);
            version += 1;
            let t1 = Instant::now();
            let snap = s.snapshot();
            let f = snap.shown_findings(&path);
            let t2 = Instant::now();
            let json = cache.render(&snap, &path, f);
            let t3 = Instant::now();
            drop(json);
            drop(cache.take_spent());
            drop(snap);
            for (i, b) in junk.iter_mut().enumerate().step_by(64) {
                *b = b.wrapping_add(i as u8);
            }
            if idle > 0 {
                std::thread::sleep(std::time::Duration::from_millis(idle));
            }
            for (k, d) in [(0, t1 - t0), (1, t2 - t1), (2, t3 - t2), (3, t3 - t0)] {
                times[k].push(d.as_secs_f64() * 1e3);
            }
        }
    }
    for (name, mut v) in ["change", "findings", "render", "total"]
        .into_iter()
        .zip(times)
    {
        v.sort_by(f64::total_cmp);
        let q = |p: usize| v[(v.len() - 1) * p / 100];
        println!(
            "{name:9} p50 {:.3} ms  p95 {:.3} ms  mean {:.3} ms",
            q(50),
            q(95),
            v.iter().sum::<f64>() / v.len() as f64
        );
    }
}
