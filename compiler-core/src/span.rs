//! Byte spans into the source, and their conversion to lines and columns.
//!
//! In: byte offsets. Out: 1-based lines and columns (in characters) for people, at the edges;
//! UTF-16 code units for JavaScript's strings ([`Utf16`], the playground's editor) and for the
//! Language Server Protocol (0-based lines and UTF-16 columns, [`LineIndex::utf16_position`]).
//! Invariant: every span the compiler hands out lies inside its source and on `char`
//! boundaries; only renderers and editors convert spans to lines and columns.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A half-open byte range `start..end` of the source.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// An empty span at `offset`, for something missing there.
    pub const fn empty(offset: usize) -> Self {
        Self::new(offset, offset)
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    pub fn contains(self, offset: usize) -> bool {
        self.start <= offset && offset < self.end.max(self.start + 1)
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The first line of the text the span covers in `source` (empty outside it): how a
    /// statement or an access is named in one line.
    pub fn first_line(self, source: &str) -> &str {
        source
            .get(self.range())
            .and_then(|text| text.lines().next())
            .unwrap_or("")
    }
}

/// Whether byte `at` is a carriage return not followed by a line feed: a line ending of its
/// own to editors and the Language Server Protocol, refused by the compiler (E0109).
pub fn ends_line_alone(bytes: &[u8], at: usize) -> bool {
    bytes.get(at) == Some(&b'\r') && bytes.get(at + 1) != Some(&b'\n')
}

/// Where each line starts, to turn byte offsets into line and column numbers.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

/// A 1-based line and column; the column counts characters, not bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineColumn {
    pub line: usize,
    pub column: usize,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        // A lone `\r` ends a line too, as editors and the Language Server Protocol count lines
        // (the compiler refuses such a source, E0109, at the line it ends).
        let bytes = source.as_bytes();
        let line_starts = std::iter::once(0)
            .chain(
                (0..bytes.len())
                    .filter(|&at| bytes[at] == b'\n' || ends_line_alone(bytes, at))
                    .map(|at| at + 1),
            )
            .collect();
        Self { line_starts }
    }

    /// The 0-based line holding `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    pub fn line_column(&self, source: &str, offset: usize) -> LineColumn {
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let column = source
            .get(start..offset.min(source.len()))
            .map_or(0, |text| text.chars().count());
        LineColumn {
            line: line + 1,
            column: column + 1,
        }
    }

    /// The text of the 0-based `line`, without its line break.
    pub fn line_text<'a>(&self, source: &'a str, line: usize) -> &'a str {
        let start = self.line_starts.get(line).copied().unwrap_or(source.len());
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(source.len(), |next| next - 1);
        source
            .get(start..end.max(start))
            .unwrap_or("")
            .trim_end_matches('\r')
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts.get(line).copied().unwrap_or(0)
    }

    /// Byte `offset` as the Language Server Protocol counts it: the 0-based line, and the
    /// UTF-16 code units before it on that line.
    pub fn utf16_position(&self, source: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1; // inside a character: where it starts
        }
        let line = self.line_of(offset);
        let before = source.get(self.line_starts[line]..offset).unwrap_or("");
        (line as u32, before.encode_utf16().count() as u32)
    }

    /// The byte offset of a protocol position. As the protocol asks, a column past the line's
    /// end is its end (before the line break), and a line past the last is the source's end;
    /// a column inside a surrogate pair is the character's start.
    pub fn offset_of_utf16(&self, source: &str, line: u32, column: u32) -> usize {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return source.len();
        };
        start + Utf16::new(self.line_text(source, line as usize)).byte(column)
    }
}

/// Offsets into one text, as UTF-8 bytes (the compiler's) and as UTF-16 code units (every
/// JavaScript string's, so CodeMirror's).
pub struct Utf16<'t> {
    text: &'t str,
    /// For a text that is not ASCII: the UTF-16 offset of each byte offset.
    units: Option<Vec<u32>>,
}

impl<'t> Utf16<'t> {
    pub fn new(text: &'t str) -> Self {
        let units = (!text.is_ascii()).then(|| {
            let mut units = Vec::with_capacity(text.len() + 1);
            let mut at = 0u32;
            for c in text.chars() {
                units.extend(std::iter::repeat_n(at, c.len_utf8()));
                at += c.len_utf16() as u32;
            }
            units.push(at);
            units
        });
        Self { text, units }
    }

    /// The UTF-16 offset of byte `byte` (clamped to the text).
    pub fn unit(&self, byte: usize) -> u32 {
        let byte = byte.min(self.text.len());
        match &self.units {
            None => byte as u32,
            Some(units) => units[byte],
        }
    }

    /// The byte offset of UTF-16 offset `unit` (clamped; inside a character, its start).
    pub fn byte(&self, unit: u32) -> usize {
        let Some(units) = &self.units else {
            return (unit as usize).min(self.text.len());
        };
        let at = units.partition_point(|&u| u < unit).min(self.text.len());
        if at == self.text.len() || units[at] == unit {
            return at;
        }
        // Between the units of one character: back to where it starts.
        let mut start = at.saturating_sub(1);
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_and_lines_start_at_one() {
        let source = "ab\nçd x\n";
        let index = LineIndex::new(source);
        assert_eq!(
            index.line_column(source, 0),
            LineColumn { line: 1, column: 1 }
        );
        let x = source.find('x').unwrap_or(0);
        assert_eq!(
            index.line_column(source, x),
            LineColumn { line: 2, column: 4 }
        );
        assert_eq!(index.line_text(source, 1), "çd x");
        assert_eq!(index.line_column(source, source.len()).line, 3);
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_as_editors_show_it() {
        let source = "a\rb\r\nc\nd";
        let index = LineIndex::new(source);
        let lines: Vec<&str> = (0..4).map(|l| index.line_text(source, l)).collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        let d = source.find('d').unwrap_or(0);
        assert_eq!(index.utf16_position(source, d), (3, 0));
    }

    #[test]
    fn protocol_positions_count_utf16_units_from_zero() {
        // `𝑥` is 4 bytes and a surrogate pair (2 units); `ç` 2 bytes and 1 unit.
        let source = "ab\r\nç𝑥 y\nlast";
        let index = LineIndex::new(source);
        let y = source.find('y').unwrap_or(0);
        assert_eq!(index.utf16_position(source, y), (1, 4));
        assert_eq!(index.offset_of_utf16(source, 1, 4), y);
        // Inside the pair: the character's start; past the line: its end, before `\r\n`.
        assert_eq!(
            index.offset_of_utf16(source, 1, 2),
            source.find('𝑥').unwrap_or(0)
        );
        assert_eq!(index.offset_of_utf16(source, 0, 40), 2);
        assert_eq!(index.offset_of_utf16(source, 9, 0), source.len());
        assert_eq!(index.utf16_position(source, source.len()), (2, 4));
        let inside_pair = source.find('𝑥').unwrap_or(0) + 2;
        assert_eq!(index.utf16_position(source, inside_pair), (1, 1));
    }

    #[test]
    fn offsets_cross_between_bytes_and_utf16_units() {
        let ascii = Utf16::new("kernel k() {}");
        assert_eq!((ascii.unit(7), ascii.byte(7)), (7, 7));
        // `ç` is 2 bytes and 1 unit; `𝑥` is 4 bytes and 2 units.
        let text = "ab\nçd 𝑥 y";
        let offsets = Utf16::new(text);
        let y = text.find('y').unwrap_or(0);
        assert_eq!(y, 12);
        assert_eq!(offsets.unit(y), 9);
        assert_eq!(offsets.byte(9), y);
        assert_eq!(offsets.byte(4), text.find('d').unwrap_or(0));
        // Inside `𝑥`'s surrogate pair: the character's start.
        assert_eq!(offsets.byte(7), text.find('𝑥').unwrap_or(0));
        assert_eq!(offsets.unit(text.len()), 10);
        assert_eq!(offsets.byte(99), text.len());
    }
}
