//! The `list_transactions` tool: what `undo` can still take, newest first.
//!
//! Read-only: it reads the undo store's index ([`crate::undo`]) and shows
//! only transactions whose every path is inside the call's roots, so a
//! client never learns of files outside what it may edit.

use std::path::PathBuf;

use crate::config::Config;
use crate::response::{ListTransactionsSuccess, ListedFile, ListedTransaction};
use crate::taxonomy::{ErrorEnvelope, ListTransactionsError};
use crate::undo::{self, Operation, UndoState};

/// Runs `list_transactions`: the most recent transactions whose every path
/// is inside the call's roots, newest first, at most `limit`.
pub fn run(cfg: &Config, limit: u64) -> Result<ListTransactionsSuccess, ListTransactionsError> {
    let store = match &cfg.undo {
        UndoState::Open(store) => store,
        UndoState::Unavailable { dir, os_error } => {
            return Err(ErrorEnvelope::undo_unavailable(
                os_error.clone(),
                dir.display().to_string(),
            )
            .into());
        }
    };
    let all = store
        .list(usize::MAX)
        .map_err(|e| -> ListTransactionsError {
            ErrorEnvelope::undo_unavailable(undo::errno_name(&e), store.dir().display().to_string())
                .into()
        })?;
    let transactions: Vec<ListedTransaction> = all
        .into_iter()
        .filter(|t| {
            t.files
                .iter()
                .all(|f| cfg.contains(&PathBuf::from(&f.path)))
        })
        .take(limit as usize)
        .map(|t| ListedTransaction {
            transaction_id: t.transaction_id.to_string(),
            time: rfc3339(t.time_unix_ms),
            time_unix_ms: t.time_unix_ms,
            tool: t.tool,
            undoes: t.undoes.map(|u| u.to_string()),
            files: t
                .files
                .into_iter()
                .map(|f| ListedFile {
                    file_path: f.path,
                    operation: operation_name(f.operation).to_string(),
                })
                .collect(),
        })
        .collect();
    Ok(ListTransactionsSuccess {
        success: true,
        message: format!(
            "{} transaction(s) that can be undone, newest first",
            transactions.len()
        ),
        transactions,
    })
}

fn operation_name(op: Operation) -> &'static str {
    match op {
        Operation::Edit => "edit",
        Operation::Create => "create",
        Operation::Delete => "delete",
        Operation::MoveFrom => "move_from",
        Operation::MoveTo => "move_to",
    }
}

/// `ms` since the Unix epoch as RFC 3339 UTC, to the millisecond.
fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_matches_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_795_824_000_000), "2026-11-28T00:00:00.000Z");
    }
}
