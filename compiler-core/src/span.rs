//! Byte spans into the source, and their conversion to lines and columns.
//!
//! In: byte offsets. Out: 1-based lines and columns (in characters) for people, at the edges.
//! Invariant: every span the compiler hands out lies inside its source and on `char`
//! boundaries; only renderers convert spans to lines and columns.

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
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(at, _)| at + 1))
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
}
