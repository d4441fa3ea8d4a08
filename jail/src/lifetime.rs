//! Run lifetime (decisions 48, 55): no process a run started outlives it, however the run ends
//! (`vox` itself killed with `SIGKILL` included), except, after a normal end, its
//! `process.spawn_background` children.
//!
//! Two kernel mechanisms, one module. The interpreter is a **child subreaper**
//! (`PR_SET_CHILD_SUBREAPER`, Linux 3.4+), marked before its first spawn, and every jailed or
//! background child is started under a **keeper** ([`guard`]): a subreaper of its own, forked by
//! the interpreter, which starts the program with `SIGKILL` as its parent-death signal. (The
//! developer default's other children are started directly with that signal only,
//! [`spawn_direct`]: cheaper, but what they leave detached outlives an interpreter killed with
//! `SIGKILL`.) When a process dies,
//! the kernel re-parents its children to the nearest living subreaper among its ancestors: the
//! child's keeper, or the interpreter once the keeper is gone, never `init`. Leaving the process
//! group or the session (`setsid`), forking twice, `nohup … &`, a `( … ) &` subshell, a
//! daemonising library: each only makes the process an orphan, and orphans come back. Every
//! process the run started is therefore always beneath a keeper or the interpreter.
//!
//! While the interpreter lives, [`end_descendants`] empties its tree: it lists its direct
//! children (from `/proc/self/task/*/children`, or by scanning `/proc/*/stat` where that file does
//! not exist), sends each `SIGKILL` (to its process group too) and waits for it. Their own
//! children (a killed keeper's tree) are then re-parented to the interpreter and go in the next
//! round, until only the spared ones are left. `SIGKILL` cannot be caught or ignored, and only
//! the caller's own unreaped children are ever signalled, so a recycled pid can never redirect a
//! signal to an unrelated process. Processes may be spared: the helpers registered with [`keep`]
//! (the private temp dir's guardian) always, `spawn_background` keepers when the run ended
//! normally ([`Line::release`]).
//!
//! When the interpreter dies, however it dies, the kernel closes its descriptors: each keeper
//! sees its [`Line`] close and runs [`end_descendants`] on its own tree, unless it was released.
//!
//! [`end_descendants`] and [`reap_exited`] make syscalls only (no allocation, no locks), on
//! stack buffers: the hard memory cap and the `--timeout` watchdog call them just before
//! `_exit`, and keepers call the first in a forked child.
//!
//! The tree is the process's, not a run's: a process runs one run at a time (as `vox run` and
//! `vox test` do); a host that runs several scripts at once runs each in its own process.
//!
//! What this cannot cover: a keeper killed from outside the run (its tree then goes to the
//! interpreter, which still ends it with the run, but not if it is killed too). Inside the jail,
//! Landlock's signal scoping keeps the run's own processes from signalling their keeper.
//!
//! This module is the public face, the same on every platform (`lifetime_unsupported.rs` elsewhere):
//! the process tree is in `descendants.rs`, keepers in `keeper.rs`, direct starts in `direct.rs`.

pub use crate::descendants::{
    become_subreaper, end_descendants, is_subreaper, keep, reap_exited, support, unkeep,
    LifetimeSupport,
};
pub use crate::direct::spawn_direct;
pub use crate::keeper::{guard, Exec, Line, Status};
pub use crate::spawned::{Direct, Stream};
