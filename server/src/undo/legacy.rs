//! The layouts of earlier splice versions: one file per transaction (its
//! record line, then its contents), and before that one directory per
//! transaction (`record.json` plus `before-<i>` files). A store may still
//! hold them after an upgrade, so they are read, listed and pruned like
//! segment records ([`super::log`]); nothing writes them any more.

use std::fs::{self, File};
use std::io;
use std::path::Path;

use super::record::{MAX_HEADER, RecordFile, damaged, parse_record};

/// One file per transaction: an earlier splice's layout, read, never written.
pub(super) const FORMAT: u32 = 2;
/// One directory per transaction: read, never written.
pub(super) const FORMAT_DIR: u32 = 1;
/// The record of the directory layout.
pub(super) const RECORD: &str = "record.json";
/// The start of the temporary names those layouts were written under.
pub(super) const TMP_PREFIX: &str = ".tmp-";

/// The record of the transaction at `path` (either layout), without its
/// contents: only the first line of a file is read.
pub(super) fn read_record(path: &Path) -> io::Result<RecordFile> {
    use std::io::{BufRead, Read};
    let file = match File::open(path) {
        Ok(file) if file.metadata()?.is_dir() => return read_record_dir(path),
        other => other?,
    };
    let mut line = Vec::new();
    io::BufReader::new(file)
        .take(MAX_HEADER)
        .read_until(b'\n', &mut line)?;
    parse_record(path, &line, FORMAT)
}

/// The record and contents (in path order; `None` for a path absent
/// before) of the transaction at `path`, in either layout, unchecked
/// against the hashes.
pub(super) fn read_transaction(path: &Path) -> io::Result<(RecordFile, Vec<Option<Vec<u8>>>)> {
    let bytes = match fs::read(path) {
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => {
            let record = read_record_dir(path)?;
            let mut contents = Vec::with_capacity(record.paths.len());
            for (i, entry) in record.paths.iter().enumerate() {
                contents.push(match entry.before {
                    Some(_) => Some(fs::read(path.join(format!("before-{i}")))?),
                    None => None,
                });
            }
            return Ok((record, contents));
        }
        other => other?,
    };
    let end = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
    let record = parse_record(path, &bytes[..end], FORMAT)?;
    let mut rest = &bytes[end..];
    let mut contents = Vec::with_capacity(record.paths.len());
    for entry in &record.paths {
        contents.push(match &entry.before {
            None => None,
            Some(blob) => {
                let len = usize::try_from(blob.len)
                    .unwrap_or(usize::MAX)
                    .min(rest.len());
                let (content, tail) = rest.split_at(len);
                rest = tail;
                Some(content.to_vec())
            }
        });
    }
    if !rest.is_empty() {
        return Err(damaged(path, "it is longer than its record says"));
    }
    Ok((record, contents))
}

/// `record.json` of a transaction in the directory layout.
fn read_record_dir(dir: &Path) -> io::Result<RecordFile> {
    parse_record(dir, &fs::read(dir.join(RECORD))?, FORMAT_DIR)
}

/// Removes a transaction's file, or its directory in the older layout.
pub(super) fn remove_entry(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => fs::remove_dir_all(path),
        // Linux answers EISDIR; POSIX allows EPERM for unlink of a directory.
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied && path.is_dir() => {
            fs::remove_dir_all(path)
        }
        other => other,
    }
}

/// Removes what a crash left half-written in the store `dir` (the temporary
/// names of the older layouts' writes).
pub(super) fn remove_half_written(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            let _ = remove_entry(&entry.path());
        }
    }
    Ok(())
}
