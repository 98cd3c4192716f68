package workload

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLine is the longest line a Reader accepts (a statement with its
// parameters).
const MaxLine = 1 << 30

// ErrNotWorkload is a file that is not a pglab workload.
var ErrNotWorkload = errors.New("not a pglab workload file (its first line is not a pglab-workload header)")

// Reader reads a workload file record by record.
type Reader struct {
	r      *bufio.Reader
	closer io.Closer
	header Header
	end    *End
	line   int
	buf    []byte
}

// Open opens a workload file.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open workload: %w", err)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.closer = f
	return r, nil
}

// NewReader reads the header of a workload file (gzip-compressed or not)
// from r and checks its format and version.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read workload: %w", err)
		}
		br = bufio.NewReaderSize(gz, 256<<10)
	}
	rd := &Reader{r: br}
	line, err := rd.readLine()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrNotWorkload
		}
		return nil, err
	}
	var probe struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Format != Format {
		return nil, ErrNotWorkload
	}
	if probe.Version != Version {
		return nil, &VersionError{Got: probe.Version}
	}
	if err := json.Unmarshal(line, &rd.header); err != nil {
		return nil, fmt.Errorf("line 1: workload header: %w", err)
	}
	return rd, nil
}

// Header returns the file's header.
func (r *Reader) Header() Header { return r.header }

// End returns the end record once Next has returned io.EOF.
func (r *Reader) End() (End, bool) {
	if r.end == nil {
		return End{}, false
	}
	return *r.end, true
}

// Close closes the file opened by Open.
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// readLine returns the next line without its newline; the slice is valid
// until the next call.
func (r *Reader) readLine() ([]byte, error) {
	r.line++
	r.buf = r.buf[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		if len(r.buf) > MaxLine {
			return nil, fmt.Errorf("line %d: longer than %d bytes", r.line, MaxLine)
		}
		switch {
		case err == nil:
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(r.buf) > 0:
			return nil, fmt.Errorf("line %d: the file ends inside a record (truncated)", r.line)
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("read workload: %w", err)
		}
	}
}

// recordTypes decode one record type each.
var recordTypes = []struct {
	name   string
	decode func([]byte) (any, error)
}{
	{"statement", decodeAs[Statement]},
	{"session", decodeAs[Session]},
	{"session_end", decodeAs[SessionEnd]},
	{"fingerprint", decodeAs[Fingerprint]},
	{"end", decodeAs[End]},
}

func decodeAs[T any](line []byte) (any, error) {
	v := new(T)
	err := json.Unmarshal(line, v)
	return v, err
}

// Next returns the next record: a *Session, *Fingerprint, *Statement or
// *SessionEnd. After the end record it returns io.EOF (End then returns
// the record); a file that ends without one is an error.
func (r *Reader) Next() (any, error) {
	for {
		if r.end != nil {
			return nil, io.EOF
		}
		line, err := r.readLine()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("line %d: the file ends without its end record (truncated)", r.line)
		}
		if err != nil {
			return nil, err
		}
		rec, known, err := decodeRecord(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		if !known {
			continue
		}
		if e, ok := rec.(*End); ok {
			r.end = e
			if _, err := r.r.ReadByte(); err == nil {
				return nil, fmt.Errorf("line %d: records after the end record", r.line+1)
			}
			return nil, io.EOF
		}
		return rec, nil
	}
}

// decodeRecord decodes one line; known is false for a type this version
// does not know. Lines whose first key is "type" (as Writer writes them)
// are dispatched without decoding twice.
func decodeRecord(line []byte) (rec any, known bool, err error) {
	typ := ""
	if rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`)); ok {
		if i := bytes.IndexByte(rest, '"'); i > 0 {
			typ = string(rest[:i])
		}
	}
	if typ == "" {
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(line, &probe); err != nil || probe.Type == "" {
			return nil, false, fmt.Errorf("not a workload record")
		}
		typ = probe.Type
	}
	for _, t := range recordTypes {
		if t.name == typ {
			rec, err := t.decode(line)
			if err != nil {
				return nil, false, fmt.Errorf("bad %s record: %w", typ, err)
			}
			return rec, true, nil
		}
	}
	return nil, false, nil
}
