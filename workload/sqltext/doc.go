// Package sqltext reads PostgreSQL SQL text at the level of its tokens,
// without a parser and without cgo: a lexer that knows PostgreSQL's quoting
// (standard strings with ” escapes, E” strings with backslash escapes,
// B”, X”, N”, U&” strings, dollar quoting, quoted identifiers, -- and
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
package sqltext
