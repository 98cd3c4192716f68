// Package sqltext reads PostgreSQL SQL text at the level of its tokens,
// without a parser and without cgo: a lexer that knows PostgreSQL's quoting
// ('…' strings with a doubled quote for a quote, E'…' strings with
// backslash escapes, B'…', X'…', N'…', U&'…' strings, dollar quoting,
// quoted identifiers, -- and
// nested /* */ comments, numeric constants including 1e5, .5, 0x1F and
// 1_000, positional parameters; where quotes and comments begin and end is
// package internal/sqllex's, shared with bench/script and
// dataset/sqlscript), and on top of it a statement's
// fingerprint (see [Normalizer.Normalize] for what it ignores), the masking
// of password constants ([RedactPasswords]) and the recognition of COPY …
// FROM STDIN ([IsCopyFromStdin]).
//
// The lexer assumes standard_conforming_strings = on (PostgreSQL's default
// since 9.1): in a server that has it off, a backslash before a quote in a
// plain '…' string ends the token at the wrong place; the fingerprint of
// such a statement is still stable but may differ from its neighbours'.
//
// Two rules of the server the lexer leaves out, so that fingerprints stay
// as they were: a string closed at the end of a line and continued by a
// quote on the next ('a' newline 'b') is two String tokens, not one; and
// numbers are its own (1abc is a number then an identifier, 1E'x' the
// number 1 then the string E'x', where PostgreSQL 16 reads 1E and 'x').
package sqltext
