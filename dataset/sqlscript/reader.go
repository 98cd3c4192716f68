package sqlscript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/workload/sqltext"
)

// Kind is the kind of a script's item.
type Kind int

// The kinds of items.
const (
	// Statement is SQL to run.
	Statement Kind = iota
	// Copy is a COPY … FROM stdin statement; its data follows (Reader.Data).
	Copy
	// Connect is \connect (\c): a new session; Arg is the database named.
	Connect
	// Restrict and Unrestrict are pg_dump's \restrict KEY and \unrestrict
	// KEY, which keep psql from running meta-commands smuggled into the
	// data between them; Arg is the key.
	Restrict
	Unrestrict
)

// Item is one thing a script does, beginning on Line.
type Item struct {
	Kind Kind
	Line int
	// SQL is the statement (Statement, Copy).
	SQL string
	// Arg is the meta-command's argument.
	Arg string
}

// Error is a problem of a script at a line: "dump.sql:120: …".
type Error struct {
	File string
	Line int
	Err  error
}

// Error names the file and the line.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns the problem.
func (e *Error) Unwrap() error { return e.Err }

// maxLine is the longest line a Reader takes (a COPY row or a statement's
// line): 1 GB, PostgreSQL's largest field.
const maxLine = 1 << 30

// Reader reads a script item by item.
type Reader struct {
	r     *bufio.Reader
	file  string
	line  int // lines read
	split splitter
	queue []Item
	// copyOpen is set while a Copy item's data has not been read to its
	// \. line; copyLine is where the COPY began.
	copyOpen bool
	copyLine int
	restrict string
	eof      bool
}

// NewReader reads a script from r; file names it in errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 256<<10), file: file}
}

// errorf returns an error at line n.
func (r *Reader) errorf(n int, format string, args ...any) error {
	return &Error{File: r.file, Line: n, Err: fmt.Errorf(format, args...)}
}

// readLine returns the next line with its newline ("" and io.EOF at the
// end).
func (r *Reader) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > maxLine {
			return "", r.errorf(r.line+1, "a line longer than %d bytes", maxLine)
		}
		switch {
		case err == nil:
			r.line++
			return string(b), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(b) > 0:
			r.line++
			return string(b), nil
		case errors.Is(err, io.EOF):
			return "", io.EOF
		default:
			return "", fmt.Errorf("read %s: %w", r.file, err)
		}
	}
}

// Next returns the next item, io.EOF after the last. The data of a Copy
// item not read through Data is skipped.
func (r *Reader) Next() (Item, error) {
	if r.copyOpen {
		if _, err := io.Copy(io.Discard, r.Data()); err != nil {
			return Item{}, err
		}
	}
	for len(r.queue) == 0 {
		if r.eof {
			return Item{}, io.EOF
		}
		if err := r.fill(); err != nil {
			return Item{}, err
		}
	}
	it := r.queue[0]
	r.queue = r.queue[1:]
	if it.Kind == Copy {
		r.copyOpen, r.copyLine = true, it.Line
	}
	return it, nil
}

// fill reads one line into the queue of items.
func (r *Reader) fill() error {
	line, err := r.readLine()
	if errors.Is(err, io.EOF) {
		r.eof = true
		return r.atEOF()
	}
	if err != nil {
		return err
	}
	n := r.line
	if !r.split.pending() && !r.split.inQuote() {
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, `\`) {
			return r.meta(strings.TrimRight(t, "\r\n"), n)
		}
	}
	stmts, lines := r.split.feed(line, n)
	for k, sql := range stmts {
		it := Item{Kind: Statement, Line: lines[k], SQL: sql}
		if sqltext.IsCopyFromStdin(sql) {
			it.Kind = Copy
			if k != len(stmts)-1 || r.split.pending() {
				return r.errorf(n, "a statement after COPY … FROM stdin on its line: its data must begin on the next line")
			}
		}
		r.queue = append(r.queue, it)
	}
	return nil
}

// atEOF handles the end of the script: a statement without its semicolon
// is run (as psql does); one inside a quote or comment is an error.
func (r *Reader) atEOF() error {
	if r.split.inQuote() {
		return r.errorf(r.split.quoteLine, "the file ends inside %s begun here", r.split.quoteName())
	}
	if r.split.pending() {
		sql, line := r.split.rest(), r.split.line
		r.split.reset()
		kind := Statement
		if sqltext.IsCopyFromStdin(sql) {
			return r.errorf(line, "COPY … FROM stdin at the end of the file, without its data")
		}
		r.queue = append(r.queue, Item{Kind: kind, Line: line, SQL: sql})
	}
	return nil
}

// meta reads a meta-command line.
func (r *Reader) meta(text string, n int) error {
	cmd, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	if r.restrict != "" && cmd != `\unrestrict` {
		return r.errorf(n, "%s inside \\restrict: the script may run no meta-command but \\unrestrict here", cmd)
	}
	switch cmd {
	case `\connect`, `\c`:
		db, _, _ := strings.Cut(arg, " ")
		r.queue = append(r.queue, Item{Kind: Connect, Line: n, Arg: strings.Trim(db, `"'`)})
	case `\restrict`:
		if arg == "" {
			return r.errorf(n, "\\restrict without its key")
		}
		r.restrict = arg
		r.queue = append(r.queue, Item{Kind: Restrict, Line: n, Arg: arg})
	case `\unrestrict`:
		if r.restrict == "" || arg != r.restrict {
			return r.errorf(n, "\\unrestrict with a key that no \\restrict before it gave")
		}
		r.restrict = ""
		r.queue = append(r.queue, Item{Kind: Unrestrict, Line: n, Arg: arg})
	case `\.`:
		return r.errorf(n, "\\. outside COPY data")
	default:
		return r.errorf(n, "psql meta-command %s: pglab runs the SQL of plain dumps and scripts, with \\connect, \\restrict and \\unrestrict only", cmd)
	}
	return nil
}

// Data returns the data of the Copy item Next just returned: its lines,
// newlines included, up to the \. line (not included). Read it to its end
// before calling Next again, or Next skips what is left.
func (r *Reader) Data() io.Reader {
	return &copyData{r: r}
}

// copyData reads a COPY's data lines.
type copyData struct {
	r    *Reader
	line string
}

// Read returns data lines until the \. line.
func (d *copyData) Read(p []byte) (int, error) {
	if !d.r.copyOpen {
		return 0, io.EOF
	}
	for d.line == "" {
		line, err := d.r.readLine()
		if errors.Is(err, io.EOF) {
			return 0, d.r.errorf(d.r.copyLine, "the file ends inside the data of this COPY (no \\. line)")
		}
		if err != nil {
			return 0, err
		}
		if strings.TrimRight(line, "\r\n") == `\.` {
			d.r.copyOpen = false
			return 0, io.EOF
		}
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		d.line = line
	}
	n := copy(p, d.line)
	d.line = d.line[n:]
	return n, nil
}

// CopyLine returns the line on which the open COPY's data begins.
func (r *Reader) CopyLine() int { return r.copyLine + 1 }

// Summary is what a script holds, as Check counts it.
type Summary struct {
	Statements int
	Copies     int
	CopyRows   int64
	Connects   int
}

// Check reads a whole script without running it: its items, its COPY
// data and its meta-commands. A script that Check accepts can still fail
// on a server; one it refuses never reaches one.
func Check(r io.Reader, file string) (Summary, error) {
	var sum Summary
	rd := NewReader(r, file)
	for {
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if rd.restrict != "" {
				return sum, rd.errorf(rd.line, "the file ends inside \\restrict (no \\unrestrict)")
			}
			return sum, nil
		}
		if err != nil {
			return sum, err
		}
		switch it.Kind {
		case Statement:
			sum.Statements++
		case Copy:
			sum.Copies++
			rows, err := countLines(rd.Data())
			sum.CopyRows += rows
			if err != nil {
				return sum, err
			}
		case Connect:
			sum.Connects++
		}
	}
}

// countLines counts the newlines of r.
func countLines(r io.Reader) (int64, error) {
	var n int64
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		n += int64(strings.Count(string(buf[:k]), "\n"))
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
