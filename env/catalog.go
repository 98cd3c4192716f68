package env

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Catalog is the profiles a SPEC may name: the built-in ones, then those of
// profiles files, a file's profile replacing a built-in or earlier one of
// the same name.
type Catalog struct {
	byName map[string]Profile
	order  []string
}

// NewCatalog returns a catalog of the built-in profiles.
func NewCatalog() *Catalog {
	c := &Catalog{byName: map[string]Profile{}}
	for _, p := range Builtins() {
		c.add(p)
	}
	return c
}

func (c *Catalog) add(p Profile) {
	if _, ok := c.byName[p.Name]; !ok {
		c.order = append(c.order, p.Name)
	}
	c.byName[p.Name] = p
}

// Profiles returns the catalog's profiles: built-in ones first, in their
// order, then those files added, in file order.
func (c *Catalog) Profiles() []Profile {
	out := make([]Profile, len(c.order))
	for i, n := range c.order {
		out[i] = c.byName[n]
	}
	return out
}

// Get returns the profile of a name.
func (c *Catalog) Get(name string) (Profile, bool) {
	p, ok := c.byName[name]
	return p, ok
}

// Resolve reads a SPEC: a profile's name, or an ad-hoc "NAME:key=value,…"
// whose NAME is not already a profile's. Errors are one line (a
// [*SpecError]).
func (c *Catalog) Resolve(spec string) (Profile, error) {
	p, err := ParseSpec(spec)
	if err != nil {
		return Profile{}, err
	}
	adHoc := strings.Contains(spec, ":")
	known, ok := c.byName[p.Name]
	switch {
	case adHoc && ok:
		return Profile{}, &SpecError{Spec: spec, Msg: fmt.Sprintf("%q is already a profile (%s): give the ad-hoc profile a name of its own", p.Name, known.Origin)}
	case adHoc:
		return p, nil
	case ok:
		return known, nil
	}
	hint := ""
	if near := c.nearest(p.Name); near != "" {
		hint = fmt.Sprintf("did you mean %s? ", near)
	}
	return Profile{}, &SpecError{Spec: spec, Msg: fmt.Sprintf("no profile %q; %sprofiles: %s; or write an ad-hoc one, %s:key=value,… (keys: %s)",
		p.Name, hint, strings.Join(c.order, ", "), p.Name, strings.Join(Keys(), ", "))}
}

func (c *Catalog) nearest(name string) string {
	best, bestD := "", 3
	for _, n := range c.order {
		if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// DefaultFile returns the user's profiles file: profiles.yaml in pglab's
// configuration directory ($XDG_CONFIG_HOME/pglab, else ~/.config/pglab).
func DefaultFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "pglab", "profiles.yaml")
}

// LoadCatalog returns the built-in profiles, those of the default file when
// it exists, then those of files (--env-file), each overriding what came
// before.
func LoadCatalog(files ...string) (*Catalog, error) {
	c := NewCatalog()
	if def := DefaultFile(); def != "" {
		if _, err := os.Stat(def); err == nil {
			if err := c.LoadFile(def); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range files {
		if err := c.LoadFile(f); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// FileError is an error in a profiles file, at a line and column.
type FileError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// profilesFileExample is shown in errors about the file's shape.
const profilesFileExample = "NAME: {cpus: 2, memory: 1GiB, read: 87MB/s, doc: …}"

// LoadFile adds the profiles of a YAML file: a mapping from profile names
// to mappings of keys (those of a SPEC, plus doc), e.g.
//
//	prod:
//	  doc: our production box (r6g.large, gp3)
//	  cpus: 2
//	  memory: 16GiB
//	  read: 125MB/s
//	  read_iops: 3000
//
// A profile replaces one of the same name (a built-in one too). Errors name
// file:line:column.
func (c *Catalog) LoadFile(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("profiles file: %w", err)
	}
	profiles, err := ParseFile(file, data)
	if err != nil {
		return err
	}
	for _, p := range profiles {
		c.add(p)
	}
	return nil
}

// ParseFile reads the profiles of a profiles file's contents (see
// [Catalog.LoadFile]); file names the file in errors and origins.
func ParseFile(file string, data []byte) ([]Profile, error) {
	errAt := func(n ast.Node, format string, args ...any) error {
		e := &FileError{File: file, Msg: fmt.Sprintf(format, args...)}
		if n != nil && n.GetToken() != nil {
			e.Line, e.Col = n.GetToken().Position.Line, n.GetToken().Position.Column
		}
		return e
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlError(file, err)
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil, nil // an empty file defines nothing
	}
	if len(f.Docs) > 1 {
		return nil, &FileError{File: file, Msg: "want one YAML document"}
	}
	top, ok := mappingOf(f.Docs[0].Body)
	if !ok {
		return nil, errAt(f.Docs[0].Body, "want a mapping of profile names to their keys, e.g. %s", profilesFileExample)
	}
	var out []Profile
	seen := map[string]bool{}
	for _, kv := range top {
		name := keyOf(kv)
		if err := ValidateName(name); err != nil {
			return nil, errAt(kv.Key, "%v", err)
		}
		if seen[name] {
			return nil, errAt(kv.Key, "profile %s is defined twice", name)
		}
		seen[name] = true
		p := Profile{Name: name, Origin: fmt.Sprintf("%s:%d", file, kv.Key.GetToken().Position.Line)}
		keys, ok := mappingOf(kv.Value)
		if !ok {
			if _, null := kv.Value.(*ast.NullNode); !null {
				return nil, errAt(kv.Value, "%s: want a mapping of keys, e.g. %s", name, profilesFileExample)
			}
		}
		given := map[string]bool{}
		for _, k := range keys {
			key := keyOf(k)
			if given[key] {
				return nil, errAt(k.Key, "%s.%s: given twice", name, key)
			}
			given[key] = true
			value, ok := scalarOf(k.Value)
			if !ok {
				return nil, errAt(k.Value, "%s.%s: want a single value", name, key)
			}
			if key == "doc" {
				p.Doc = value
				continue
			}
			if err := p.set(key, value); err != nil {
				return nil, errAt(k.Value, "%s: %v", name, err)
			}
		}
		if err := p.check(); err != nil {
			return nil, errAt(kv.Key, "%s: %v", name, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// yamlError turns a YAML syntax error into a one-line FileError; the
// library's messages start with "[line:column] ".
func yamlError(file string, err error) error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	e := &FileError{File: file, Msg: "invalid YAML: " + strings.TrimSpace(msg)}
	var line, col int
	if n, _ := fmt.Sscanf(msg, "[%d:%d]", &line, &col); n == 2 {
		_, rest, _ := strings.Cut(msg, "] ")
		e.Line, e.Col, e.Msg = line, col, "invalid YAML: "+strings.TrimSpace(rest)
	}
	return e
}

func mappingOf(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

func keyOf(kv *ast.MappingValueNode) string {
	if kv.Key == nil || kv.Key.GetToken() == nil {
		return ""
	}
	return kv.Key.GetToken().Value
}

func scalarOf(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return n.GetToken().Value, true
	case *ast.NullNode:
		return "", true
	}
	return "", false
}
