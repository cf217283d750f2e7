// The per-operation error types of errors.yaml: an operation's handler
// builds the codes it lists, a function shared by several operations is
// generic over them with a code-group bound, and an exhaustive match on an
// operation's own code enum covers exactly what it raises (violation kinds,
// such as INVALID_ARGUMENT, travel inside VALIDATION_FAILED and are not
// among them).

mod errors {
    splice_macros::taxonomy!("../../../../errors.yaml");
}

use errors::operation::{self, ListTransactionsCode, Operation, group};
use errors::{ErrorCode, ErrorEnvelope, ListTransactionsError, UndoError};

fn undo(id: &str) -> UndoError {
    ErrorEnvelope::transaction_not_found(id).into()
}

/// Any tool call may be cancelled: every operation raising the `calls`
/// group can use this.
fn cancelled<O: group::Calls>() -> operation::Error<O> {
    ErrorEnvelope::call_cancelled().into()
}

fn list_transactions() -> ListTransactionsError {
    cancelled()
}

fn main() {
    let error = undo("tx-1");
    assert_eq!(error.error_code(), ErrorCode::TransactionNotFound);
    assert_eq!(error.envelope().error_code, ErrorCode::TransactionNotFound);

    let error = list_transactions();
    let described = match error.code() {
        ListTransactionsCode::CallCancelled => "cancelled",
        ListTransactionsCode::ValidationFailed
        | ListTransactionsCode::RequestTooLarge
        | ListTransactionsCode::ServerBusy
        | ListTransactionsCode::InternalError
        | ListTransactionsCode::UndoUnavailable => "other",
    };
    assert_eq!(described, "cancelled");
    assert!(<operation::ListTransactions as Operation>::CODES.contains(&ErrorCode::CallCancelled));
    let _: operation::Error<operation::Undo> = cancelled();
}
