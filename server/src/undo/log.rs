//! Where the undo store's records live: append-only segment files, and the
//! index of every record the store knows (issue #25 §3).
//!
//! Why a log: recording is on by default, so its cost lands on the most
//! common call. A file per transaction cost a creation (or, at the store's
//! bounds, two renames to reuse the oldest file), an `open` and a `writev`
//! per call: 0.14 ms of the store thread's CPU per small edit, measured side
//! by side against a build that skipped them. A record appended to an open
//! file is one `writev`: no inode allocated, no directory entry changed.
//!
//! ```text
//! undo/
//!   log-019a2b3c4d5e-00001f2a-0000   a segment: one store instance's records,
//!                                    appended back to back, each a line of
//!                                    JSON (the record: id, time, tool, and per
//!                                    path: operation, SHA-256, length and mode
//!                                    before, SHA-256 after), then each content
//!                                    before
//!   019a2b3c4d5e-00001f2a-00000003   a record of an earlier splice (a file,
//!                                    or a directory): read, listed, pruned
//! ```
//!
//! - **One writer per segment.** Each store instance (one per server
//!   process) appends to a segment of its own, created at its first record
//!   and locked with `flock` while it is open, so another process can tell
//!   a live segment from one whose writer is gone. Nobody else ever writes
//!   into it.
//! - **Segments rotate.** After a quarter of the store's bounds (25 records
//!   by default) the writer closes its segment and starts the next one at
//!   its next record, so a segment's records age together.
//! - **The bounds are a window.** The live records are the newest ones (by
//!   id, that is by time) within both bounds; an older record is dropped
//!   from the index and never returned, though its bytes stay in its
//!   segment until every record of the segment is dropped. Then the
//!   segment is removed: at once when it is this process's own closed one,
//!   and, when another process wrote it, only if its lock can be taken (its
//!   writer is gone or closed it). So the directory holds at most about a
//!   quarter more than the bounds, per process recording.
//! - **Other processes' records** are found by listing the directory and
//!   reading the segments' record lines (only what was appended since the
//!   last reading): when a prune lists the directory (at most once a
//!   second), on every `list_transactions`, and when an `undo` names an id
//!   the index does not have.
//! - **Torn records.** The store is not fsynced (see "Durability" in
//!   [`super`]). A reader stops at a record line that is not whole yet or
//!   whose contents are not all there yet (its writer may be appending right
//!   now; it reads on from there next time), and for good at a line that is
//!   whole but does not parse (what a power loss can leave): the records
//!   after it are lost, which is what a power loss may already do. Contents
//!   are checked against their hashes when read back, so a torn content is
//!   refused, never returned.
//! - **A failed append** (disk full) is cut back off the segment, so the
//!   next record follows the last whole one; if even that fails, the
//!   segment is closed and the next record starts a new one. A segment
//!   removed under the server (the store's directory deleted) is noticed
//!   before each append (an `fstat`), so the write fails and is reported
//!   rather than going into an unlinked file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{self, BufRead, Read, Seek, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use super::UndoLimits;
use super::legacy::read_record;
use super::record::{MAX_HEADER, RecordFile, TransactionId, damaged, parse_record};

/// The format of a record line in a segment.
pub(super) const FORMAT_LOG: u32 = 3;
/// Names of segment files start with this.
const SEGMENT_PREFIX: &str = "log-";
/// A segment with no record is never taken for a dead writer's before this
/// age: its writer creates it, locks it, then appends, and between the
/// first two another process must not remove it.
const EMPTY_SEGMENT_AGE: Duration = Duration::from_secs(3600);

/// Where a record is.
#[derive(Debug, Clone)]
pub(super) enum Source {
    /// A file (or a directory) of its own, named by its id: an earlier
    /// splice's layout.
    File,
    /// In a segment: its record line starts at `offset` and is
    /// `header_len` bytes long (with its newline); its contents follow.
    Log {
        segment: Arc<str>,
        offset: u64,
        header_len: u64,
        record: Arc<RecordFile>,
    },
}

/// One record the store knows.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// Bytes of content it keeps.
    pub bytes: u64,
    pub source: Source,
}

/// A segment the store has seen.
#[derive(Debug)]
struct Segment {
    /// Bytes read from another writer's segment: where its next record
    /// starts. (This store's own segments are never read back: the
    /// [`Writer`] tracks what it wrote.)
    scanned: u64,
    /// Records found in another writer's segment.
    records: usize,
    /// Written by this store instance (so not read back, and removable
    /// once closed without asking its lock).
    own: bool,
    /// A whole record line that does not parse: nothing after it is read.
    stuck: bool,
}

/// The segment this store appends to, open and locked.
#[derive(Debug)]
struct Writer {
    name: Arc<str>,
    file: File,
    len: u64,
    records: usize,
    /// Bytes of content (what the byte bound weighs) in it.
    bytes: u64,
}

/// Every record the store knows, and the segments they are in.
#[derive(Debug, Default)]
pub(super) struct Index {
    pub entries: BTreeMap<TransactionId, Entry>,
    segments: BTreeMap<Arc<str>, Segment>,
    writer: Option<Writer>,
    /// A record dropped was its segment's last one in the index.
    emptied: bool,
}

impl Index {
    /// Appends the record `record` (its line `header`, then `contents`) to
    /// this store's segment, starting one if there is none or the current
    /// one is full; indexes it.
    pub fn append(
        &mut self,
        dir: &Path,
        limits: UndoLimits,
        record: RecordFile,
        header: &[u8],
        contents: &[&[u8]],
    ) -> io::Result<()> {
        let rotate_records = (limits.max_transactions / 4).max(1);
        let rotate_bytes = (limits.max_bytes / 4).max(1);
        if self
            .writer
            .as_ref()
            .is_some_and(|w| w.records >= rotate_records || w.bytes >= rotate_bytes)
        {
            self.writer = None; // closed: unlocked, removable once its records are dropped
        }
        // Removed under the server (the store's directory deleted): start
        // anew, which fails, and says so, if the directory is gone.
        if let Some(w) = &self.writer
            && w.file.metadata().is_ok_and(|m| m.nlink() == 0)
        {
            self.writer = None;
        }
        if self.writer.is_none() {
            let writer = Writer::create(dir)?;
            self.segments.insert(
                Arc::clone(&writer.name),
                Segment {
                    scanned: 0,
                    records: 0,
                    own: true,
                    stuck: false,
                },
            );
            self.writer = Some(writer);
        }
        let writer = self.writer.as_mut().expect("a writer was just made");
        let offset = writer.len;
        let mut parts: Vec<io::IoSlice<'_>> = std::iter::once(header)
            .chain(contents.iter().copied())
            .map(io::IoSlice::new)
            .collect();
        let len: u64 = parts.iter().map(|p| p.len() as u64).sum();
        if let Err(e) = write_all_vectored(&mut writer.file, &mut parts) {
            // Cut what part of it went in, so the next record follows the
            // last whole one; if that fails too, start a new segment.
            if writer.file.set_len(offset).is_err() {
                self.writer = None;
            }
            return Err(e);
        }
        writer.len += len;
        writer.records += 1;
        writer.bytes += record.stored_bytes();
        let segment = Arc::clone(&writer.name);
        let bytes = record.stored_bytes();
        self.entries.insert(
            record.id.clone(),
            Entry {
                bytes,
                source: Source::Log {
                    segment,
                    offset,
                    header_len: header.len() as u64,
                    record: Arc::new(record),
                },
            },
        );
        Ok(())
    }

    /// Brings the index up to date with the directory: records of an
    /// earlier splice's layout that appeared or went, segments other
    /// processes started, appended to or removed.
    pub fn refresh(&mut self, dir: &Path) -> io::Result<()> {
        let mut files = BTreeSet::new();
        let mut segments = BTreeSet::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if let Some(id) = TransactionId::parse(name) {
                files.insert(id);
            } else if name.starts_with(SEGMENT_PREFIX) {
                segments.insert(Arc::<str>::from(name));
            }
        }
        let writing = self.writer.as_ref().map(|w| Arc::clone(&w.name));
        self.segments
            .retain(|name, _| segments.contains(name) || writing.as_ref() == Some(name));
        self.entries.retain(|id, e| match &e.source {
            Source::File => files.contains(id),
            Source::Log { segment, .. } => {
                segments.contains(segment) || writing.as_ref() == Some(segment)
            }
        });
        for id in files {
            if let std::collections::btree_map::Entry::Vacant(slot) = self.entries.entry(id) {
                let bytes = read_record(&dir.join(slot.key().as_str()))
                    .map(|r| r.stored_bytes())
                    .unwrap_or(0);
                slot.insert(Entry {
                    bytes,
                    source: Source::File,
                });
            }
        }
        for name in segments {
            let seg = self.segments.entry(Arc::clone(&name)).or_insert(Segment {
                scanned: 0,
                records: 0,
                own: false,
                stuck: false,
            });
            if seg.own || seg.stuck {
                continue;
            }
            match scan(&dir.join(&*name), &name, seg, &mut self.entries) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    tracing::debug!(segment = %name, error = %e, "could not read an undo segment")
                }
            }
        }
        Ok(())
    }

    /// Drops from the index the records outside the store's window (the
    /// newest within both bounds; never `keep` nor anything newer) and
    /// returns the ids of those stored in files of their own, to remove.
    /// Notes when the last record of a segment went
    /// ([`Index::remove_dropped_segments`] has work).
    pub fn drop_outside(&mut self, limits: UndoLimits, keep: &TransactionId) -> Vec<TransactionId> {
        let mut count = self.entries.len();
        let mut total: u64 = self.entries.values().map(|e| e.bytes).sum();
        let mut victims = Vec::new();
        for (id, entry) in self.entries.iter() {
            if count <= limits.max_transactions && total <= limits.max_bytes {
                break;
            }
            // Never `keep` nor anything recorded after it: its answer may
            // not have reached its client yet.
            if id >= keep {
                break;
            }
            count -= 1;
            total -= entry.bytes;
            victims.push(id.clone());
        }
        let mut files = Vec::new();
        for id in victims {
            match self.entries.remove(&id) {
                Some(Entry {
                    source: Source::File,
                    ..
                }) => files.push(id),
                Some(Entry {
                    source: Source::Log { segment, .. },
                    ..
                }) => {
                    // Records age together per segment: the oldest one
                    // left tells whether this one's segment emptied.
                    let oldest = self.entries.values().next().and_then(|e| match &e.source {
                        Source::Log { segment, .. } => Some(segment),
                        Source::File => None,
                    });
                    if oldest != Some(&segment) {
                        self.emptied = true;
                    }
                }
                None => {}
            }
        }
        files
    }

    /// Closes this store's segment: the next record starts a new one.
    pub fn close(&mut self) {
        self.writer = None;
    }

    /// Removes the segments none of whose records is in the index any more:
    /// this store's own closed ones, and, when `others`, other writers'
    /// whose lock can be taken (their writer is gone or closed them).
    pub fn remove_dropped_segments(&mut self, dir: &Path, others: bool) {
        if !others && !std::mem::take(&mut self.emptied) {
            return; // nothing new to remove: the usual call
        }
        let live: BTreeSet<&str> = self
            .entries
            .values()
            .filter_map(|e| match &e.source {
                Source::Log { segment, .. } => Some(&**segment),
                Source::File => None,
            })
            .collect();
        let writing = self.writer.as_ref().map(|w| Arc::clone(&w.name));
        let mut gone = Vec::new();
        for (name, seg) in &self.segments {
            if live.contains(&**name) || writing.as_ref() == Some(name) || (!seg.own && !others) {
                continue;
            }
            let path = dir.join(&**name);
            let removable = seg.own || abandoned(&path, seg.records);
            if removable {
                match fs::remove_file(&path) {
                    Ok(()) => gone.push(Arc::clone(name)),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => gone.push(Arc::clone(name)),
                    Err(e) => {
                        tracing::debug!(segment = %name, error = %e, "could not remove an undo segment")
                    }
                }
            }
        }
        for name in gone {
            self.segments.remove(&name);
        }
    }
}

impl Writer {
    /// A new segment, named by this moment, this process and a counter,
    /// created (mode 0600) and locked.
    fn create(dir: &Path) -> io::Result<Writer> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let ms = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed) & 0xffff;
        let name: Arc<str> = format!(
            "{SEGMENT_PREFIX}{ms:012x}-{:08x}-{n:04x}",
            std::process::id()
        )
        .into();
        let file = fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o600)
            .open(dir.join(&*name))?;
        crate::fsio::flock(&file, libc::LOCK_EX | libc::LOCK_NB)?;
        Ok(Writer {
            name,
            file,
            len: 0,
            records: 0,
            bytes: 0,
        })
    }
}

/// Whether another writer's segment at `path` is abandoned: its lock can be
/// taken, and it holds records (or is old enough that its writer cannot be
/// between creating and locking it).
fn abandoned(path: &Path, records: usize) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    if records == 0 {
        let old = file
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > EMPTY_SEGMENT_AGE);
        if !old {
            return false;
        }
    }
    crate::fsio::flock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok()
}

/// Reads the records appended to the segment at `path` since `seg.scanned`
/// into `entries`.
fn scan(
    path: &Path,
    name: &Arc<str>,
    seg: &mut Segment,
    entries: &mut BTreeMap<TransactionId, Entry>,
) -> io::Result<()> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len <= seg.scanned {
        return Ok(());
    }
    let mut reader = io::BufReader::new(file);
    reader.seek(io::SeekFrom::Start(seg.scanned))?;
    let mut line = Vec::new();
    while seg.scanned < len {
        line.clear();
        (&mut reader)
            .take(MAX_HEADER)
            .read_until(b'\n', &mut line)?;
        if line.last() != Some(&b'\n') {
            return Ok(()); // not whole yet (or cut by a crash): read on from here next time
        }
        let record = match parse_record(path, &line, FORMAT_LOG) {
            Ok(record) => record,
            Err(e) => {
                tracing::warn!(segment = %name, offset = seg.scanned, error = %e, "an undo segment is damaged here; the records after this point are lost");
                seg.stuck = true;
                return Ok(());
            }
        };
        let header_len = line.len() as u64;
        let bytes = record.stored_bytes();
        let end = seg.scanned + header_len + bytes;
        if end > len {
            return Ok(()); // its contents are not all there yet
        }
        reader.seek_relative(bytes as i64)?;
        entries.insert(
            record.id.clone(),
            Entry {
                bytes,
                source: Source::Log {
                    segment: Arc::clone(name),
                    offset: seg.scanned,
                    header_len,
                    record: Arc::new(record),
                },
            },
        );
        seg.scanned = end;
        seg.records += 1;
    }
    Ok(())
}

/// The record line and the contents (in path order; `None` for a path
/// absent before) of the record at `offset` of the segment at `path`,
/// unchecked against the hashes. A content cut short (a torn append) is
/// returned as far as it goes, for the hashes to refuse.
pub(super) fn read(
    path: &Path,
    offset: u64,
    header_len: u64,
) -> io::Result<(RecordFile, Vec<Option<Vec<u8>>>)> {
    let file = File::open(path)?;
    let mut line = vec![0; usize::try_from(header_len).map_err(io::Error::other)?];
    file.read_exact_at(&mut line, offset)
        .map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => damaged(path, "its record line is cut short"),
            _ => e,
        })?;
    let record = parse_record(path, &line, FORMAT_LOG)?;
    let mut at = offset + header_len;
    let mut contents = Vec::with_capacity(record.paths.len());
    for entry in &record.paths {
        contents.push(match &entry.before {
            None => None,
            Some(blob) => {
                let want = usize::try_from(blob.len).map_err(io::Error::other)?;
                let mut content = vec![0; want];
                let got = read_at_most(&file, &mut content, at)?;
                content.truncate(got);
                at += blob.len;
                Some(content)
            }
        });
    }
    Ok((record, contents))
}

/// Reads into `buf` from `offset` until it is full or the file ends;
/// returns how many bytes were read.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Writes every part, in order: one `writev(2)` for a whole transaction
/// unless the kernel takes less. Also what keeps the store thread's calls
/// apart from a tool call's `write`s while both run: `scripts/fault-points`
/// aims at the tool thread's N-th `write`, and strace counts per thread.
fn write_all_vectored(file: &mut File, mut parts: &mut [io::IoSlice<'_>]) -> io::Result<()> {
    io::IoSlice::advance_slices(&mut parts, 0);
    while !parts.is_empty() {
        match file.write_vectored(parts) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut parts, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
