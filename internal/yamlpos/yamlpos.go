// Package yamlpos reads small YAML files (plans, environment profiles) as
// values that remember where they stand: every [Node] knows its file, line,
// column and field path ("studies[0].vacuum.rows"), so that an error about a
// value names the place the user typed it, as file:line:column: field:
// message, on one line. It is the one YAML reader of pglab's input files;
// their meaning is their packages' business.
package yamlpos

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Error is an error about a value of a YAML file, at its position.
type Error struct {
	// File is the file's name as the user gave it.
	File string
	// Line and Col are the value's position, 1-based; 0 when the error
	// is about the whole file.
	Line, Col int
	// Field is the value's path in the document ("reps",
	// "studies[0].vacuum.rows"); empty for none.
	Field string
	// Err is what is wrong.
	Err error
}

// Error returns "file:line:col: field: message".
func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %v", loc, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// FileErrorf returns an error about the whole file.
func FileErrorf(file, format string, args ...any) error {
	return &Error{File: file, Err: fmt.Errorf(format, args...)}
}

// Parse reads data, the contents of file, and returns the body of each of
// its documents that hold something (an empty file, or one of comments
// only, has none). A syntax error is an *Error at
// the position the parser gives, on one line.
func Parse(file string, data []byte) ([]Node, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	var out []Node
	for _, d := range f.Docs {
		if d.Body != nil {
			out = append(out, Node{n: d.Body, file: file})
		}
	}
	return out, nil
}

// syntaxError keeps the parser's first line; goccy/go-yaml starts it with
// "[line:column] ", which becomes the error's position.
func syntaxError(file string, err error) error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	e := &Error{File: file}
	var line, col int
	if n, _ := fmt.Sscanf(msg, "[%d:%d]", &line, &col); n == 2 {
		_, rest, _ := strings.Cut(msg, "] ")
		e.Line, e.Col, msg = line, col, strings.TrimSpace(rest)
	}
	e.Err = errors.New("invalid YAML: " + msg)
	return e
}

// Node is one value of a document with its place: the file, its position
// and its field path.
type Node struct {
	n     ast.Node
	file  string
	field string
}

// Empty reports whether the node holds nothing: a missing value or an
// empty document (a null value is not empty; see [Node.Null]).
func (n Node) Empty() bool { return n.n == nil }

// Null reports whether the node is missing or YAML's null (a key without
// a value).
func (n Node) Null() bool {
	if n.n == nil {
		return true
	}
	_, ok := n.n.(*ast.NullNode)
	return ok
}

// Field returns the node's path in the document.
func (n Node) Field() string { return n.field }

// In returns the node under another field path, for errors that name
// its parent ("prod" rather than "prod.cpus").
func (n Node) In(field string) Node {
	n.field = field
	return n
}

// Line returns the node's line, 0 when unknown.
func (n Node) Line() int {
	if n.n == nil || n.n.GetToken() == nil {
		return 0
	}
	return n.n.GetToken().Position.Line
}

// Errorf returns an *Error at the node, under its field.
func (n Node) Errorf(format string, args ...any) error {
	return n.Wrap(fmt.Errorf(format, args...))
}

// Wrap returns err as an *Error at the node, under its field.
func (n Node) Wrap(err error) error {
	e := &Error{File: n.file, Field: n.field, Err: err}
	if n.n != nil && n.n.GetToken() != nil {
		e.Line, e.Col = n.n.GetToken().Position.Line, n.n.GetToken().Position.Column
	}
	return e
}

// Scalar returns the text of a single value (null is ""); a list or a
// mapping is an error.
func (n Node) Scalar() (string, error) {
	switch v := n.n.(type) {
	case nil, *ast.NullNode:
		return "", nil
	case *ast.StringNode:
		return v.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, nil
	case *ast.LiteralNode:
		return strings.TrimRight(v.Value.Value, "\n"), nil
	}
	return "", n.Errorf("want a single value, not %s", n.kind())
}

// Items returns the items of a sequence and true, or false when the node
// is not one.
func (n Node) Items() ([]Node, bool) {
	seq, ok := n.n.(*ast.SequenceNode)
	if !ok {
		return nil, false
	}
	out := make([]Node, len(seq.Values))
	for i, v := range seq.Values {
		out[i] = Node{n: v, file: n.file, field: fmt.Sprintf("%s[%d]", n.field, i)}
	}
	return out, true
}

// List returns the texts of a sequence's items, or the comma-separated
// parts of a single value ("16, 17").
func (n Node) List() ([]string, error) {
	if items, ok := n.Items(); ok {
		out := make([]string, 0, len(items))
		for _, it := range items {
			s, err := it.Scalar()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := n.Scalar()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out, nil
}

// Pair is one key: value of a mapping.
type Pair struct {
	// Key is the key's text.
	Key string
	// KeyNode is the key itself, for errors about it ("unknown field").
	KeyNode Node
	// Value is the value, its field path the mapping's and the key's.
	Value Node
}

// IsMap reports whether the node is a mapping.
func (n Node) IsMap() bool {
	switch n.n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return true
	}
	return false
}

// Map returns the pairs of a mapping in order (none for null); another
// value is an error.
func (n Node) Map() ([]Pair, error) {
	var kvs []*ast.MappingValueNode
	switch v := n.n.(type) {
	case *ast.MappingNode:
		kvs = v.Values
	case *ast.MappingValueNode:
		kvs = []*ast.MappingValueNode{v}
	case nil, *ast.NullNode:
		return nil, nil
	default:
		return nil, n.Errorf("want a mapping (name: value lines), not %s", n.kind())
	}
	out := make([]Pair, len(kvs))
	for i, kv := range kvs {
		key := ""
		if kv.Key != nil && kv.Key.GetToken() != nil {
			key = kv.Key.GetToken().Value
		}
		field := key
		if n.field != "" {
			field = n.field + "." + key
		}
		out[i] = Pair{Key: key, KeyNode: Node{n: kv.Key, file: n.file, field: field}, Value: Node{n: kv.Value, file: n.file, field: field}}
	}
	return out, nil
}

// kind names the node's kind for errors.
func (n Node) kind() string {
	switch n.n.(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.AliasNode, *ast.AnchorNode:
		return "an anchor or alias (not supported)"
	}
	return "a value of type " + n.n.Type().String()
}
