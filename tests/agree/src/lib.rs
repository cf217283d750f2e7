//! Proof by generation that the artifacts of a spec agree (issue #51 §2).
//!
//! [`generator`] makes random specs over the grammar and the payloads their
//! codes send; the tests read every payload through every artifact of every
//! spec `check` accepts, and compare what each makes of it with what the
//! generator meant:
//!
//! - `tests/artifacts.rs`: every emitter generates; the JSON Schema accepts
//!   each payload as exactly one variant (its code's, or the unlisted one)
//!   and refuses a corrupted copy; the generated JavaScript (under `node`)
//!   and Python (under `python3`) read the same code (`isListed`/`codeInfo`,
//!   `is_listed`/`code_info`); with a list of errors (`list: true`), each
//!   response is accepted or refused whole, and `codesOf`/`codes_of` read
//!   its entries as the same codes in the same order.
//! - `tests/rust.rs`: the Rust types `build.rs` expands from the specs of
//!   fixed seeds read each payload as the same code and write it back
//!   unchanged, and `ErrorResponse` each response.
//! - `tests/diff.rs`: `diff` over a spec and its next release with one
//!   change ([`generator::evolve`]): when it finds nothing breaking, the old
//!   release's schema accepts every envelope of the new one; when it says
//!   the released schema refuses something, an envelope of the new release
//!   is refused.
//!
//! `cargo test` runs fixed seeds; `scripts/agree` runs more specs from other
//! seeds (`SPLICE_AGREE_SEED`, `SPLICE_AGREE_SPECS`).

pub mod generator;
