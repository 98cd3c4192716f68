package env

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pglab/pglab/internal/yamlpos"
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
// [Catalog.LoadFile]); file names the file in errors and origins. Errors
// are one line, file:line:column: message (a *yamlpos.Error).
func ParseFile(file string, data []byte) ([]Profile, error) {
	docs, err := yamlpos.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 || docs[0].Empty() {
		return nil, nil // an empty file defines nothing
	}
	if len(docs) > 1 {
		return nil, yamlpos.FileErrorf(file, "want one YAML document")
	}
	top := docs[0]
	if !top.IsMap() {
		return nil, top.Errorf("want a mapping of profile names to their keys, e.g. %s", profilesFileExample)
	}
	pairs, _ := top.Map()
	var out []Profile
	seen := map[string]bool{}
	for _, kv := range pairs {
		p, err := parseProfile(file, kv)
		if err != nil {
			return nil, err
		}
		if seen[p.Name] {
			return nil, kv.KeyNode.In("").Errorf("profile %s is defined twice", p.Name)
		}
		seen[p.Name] = true
		out = append(out, p)
	}
	return out, nil
}

// parseProfile reads one profile of a profiles file: NAME: {key: value, …}.
func parseProfile(file string, kv yamlpos.Pair) (Profile, error) {
	name := kv.Key
	if err := ValidateName(name); err != nil {
		return Profile{}, kv.KeyNode.In("").Wrap(err)
	}
	p := Profile{Name: name, Origin: fmt.Sprintf("%s:%d", file, kv.KeyNode.Line())}
	if !kv.Value.IsMap() && !kv.Value.Null() {
		return Profile{}, kv.Value.Errorf("want a mapping of keys, e.g. %s", profilesFileExample)
	}
	keys, _ := kv.Value.Map()
	given := map[string]bool{}
	for _, k := range keys {
		if given[k.Key] {
			return Profile{}, k.KeyNode.Errorf("given twice")
		}
		given[k.Key] = true
		value, err := k.Value.Scalar()
		if err != nil {
			return Profile{}, err
		}
		if k.Key == "doc" {
			p.Doc = value
			continue
		}
		if err := p.set(k.Key, value); err != nil {
			return Profile{}, k.Value.In(name).Wrap(err)
		}
	}
	if err := p.check(); err != nil {
		return Profile{}, kv.KeyNode.Wrap(err)
	}
	return p, nil
}
