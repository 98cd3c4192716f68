package lab

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/yamlpos"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/study"
)

// PlanExample is a plan file with every field, as 'pglab plan --help'
// shows it.
const PlanExample = `# pglab plan: a comparison campaign in one file.
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
reps: auto                    # or a fixed number per case and target, e.g. 5
# budget: 30m                 # with reps: auto, the time the run may take
quick: false
alpha: 0.05                   # q of the calls (false discovery rate)
min_change: 5%                # practical floor: smaller changes are never called
# aa: true                    # an A/A run: one version as two identical servers
# fail_on: regression         # exit 3 when a called change is a regression
# profile: true               # sample the servers' CPU by function (perf; --profile)
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

// DefaultOut is the directory compare and plan write their reports to
// unless told otherwise.
const DefaultOut = "pglab-report"

// planField is one key of a plan file: how its value fills the plan, and
// which Spec field it fills (errors about that field found later, when
// the whole plan is known, point at the key's line).
type planField struct {
	key   string
	fills string
	read  func(r *planReader, v yamlpos.Node) error
}

// planFields are the keys of a plan file, in the order the error about an
// unknown key lists them.
var planFields = []planField{
	{"name", "", func(r *planReader, v yamlpos.Node) (err error) { r.spec.Name, err = v.Scalar(); return err }},
	{"versions", FieldVersions, (*planReader).versions},
	{"targets", FieldServers, (*planReader).targets},
	{"configs", FieldConfigs, (*planReader).readConfigs},
	{"env", FieldEnvs, (*planReader).readEnvs},
	{"env_file", FieldEnvs, func(r *planReader, v yamlpos.Node) (err error) { r.envFiles, err = v.List(); return err }},
	{"env_unenforced", "", func(r *planReader, v yamlpos.Node) (err error) { r.spec.Unenforced, err = planBool(v); return err }},
	{"settings", FieldSettings, func(r *planReader, v yamlpos.Node) (err error) { r.spec.Settings, err = planSettings(v); return err }},
	{"checksums", "", (*planReader).checksums},
	{"reps", "", (*planReader).reps},
	{"budget", "", (*planReader).budget},
	{"quick", "", func(r *planReader, v yamlpos.Node) (err error) { r.spec.Quick, err = planBool(v); return err }},
	{"alpha", "", (*planReader).alpha},
	{"min_change", "", (*planReader).minChange},
	{"aa", "", func(r *planReader, v yamlpos.Node) (err error) { r.spec.AA, err = planBool(v); return err }},
	{"fail_on", "", (*planReader).failOn},
	{"profile", "", func(r *planReader, v yamlpos.Node) (err error) { r.spec.Profile, err = planBool(v); return err }},
	{"studies", FieldStudies, (*planReader).studies},
	{"out", "", func(r *planReader, v yamlpos.Node) (err error) { r.spec.Out, err = v.Scalar(); return err }},
	{"store", FieldStore, func(r *planReader, v yamlpos.Node) (err error) { r.spec.Store, err = v.Scalar(); return err }},
}

// planReader reads one plan file into a Spec.
type planReader struct {
	file string
	spec *Spec
	// given are the keys' values by key, and by the Spec field they fill.
	given   map[string]yamlpos.Node
	byField map[string]yamlpos.Node
	// studies are the studies named, params their parameters as
	// "study.name=value" and where each was given.
	studyNames []string
	studyNodes map[string]yamlpos.Node
	params     []string
	paramNodes map[string]yamlpos.Node
	// envs are the env SPECs with their nodes; envFiles the profiles
	// files.
	envs     []string
	envNodes []yamlpos.Node
	envFiles []string
	configs  []Config
}

// ParsePlan reads the contents of a plan file into the comparison it
// describes: every field checked, the studies with their parameters, the
// environments resolved against the profiles (built-in, the user's file,
// env_file). file names the file in errors, which are *InputError whose
// cause is a *yamlpos.Error: one line, file:line:column: field: message,
// the line being the one that gave the value.
func ParsePlan(file string, data []byte) (*Spec, error) {
	r := &planReader{file: file, spec: &Spec{Out: DefaultOut, Alpha: 0.05, Plan: file},
		given: map[string]yamlpos.Node{}, byField: map[string]yamlpos.Node{},
		studyNodes: map[string]yamlpos.Node{}, paramNodes: map[string]yamlpos.Node{}}
	if err := r.read(data); err != nil {
		return nil, r.inputError(err)
	}
	if err := r.resolve(); err != nil {
		return nil, r.inputError(err)
	}
	return r.spec, nil
}

// read reads every key of the plan.
func (r *planReader) read(data []byte) error {
	docs, err := yamlpos.Parse(r.file, data)
	if err != nil {
		return err
	}
	if len(docs) != 1 || docs[0].Empty() {
		return yamlpos.FileErrorf(r.file, "want one YAML document with the plan's fields (see 'pglab plan --help')")
	}
	if _, err := docs[0].In("plan").Map(); err != nil {
		return err
	}
	top, _ := docs[0].Map()
	seen := map[string]bool{}
	for _, kv := range top {
		f, ok := fieldOf(kv.Key)
		switch {
		case !ok:
			known := make([]string, len(planFields))
			for i, f := range planFields {
				known[i] = f.key
			}
			return kv.KeyNode.Errorf("unknown field (a plan has: %s)", strings.Join(known, ", "))
		case seen[kv.Key]:
			return kv.KeyNode.Errorf("given twice")
		}
		seen[kv.Key] = true
		r.given[kv.Key] = kv.Value
		if f.fills != "" {
			r.byField[f.fills] = kv.Value
		}
		if err := f.read(r, kv.Value); err != nil {
			return err
		}
	}
	return nil
}

func fieldOf(key string) (planField, bool) {
	for _, f := range planFields {
		if f.key == key {
			return f, true
		}
	}
	return planField{}, false
}

// resolve checks what needs the whole plan: the studies' parameters (with
// quick), the environments against the profiles, the configurations
// against the versions, and the targets they make.
func (r *planReader) resolve() error {
	s := r.spec
	names, err := StudyNames(strings.Join(r.studyNames, ","))
	if err != nil {
		return err
	}
	if s.Studies, err = Studies(names, r.params, s.Quick); err != nil {
		return err
	}
	if err := r.resolveEnvs(); err != nil {
		return err
	}
	if len(r.configs) > 0 {
		if err := s.SetConfigs(r.configs); err != nil {
			return err
		}
	}
	_, err = s.Targets()
	return err
}

// resolveEnvs finds each env SPEC among the profiles.
func (r *planReader) resolveEnvs() error {
	if len(r.envs) == 0 {
		if len(r.envFiles) > 0 {
			return r.given["env_file"].Errorf("env_file without env: name the profile to use, e.g. env: [NAME]")
		}
		return nil
	}
	cat, err := env.LoadCatalog(r.envFiles...)
	if err != nil {
		if n, ok := r.given["env_file"]; ok {
			return n.Wrap(err)
		}
		return err
	}
	for i, spec := range r.envs {
		p, err := cat.Resolve(spec)
		if err != nil {
			return envError(r.envNodes[i], err)
		}
		r.spec.Envs = append(r.spec.Envs, p)
	}
	return nil
}

// inputError makes err an *InputError with a position: an error of the
// reader is one already; an InputError found once the plan was read
// points at the value it is about (a study's parameter, a study, the key
// that filled the Spec field), or at the file.
func (r *planReader) inputError(err error) error {
	var ie *InputError
	if !errors.As(err, &ie) {
		return &InputError{Err: err, PlanKeys: true}
	}
	var ye *yamlpos.Error
	if errors.As(ie.Err, &ye) {
		ie.PlanKeys = true
		return err
	}
	n, ok := r.paramNodes[ie.Study+"."+ie.Param]
	if !ok {
		n, ok = r.studyNodes[ie.Study]
	}
	if !ok {
		n, ok = r.byField[ie.Field]
	}
	pos := yamlpos.FileErrorf(r.file, "%w", ie.Err)
	if ok {
		pos = n.Wrap(ie.Err)
	}
	return &InputError{Field: ie.Field, Study: ie.Study, Param: ie.Param, Err: pos, PlanKeys: true}
}

func (r *planReader) versions(v yamlpos.Node) error {
	vs, err := v.List()
	if err != nil {
		return err
	}
	for _, text := range vs {
		ver, err := pgserver.ParseVersionSpec(text)
		if err != nil {
			return v.Wrap(err)
		}
		r.spec.Versions = append(r.spec.Versions, ver)
	}
	return nil
}

// targets reads NAME: DSN lines; a name alone is an instance of 'pglab pg
// start'.
func (r *planReader) targets(v yamlpos.Node) error {
	kvs, err := v.Map()
	if err != nil {
		return err
	}
	for _, t := range kvs {
		dsn, err := t.Value.Scalar()
		if err != nil {
			return err
		}
		if dsn != "" {
			if _, err := study.ParseDSN(t.Key, dsn); err != nil {
				return t.Value.Wrap(err)
			}
		}
		r.spec.Servers = append(r.spec.Servers, Server{Name: t.Key, DSN: dsn})
	}
	return nil
}

// readConfigs reads NAME: {setting: value, …} lines.
func (r *planReader) readConfigs(v yamlpos.Node) error {
	kvs, err := v.Map()
	if err != nil {
		return err
	}
	for _, c := range kvs {
		sets, err := planSettings(c.Value)
		if err != nil {
			return err
		}
		r.configs = append(r.configs, Config{Name: c.Key, Settings: sets})
	}
	return nil
}

// readEnvs reads the env field: SPECs (a profile's name or NAME:key=value,…),
// or one-key mappings from a name to its keys (an ad-hoc profile), as a
// list or a single value.
func (r *planReader) readEnvs(v yamlpos.Node) error {
	items, ok := v.Items()
	if !ok {
		items = []yamlpos.Node{v.In("env[0]")}
	}
	for _, item := range items {
		var spec string
		if item.IsMap() {
			kvs, _ := item.Map()
			if len(kvs) != 1 {
				return item.Errorf("want one profile name with its keys, e.g. small: {memory: 256MiB}")
			}
			keys, err := settingTexts(kvs[0].Value)
			if err != nil {
				return err
			}
			spec = kvs[0].Key + ":" + strings.Join(keys, ",")
		} else {
			var err error
			if spec, err = item.Scalar(); err != nil {
				return err
			}
		}
		if _, err := env.ParseSpec(spec); err != nil {
			return envError(item, err)
		}
		r.envs = append(r.envs, spec)
		r.envNodes = append(r.envNodes, item)
	}
	return nil
}

// envError is an error about an env item, which names the SPEC the item
// makes ("small:memory=1") rather than the flag.
func envError(n yamlpos.Node, err error) error {
	var se *env.SpecError
	if errors.As(err, &se) {
		return n.Errorf("%q: %s", se.Spec, se.Msg)
	}
	return n.Wrap(err)
}

func (r *planReader) checksums(v yamlpos.Node) error {
	s, err := v.Scalar()
	if err != nil {
		return err
	}
	switch strings.ToLower(s) {
	case "on", "true", "yes", "1":
		r.spec.Checksums = true
	case "off", "false", "no", "0", "":
		r.spec.Checksums = false
	default:
		return v.Errorf("want on or off, got %q", s)
	}
	return nil
}

func (r *planReader) reps(v yamlpos.Node) error {
	s, err := v.Scalar()
	if err != nil {
		return err
	}
	n, capN, err := ParseReps(s)
	if err != nil {
		return v.Errorf("%v", err)
	}
	r.spec.Reps, r.spec.RepsCap = n, capN
	return nil
}

func (r *planReader) budget(v yamlpos.Node) error {
	s, err := v.Scalar()
	if err != nil {
		return err
	}
	d, err := ParseBudget(s)
	if err != nil {
		return v.Errorf("%v", err)
	}
	r.spec.Budget = d
	return nil
}

func (r *planReader) alpha(v yamlpos.Node) error {
	s, err := v.Scalar()
	if err != nil {
		return err
	}
	a, err := strconv.ParseFloat(s, 64)
	if err != nil || a <= 0 || a >= 1 {
		return v.Errorf("want a number between 0 and 1, got %q", s)
	}
	r.spec.Alpha = a
	return nil
}

func (r *planReader) minChange(v yamlpos.Node) error {
	s, err := v.Scalar()
	if err != nil {
		return err
	}
	f, err := ParseMinChange(s)
	if err != nil {
		return v.Errorf("%v", err)
	}
	r.spec.MinChange = f
	return nil
}

func (r *planReader) failOn(v yamlpos.Node) error {
	s, err := v.Scalar()
	if err != nil {
		return err
	}
	if err := CheckFailOn(s); err != nil {
		return v.Errorf("%v", err)
	}
	r.spec.FailOn = s
	return nil
}

// studies reads the studies list: names, or one-key mappings from a name
// to its parameters.
func (r *planReader) studies(v yamlpos.Node) error {
	items, ok := v.Items()
	if !ok {
		names, err := v.List()
		for _, n := range names {
			r.studyNodes[n] = v
		}
		r.studyNames = names
		return err
	}
	for _, item := range items {
		name, params, err := r.study(item)
		if err != nil {
			return err
		}
		if err := checkStudyName(name); err != nil {
			return params.Wrap(err)
		}
		r.studyNames = append(r.studyNames, name)
		r.studyNodes[name] = params
	}
	return nil
}

// study reads one item of the studies list: its name, and the node that
// gave it, and records its parameters.
func (r *planReader) study(item yamlpos.Node) (string, yamlpos.Node, error) {
	if !item.IsMap() {
		name, err := item.Scalar()
		return name, item, err
	}
	kvs, _ := item.Map()
	if len(kvs) != 1 {
		return "", item, item.Errorf("want one study name with its parameters")
	}
	name := kvs[0].Key
	if err := checkStudyName(name); err != nil {
		return "", item, kvs[0].KeyNode.In(item.Field()).Wrap(err)
	}
	params, err := kvs[0].Value.Map()
	if err != nil {
		return "", item, err
	}
	for _, p := range params {
		vals, err := p.Value.List()
		if err != nil {
			return "", item, err
		}
		r.params = append(r.params, name+"."+p.Key+"="+strings.Join(vals, ","))
		r.paramNodes[name+"."+p.Key] = p.Value
	}
	return name, kvs[0].KeyNode.In(item.Field()), nil
}

func checkStudyName(name string) error {
	if name == "all" {
		return nil
	}
	_, err := study.Get(name)
	return err
}

// settingTexts reads a mapping of server settings as name=value texts.
func settingTexts(v yamlpos.Node) ([]string, error) {
	kvs, err := v.Map()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		val, err := kv.Value.Scalar()
		if err != nil {
			return nil, err
		}
		out = append(out, kv.Key+"="+val)
	}
	return out, nil
}

// planSettings reads a mapping of server settings.
func planSettings(v yamlpos.Node) ([]pgserver.Setting, error) {
	texts, err := settingTexts(v)
	if err != nil {
		return nil, err
	}
	sets, err := pgserver.ParseSettings(texts)
	if err != nil {
		return nil, v.Wrap(err)
	}
	return sets, nil
}

func planBool(v yamlpos.Node) (bool, error) {
	s, err := v.Scalar()
	if err != nil {
		return false, err
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, v.Errorf("want true or false, got %q", s)
	}
	return b, nil
}

// SetConfigs makes the comparison one managed server per configuration of
// its single version (compare --config, a plan's configs): Versions must
// name exactly one version, which each configuration takes, and Servers
// none.
func (s *Spec) SetConfigs(configs []Config) error {
	if len(s.Servers) > 0 {
		return inputError(FieldConfigs, "{config} applies to a managed version ({versions}), not to the servers of {target}")
	}
	if len(s.Versions) != 1 {
		return inputError(FieldConfigs, "{config} needs exactly one version in {versions}, e.g. 17, and two configurations or more of it")
	}
	for _, c := range configs {
		c.Version = s.Versions[0]
		s.Configs = append(s.Configs, c)
	}
	s.Versions = nil
	return nil
}
