package yamlpos

import (
	"errors"
	"strings"
	"testing"
)

func TestPositions(t *testing.T) {
	docs, err := Parse("f.yaml", []byte("a: 1\nb:\n  c: [x, y]\n  d: |\n    text\n"))
	if err != nil || len(docs) != 1 {
		t.Fatal(docs, err)
	}
	top, err := docs[0].Map()
	if err != nil || len(top) != 2 || top[0].Key != "a" || top[1].Key != "b" {
		t.Fatal(top, err)
	}
	b, _ := top[1].Value.Map()
	items, ok := b[0].Value.Items()
	if !ok || len(items) != 2 || items[1].Field() != "b.c[1]" {
		t.Fatalf("items %v", items)
	}
	err = items[1].Errorf("bad %s", "y")
	if err.Error() != "f.yaml:3:10: b.c[1]: bad y" {
		t.Errorf("error = %q", err)
	}
	if s, err := b[1].Value.Scalar(); s != "text" || err != nil {
		t.Errorf("literal = %q, %v", s, err)
	}
	if _, err := b[0].Value.Scalar(); err == nil || err.Error() != "f.yaml:3:6: b.c: want a single value, not a list" {
		t.Errorf("scalar of a list: %v", err)
	}
	if l, err := top[0].Value.List(); err != nil || strings.Join(l, "|") != "1" {
		t.Errorf("list of a scalar: %v %v", l, err)
	}
	cause := errors.New("cause")
	if err := top[0].KeyNode.In("").Wrap(cause); !errors.Is(err, cause) || err.Error() != "f.yaml:1:1: cause" {
		t.Errorf("wrap = %v", err)
	}
}

func TestSyntaxError(t *testing.T) {
	_, err := Parse("f.yaml", []byte("a: [1\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 1 || !strings.HasPrefix(e.Err.Error(), "invalid YAML: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("syntax error = %#v", err)
	}
	if docs, err := Parse("f.yaml", nil); err != nil || len(docs) != 0 {
		t.Errorf("empty file: %v %v", docs, err)
	}
}
