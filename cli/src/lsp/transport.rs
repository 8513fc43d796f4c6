//! The protocol's framing: `Content-Length` headers, then a JSON-RPC body, over a byte stream.
//!
//! In: the client's bytes. Out: [`Incoming`] messages, one at a time. lsp-server's own reader
//! reads a body of any announced length and stops at the first bad one; this one refuses a
//! body over [`MAX_MESSAGE_BYTES`] without holding it, and reports a body that is not a
//! JSON-RPC message, so the server answers both and goes on. Only broken headers end the
//! stream: past them, where the next message starts is unknown.

use lsp_server::Message;
use std::io::{self, BufRead, Read, Write};

/// The largest message read: a document at the compiler's 1 MiB limit, as JSON, is at most
/// 6 MiB (every byte escaped as `\u00XX`); this leaves room for that and refuses the absurd.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The longest header line read before the stream is taken as broken.
const MAX_HEADER_BYTES: u64 = 4096;

pub enum Incoming {
    Message(Message),
    /// A body that is not JSON: why.
    Malformed(String),
    /// JSON that is not a message the server can answer (an id that is neither an integer nor
    /// a string, no method): its id as sent (null when none), and why.
    Invalid(serde_json::Value, String),
    /// A body over [`MAX_MESSAGE_BYTES`], skipped: its announced length.
    Oversized(usize),
    /// The client closed the stream.
    End,
}

/// Reads the next message. `Err` only when the stream itself fails or its headers are broken.
pub fn read(input: &mut impl BufRead) -> io::Result<Incoming> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.take(MAX_HEADER_BYTES).read_line(&mut line)? == 0 {
            return Ok(Incoming::End);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(broken(format!("a header line without `:`: {line:?}")));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let parsed = value.trim().parse::<usize>();
            length = Some(parsed.map_err(|_| broken(format!("Content-Length is {value:?}")))?);
        }
    }
    let length = length.ok_or_else(|| broken("a message without Content-Length".into()))?;
    if length > MAX_MESSAGE_BYTES {
        let skipped = io::copy(&mut input.take(length as u64), &mut io::sink())?;
        if skipped < length as u64 {
            return Ok(Incoming::End);
        }
        return Ok(Incoming::Oversized(length));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    let json = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(json) => json,
        Err(error) => return Ok(Incoming::Malformed(error.to_string())),
    };
    Ok(message(json))
}

/// `json` as a message. lsp-server's untagged `Message` would take a request whose id it
/// cannot hold (`1.5`, `null`, 2^31) for a notification, and the client would wait for ever.
fn message(json: serde_json::Value) -> Incoming {
    let id = json.get("id").cloned();
    let readable_id = id.as_ref().is_none_or(|id| {
        id.as_str().is_some() || id.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
    });
    if json.get("method").is_some() && !readable_id {
        let why = "a request's id must be an integer (32 bits) or a string".to_owned();
        return Incoming::Invalid(id.unwrap_or_default(), why);
    }
    match serde_json::from_value::<Message>(json) {
        Ok(message) => Incoming::Message(message),
        Err(error) => Incoming::Invalid(id.unwrap_or_default(), error.to_string()),
    }
}

fn broken(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

/// The JSON-RPC answer to a message that could not be read: an error with the id as sent, or
/// null, which lsp-server's types cannot say.
pub fn write_unanswerable(
    output: &mut impl Write,
    id: serde_json::Value,
    code: i32,
    message: &str,
) -> io::Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
    .to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn a_bad_body_and_a_huge_one_are_reported_and_the_next_message_still_read() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1);
        let stream = format!(
            "{}{huge}{}{}",
            framed("{not json"),
            " ".repeat(MAX_MESSAGE_BYTES + 1),
            framed(good)
        );
        let mut input = io::Cursor::new(stream.into_bytes());
        assert!(matches!(read(&mut input), Ok(Incoming::Malformed(_))));
        assert!(
            matches!(read(&mut input), Ok(Incoming::Oversized(n)) if n == MAX_MESSAGE_BYTES + 1)
        );
        assert!(
            matches!(read(&mut input), Ok(Incoming::Message(Message::Notification(n))) if n.method == "initialized")
        );
        assert!(matches!(read(&mut input), Ok(Incoming::End)));
    }

    #[test]
    fn a_request_whose_id_cannot_be_answered_is_invalid_not_a_notification() {
        for (body, id) in [
            (
                r#"{"jsonrpc":"2.0","id":2147483648,"method":"shutdown"}"#,
                "2147483648",
            ),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#, "1.5"),
            (r#"{"jsonrpc":"2.0","id":null,"method":"shutdown"}"#, "null"),
            (r#"{"jsonrpc":"2.0","id":3,"method":7}"#, "3"),
            (r#"[1, 2]"#, "null"),
        ] {
            let mut input = io::Cursor::new(framed(body).into_bytes());
            match read(&mut input) {
                Ok(Incoming::Invalid(sent, _)) => assert_eq!(sent.to_string(), id, "{body}"),
                _ => panic!("{body} was not taken as invalid"),
            }
        }
    }

    #[test]
    fn broken_headers_end_the_stream_with_an_error() {
        for stream in [
            "Content-Length 12\r\n\r\n",
            "Content-Length: x\r\n\r\n",
            "X: 1\r\n\r\n",
        ] {
            let mut input = io::Cursor::new(stream.as_bytes().to_vec());
            assert!(read(&mut input).is_err(), "{stream:?}");
        }
    }
}
