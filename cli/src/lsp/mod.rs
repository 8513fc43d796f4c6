//! `tessera lsp`: a language server over stdio, for any editor that speaks the Language Server
//! Protocol (the VS Code extension in `editors/vscode/` starts it).
//!
//! In: JSON-RPC messages on stdin. Out: answers and diagnostics on stdout; nothing on stderr
//! but a stream that cannot go on. One thread answers every message in order: a compilation
//! takes well under a millisecond for a kernel file, so nothing waits long enough to need
//! cancelling.
//!
//! Invariants: positions are UTF-16 code units (the protocol's default, and the only encoding
//! offered), converted in [`document`]; whatever a client sends gets an answer or is dropped as
//! the protocol says, never a panic (a bad message gets an error, a document over 1 MiB the
//! compiler's own diagnostic).

mod answers;
mod document;
mod edits;
mod transport;

use document::Document;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::*;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use transport::Incoming;

#[derive(clap::Args)]
pub struct LspArgs {
    /// Where the site is served (`make serve` serves it on http://127.0.0.1:8080): each
    /// diagnostic's code links to its page in the error index there. Without it a code links
    /// nowhere (no address is sure to answer), and `tessera explain CODE` prints its entry.
    #[arg(long)]
    docs_url: Option<String>,
    /// Talk over stdin and stdout (the only way; accepted because clients pass it).
    #[arg(long)]
    stdio: bool,
}

pub fn run(args: &LspArgs) -> ExitCode {
    let mut server = Server::new(args.docs_url.clone());
    match server.serve(&mut io::stdin().lock(), &mut io::stdout().lock()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("tessera lsp: {error}");
            ExitCode::from(1)
        }
    }
}

struct Server {
    docs_url: Option<String>,
    documents: HashMap<Uri, Document>,
    initialized: bool,
    shut_down: bool,
}

/// What the server does after a message.
enum Next {
    Continue,
    Exit(ExitCode),
}

impl Server {
    fn new(docs_url: Option<String>) -> Self {
        Self {
            docs_url,
            documents: HashMap::new(),
            initialized: false,
            shut_down: false,
        }
    }

    /// Answers messages until `exit` (status 0 after `shutdown`, 1 before, as the protocol
    /// says) or the end of the stream.
    fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> io::Result<ExitCode> {
        loop {
            let message = match transport::read(input)? {
                Incoming::Message(message) => message,
                Incoming::End => return Ok(ExitCode::from(u8::from(!self.shut_down))),
                Incoming::Malformed(why) => {
                    let text = format!("tessera lsp could not read a message: {why}");
                    let code = ErrorCode::ParseError as i32;
                    transport::write_unanswerable(output, Value::Null, code, &text)?;
                    continue;
                }
                Incoming::Invalid(id, why) => {
                    let text = format!("tessera lsp cannot answer this message: {why}");
                    let code = ErrorCode::InvalidRequest as i32;
                    transport::write_unanswerable(output, id, code, &text)?;
                    continue;
                }
                Incoming::Oversized(bytes) => {
                    let text = format!(
                        "tessera lsp refused a message of {bytes} bytes: it reads messages up to {} bytes",
                        transport::MAX_MESSAGE_BYTES
                    );
                    let code = ErrorCode::InvalidRequest as i32;
                    transport::write_unanswerable(output, Value::Null, code, &text)?;
                    show_error(output, text)?;
                    continue;
                }
            };
            let mut replies = Vec::new();
            let next = match message {
                Message::Request(request) => {
                    replies.push(self.request(request).into());
                    Next::Continue
                }
                Message::Notification(notification) => {
                    self.notification(notification, &mut replies)
                }
                Message::Response(_) => Next::Continue, // the server asks the client nothing
            };
            for reply in replies {
                reply.write(output)?;
            }
            if let Next::Exit(code) = next {
                return Ok(code);
            }
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let refuse = |code: ErrorCode, text: &str| {
            Response::new_err(id.clone(), code as i32, text.to_owned())
        };
        if request.method == req::Initialize::METHOD {
            if self.initialized {
                return refuse(
                    ErrorCode::InvalidRequest,
                    "the server is already initialized",
                );
            }
            // Only the options are read: lsp-types' strict parsing of the rest (a `rootUri` not
            // percent-encoded, say) must not keep the server from starting.
            self.initialized = true;
            if let Some(url) = docs_url_option(&request.params) {
                self.docs_url = Some(url);
            }
            return Response::new_ok(request.id, initialize_result());
        }
        if !self.initialized {
            return refuse(
                ErrorCode::ServerNotInitialized,
                "the first request must be `initialize`",
            );
        }
        if self.shut_down {
            return refuse(
                ErrorCode::InvalidRequest,
                "the server is shut down: only `exit` is left",
            );
        }
        match self.answer(request) {
            Ok(response) => response,
            Err(Refusal(code, text)) => refuse(code, &text),
        }
    }

    /// The requests after `initialize`: each answered from its document, or refused with why.
    fn answer(&mut self, request: Request) -> Result<Response, Refusal> {
        let id = request.id.clone();
        match request.method.as_str() {
            req::Shutdown::METHOD => {
                self.shut_down = true;
                ok(id, ())
            }
            req::HoverRequest::METHOD => {
                let params: HoverParams = extract(request)?;
                let at = &params.text_document_position_params;
                let (document, offset) = self.at(at)?;
                ok(id, answers::hover(document, offset))
            }
            req::GotoDefinition::METHOD => {
                let params: GotoDefinitionParams = extract(request)?;
                let at = &params.text_document_position_params;
                let uri = at.text_document.uri.clone();
                let (document, offset) = self.at(at)?;
                ok(
                    id,
                    answers::definition(&uri, document, offset).map(GotoDefinitionResponse::Scalar),
                )
            }
            req::Completion::METHOD => {
                let params: CompletionParams = extract(request)?;
                // Asked for (Ctrl+Space, or typing a word in VS Code), not only a `.` typed.
                let explicit = params
                    .context
                    .is_none_or(|c| c.trigger_kind != CompletionTriggerKind::TRIGGER_CHARACTER);
                let (document, offset) = self.at(&params.text_document_position)?;
                let items = answers::completions(document, offset, explicit);
                ok(id, CompletionResponse::Array(items))
            }
            req::DocumentSymbolRequest::METHOD => {
                let params: DocumentSymbolParams = extract(request)?;
                let document = self.document(&params.text_document.uri)?;
                ok(
                    id,
                    DocumentSymbolResponse::Nested(answers::symbols(document)),
                )
            }
            req::SemanticTokensFullRequest::METHOD => {
                let params: SemanticTokensParams = extract(request)?;
                let document = self.document(&params.text_document.uri)?;
                let data = answers::semantic_tokens(document);
                ok(
                    id,
                    SemanticTokens {
                        result_id: None,
                        data,
                    },
                )
            }
            req::References::METHOD => {
                let params: ReferenceParams = extract(request)?;
                let at = &params.text_document_position;
                let uri = at.text_document.uri.clone();
                let (document, offset) = self.at(at)?;
                let declaration = params.context.include_declaration;
                ok(id, edits::references(&uri, document, offset, declaration))
            }
            req::PrepareRenameRequest::METHOD => {
                let params: TextDocumentPositionParams = extract(request)?;
                let (document, offset) = self.at(&params)?;
                ok(id, edits::prepare_rename(document, offset))
            }
            req::Rename::METHOD => {
                let params: RenameParams = extract(request)?;
                let at = &params.text_document_position;
                let uri = at.text_document.uri.clone();
                let (document, offset) = self.at(at)?;
                match edits::rename(&uri, document, offset, &params.new_name) {
                    Ok(edit) => ok(id, edit),
                    Err(why) => Err(Refusal(ErrorCode::RequestFailed, why)),
                }
            }
            req::SignatureHelpRequest::METHOD => {
                let params: SignatureHelpParams = extract(request)?;
                let (document, offset) = self.at(&params.text_document_position_params)?;
                ok(id, edits::signature_help(document, offset))
            }
            req::CodeActionRequest::METHOD => {
                let params: CodeActionParams = extract(request)?;
                let uri = params.text_document.uri.clone();
                let document = self.document(&uri)?;
                ok(id, edits::code_actions(&uri, document, params.range))
            }
            req::Formatting::METHOD => {
                let params: DocumentFormattingParams = extract(request)?;
                let document = self.document(&params.text_document.uri)?;
                ok(id, edits::formatting(document))
            }
            method => Err(Refusal(
                ErrorCode::MethodNotFound,
                format!("tessera lsp does not answer `{method}`"),
            )),
        }
    }

    fn notification(&mut self, notification: Notification, replies: &mut Vec<Message>) -> Next {
        if notification.method == note::Exit::METHOD {
            return Next::Exit(ExitCode::from(u8::from(!self.shut_down)));
        }
        if !self.initialized || self.shut_down {
            return Next::Continue; // dropped, as the protocol says
        }
        let uri = match notification.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(params) = notification
                    .extract::<DidOpenTextDocumentParams>(note::DidOpenTextDocument::METHOD)
                else {
                    return Next::Continue;
                };
                let item = params.text_document;
                self.documents
                    .insert(item.uri.clone(), Document::new(item.text, item.version));
                item.uri
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(params) = notification
                    .extract::<DidChangeTextDocumentParams>(note::DidChangeTextDocument::METHOD)
                else {
                    return Next::Continue;
                };
                let uri = params.text_document.uri;
                let Some(document) = self.documents.get_mut(&uri) else {
                    return Next::Continue; // a change to a document never opened (or refused)
                };
                document.change(params.text_document.version, params.content_changes);
                uri
            }
            note::DidCloseTextDocument::METHOD => {
                if let Ok(params) = notification
                    .extract::<DidCloseTextDocumentParams>(note::DidCloseTextDocument::METHOD)
                {
                    let uri = params.text_document.uri;
                    self.documents.remove(&uri);
                    replies.push(publish(uri, Vec::new(), None));
                }
                return Next::Continue;
            }
            _ => return Next::Continue,
        };
        if let Some(document) = self.documents.get(&uri) {
            let diagnostics = answers::diagnostics(&uri, document, self.docs_url.as_deref());
            replies.push(publish(uri, diagnostics, Some(document.version)));
        }
        Next::Continue
    }

    fn document(&self, uri: &Uri) -> Result<&Document, Refusal> {
        let document = self.documents.get(uri).ok_or_else(|| {
            Refusal(
                ErrorCode::InvalidParams,
                format!("{} is not open", uri.as_str()),
            )
        })?;
        Ok(document)
    }

    /// The document and the byte offset a request points at.
    fn at(&self, at: &TextDocumentPositionParams) -> Result<(&Document, usize), Refusal> {
        let document = self.document(&at.text_document.uri)?;
        Ok((document, document.offset(at.position)))
    }
}

struct Refusal(ErrorCode, String);

fn extract<P: serde::de::DeserializeOwned>(request: Request) -> Result<P, Refusal> {
    let method = request.method.clone();
    request
        .extract(&method)
        .map(|(_, params)| params)
        .map_err(|error| Refusal(ErrorCode::InvalidParams, error.to_string()))
}

fn ok(id: RequestId, result: impl serde::Serialize) -> Result<Response, Refusal> {
    serde_json::to_value(result)
        .map(|value| Response {
            id,
            response_result: Ok(value),
        })
        .map_err(|error| Refusal(ErrorCode::InternalError, error.to_string()))
}

fn publish(uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    Notification::new(note::PublishDiagnostics::METHOD.to_owned(), params).into()
}

fn show_error(output: &mut impl Write, message: String) -> io::Result<()> {
    let params = ShowMessageParams {
        typ: MessageType::ERROR,
        message,
    };
    let notification = Notification::new(note::ShowMessage::METHOD.to_owned(), params);
    Message::from(notification).write(output)
}

/// `initializationOptions: { "docsUrl": "…" }`: where the error index is (the extension's
/// `tessera.docsUrl` setting).
fn docs_url_option(params: &Value) -> Option<String> {
    let url = params
        .get("initializationOptions")?
        .get("docsUrl")?
        .as_str()?;
    (!url.is_empty()).then(|| url.to_owned())
}

fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(PositionEncodingKind::UTF16),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    ..TextDocumentSyncOptions::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec![".".to_owned()]),
                ..CompletionOptions::default()
            }),
            definition_provider: Some(OneOf::Left(true)),
            references_provider: Some(OneOf::Left(true)),
            rename_provider: Some(OneOf::Right(RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })),
            signature_help_provider: Some(SignatureHelpOptions {
                trigger_characters: Some(vec!["(".to_owned(), ",".to_owned()]),
                retrigger_characters: None,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            }),
            code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
            document_formatting_provider: Some(OneOf::Left(true)),
            document_symbol_provider: Some(OneOf::Left(true)),
            semantic_tokens_provider: Some(
                SemanticTokensServerCapabilities::SemanticTokensOptions(SemanticTokensOptions {
                    legend: answers::legend(),
                    full: Some(SemanticTokensFullOptions::Bool(true)),
                    range: None,
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
            ),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "tessera".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }),
    }
}
