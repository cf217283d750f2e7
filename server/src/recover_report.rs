//! What `splice recover` prints: one line per interrupted transaction, for a
//! person, or one JSON document, for a script; and whether it all finished.
//!
//! It exists so the command's output is a report a user can act on, not
//! the recovery's internal structures.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::commit::{RecoveredTransaction, RecoveryOutcome, RecoveryReport, Swept};

fn outcome_name(o: RecoveryOutcome) -> &'static str {
    match o {
        RecoveryOutcome::Discarded => "discarded",
        RecoveryOutcome::RolledBack => "rolled back",
        RecoveryOutcome::Completed => "completed",
        RecoveryOutcome::Corrupt => "corrupt",
        RecoveryOutcome::Deferred => "deferred",
    }
}

/// Whether the transaction still needs a person (or a later run).
fn unfinished(t: &RecoveredTransaction) -> bool {
    matches!(
        t.outcome,
        RecoveryOutcome::Corrupt | RecoveryOutcome::Deferred
    ) || !t.problems.is_empty()
        || !t.conflicts.is_empty()
}

/// True when every interrupted commit was finished (exit status 0).
pub fn finished(report: &RecoveryReport, swept: &Swept) -> bool {
    !report.transactions.iter().any(unfinished)
        && swept.problems.is_empty()
        && swept.busy.is_empty()
}

fn advice(t: &RecoveredTransaction) -> &'static str {
    match t.outcome {
        RecoveryOutcome::Corrupt => {
            "the journal is unreadable and was set aside: check the files it names by hand, then delete it"
        }
        RecoveryOutcome::Deferred => {
            "a file is locked by a running splice or its directory cannot be opened safely: stop other splice processes, check the directories exist, and run `splice recover` again"
        }
        _ if !t.conflicts.is_empty() => {
            "another program replaced a file meanwhile: it was left as it is, its original beside it as a hidden `.splice-*.undo` file; compare them and delete the one you do not want"
        }
        _ => {
            "a step failed (see the errors): fix the cause (e.g. a read-only or full file system) and run `splice recover` again"
        }
    }
}

/// The report for a person: one line per transaction and per file whose
/// single-file commit was finished, then what to do about anything left.
pub fn human(report: &RecoveryReport, swept: &Swept) -> String {
    let mut out = String::new();
    let total = report.transactions.len() + swept.rolled_back.len() + swept.completed.len();
    if total == 0 && swept.busy.is_empty() && swept.problems.is_empty() {
        out.push_str("nothing to recover\n");
    }
    for t in &report.transactions {
        let files: Vec<String> = t.files.iter().map(|f| f.display().to_string()).collect();
        let _ = writeln!(
            out,
            "{}: {}, {} file(s): {}",
            t.journal.display(),
            outcome_name(t.outcome),
            files.len(),
            files.join(", ")
        );
        for p in &t.problems {
            let _ = writeln!(out, "  error: {p}");
        }
        for c in &t.conflicts {
            let _ = writeln!(out, "  conflict: {}", c.display());
        }
        if unfinished(t) {
            let _ = writeln!(out, "  to do: {}", advice(t));
        }
    }
    for f in &swept.rolled_back {
        let _ = writeln!(
            out,
            "(single-file commit): rolled back, 1 file(s): {}",
            f.display()
        );
    }
    for f in &swept.completed {
        let _ = writeln!(
            out,
            "(single-file commit): completed, 1 file(s): {}",
            f.display()
        );
    }
    for f in &swept.busy {
        let _ = writeln!(
            out,
            "(single-file commit): deferred, 1 file(s): {}\n  to do: the file is locked by a running splice; run `splice recover` again once it is done",
            f.display()
        );
    }
    for p in &swept.problems {
        let _ = writeln!(
            out,
            "(single-file commit): error: {p}\n  to do: fix the cause and run `splice recover` again"
        );
    }
    for e in &report.ignored {
        let _ = writeln!(
            out,
            "{}: ignored ({})\n  to do: not a journal splice can read; look at it and remove it",
            e.path.display(),
            e.reason
        );
    }
    if report.skipped_live > 0 {
        let _ = writeln!(
            out,
            "{} journal(s) belong to a running splice and were left alone",
            report.skipped_live
        );
    }
    out
}

/// The report for a script.
pub fn json(report: &RecoveryReport, swept: &Swept) -> String {
    let transactions: Vec<Value> = report
        .transactions
        .iter()
        .map(|t| {
            json!({
                "journal": t.journal,
                "outcome": outcome_name(t.outcome).replace(' ', "_"),
                "files": t.files,
                "restored": t.restored,
                "conflicts": t.conflicts,
                "errors": t.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "finished": !unfinished(t),
                "advice": unfinished(t).then(|| advice(t)),
            })
        })
        .collect();
    let doc = json!({
        "finished": finished(report, swept),
        "transactions": transactions,
        "single_file_commits": {
            "rolled_back": swept.rolled_back,
            "completed": swept.completed,
            "deferred": swept.busy,
            "errors": swept.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        },
        "skipped_live": report.skipped_live,
        "ignored": report.ignored.iter().map(|e| json!({"path": e.path, "reason": e.reason})).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
