//! Work spread over threads, each worker with its own clone of the analysis database and a large
//! stack (deep recursion in the analysis): `vox lint`, `vox check` and the workspace loader use it.

/// Starts one worker in `s` on a large stack (deep recursion in the analysis), with its own
/// clone of `db`.
pub(crate) fn worker<'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    db: &vox_analysis::AnalysisDb,
    work: impl FnOnce(&vox_analysis::AnalysisDb) + Send + 'scope,
) {
    let db = db.clone();
    let spawned = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn_scoped(s, move || work(&db));
    if let Err(e) = spawned {
        eprintln!("vox: cannot start a worker thread: {e}");
        std::process::exit(2);
    }
}

/// Runs `f` over `items` on `threads` workers, each with its own clone of `db`, on large stacks.
pub fn parallel<T: Send + Sync, R: Send>(
    db: &vox_analysis::AnalysisDb,
    items: &[T],
    threads: usize,
    f: impl Fn(&vox_analysis::AnalysisDb, &T) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let (next, results, f) = (&next, &results, &f);
            worker(s, db, move |db| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(db, &items[i]);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    results
        .into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

/// [`parallel`], handing each result to `sink` on the calling thread, in the order of `items`,
/// as soon as it and every result before it are done.
pub fn parallel_in_order<T: Send + Sync, R: Send>(
    db: &vox_analysis::AnalysisDb,
    items: &[T],
    threads: usize,
    f: impl Fn(&vox_analysis::AnalysisDb, &T) -> R + Sync,
    mut sink: impl FnMut(usize, R),
) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Bounded: workers wait while the sink (writing output) is behind, so results do not pile up.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, R)>(threads.max(1));
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let (next, f, tx) = (&next, &f, tx.clone());
            worker(s, db, move |db| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() || tx.send((i, f(db, &items[i]))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut waiting = std::collections::BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&want) {
                sink(want, r);
                want += 1;
            }
        }
    });
}

/// Worker threads: `n` when given, else one per core.
pub fn threads(n: Option<usize>) -> usize {
    n.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
