//! `tessera lsp` through the real protocol: the binary started as an editor starts it, JSON-RPC
//! over its stdin and stdout, every answer read back as JSON.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

const URI: &str = "file:///work/k.tsr";

/// An editor's side of the pipe.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Notifications read while waiting for a response.
    notifications: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(["lsp", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("tessera lsp did not start: {e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (send, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            while let Some(message) = read_message(&mut stdout) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            messages,
            notifications: Vec::new(),
            next_id: 1,
        }
    }

    fn send_raw(&mut self, body: &[u8]) {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        let written = self
            .stdin
            .write_all(header.as_bytes())
            .and_then(|()| self.stdin.write_all(body))
            .and_then(|()| self.stdin.flush());
        written.unwrap_or_else(|e| panic!("writing to the server: {e}"));
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn next(&mut self) -> Value {
        match self.messages.recv_timeout(Duration::from_secs(20)) {
            Ok(message) => message,
            Err(e) => panic!("no message from the server in 20 s: {e}"),
        }
    }

    /// Sends a request and waits for its response (the whole response, `result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            if message["id"] == json!(id) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// The next `textDocument/publishDiagnostics`.
    fn diagnostics(&mut self) -> Value {
        if let Some(at) = self
            .notifications
            .iter()
            .position(|n| n["method"] == "textDocument/publishDiagnostics")
        {
            return self.notifications.remove(at)["params"].clone();
        }
        loop {
            let message = self.next();
            if message["method"] == "textDocument/publishDiagnostics" {
                return message["params"].clone();
            }
        }
    }

    fn initialize(&mut self) -> Value {
        // A root not percent-encoded, as some clients send it: not a reason to refuse.
        let result = self.result(
            "initialize",
            json!({"processId": null, "rootUri": "file:///home/josé/my kernels", "capabilities": {},
                   "initializationOptions": {"docsUrl": "https://tessera.example/"}}),
        );
        self.notify("initialized", json!({}));
        result
    }

    fn open(&mut self, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": URI, "languageId": "tessera", "version": 1, "text": text}}),
        );
        self.diagnostics()
    }

    /// Replaces `line`'s UTF-16 columns `from..to` with `text`, as version `version`.
    fn edit(&mut self, version: i32, line: u32, (from, to): (u32, u32), text: &str) {
        let range = json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}});
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version},
                   "contentChanges": [{"range": range, "text": text}]}),
        );
    }

    /// The document's semantic tokens, as the protocol's flat list of numbers.
    fn tokens(&mut self) -> Vec<u64> {
        let tokens = self.result(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": URI}}),
        );
        tokens["data"]
            .as_array()
            .map(|d| d.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default()
    }

    fn at(line: u32, character: u32) -> Value {
        json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}})
    }

    /// `shutdown`, then `exit`: the server's exit status.
    fn stop(mut self) -> Option<i32> {
        assert_eq!(self.result("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.wait()
    }

    fn wait(mut self) -> Option<i32> {
        for _ in 0..200 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the server did not exit within 10 s");
    }
}

fn read_message(input: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A kernel with an error: `k` is not defined (E0201), and `N` is similar.
const BROKEN: &str = "@launch(64)\nkernel scale(X: tensor<f32>[N]) {\n  let x = ctx.thread\n  X[x] = abs(X[k]) * 2.0\n}\n";

fn labels(items: &Value) -> Vec<String> {
    let items = items.as_array().cloned().unwrap_or_default();
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn a_session_opens_a_broken_kernel_fixes_it_and_asks_about_it() {
    let mut client = Client::start();
    let init = client.initialize();
    let capabilities = &init["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16");
    assert_eq!(capabilities["textDocumentSync"]["change"], 2, "incremental");
    assert_eq!(init["serverInfo"]["name"], "tessera");
    let legend = capabilities["semanticTokensProvider"]["legend"]["tokenTypes"].clone();

    // The error: code, range, the error index's address, the labels and the help.
    let published = client.open(BROKEN);
    assert_eq!(published["version"], 1);
    let diagnostics = published["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(diagnostics.len(), 1, "{published}");
    let error = &diagnostics[0];
    assert_eq!(error["code"], "E0201");
    assert_eq!(error["severity"], 1);
    assert_eq!(error["message"], "`k` is not defined");
    assert_eq!(
        error["range"],
        json!({"start": {"line": 3, "character": 15}, "end": {"line": 3, "character": 16}})
    );
    assert_eq!(
        error["codeDescription"]["href"],
        "https://tessera.example/docs/errors#E0201"
    );
    let related: Vec<&str> = error["relatedInformation"]
        .as_array()
        .map(|r| r.iter().filter_map(|i| i["message"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        related,
        ["not defined here", "help: a name in scope is similar: `N`"]
    );

    // An incremental change: `k` becomes `x`, and the diagnostics clear.
    client.edit(2, 3, (15, 16), "x");
    let published = client.diagnostics();
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"], json!([]));

    // Hover on `x` in `X[x]`: its type and uniformity, and its range.
    let hover = client.result("textDocument/hover", Client::at(3, 4));
    assert_eq!(hover["contents"]["value"], "x: i32 · varying");
    assert_eq!(hover["range"]["start"], json!({"line": 3, "character": 4}));
    // On a built-in's name, what it does; on punctuation, nothing.
    let hover = client.result("textDocument/hover", Client::at(3, 9));
    let abs = compiler_core::syntax::builtins::describe("abs");
    assert_eq!(hover["contents"]["value"].as_str(), abs);
    let hover = client.result("textDocument/hover", Client::at(0, 0));
    assert_eq!(hover, Value::Null);

    // Go to definition: `x` to its `let`, `X` to the parameter.
    let found = client.result("textDocument/definition", Client::at(3, 4));
    assert_eq!(found["uri"], URI);
    assert_eq!(found["range"]["start"], json!({"line": 2, "character": 6}));
    let found = client.result("textDocument/definition", Client::at(3, 2));
    assert_eq!(found["range"]["start"], json!({"line": 1, "character": 13}));

    // Completion after `ctx.`: the eight fields, each replacing the begun word.
    client.edit(3, 2, (14, 20), "th");
    let _ = client.diagnostics();
    let items = client.result(
        "textDocument/completion",
        json!({"textDocument": {"uri": URI}, "position": {"line": 2, "character": 16},
               "context": {"triggerKind": 1}}),
    );
    assert_eq!(
        labels(&items),
        ["blocks", "block", "threads", "warps", "lanes", "warp", "thread", "lane"]
    );
    let edit = &items[6]["textEdit"];
    assert_eq!(
        edit["range"],
        json!({"start": {"line": 2, "character": 14}, "end": {"line": 2, "character": 16}})
    );
    assert_eq!(
        items[6]["detail"],
        "this thread's index in the CTA · varying"
    );
    // A begun word: names in scope, built-ins, keywords, types.
    let items = client.result("textDocument/completion", Client::at(3, 3));
    let names = labels(&items);
    for expected in ["X", "N", "x", "shuffle_xor", "kernel", "f32"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not offered: {names:?}"
        );
    }

    // The outline: the kernel with its parameter.
    let symbols = client.result(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(symbols[0]["name"], "scale");
    assert_eq!(symbols[0]["detail"], "kernel · @launch(64)");
    assert_eq!(
        symbols[0]["selectionRange"]["start"],
        json!({"line": 1, "character": 7})
    );
    assert_eq!(symbols[0]["children"][0]["name"], "X");
    assert_eq!(symbols[0]["children"][0]["detail"], "tensor<f32>[N]");

    // Semantic tokens: `@` and `launch` first, decorators at 0:0 and 0:1; `kernel` a keyword
    // on line 1.
    let data = client.tokens();
    let type_of = |index: u64| legend[index as usize].as_str().unwrap_or("").to_owned();
    assert_eq!(&data[..3], &[0, 0, 1]);
    assert_eq!(&data[5..8], &[0, 1, 6]);
    assert_eq!(
        (type_of(data[3]), type_of(data[8])),
        ("decorator".into(), "decorator".into())
    );
    let kernel = data.chunks(5).position(|t| t[0] == 1).unwrap_or(0);
    assert_eq!(&data[kernel * 5..kernel * 5 + 3], &[1, 0, 6]);
    assert_eq!(type_of(data[kernel * 5 + 3]), "keyword");

    // Closing clears the document's diagnostics.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(client.diagnostics()["diagnostics"], json!([]));
    assert_eq!(client.stop(), Some(0));
}

#[test]
fn positions_count_utf16_units_past_a_surrogate_pair() {
    let mut client = Client::start();
    client.initialize();
    // `𝑥` is one character, four bytes, two UTF-16 units: `y` starts at unit 9 of line 2.
    let text =
        "@launch(32)\nkernel k(X: tensor<f32>[N]) {\n  /*𝑥*/ let y = ctx.thred\n  X[y] = 1.0\n}\n";
    let published = client.open(text);
    let error = &published["diagnostics"][0];
    assert_eq!(
        error["range"]["start"],
        json!({"line": 2, "character": 21}),
        "{published}"
    );
    let hover = client.result("textDocument/hover", Client::at(2, 13));
    assert_eq!(hover["range"]["start"], json!({"line": 2, "character": 13}));
    // An edit after the pair, in UTF-16 columns: `thred` becomes `thread`.
    client.edit(2, 2, (21, 26), "thread");
    assert_eq!(client.diagnostics()["diagnostics"], json!([]));
    let hover = client.result("textDocument/hover", Client::at(2, 13));
    assert_eq!(hover["contents"]["value"], "y: i32 · varying");
    let found = client.result("textDocument/definition", Client::at(3, 4));
    assert_eq!(
        found["range"],
        json!({"start": {"line": 2, "character": 13}, "end": {"line": 2, "character": 14}})
    );
    assert_eq!(client.stop(), Some(0));
}

#[test]
fn a_comment_over_two_lines_is_two_tokens() {
    let mut client = Client::start();
    client.initialize();
    client.open("/* one\r\n   two */ kernel k() {}\n");
    let data = client.tokens();
    // Line 0 from 0, 6 units (not the `\r`); line 1 from 0, 9; then `kernel` at 1:10.
    assert_eq!(&data[..3], &[0, 0, 6]);
    assert_eq!(&data[5..8], &[1, 0, 9]);
    assert_eq!(&data[10..13], &[0, 10, 6]);
    // A change without a range replaces the whole text.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "@launch(32)\nkernel k() { y }"}]}),
    );
    let published = client.diagnostics();
    assert_eq!(published["diagnostics"][0]["message"], "`y` is not defined");
    assert_eq!(client.stop(), Some(0));
}

#[test]
fn a_program_outlines_its_kernels_and_itself_and_a_launch_leads_to_its_kernel() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/programs/grid_sum.tsr"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut client = Client::start();
    client.initialize();
    assert_eq!(client.open(&text)["diagnostics"], json!([]));
    let symbols = client.result(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let outline: Vec<(&str, &str)> = symbols
        .as_array()
        .map(|s| {
            s.iter()
                .map(|s| {
                    (
                        s["name"].as_str().unwrap_or(""),
                        s["detail"].as_str().unwrap_or(""),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        outline,
        [
            ("partial_sums", "kernel · @launch(256)"),
            ("total", "kernel · @launch(256)"),
            ("grid_sum", "program")
        ]
    );
    // `launch total(…)` on line 34 (0-based 33) leads to `kernel total` on line 18, and
    // shows its signature.
    let found = client.result("textDocument/definition", Client::at(33, 10));
    assert_eq!(found["range"]["start"], json!({"line": 17, "character": 7}));
    let hover = client.result("textDocument/hover", Client::at(33, 10));
    assert_eq!(
        hover["contents"]["value"],
        "kernel total(Partial: tensor<f32>[P], Out: tensor<f32>[1]) · @launch(256)"
    );
    // An argument of a launch is no kernel: the temporary `Partial` leads to its `let` on
    // line 32, and says what it is.
    let found = client.result("textDocument/definition", Client::at(33, 15));
    assert_eq!(found["range"]["start"], json!({"line": 31, "character": 6}));
    let hover = client.result("textDocument/hover", Client::at(33, 15));
    assert_eq!(
        hover["contents"]["value"],
        "Partial: tensor<f32>[min(ceil(N / 256), 1024)] · a temporary of grid_sum"
    );
    // `Out`, the program's parameter.
    let found = client.result("textDocument/definition", Client::at(33, 24));
    assert_eq!(
        found["range"]["start"],
        json!({"line": 30, "character": 36})
    );
    assert_eq!(client.stop(), Some(0));
}

#[test]
fn bad_messages_get_errors_and_the_server_goes_on() {
    let mut client = Client::start();
    // Before `initialize`, a request is refused.
    let early = client.request("textDocument/hover", Client::at(0, 0));
    assert_eq!(early["error"]["code"], -32002);
    client.initialize();

    // Not JSON: a parse error with a null id.
    client.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\"");
    let reply = client.next();
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], Value::Null);
    // An id no integer of 32 bits or string holds: refused, with the id as sent.
    client.send_raw(br#"{"jsonrpc": "2.0", "id": 2147483648, "method": "shutdown"}"#);
    let reply = client.next();
    assert_eq!(
        (reply["error"]["code"].clone(), reply["id"].clone()),
        (json!(-32600), json!(2147483648_u64))
    );
    // An unknown method, and parameters of the wrong shape.
    assert_eq!(
        client.request("textDocument/inlayHint", json!({}))["error"]["code"],
        -32601
    );
    assert_eq!(
        client.request("textDocument/hover", json!({"position": 3}))["error"]["code"],
        -32602
    );
    // A document that was never opened.
    assert_eq!(
        client.request("textDocument/hover", Client::at(0, 0))["error"]["code"],
        -32602
    );

    // A document over the compiler's 1 MiB: the compiler's own diagnostic, and no answers.
    let big = format!("kernel k() {{}}\n{}", "// padding\n".repeat(100_000));
    let published = client.open(&big);
    assert_eq!(published["diagnostics"][0]["code"], "E0106", "{published}");
    // Empty answers, not errors (which an editor shows as a failure at every hover).
    assert_eq!(
        client.result("textDocument/hover", Client::at(0, 8)),
        Value::Null
    );
    assert_eq!(
        client.result("textDocument/completion", Client::at(0, 8)),
        json!([])
    );
    assert_eq!(client.tokens(), Vec::<u64>::new());

    // Still answering after all of it.
    let symbols = client.result(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    assert!(symbols.is_array());
    assert_eq!(client.stop(), Some(0));
}

#[test]
fn exit_without_shutdown_is_status_1_and_a_broken_stream_ends_cleanly() {
    let mut client = Client::start();
    client.initialize();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), Some(1));

    let mut client = Client::start();
    let written = client
        .stdin
        .write_all(b"Content-Length nonsense\r\n\r\n")
        .and_then(|()| client.stdin.flush());
    written.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(client.wait(), Some(1));
}

/// Issue 52: without a docs address (no `--docs-url`, no `docsUrl` option) a diagnostic's code
/// links nowhere, where it had linked to http://127.0.0.1:8080, dead unless the site is served
/// there; `tessera explain CODE` prints the entry instead.
#[test]
fn without_a_docs_address_codes_link_nowhere() {
    let mut client = Client::start();
    client.result(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    client.notify("initialized", json!({}));
    let published = client.open(BROKEN);
    let error = &published["diagnostics"][0];
    assert_eq!(error["code"], "E0201");
    assert!(error.get("codeDescription").is_none(), "{error}");
}

/// Two errors in different phases of one kernel: a ctx field misspelt (syntax) and a barrier
/// under varying control (uniformity), both published at once.
const TWO_PHASES: &str = "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  let i = ctx.threadz\n  if ctx.thread < 3 {\n    barrier()\n  }\n  X[ctx.thread] = fmaf(1.0, 2.0, 3.0)\n}\n";

#[test]
fn every_phase_is_published_and_quick_fixes_rename_references_signatures_and_format_answer() {
    let mut client = Client::start();
    let init = client.initialize();
    let capabilities = &init["capabilities"];
    for provider in [
        "referencesProvider",
        "renameProvider",
        "signatureHelpProvider",
        "codeActionProvider",
        "documentFormattingProvider",
    ] {
        assert!(
            !capabilities[provider].is_null(),
            "{provider} missing: {capabilities}"
        );
    }
    let published = client.open(TWO_PHASES);
    let codes: Vec<&str> = published["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["code"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(codes, ["E0112", "E0401", "E0206"], "{published}");

    // Quick fixes over the whole document: `threadz` → `thread`, `fmaf` → `fma`; none for
    // the barrier, whose help is not an edit.
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 8, "character": 0}});
    let actions = client.result(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": whole, "context": {"diagnostics": []}}),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .map(|a| a.iter().filter_map(|a| a["title"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        titles,
        ["Write `thread` for `threadz`", "Write `fma` for `fmaf`"]
    );
    let edit = &actions[0]["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "thread");
    assert_eq!(
        edit["range"],
        json!({"start": {"line": 2, "character": 14}, "end": {"line": 2, "character": 21}})
    );
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["diagnostics"][0]["code"], "E0112");

    // Signature help inside `fmaf`'s fix, `fma(1.0, 2.0, |3.0)`: the third parameter.
    client.edit(2, 6, (18, 22), "fma");
    assert_eq!(client.diagnostics()["version"], 2);
    client.edit(3, 2, (14, 21), "thread");
    let published = client.diagnostics();
    assert_eq!(published["version"], 3);
    let codes: Vec<&str> = published["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["code"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(codes, ["E0401"], "the fixes applied: {published}");
    let help = client.result("textDocument/signatureHelp", Client::at(6, 31));
    assert_eq!(help["signatures"][0]["label"], "fma(a, b, c)");
    assert_eq!(help["activeParameter"], 2);
    assert_eq!(
        help["signatures"][0]["parameters"][2]["label"],
        json!([10, 11])
    );
    let none = client.result("textDocument/signatureHelp", Client::at(2, 10));
    assert_eq!(none, Value::Null);

    // `X`: the parameter (line 2) and its use (line 7).
    let refs = client.result(
        "textDocument/references",
        json!({"textDocument": {"uri": URI}, "position": {"line": 6, "character": 2},
               "context": {"includeDeclaration": true}}),
    );
    let lines: Vec<u64> = refs
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|l| l["range"]["start"]["line"].as_u64())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(lines, [1, 6]);

    // Rename `X` to `Out`: both places; a clash with `N` is refused with why.
    let prepared = client.result("textDocument/prepareRename", Client::at(6, 2));
    assert_eq!(prepared["start"], json!({"line": 6, "character": 2}));
    let renamed = client.result(
        "textDocument/rename",
        json!({"textDocument": {"uri": URI}, "position": {"line": 6, "character": 2}, "newName": "Out"}),
    );
    assert_eq!(renamed["changes"][URI].as_array().map(Vec::len), Some(2));
    let refused = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": URI}, "position": {"line": 6, "character": 2}, "newName": "N"}),
    );
    let why = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(why.contains("would clash"), "{refused}");
    let ctx = client.result("textDocument/prepareRename", Client::at(6, 8));
    assert_eq!(ctx, Value::Null);

    // Formatting: one edit of the whole text, which formats to itself.
    client.edit(4, 2, (0, 2), "      ");
    client.diagnostics();
    let edits = client.result(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let text = edits[0]["newText"].as_str().unwrap_or_default();
    assert!(text.contains("\n  let i = ctx.thread\n"), "{text}");
    assert_eq!(compiler_core::format(text).ok().as_deref(), Some(text));
    assert_eq!(client.stop(), Some(0));
}
