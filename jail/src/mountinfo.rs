//! `/proc/<pid>/mountinfo`: its lines, which mounts a path can reach, and which of them stay
//! writable outside a set of places (what the children's mount namespace is checked against).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt as _;
use std::path::{Path, PathBuf};

use libc::c_ulong;

/// One line of `/proc/self/mountinfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MountEntry {
    pub id: u64,
    pub parent: u64,
    pub point: PathBuf,
    pub ro: bool,
    /// The per-mount flags that a remount must repeat (`MS_NOSUID`, `MS_NODEV`, `MS_NOEXEC`,
    /// `MS_NOSYMFOLLOW`): in a user namespace they are locked and cannot be cleared, and
    /// clearing them would loosen the mount anyway. Access-time flags are kept by the kernel
    /// when a remount names none.
    pub flags: c_ulong,
}

/// Undoes the octal escapes of `mountinfo` (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(field: &str) -> OsString {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (u32::from(b[i + 1] - b'0') << 6)
                | (u32::from(b[i + 2] - b'0') << 3)
                | u32::from(b[i + 3] - b'0');
            if let Ok(v) = u8::try_from(v) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    OsString::from_vec(out)
}

/// Parses `mountinfo` text; malformed lines are skipped.
pub(crate) fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 6 {
            continue;
        }
        let (Ok(id), Ok(parent)) = (f[0].parse(), f[1].parse()) else {
            continue;
        };
        let mut ro = false;
        let mut flags = 0;
        for opt in f[5].split(',') {
            match opt {
                "ro" => ro = true,
                "nosuid" => flags |= libc::MS_NOSUID,
                "nodev" => flags |= libc::MS_NODEV,
                "noexec" => flags |= libc::MS_NOEXEC,
                "nosymfollow" => flags |= libc::MS_NOSYMFOLLOW,
                _ => {}
            }
        }
        out.push(MountEntry {
            id,
            parent,
            point: PathBuf::from(unescape(f[4])),
            ro,
            flags,
        });
    }
    out
}

/// Which mounts no path reaches: one covered by another mount on the same mount point (mounted
/// on its root), and everything beneath a covered mount.
pub(crate) fn hidden(mounts: &[MountEntry]) -> Vec<bool> {
    let covered: Vec<bool> = mounts
        .iter()
        .map(|m| {
            mounts
                .iter()
                .any(|n| n.id != m.id && n.parent == m.id && n.point == m.point)
        })
        .collect();
    (0..mounts.len())
        .map(|i| {
            if covered[i] {
                return true;
            }
            let mut at = i;
            // Walk up the parents (bounded: ids could form a cycle in a malformed file). A
            // covered ancestor hides what is mounted on it, except the mount covering it.
            for _ in 0..=mounts.len() {
                let parent = mounts[at].parent;
                match mounts.iter().position(|m| m.id == parent) {
                    Some(p) if p != at => {
                        if covered[p] && mounts[at].point != mounts[p].point {
                            return true;
                        }
                        at = p;
                    }
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

/// Whether `point` lies at or beneath one of `places`.
fn beneath_any(point: &Path, places: &[PathBuf]) -> bool {
    places.iter().any(|p| point.starts_with(p))
}

/// Mounts a path can reach that are writable outside `places`, as `(mount point, id)`.
pub(crate) fn writable_outside(mounts: &[MountEntry], places: &[PathBuf]) -> Vec<(PathBuf, u64)> {
    let hidden = hidden(mounts);
    mounts
        .iter()
        .zip(hidden)
        .filter(|(m, h)| !m.ro && !h && !beneath_any(&m.point, places))
        .map(|(m, _)| (m.point.clone(), m.id))
        .collect()
}

#[cfg(test)]
pub(crate) const SAMPLE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
24 27 0:6 / /dev rw,nosuid,relatime - devtmpfs devtmpfs rw
26 24 0:24 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw
29 26 0:26 / /dev/pts rw,relatime - devpts devpts rw
30 27 0:30 / /srv/with\\040space ro,nodev,nosymfollow - tmpfs tmpfs ro
31 30 0:31 / /srv/with\\040space/in rw - tmpfs tmpfs rw
40 27 0:40 / /data rw - tmpfs tmpfs rw
41 40 0:41 / /data/sub rw - tmpfs tmpfs rw
42 40 0:42 / /data rw - tmpfs tmpfs rw
bad line
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_points_flags_and_escapes() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 10);
        assert_eq!(m[0].point, Path::new("/proc"));
        assert_eq!(m[3].flags, libc::MS_NOSUID | libc::MS_NOEXEC);
        assert_eq!(m[5].point, Path::new("/srv/with space"));
        assert!(m[5].ro);
        assert_eq!(m[5].flags, libc::MS_NODEV | libc::MS_NOSYMFOLLOW);
        assert_eq!(unescape("a\\011b\\134c\\012"), OsString::from("a\tb\\c\n"));
        assert_eq!(unescape("trail\\04"), OsString::from("trail\\04"));
    }

    #[test]
    fn stacked_mounts_and_what_lies_beneath_are_hidden() {
        let m = parse_mountinfo(SAMPLE);
        let h = hidden(&m);
        let hidden_points: Vec<u64> = m
            .iter()
            .zip(&h)
            .filter(|(_, h)| **h)
            .map(|(m, _)| m.id)
            .collect();
        // 26 is covered by 29, 40 by 42, and 41 lies in the covered 40.
        assert_eq!(hidden_points, vec![26, 40, 41]);
    }

    #[test]
    fn only_reachable_writable_mounts_outside_the_places_count() {
        let m = parse_mountinfo(SAMPLE);
        let out: Vec<u64> = writable_outside(&m, &[PathBuf::from("/data")])
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        assert_eq!(out, vec![22, 27, 24, 29, 31]);
        assert!(writable_outside(&m, &[PathBuf::from("/")]).is_empty());
    }
}
