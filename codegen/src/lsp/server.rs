//! The server's state and its reaction to each message, with no I/O and no
//! threads: [`Server::handle`] takes a message from the client,
//! [`Server::analyzed`] the result of a check, and both leave what to send
//! ([`Server::take_output`]) and what to check ([`Server::take_jobs`]). The
//! main loop (`super::run`) moves these between the client, the state and
//! the checking thread; the fuzz target drives the same state with the
//! checks run inline.
//!
//! A request about a document is answered from the analysis of the
//! document's current version: when the text changed since the last check,
//! the request waits (in `pending`) for the check of the new version, and
//! is answered as soon as it arrives, so no answer mixes old positions with
//! new text. A check result for a version that is no longer current is
//! dropped.

use std::collections::HashMap;
use std::sync::Arc;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest,
    PrepareRenameRequest, References, Rename, Request as _,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    InitializeResult, OneOf, PositionEncodingKind, PublishDiagnosticsParams, RenameOptions,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};

use super::analysis::Analysis;
use super::features;
use super::text::Document;

/// A check to run: one version of one document.
#[derive(Debug, Clone)]
pub struct Job {
    /// The document's URI, as the client wrote it.
    pub uri: String,
    /// Its text at `version`.
    pub text: String,
    /// The version.
    pub version: i32,
}

impl Job {
    /// Runs the check.
    pub fn run(&self) -> Analysis {
        let name = self.uri.rsplit('/').next().unwrap_or("errors.yaml");
        Analysis::run(&self.text, self.version, name)
    }
}

struct Open {
    uri: Uri,
    doc: Document,
    analysis: Option<Arc<Analysis>>,
    /// Requests waiting for the analysis of the current version.
    pending: Vec<Request>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShutDown,
}

/// The language server's state.
pub struct Server {
    phase: Phase,
    docs: HashMap<String, Open>,
    out: Vec<Message>,
    jobs: Vec<Job>,
    exit: Option<i32>,
}

impl Default for Server {
    fn default() -> Self {
        Self::new()
    }
}

/// What this server can do, as `initialize` answers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "{".into(), "[".into()]),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        ..Default::default()
    }
}

impl Server {
    /// A server waiting for `initialize`.
    pub fn new() -> Self {
        Server {
            phase: Phase::Uninitialized,
            docs: HashMap::new(),
            out: Vec::new(),
            jobs: Vec::new(),
            exit: None,
        }
    }

    /// Messages to send to the client, in order.
    pub fn take_output(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.out)
    }

    /// Checks to run (at most one per document: a later version replaces
    /// an earlier one that has not started).
    pub fn take_jobs(&mut self) -> Vec<Job> {
        std::mem::take(&mut self.jobs)
    }

    /// The exit code once `exit` was received: 0 after `shutdown`, else 1.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit
    }

    fn respond(&mut self, id: RequestId, result: Result<serde_json::Value, (ErrorCode, String)>) {
        self.out.push(Message::Response(match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        }));
    }

    /// Reacts to one message from the client.
    pub fn handle(&mut self, message: Message) {
        match message {
            Message::Request(r) => self.request(r),
            Message::Notification(n) => self.notification(n),
            // This server sends no requests, so it expects no responses.
            Message::Response(r) => tracing::debug!(id = ?r.id, "ignoring a response"),
        }
    }

    fn request(&mut self, r: Request) {
        match (self.phase, r.method.as_str()) {
            (Phase::Uninitialized, "initialize") => {
                let result = InitializeResult {
                    capabilities: capabilities(),
                    server_info: Some(ServerInfo {
                        name: "splice-codegen".into(),
                        version: Some(env!("CARGO_PKG_VERSION").into()),
                    }),
                };
                self.phase = Phase::Running;
                self.respond(r.id, Ok(serde_json::to_value(result).unwrap_or_default()));
            }
            (Phase::Uninitialized, _) => self.respond(
                r.id,
                Err((
                    ErrorCode::ServerNotInitialized,
                    "the server is not initialized".into(),
                )),
            ),
            (Phase::Running, "initialize") => self.respond(
                r.id,
                Err((
                    ErrorCode::InvalidRequest,
                    "the server is already initialized".into(),
                )),
            ),
            (_, "shutdown") => {
                self.phase = Phase::ShutDown;
                for open in self.docs.values_mut() {
                    for p in open.pending.drain(..) {
                        self.out.push(Message::Response(Response::new_err(
                            p.id,
                            ErrorCode::InvalidRequest as i32,
                            "the server is shutting down".into(),
                        )));
                    }
                }
                self.respond(r.id, Ok(serde_json::Value::Null));
            }
            (Phase::ShutDown, _) => self.respond(
                r.id,
                Err((ErrorCode::InvalidRequest, "the server is shut down".into())),
            ),
            (Phase::Running, _) => self.document_request(r),
        }
    }

    /// A request about one document: answered now if its analysis is
    /// current, else when it is.
    fn document_request(&mut self, r: Request) {
        let Some(uri) = r
            .params
            .get("textDocument")
            .and_then(|t| t.get("uri"))
            .and_then(|u| u.as_str())
            .map(str::to_owned)
        else {
            let known = [
                HoverRequest::METHOD,
                Completion::METHOD,
                GotoDefinition::METHOD,
                References::METHOD,
                DocumentSymbolRequest::METHOD,
                PrepareRenameRequest::METHOD,
                Rename::METHOD,
                CodeActionRequest::METHOD,
            ];
            let error = if known.contains(&r.method.as_str()) {
                (
                    ErrorCode::InvalidParams,
                    "the request names no textDocument.uri".into(),
                )
            } else {
                (
                    ErrorCode::MethodNotFound,
                    format!("unknown method `{}`", r.method),
                )
            };
            self.respond(r.id, Err(error));
            return;
        };
        let Some(open) = self.docs.get_mut(&uri) else {
            self.respond(
                r.id,
                Err((ErrorCode::InvalidParams, format!("`{uri}` is not open"))),
            );
            return;
        };
        match &open.analysis {
            Some(a) if a.version == open.doc.version => {
                let a = Arc::clone(a);
                let result = answer(&open.doc, &a, &open.uri, &r);
                self.respond(r.id, result);
            }
            _ => open.pending.push(r),
        }
    }

    fn notification(&mut self, n: Notification) {
        if n.method == "exit" {
            self.exit = Some(if self.phase == Phase::ShutDown { 0 } else { 1 });
            return;
        }
        if self.phase != Phase::Running {
            return;
        }
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                else {
                    tracing::warn!("unreadable didOpen");
                    return;
                };
                let key = p.text_document.uri.as_str().to_owned();
                let doc = Document::new(p.text_document.text, p.text_document.version);
                if let Some(old) = self.docs.remove(&key) {
                    self.cancel(old.pending, "the document was opened again");
                }
                self.docs.insert(
                    key.clone(),
                    Open {
                        uri: p.text_document.uri,
                        doc,
                        analysis: None,
                        pending: Vec::new(),
                    },
                );
                self.schedule(&key);
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                else {
                    tracing::warn!("unreadable didChange");
                    return;
                };
                let key = p.text_document.uri.as_str().to_owned();
                let Some(open) = self.docs.get_mut(&key) else {
                    tracing::warn!(uri = key, "didChange of a document that is not open");
                    return;
                };
                for change in &p.content_changes {
                    open.doc.apply(change);
                }
                open.doc.version = p.text_document.version;
                self.schedule(&key);
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                else {
                    return;
                };
                if let Some(old) = self.docs.remove(p.text_document.uri.as_str()) {
                    self.cancel(old.pending, "the document was closed");
                    // Its problems leave the client's list with it.
                    self.publish(old.uri, Vec::new(), None);
                }
            }
            "$/cancelRequest" => {
                let id = n.params.get("id").cloned();
                for open in self.docs.values_mut() {
                    let (cancelled, kept): (Vec<Request>, Vec<Request>) =
                        open.pending.drain(..).partition(|p| {
                            id.as_ref().is_some_and(|id| {
                                serde_json::to_value(&p.id).ok().as_ref() == Some(id)
                            })
                        });
                    open.pending = kept;
                    for p in cancelled {
                        self.out.push(Message::Response(Response::new_err(
                            p.id,
                            ErrorCode::RequestCanceled as i32,
                            "cancelled".into(),
                        )));
                    }
                }
            }
            _ => tracing::debug!(method = n.method, "ignoring a notification"),
        }
    }

    fn cancel(&mut self, pending: Vec<Request>, why: &str) {
        for p in pending {
            self.out.push(Message::Response(Response::new_err(
                p.id,
                ErrorCode::ContentModified as i32,
                why.into(),
            )));
        }
    }

    fn schedule(&mut self, key: &str) {
        let Some(open) = self.docs.get(key) else {
            return;
        };
        self.jobs.retain(|j| j.uri != key);
        self.jobs.push(Job {
            uri: key.to_owned(),
            text: open.doc.text.clone(),
            version: open.doc.version,
        });
    }

    fn publish(&mut self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.out.push(Message::Notification(Notification::new(
            PublishDiagnostics::METHOD.into(),
            params,
        )));
    }

    /// Takes the result of a check: publishes its diagnostics and answers
    /// the requests waiting for it, unless the document changed since.
    pub fn analyzed(&mut self, uri: &str, analysis: Analysis) {
        let Some(open) = self.docs.get_mut(uri) else {
            return;
        };
        if analysis.version != open.doc.version {
            tracing::debug!(
                uri,
                stale = analysis.version,
                current = open.doc.version,
                "dropping a stale check"
            );
            return;
        }
        let analysis = Arc::new(analysis);
        open.analysis = Some(Arc::clone(&analysis));
        let pending = std::mem::take(&mut open.pending);
        let diagnostics = features::diagnostics(&open.doc, &analysis, &open.uri);
        let answers: Vec<(RequestId, Answer)> = pending
            .into_iter()
            .map(|r| {
                let result = answer(&open.doc, &analysis, &open.uri, &r);
                (r.id, result)
            })
            .collect();
        let (uri, version) = (open.uri.clone(), open.doc.version);
        self.publish(uri, diagnostics, Some(version));
        for (id, result) in answers {
            self.respond(id, result);
        }
    }
}

type Answer = Result<serde_json::Value, (ErrorCode, String)>;

fn params<P: serde::de::DeserializeOwned>(r: &Request) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(r.params.clone()).map_err(|e| {
        (
            ErrorCode::InvalidParams,
            format!("invalid params of `{}`: {e}", r.method),
        )
    })
}

fn json(v: impl serde::Serialize) -> Answer {
    Ok(serde_json::to_value(v).unwrap_or_default())
}

/// The answer to a request about `doc`, from its current analysis.
fn answer(doc: &Document, analysis: &Analysis, uri: &Uri, r: &Request) -> Answer {
    match r.method.as_str() {
        HoverRequest::METHOD => {
            let p: lsp_types::HoverParams = params(r)?;
            json(features::hover(
                doc,
                analysis,
                p.text_document_position_params.position,
            ))
        }
        Completion::METHOD => {
            let p: lsp_types::CompletionParams = params(r)?;
            json(features::completion(
                doc,
                analysis,
                p.text_document_position.position,
            ))
        }
        GotoDefinition::METHOD => {
            let p: lsp_types::GotoDefinitionParams = params(r)?;
            json(features::definition(
                doc,
                analysis,
                uri,
                p.text_document_position_params.position,
            ))
        }
        References::METHOD => {
            let p: lsp_types::ReferenceParams = params(r)?;
            json(features::references(
                doc,
                analysis,
                uri,
                p.text_document_position.position,
                p.context.include_declaration,
            ))
        }
        DocumentSymbolRequest::METHOD => {
            let _: lsp_types::DocumentSymbolParams = params(r)?;
            json(features::symbols(doc, analysis))
        }
        PrepareRenameRequest::METHOD => {
            let p: lsp_types::TextDocumentPositionParams = params(r)?;
            json(features::prepare_rename(doc, analysis, p.position))
        }
        Rename::METHOD => {
            let p: lsp_types::RenameParams = params(r)?;
            features::rename(
                doc,
                analysis,
                uri,
                p.text_document_position.position,
                &p.new_name,
            )
            .map_err(|why| (ErrorCode::RequestFailed, why))
            .and_then(json)
        }
        CodeActionRequest::METHOD => {
            let p: lsp_types::CodeActionParams = params(r)?;
            json(features::code_actions(doc, analysis, uri, p.range))
        }
        other => Err((
            ErrorCode::MethodNotFound,
            format!("unknown method `{other}`"),
        )),
    }
}
