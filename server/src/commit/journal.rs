//! The on-disk record of one transaction, written so that a torn write is detected.
//!
//! A journal is a text file of records, one per line, each line ending in a
//! checksum of its payload:
//!
//! ```text
//! begin v1 <pid> <n> (<F|B> <index> <target> <temp> <undo>){n} <check>
//! begin v2 <pid> <n> (<F|B|D> <index> <target> <temp> <undo>){n} <m> (<dir>){m} <check>
//! prepared <n> (<temp dev> <temp ino> <orig dev|-> <orig ino|->){n} <check>
//! committed <check>
//! ```
//!
//! `v2` is written only by transactions that delete files (`D`: the target is
//! unlinked, `temp` is never created) or create directories (the `m` dirs,
//! outermost first); anything else stays `v1`, readable by older servers.
//! `F` with no original (`-` in `prepared`) creates its target.
//!
//! Paths are hex-encoded bytes (any byte may appear in a Unix path). A line that
//! is incomplete or fails its checksum ends the journal: everything from it on is
//! ignored, which is exactly "that record was never written".
//!
//! The file is created under a hidden temp name, its `begin` record written and
//! fsynced, its `flock` taken, and only then renamed to `<id>.journal`. So every
//! `*.journal` file has a complete `begin` record, and one whose lock can be
//! taken belongs to no live process.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::lock::flock;
use crate::sandbox::Dir;

/// What a replacement does to its target: install new bytes (an edited or
/// created file: `temp` renamed over it), install its `.bak`, or remove it
/// (`undo` keeps the original; `temp` is never created).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    File(usize),
    Backup(usize),
    Delete(usize),
}

impl Role {
    pub(crate) fn index(self) -> usize {
        match self {
            Role::File(i) | Role::Backup(i) | Role::Delete(i) => i,
        }
    }
}

/// One rename of the transaction: `temp` over `target`, with `undo` a second
/// name for the original `target` (when it existed) to restore it from. All
/// three are names in `dir`, the pinned handle every step works through.
#[derive(Debug, Clone)]
pub(crate) struct Replacement {
    pub role: Role,
    pub dir: Arc<Dir>,
    pub target: OsString,
    pub temp: OsString,
    pub undo: OsString,
}

impl Replacement {
    /// The canonical path of the target (for journals and messages).
    pub(crate) fn target_path(&self) -> PathBuf {
        self.dir.path().join(&self.target)
    }

    pub(crate) fn temp_path(&self) -> PathBuf {
        self.dir.path().join(&self.temp)
    }

    pub(crate) fn undo_path(&self) -> PathBuf {
        self.dir.path().join(&self.undo)
    }
}

/// A replacement as the journal records it: absolute canonical paths, all
/// three in one directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    pub role: Role,
    pub target: PathBuf,
    pub temp: PathBuf,
    pub undo: PathBuf,
}

/// A file identity: device and inode.
pub(crate) type FileId = (u64, u64);

/// What staging produced for one replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Staged {
    pub temp: FileId,
    /// The target's identity when staged; `None` if it did not exist (then no
    /// undo name was made).
    pub orig: Option<FileId>,
}

/// How far a transaction got, as far as the journal knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    /// Temps may exist; no rename happened.
    Begun,
    /// Every temp and undo name is complete; renames may have happened.
    Prepared(Vec<Staged>),
    /// Every rename happened and is durable; only cleanup remains.
    Committed(Vec<Staged>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub pid: u32,
    pub replacements: Vec<Record>,
    /// Directories the transaction creates, outermost first.
    pub dirs: Vec<PathBuf>,
    pub state: State,
}

/// An open journal, locked for the life of the transaction.
pub(crate) struct Journal {
    path: PathBuf,
    file: File,
    durable: bool,
}

static SEQ: AtomicU64 = AtomicU64::new(0);

impl Journal {
    /// Creates `<dir>/<id>.journal` holding the `begin` record, durably.
    pub(crate) fn begin(
        dir: &Path,
        replacements: &[Record],
        dirs: &[PathBuf],
        durable: bool,
    ) -> io::Result<Journal> {
        let id = format!(
            "{}-{}-{}",
            std::process::id(),
            super::stage::nonce(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let tmp = dir.join(format!(".{id}.journal.tmp"));
        let path = dir.join(format!("{id}.journal"));
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        let result = (|| {
            flock(&file, libc::LOCK_EX | libc::LOCK_NB)?;
            file.write_all(&line(&begin_payload(replacements, dirs)))?;
            if durable {
                file.sync_all()?;
            }
            fs::rename(&tmp, &path)?;
            if durable {
                sync_path(dir)?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            // Nothing is staged yet: the transaction is discarded, whether
            // the failure came before the rename (the temp is left) or after
            // it (the directory's fsync failed; the journal is in place).
            let _ = fs::remove_file(&tmp);
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        Ok(Journal {
            path,
            file,
            durable,
        })
    }

    pub(crate) fn prepared(&mut self, staged: &[Staged]) -> io::Result<()> {
        let mut payload = format!("prepared {}", staged.len());
        for s in staged {
            payload.push_str(&format!(" {} {}", s.temp.0, s.temp.1));
            match s.orig {
                Some((dev, ino)) => payload.push_str(&format!(" {dev} {ino}")),
                None => payload.push_str(" - -"),
            }
        }
        self.append(&payload)
    }

    pub(crate) fn committed(&mut self) -> io::Result<()> {
        self.append("committed")
    }

    fn append(&mut self, payload: &str) -> io::Result<()> {
        self.file.write_all(&line(payload))?;
        if self.durable {
            self.file.sync_all()?;
        }
        Ok(())
    }

    /// Removes the journal: the transaction is finished. Not fsynced: if the
    /// removal is lost, recovery redoes only idempotent cleanup. Tried twice,
    /// as every cleanup removal is (see `stage::remove_if_exists`).
    pub(crate) fn remove(self) -> io::Result<()> {
        fs::remove_file(&self.path).or_else(|e| {
            tracing::debug!(error = %e, "removing a journal failed; trying once more");
            fs::remove_file(&self.path)
        })
    }

    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Refuses a journal directory or journal file that another user could have
/// written: not owned by this process's effective user, or writable by its
/// group or by others. A journal is a list of renames and removals recovery
/// performs, so trusting one planted by someone else lets them delete or
/// replace this user's files.
pub(crate) fn check_trusted(meta: &fs::Metadata, path: &Path) -> io::Result<()> {
    let what = if meta.is_dir() {
        "journal directory"
    } else {
        "journal file"
    };
    crate::state_dir::check_private(meta, path, what, "--journal-dir")
}

/// `fsync` of the directory at `dir` (the journal directory, which is the
/// server's own, outside the roots).
pub(crate) fn sync_path(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

fn begin_payload(replacements: &[Record], dirs: &[PathBuf]) -> String {
    let v2 = !dirs.is_empty()
        || replacements
            .iter()
            .any(|r| matches!(r.role, Role::Delete(_)));
    let mut payload = format!(
        "begin {} {} {}",
        if v2 { "v2" } else { "v1" },
        std::process::id(),
        replacements.len()
    );
    for r in replacements {
        let (tag, index) = match r.role {
            Role::File(i) => ("F", i),
            Role::Backup(i) => ("B", i),
            Role::Delete(i) => ("D", i),
        };
        payload.push_str(&format!(
            " {tag} {index} {} {} {}",
            hex::encode(r.target.as_os_str().as_bytes()),
            hex::encode(r.temp.as_os_str().as_bytes()),
            hex::encode(r.undo.as_os_str().as_bytes()),
        ));
    }
    if v2 {
        payload.push_str(&format!(" {}", dirs.len()));
        for d in dirs {
            payload.push_str(&format!(" {}", hex::encode(d.as_os_str().as_bytes())));
        }
    }
    payload
}

fn checksum(payload: &str) -> String {
    hex::encode(&Sha256::digest(payload.as_bytes())[..8])
}

fn line(payload: &str) -> Vec<u8> {
    format!("{payload} {}\n", checksum(payload)).into_bytes()
}

/// Largest journal recovery reads. A journal lists at most a few hundred
/// replacements of three hex-encoded paths (each at most 4 KiB, so 8 KiB of
/// hex): 100 files with backups is under 5 MiB. Anything larger was not
/// written by splice (a sparse multi-GiB file would otherwise be read whole).
pub(crate) const MAX_JOURNAL_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a journal from an open file. `None` if it has no valid `begin`
/// record. Reads at most [`MAX_JOURNAL_BYTES`].
pub(crate) fn parse(file: &File) -> io::Result<Option<Parsed>> {
    let mut text = Vec::new();
    file.take(MAX_JOURNAL_BYTES).read_to_end(&mut text)?;
    Ok(parse_bytes(&text))
}

pub(crate) fn parse_bytes(text: &[u8]) -> Option<Parsed> {
    let mut records = Vec::new();
    let mut rest = text;
    while let Some(end) = rest.iter().position(|&b| b == b'\n') {
        let Ok(line) = std::str::from_utf8(&rest[..end]) else {
            break;
        };
        rest = &rest[end + 1..];
        let Some((payload, check)) = line.rsplit_once(' ') else {
            break;
        };
        if checksum(payload) != check {
            break;
        }
        records.push(payload.to_owned());
    }
    let mut records = records.into_iter();
    let (pid, replacements, dirs) = parse_begin(&records.next()?)?;
    let mut state = State::Begun;
    if let Some(prepared) = records.next()
        && let Some(staged) = parse_prepared(&prepared, replacements.len())
    {
        state = match records.next() {
            Some(r) if r == "committed" => State::Committed(staged),
            _ => State::Prepared(staged),
        };
    }
    Some(Parsed {
        pid,
        replacements,
        dirs,
        state,
    })
}

type Begin = (u32, Vec<Record>, Vec<PathBuf>);

fn parse_begin(payload: &str) -> Option<Begin> {
    let mut t = payload.split(' ');
    if t.next()? != "begin" {
        return None;
    }
    let v2 = match t.next()? {
        "v1" => false,
        "v2" => true,
        _ => return None,
    };
    let pid = t.next()?.parse().ok()?;
    let n: usize = t.next()?.parse().ok()?;
    let mut replacements = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        let tag = t.next()?;
        let index = t.next()?.parse().ok()?;
        let role = match tag {
            "F" => Role::File(index),
            "B" => Role::Backup(index),
            "D" if v2 => Role::Delete(index),
            _ => return None,
        };
        let (target, temp, undo) = (hex_path(&mut t)?, hex_path(&mut t)?, hex_path(&mut t)?);
        replacements.push(Record {
            role,
            target,
            temp,
            undo,
        });
    }
    let mut dirs = Vec::new();
    if v2 {
        let m: usize = t.next()?.parse().ok()?;
        for _ in 0..m {
            dirs.push(hex_path(&mut t)?);
        }
    }
    t.next().is_none().then_some((pid, replacements, dirs))
}

fn hex_path<'a>(t: &mut impl Iterator<Item = &'a str>) -> Option<PathBuf> {
    let bytes = hex::decode(t.next()?).ok()?;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

fn parse_prepared(payload: &str, n: usize) -> Option<Vec<Staged>> {
    let mut t = payload.split(' ');
    if t.next()? != "prepared" || t.next()?.parse::<usize>().ok()? != n {
        return None;
    }
    let mut staged = Vec::with_capacity(n);
    for _ in 0..n {
        let temp = (t.next()?.parse().ok()?, t.next()?.parse().ok()?);
        let (dev, ino) = (t.next()?, t.next()?);
        let orig = match (dev, ino) {
            ("-", "-") => None,
            _ => Some((dev.parse().ok()?, ino.parse().ok()?)),
        };
        staged.push(Staged { temp, orig });
    }
    t.next().is_none().then_some(staged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Record> {
        vec![
            Record {
                role: Role::Backup(0),
                target: "/d/a b.bak".into(),
                temp: "/d/.a b.t".into(),
                undo: "/d/.a b.u".into(),
            },
            Record {
                role: Role::File(0),
                target: "/d/a b".into(),
                temp: "/d/.a.t".into(),
                undo: "/d/.a.u".into(),
            },
        ]
    }

    #[test]
    fn round_trips_every_state_and_ignores_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::begin(dir.path(), &sample(), &[], true).unwrap();
        let read = || parse_bytes(&fs::read(j_path(dir.path())).unwrap()).unwrap();
        assert_eq!(read().state, State::Begun);
        assert_eq!(read().replacements, sample());
        let staged = vec![
            Staged {
                temp: (1, 2),
                orig: None,
            },
            Staged {
                temp: (1, 3),
                orig: Some((1, 4)),
            },
        ];
        j.prepared(&staged).unwrap();
        assert_eq!(read().state, State::Prepared(staged.clone()));

        // A torn "committed" record (no newline, or a bad checksum) is no record.
        let mut bytes = fs::read(j.path()).unwrap();
        bytes.extend_from_slice(b"committed ");
        assert_eq!(
            parse_bytes(&bytes).unwrap().state,
            State::Prepared(staged.clone())
        );
        let mut bad = fs::read(j.path()).unwrap();
        bad.extend_from_slice(b"committed 0000000000000000\n");
        assert_eq!(
            parse_bytes(&bad).unwrap().state,
            State::Prepared(staged.clone())
        );

        j.committed().unwrap();
        assert_eq!(read().state, State::Committed(staged));
        j.remove().unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    fn j_path(dir: &Path) -> PathBuf {
        fs::read_dir(dir).unwrap().next().unwrap().unwrap().path()
    }

    #[test]
    fn deletes_and_created_directories_round_trip_as_v2() {
        let dir = tempfile::tempdir().unwrap();
        let mut recs = sample();
        recs.push(Record {
            role: Role::Delete(1),
            target: "/d/gone".into(),
            temp: "/d/.gone.t".into(),
            undo: "/d/.gone.u".into(),
        });
        let dirs = vec![PathBuf::from("/d/new"), PathBuf::from("/d/new/sub")];
        let _j = Journal::begin(dir.path(), &recs, &dirs, true).unwrap();
        let text = fs::read(j_path(dir.path())).unwrap();
        assert!(text.starts_with(b"begin v2 "));
        let p = parse_bytes(&text).unwrap();
        assert_eq!(p.replacements, recs);
        assert_eq!(p.dirs, dirs);
        // Without deletes or directories the journal stays v1.
        let dir2 = tempfile::tempdir().unwrap();
        let _k = Journal::begin(dir2.path(), &sample(), &[], true).unwrap();
        assert!(
            fs::read(j_path(dir2.path()))
                .unwrap()
                .starts_with(b"begin v1 ")
        );
        // A v1 journal cannot hold a delete.
        assert!(parse_begin(&begin_payload(&recs, &[]).replace(" v2 ", " v1 ")).is_none());
    }

    #[test]
    fn a_journal_without_a_valid_begin_is_none() {
        assert_eq!(parse_bytes(b""), None);
        assert_eq!(parse_bytes(b"begin v1 1 0"), None);
        assert_eq!(parse_bytes(b"garbage 0123\n"), None);
    }
}
