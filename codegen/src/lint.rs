//! Warnings: problems of a spec that loads.
//!
//! `load` refuses a spec with errors; a warning is something the author
//! should see that does not make the artifacts wrong. `check` prints them
//! and exits 0, and the language server shows them as warnings. Today one
//! rule: with `operations:` declared, an emitted code no operation raises
//! (unless the taxonomy makes that an error, `unraised_codes: error`, which
//! `load` then reports instead).

use crate::diagnostic::Diagnostic;
use crate::spec::{Spec, Unraised};

/// The warnings of a loaded spec, in spec order.
pub fn lint(spec: &Spec) -> Vec<Diagnostic> {
    let strict = spec
        .taxonomy
        .unraised_codes
        .as_ref()
        .is_some_and(|u| u.value == Unraised::Error);
    if strict {
        return Vec::new();
    }
    spec.unraised_codes()
        .into_iter()
        .map(|c| crate::validate::unraised(&c.name, false))
        .collect()
}
