package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

func init() { register(2, newPlanCmd) }

const planExample = `# pglab plan: a comparison campaign in one file.
versions: [16, 17]            # managed servers, one per version
# targets:                    # and/or your own servers
#   prod: postgres://me@db.example/lab
# configs:                    # or one version under several configurations
#   small: {shared_buffers: 128MB}
#   big: {shared_buffers: 1GB}
# env: [local, t3.micro]      # environments of the managed servers (--env):
#   - small: {memory: 256MiB}   #  profiles, or ad-hoc ones as NAME: {key: value}
# env_file: profiles.yaml     # more profiles (--env-file)
settings:                     # for every managed server (--set)
  shared_buffers: 256MB
checksums: off
reps: 5
quick: false
alpha: 0.05
studies:                      # names, or names with parameters
  - vacuum:
      rows: 1000000
      cases: [95:index, 5:index]
  - tps:
      clients: [5, 10, 20]
      duration: 30s
  - copy-errors
out: pglab-report             # report directory
# store: results.db           # results store (default: pglab's)
`

func newPlanCmd(env *Env) *cobra.Command {
	var details bool
	cmd := &cobra.Command{
		Use:   "plan FILE.yaml",
		Short: "Run a comparison described in a YAML file (targets, settings, studies, params, reps)",
		Long: `Run the same comparison as 'pglab compare', described in a YAML file. Errors name the
file, line and field. An example plan:

` + planExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("plan: name one plan file (see 'pglab plan --help' for an example)")
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return badInput("plan: %v", err)
			}
			spec, err := parsePlan(args[0], data)
			if err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			spec.details = details
			return runCompare(env, spec)
		},
	}
	cmd.Flags().BoolVar(&details, "details", false, "print every table (further metrics, the servers' output), not only the summary, the setup and the primary tables; the files always have everything")
	return cmd
}

// planError is a plan file error at a position.
type planError struct {
	file      string
	line, col int
	field     string
	msg       string
}

func (e *planError) Error() string {
	loc := e.file
	if e.line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.file, e.line, e.col)
	}
	if e.field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.field, e.msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.msg)
}

type planParser struct{ file string }

func (p *planParser) errAt(n ast.Node, field, format string, args ...any) error {
	e := &planError{file: p.file, field: field, msg: fmt.Sprintf(format, args...)}
	if n != nil && n.GetToken() != nil {
		e.line, e.col = n.GetToken().Position.Line, n.GetToken().Position.Column
	}
	return e
}

// scalar returns the text of a scalar node.
func (p *planParser) scalar(n ast.Node, field string) (string, error) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, nil
	case *ast.LiteralNode:
		return strings.TrimRight(v.Value.Value, "\n"), nil
	case *ast.NullNode:
		return "", nil
	}
	return "", p.errAt(n, field, "want a single value, not %s", nodeKind(n))
}

// list returns the items of a sequence, or of a comma-separated scalar.
func (p *planParser) list(n ast.Node, field string) ([]string, error) {
	if seq, ok := n.(*ast.SequenceNode); ok {
		var out []string
		for i, item := range seq.Values {
			s, err := p.scalar(item, fmt.Sprintf("%s[%d]", field, i))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := p.scalar(n, field)
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

// mapping returns the key/value pairs of a mapping node in order.
func (p *planParser) mapping(n ast.Node, field string) ([]*ast.MappingValueNode, error) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, nil
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, nil
	case *ast.NullNode:
		return nil, nil
	}
	return nil, p.errAt(n, field, "want a mapping (name: value lines), not %s", nodeKind(n))
}

func keyText(kv *ast.MappingValueNode) string {
	if kv.Key == nil || kv.Key.GetToken() == nil {
		return ""
	}
	return kv.Key.GetToken().Value
}

func nodeKind(n ast.Node) string {
	switch n.(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.AliasNode, *ast.AnchorNode:
		return "an anchor or alias (not supported in plans)"
	}
	return "a value of type " + n.Type().String()
}

// parsePlan reads a plan file into the same specification compare takes.
func parsePlan(file string, data []byte) (*compareSpec, error) {
	p := &planParser{file: file}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		e := &planError{file: file, msg: "invalid YAML: " + oneLineYAMLError(err)}
		// goccy/go-yaml starts its messages with "[line:column] ".
		var line, col int
		var rest string
		if n, _ := fmt.Sscanf(e.msg, "invalid YAML: [%d:%d]", &line, &col); n == 2 {
			_, rest, _ = strings.Cut(e.msg, "] ")
			e.line, e.col, e.msg = line, col, "invalid YAML: "+rest
		}
		return nil, e
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, &planError{file: file, msg: "want one YAML document with the plan's fields (see 'pglab plan --help')"}
	}
	top, err := p.mapping(f.Docs[0].Body, "plan")
	if err != nil {
		return nil, err
	}
	spec := &compareSpec{out: "pglab-report", alpha: 0.05, planParser: p}
	seen := map[string]bool{}
	for _, kv := range top {
		key := keyText(kv)
		if seen[key] {
			return nil, p.errAt(kv.Key, key, "given twice")
		}
		seen[key] = true
		v := kv.Value
		switch key {
		case "name":
			if spec.name, err = p.scalar(v, key); err != nil {
				return nil, err
			}
		case "versions":
			vs, err := p.list(v, key)
			if err != nil {
				return nil, err
			}
			for _, ver := range vs {
				if _, err := pgserver.ParseVersionSpec(ver); err != nil {
					return nil, p.errAt(v, key, "%v", err)
				}
			}
			spec.flags.versions = strings.Join(vs, ",")
		case "targets":
			kvs, err := p.mapping(v, key)
			if err != nil {
				return nil, err
			}
			for _, t := range kvs {
				dsn, err := p.scalar(t.Value, key+"."+keyText(t))
				if err != nil {
					return nil, err
				}
				if dsn == "" {
					// A name alone: an instance of 'pglab pg start'.
					spec.flags.targets = append(spec.flags.targets, keyText(t))
				} else {
					spec.flags.targets = append(spec.flags.targets, keyText(t)+"="+dsn)
				}
			}
		case "configs":
			kvs, err := p.mapping(v, key)
			if err != nil {
				return nil, err
			}
			for _, c := range kvs {
				sets, err := p.settings(c.Value, key+"."+keyText(c))
				if err != nil {
					return nil, err
				}
				spec.configs = append(spec.configs, keyText(c)+":"+strings.Join(sets, ","))
			}
		case "settings":
			if spec.flags.sets, err = p.settings(v, key); err != nil {
				return nil, err
			}
		case "env":
			if spec.flags.envs, err = p.envs(v); err != nil {
				return nil, err
			}
		case "env_file":
			if spec.flags.envFiles, err = p.list(v, key); err != nil {
				return nil, err
			}
		case "env_unenforced":
			s, err := p.scalar(v, key)
			if err != nil {
				return nil, err
			}
			if spec.flags.unenforced, err = strconv.ParseBool(s); err != nil {
				return nil, p.errAt(v, key, "want true or false, got %q", s)
			}
		case "checksums":
			s, err := p.scalar(v, key)
			if err != nil {
				return nil, err
			}
			if s == "true" {
				s = "on"
			} else if s == "false" {
				s = "off"
			}
			if _, err := parseChecksums(s); err != nil {
				return nil, p.errAt(v, key, "want on or off, got %q", s)
			}
			spec.flags.checksums = s
		case "reps":
			s, err := p.scalar(v, key)
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return nil, p.errAt(v, key, "want a whole number of at least 1, got %q", s)
			}
			spec.reps = n
		case "quick":
			s, err := p.scalar(v, key)
			if err != nil {
				return nil, err
			}
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, p.errAt(v, key, "want true or false, got %q", s)
			}
			spec.quick = b
		case "alpha":
			s, err := p.scalar(v, key)
			if err != nil {
				return nil, err
			}
			a, err := strconv.ParseFloat(s, 64)
			if err != nil || a <= 0 || a >= 1 {
				return nil, p.errAt(v, key, "want a number between 0 and 1, got %q", s)
			}
			spec.alpha = a
		case "studies":
			if err := p.studies(v, spec); err != nil {
				return nil, err
			}
		case "out":
			if spec.out, err = p.scalar(v, key); err != nil {
				return nil, err
			}
		case "store":
			if spec.flags.store, err = p.scalar(v, key); err != nil {
				return nil, err
			}
		default:
			known := []string{"name", "versions", "targets", "configs", "env", "env_file", "env_unenforced", "settings", "checksums", "reps", "quick", "alpha", "studies", "out", "store"}
			return nil, p.errAt(kv.Key, key, "unknown field (a plan has: %s)", strings.Join(known, ", "))
		}
	}
	if len(spec.studies) == 0 {
		spec.studies = []string{"all"}
	}
	if spec.flags.checksums == "" {
		spec.flags.checksums = "off"
	}
	return spec, nil
}

// envs reads the env field: SPECs (a profile's name or NAME:key=value,…),
// or one-key mappings from a name to its keys (an ad-hoc profile), as a
// list or a single value. A SPEC that does not parse is reported at its
// line.
func (p *planParser) envs(n ast.Node) ([]string, error) {
	items := []ast.Node{n}
	if seq, ok := n.(*ast.SequenceNode); ok {
		items = seq.Values
	}
	var out []string
	for i, item := range items {
		field := fmt.Sprintf("env[%d]", i)
		var spec string
		if kvs, err := p.mapping(item, field); err == nil && kvs != nil {
			if len(kvs) != 1 {
				return nil, p.errAt(item, field, "want one profile name with its keys, e.g. small: {memory: 256MiB}")
			}
			keys, err := p.settings(kvs[0].Value, field+"."+keyText(kvs[0]))
			if err != nil {
				return nil, err
			}
			spec = keyText(kvs[0]) + ":" + strings.Join(keys, ",")
		} else {
			s, err := p.scalar(item, field)
			if err != nil {
				return nil, err
			}
			spec = s
		}
		if _, err := env.ParseSpec(spec); err != nil {
			var se *env.SpecError
			if errors.As(err, &se) {
				return nil, p.errAt(item, field, "%q: %s", se.Spec, se.Msg)
			}
			return nil, p.errAt(item, field, "%v", err)
		}
		out = append(out, spec)
	}
	return out, nil
}

// settings reads a mapping of server settings as name=value strings.
func (p *planParser) settings(n ast.Node, field string) ([]string, error) {
	kvs, err := p.mapping(n, field)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, kv := range kvs {
		val, err := p.scalar(kv.Value, field+"."+keyText(kv))
		if err != nil {
			return nil, err
		}
		out = append(out, keyText(kv)+"="+val)
	}
	return out, nil
}

// studies reads the studies list: names, or one-key mappings from a name
// to its parameters.
func (p *planParser) studies(n ast.Node, spec *compareSpec) error {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		names, err := p.list(n, "studies")
		if err != nil {
			return err
		}
		spec.studies = names
		return nil
	}
	for i, item := range seq.Values {
		field := fmt.Sprintf("studies[%d]", i)
		if kvs, err := p.mapping(item, field); err == nil && kvs != nil {
			if len(kvs) != 1 {
				return p.errAt(item, field, "want one study name with its parameters")
			}
			name := keyText(kvs[0])
			if err := checkStudyName(name); err != nil {
				return p.errAt(kvs[0].Key, field, "%v", err)
			}
			spec.studies = append(spec.studies, name)
			params, err := p.mapping(kvs[0].Value, field+"."+name)
			if err != nil {
				return err
			}
			for _, par := range params {
				vals, err := p.list(par.Value, field+"."+name+"."+keyText(par))
				if err != nil {
					return err
				}
				spec.params = append(spec.params, paramArg{name + "." + keyText(par) + "=" + strings.Join(vals, ","), par, field + "." + name + "." + keyText(par)})
			}
			continue
		}
		name, err := p.scalar(item, field)
		if err != nil {
			return err
		}
		if err := checkStudyName(name); err != nil {
			return p.errAt(item, field, "%v", err)
		}
		spec.studies = append(spec.studies, name)
	}
	return nil
}

// paramArg is one study.name=value with the plan node it came from (nil
// from the command line), so errors can point at it.
type paramArg struct {
	text  string
	node  *ast.MappingValueNode
	field string
}

func oneLineYAMLError(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

func checkStudyName(name string) error {
	if name == "all" {
		return nil
	}
	_, err := study.Get(name)
	return err
}

// planParamError points a study-parameter error at its plan line.
func (spec *compareSpec) paramError(err error) error {
	if spec.planParser == nil {
		return err
	}
	var ee *ExitError
	msg := err.Error()
	if errors.As(err, &ee) {
		msg = ee.Err.Error()
	}
	for _, pa := range spec.params {
		key, _, _ := strings.Cut(pa.text, "=")
		if pa.node != nil && strings.Contains(msg, strings.SplitN(key, ".", 2)[1]) && strings.Contains(msg, strings.SplitN(key, ".", 2)[0]) {
			return &ExitError{Code: 1, Err: spec.planParser.errAt(pa.node.Value, pa.field, "%s", msg)}
		}
	}
	return &ExitError{Code: 1, Err: &planError{file: spec.planParser.file, msg: msg}}
}
