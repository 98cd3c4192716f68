package workload

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Writer writes a workload file's records after its header; Close writes
// the end record. It counts what it writes.
type Writer struct {
	w     *bufio.Writer
	buf   []byte
	end   End
	first bool
}

// NewWriter writes h (with Format and Version set) to w and returns a
// writer of the records that follow.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Format, h.Version = Format, Version
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode workload header: %w", err)
	}
	wr := &Writer{w: bufio.NewWriterSize(w, 256<<10), first: true}
	wr.w.Write(b)
	if err := wr.w.WriteByte('\n'); err != nil {
		return nil, fmt.Errorf("write workload header: %w", err)
	}
	return wr, nil
}

// record writes v as one line whose first key is "type".
func (w *Writer) record(typ string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode workload %s: %w", typ, err)
	}
	w.buf = append(w.buf[:0], `{"type":"`...)
	w.buf = append(w.buf, typ...)
	w.buf = append(w.buf, '"')
	if len(b) > 2 {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, b[1:]...)
	w.buf = append(w.buf, '\n')
	_, err = w.w.Write(w.buf)
	return err
}

// Session writes a session record.
func (w *Writer) Session(s *Session) error {
	w.end.Sessions++
	return w.record("session", s)
}

// Fingerprint writes a fingerprint record.
func (w *Writer) Fingerprint(f Fingerprint) error {
	w.end.Fingerprints++
	return w.record("fingerprint", f)
}

// SessionEnd writes a session's end.
func (w *Writer) SessionEnd(e SessionEnd) error {
	return w.record("session_end", e)
}

// Statement writes a statement record (encoded by hand: it is the record
// a workload is made of).
func (w *Writer) Statement(s *Statement) error {
	w.end.Statements++
	if w.first || s.StartUS < w.end.FirstUS {
		w.end.FirstUS = s.StartUS
	}
	last := s.StartUS + max(s.DurationUS, 0)
	if w.first || last > w.end.LastUS {
		w.end.LastUS = last
	}
	w.first = false
	b := append(w.buf[:0], `{"type":"statement","session":`...)
	b = strconv.AppendInt(b, s.Session, 10)
	b = append(b, `,"start_us":`...)
	b = strconv.AppendInt(b, s.StartUS, 10)
	b = append(b, `,"duration_us":`...)
	b = strconv.AppendInt(b, s.DurationUS, 10)
	b = append(b, `,"fp":`...)
	b = AppendJSONString(b, s.Fingerprint)
	b = append(b, `,"protocol":`...)
	b = AppendJSONString(b, s.Protocol)
	if s.Name != "" {
		b = append(b, `,"name":`...)
		b = AppendJSONString(b, s.Name)
	}
	b = append(b, `,"sql":`...)
	b = AppendJSONString(b, s.SQL)
	if s.Params != nil {
		b = append(b, `,"params":[`...)
		for i, p := range s.Params {
			if i > 0 {
				b = append(b, ',')
			}
			if p.Null {
				b = append(b, "null"...)
			} else {
				b = AppendJSONString(b, p.Value)
			}
		}
		b = append(b, ']')
	}
	if s.Error != "" {
		b = append(b, `,"error":`...)
		b = AppendJSONString(b, s.Error)
	}
	if s.QueryID != 0 {
		b = append(b, `,"query_id":`...)
		b = strconv.AppendInt(b, s.QueryID, 10)
	}
	b = append(b, "}\n"...)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// Close writes the end record with what was skipped and how many
// statements had a password masked, flushes, and returns the end record.
// It does not close the underlying writer.
func (w *Writer) Close(skipped []Skip, redacted int64) (End, error) {
	w.end.Skipped = append([]Skip{}, skipped...)
	w.end.Redacted = redacted
	if err := w.record("end", w.end); err != nil {
		return End{}, err
	}
	if err := w.w.Flush(); err != nil {
		return End{}, fmt.Errorf("write workload: %w", err)
	}
	return w.end, nil
}

// AppendJSONString appends s to b as a JSON string: quotes, backslash and
// control characters escaped, invalid UTF-8 replaced by U+FFFD (as
// encoding/json does).
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// FileWriter writes a workload file atomically: to a temporary file beside
// the destination, renamed over it by Commit; Abort (or a failed Commit)
// removes it, so that no half-written workload is ever left under the
// destination's name.
type FileWriter struct {
	*Writer
	path string
	tmp  *os.File
	gz   *gzip.Writer
}

// CreateFile starts a workload file at path (gzip-compressed when path
// ends in .gz) with header h.
func CreateFile(path string, h Header) (*FileWriter, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create workload file: %w", err)
	}
	fw := &FileWriter{path: path, tmp: tmp}
	var out io.Writer = tmp
	if strings.HasSuffix(path, ".gz") {
		fw.gz = gzip.NewWriter(tmp)
		out = fw.gz
	}
	fw.Writer, err = NewWriter(out, h)
	if err != nil {
		fw.Abort()
		return nil, err
	}
	return fw, nil
}

// Commit writes the end record, makes the file durable and gives it its
// name.
func (f *FileWriter) Commit(skipped []Skip, redacted int64) (End, error) {
	end, err := f.Writer.Close(skipped, redacted)
	if err == nil && f.gz != nil {
		err = f.gz.Close()
	}
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
		return End{}, fmt.Errorf("write workload %s: %w", f.path, err)
	}
	return end, nil
}

// Abort removes the temporary file.
func (f *FileWriter) Abort() {
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}
