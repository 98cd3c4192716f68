package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/pglab/pglab/redact"
)

// redactJSON redacts a JSON document: the value of every object key that
// names a password becomes [redact.Mask], and every string goes through
// [redact.Text]. It returns the document unchanged (same bytes) when there was
// nothing to redact, and re-encoded otherwise.
func redactJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: more than one value")
	}
	v, changed := redactJSONValue(v)
	if !changed {
		return data, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func redactJSONValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		r := redact.Text(x)
		return r, r != x
	case []any:
		changed := false
		for i, e := range x {
			var c bool
			x[i], c = redactJSONValue(e)
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		for k, e := range x {
			if redact.IsPasswordKey(k) {
				if s, ok := e.(string); !ok || (s != redact.Mask && s != "") {
					x[k] = redact.Mask
					changed = true
				}
				continue
			}
			var c bool
			x[k], c = redactJSONValue(e)
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}

// extraJSON checks, redacts and compacts an Extra field: empty means {}, and
// anything else must be a JSON object.
func extraJSON(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}", nil
	}
	if t := bytes.TrimSpace(raw); t[0] != '{' {
		return "", errors.New("extra must be a JSON object")
	}
	red, err := redactJSON(raw)
	if err != nil {
		return "", fmt.Errorf("extra: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, red); err != nil {
		return "", fmt.Errorf("extra: %w", err)
	}
	return buf.String(), nil
}

// redactArtefact redacts the content of text and JSON artefacts.
func redactArtefact(contentType string, data []byte) []byte {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if red, err := redactJSON(data); err == nil {
			return red
		}
		return []byte(redact.Text(string(data)))
	case strings.HasPrefix(mt, "text/"):
		if r := redact.Text(string(data)); r != string(data) {
			return []byte(r)
		}
		return data
	}
	return data
}
