//! VoxScript syntax: lexer, error-tolerant parser, lossless syntax tree, typed accessors, line index.

mod text_range;

pub use text_range::TextRange;
