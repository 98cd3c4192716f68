package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/internal/yamlpos"
)

func TestParsePlanErrors(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"versions: [16, 17]\nreps: zero\n", "p.yaml:2:7: reps: want auto, auto:N (a cap of N rounds per case) or a whole number of at least 1"},
		{"versions: [16, 17]\nbudget: soon\n", "p.yaml:2:9: budget: want a duration of at least 1s"},
		{"versions: 16\nstudies:\n  - nosuch\n", `p.yaml:3:5: studies[0]: unknown study "nosuch"`},
		{"versions: 16\nbogus: 1\n", "p.yaml:2:1: bogus: unknown field"},
		{"versions: [16\n", "p.yaml:1:11: invalid YAML: sequence end token ']' not found"},
		{"versions: 16\nsettings:\n  shared_buffers: [1,2]\n", "p.yaml:3:19: settings.shared_buffers: want a single value, not a list"},
		{"versions: 16\nchecksums: maybe\n", `p.yaml:2:12: checksums: want on or off, got "maybe"`},
		{"versions: 12\n", "p.yaml:1:11: versions: PostgreSQL 12 is not supported"},
		{"versions: 16\nversions: 17\n", `p.yaml:2:1: invalid YAML: mapping key "versions" already defined`},
		{"- a\n- b\n", "p.yaml:1:1: plan: want a mapping"},
		{"", "p.yaml: want one YAML document"},
		{"versions: 16\nalpha: 2\n", "p.yaml:2:8: alpha: want a number between 0 and 1"},
		{"versions: 16\nquick: sometimes\n", `quick: want true or false, got "sometimes"`},
		{"versions: 16\nstudies:\n  - vacuum: {rows: 5}\n    tps: {}\n", "studies[0]: want one study name with its parameters"},
		{"versions: 16\ntargets: [a, b]\n", "targets: want a mapping"},
		// Found once the whole plan is read, at the line that gave the value.
		{"versions: 16\nstudies:\n  - vacuum:\n      rows: 0\n", "p.yaml:4:13: studies[0].vacuum.rows: study vacuum: --param rows=0: must be at least"},
		{"versions: 16\nstudies:\n  - vacuum:\n      nosuch: 1\n", `p.yaml:4:15: studies[0].vacuum.nosuch: study vacuum has no parameter "nosuch"`},
		{"versions: 16\nstudies:\n  - tps:\n      script: /nonexistent.sql\n", "p.yaml:4:15: studies[0].tps.script: study tps: script: open /nonexistent.sql"},
		{"studies: [commit]\n", "p.yaml: name the servers"},
		{"versions: [16, 17]\nconfigs:\n  a: {work_mem: 4MB}\n", "p.yaml:3:4: configs: configs needs exactly one version in versions"},
		{"versions: 17\nenv: [t3.micro, t3.micro]\n", "p.yaml:2:6: env: env t3.micro is given twice"},
		{"versions: 17\nmin_change: lots\n", `p.yaml:2:13: min_change: want a percentage from 0 to below 100, e.g. 5 or 5%, got "lots"`},
		{"versions: 17\nfail_on: slower\n", `p.yaml:2:10: fail_on: want "regression", got "slower"`},
		{"versions: [16, 17]\naa: true\n", "aa compares one version with itself: give exactly one in versions"},
	}
	for _, c := range cases {
		_, err := ParsePlan("p.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan %q: err = %v, want %q", c.yaml, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("plan %q: error spans lines: %q", c.yaml, err)
		}
		var ie *InputError
		var ye *yamlpos.Error
		if err != nil && (!errors.As(err, &ie) || !errors.As(err, &ye)) {
			t.Errorf("plan %q: %T is not an *InputError with a position", c.yaml, err)
		}
	}
}

func TestParsePlanParamErrorKeepsFields(t *testing.T) {
	_, err := ParsePlan("p.yaml", []byte("versions: 16\nstudies:\n  - vacuum:\n      rows: 0\n"))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != FieldStudies || ie.Study != "vacuum" || ie.Param != "rows" {
		t.Fatalf("err = %#v", err)
	}
	var ye *yamlpos.Error
	if !errors.As(err, &ye) || ye.Line != 4 || ye.Field != "studies[0].vacuum.rows" {
		t.Errorf("position = %+v", ye)
	}
}

func TestParsePlan(t *testing.T) {
	spec, err := ParsePlan("p.yaml", []byte(PlanExample))
	if err != nil {
		t.Fatalf("the help's example plan: %v", err)
	}
	if len(spec.Versions) != 2 || spec.Versions[0].Major != 16 || spec.Versions[1].Major != 17 || spec.Reps != 0 || spec.Quick || spec.Alpha != 0.05 || spec.Out != "pglab-report" || spec.Plan != "p.yaml" {
		t.Errorf("spec = %+v", spec)
	}
	if strings.Join(spec.StudyNames(), ",") != "vacuum,tps,copy-errors" {
		t.Errorf("studies = %v", spec.StudyNames())
	}
	params := map[string]string{}
	for _, s := range spec.Studies {
		for k, v := range s.Params.Text() {
			params[s.Study.Info().Name+"."+k] = v
		}
	}
	for k, v := range map[string]string{"vacuum.rows": "1000000", "vacuum.cases": "95:index,5:index", "tps.clients": "5,10,20", "tps.duration": "30s"} {
		if params[k] != v {
			t.Errorf("%s = %q, want %q", k, params[k], v)
		}
	}
	if len(spec.Settings) != 1 || spec.Settings[0].String() != "shared_buffers=256MB" {
		t.Errorf("settings = %v", spec.Settings)
	}
	spec, err = ParsePlan("p.yaml", []byte("versions: 17\nconfigs:\n  small: {shared_buffers: 128MB, work_mem: 4MB}\n  big:\n    shared_buffers: 1GB\ntargets:\n  mine: postgres://u@h/db\n  named:\n"))
	if err == nil || !strings.Contains(err.Error(), "configs applies to a managed version (versions), not to the servers of targets") {
		t.Errorf("configs beside targets: %v", err)
	}
	spec, err = ParsePlan("p.yaml", []byte("versions: 17\nconfigs:\n  small: {shared_buffers: 128MB, work_mem: 4MB}\n  big:\n    shared_buffers: 1GB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Versions) != 0 || len(spec.Configs) != 2 || spec.Configs[0].Name != "small" || spec.Configs[1].Version.Major != 17 || len(spec.Configs[0].Settings) != 2 {
		t.Errorf("configs = %+v", spec.Configs)
	}
	spec, err = ParsePlan("p.yaml", []byte("targets:\n  mine: postgres://u@h/db\n  named:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Servers) != 2 || spec.Servers[0] != (Server{"mine", "postgres://u@h/db"}) || spec.Servers[1] != (Server{Name: "named"}) {
		t.Errorf("targets = %+v", spec.Servers)
	}
}

func TestParsePlanEnv(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	os.WriteFile(a, []byte("fromfile: {cpus: 1}\n"), 0o600)
	os.WriteFile(b, []byte(""), 0o600)
	spec, err := ParsePlan("p.yaml", []byte("versions: [16, 17]\nenv:\n  - local\n  - t3.micro\n  - small: {memory: 256MiB, cpus: 0.5}\n  - ebs87:read=87MB/s\n  - fromfile\nenv_file: ["+a+", "+b+"]\nenv_unenforced: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range spec.Envs {
		got = append(got, p.Name)
	}
	if strings.Join(got, " ") != "local t3.micro small ebs87 fromfile" || !spec.Unenforced {
		t.Errorf("envs = %q, env_unenforced = %v", got, spec.Unenforced)
	}
	if spec.Envs[2].Spec() != "small:cpus=0.5,memory=256MB" {
		t.Errorf("ad-hoc profile = %q", spec.Envs[2].Spec())
	}
	spec, err = ParsePlan("p.yaml", []byte("versions: 17\nenv: t3.micro\n"))
	if err != nil || len(spec.Envs) != 1 || spec.Envs[0].Name != "t3.micro" {
		t.Errorf("a single env: %v, %v", spec, err)
	}
	for yaml, want := range map[string]string{
		"versions: 17\nenv:\n  - x:cpu=2\n":                     `p.yaml:3:5: env[0]: "x:cpu=2": unknown key "cpu"; did you mean cpus?`,
		"versions: 17\nenv:\n  - small: {memory: 1}\n":          `p.yaml:3:10: env[0]: "small:memory=1": memory=1: no unit`,
		"versions: 17\nenv:\n  - {a: {cpus: 1}, b: 2}\n":        "env[0]: want one profile name with its keys",
		"versions: 17\nenv_unenforced: maybe\n":                 `p.yaml:2:17: env_unenforced: want true or false, got "maybe"`,
		"versions: 17\nenv: [nosuch]\n":                         `p.yaml:2:7: env[0]: "nosuch": no profile "nosuch"`,
		"versions: 17\nenv: [x]\nenv_file: /nonexistent.yaml\n": "p.yaml:3:11: env_file: profiles file: open /nonexistent.yaml",
	} {
		_, err := ParsePlan("p.yaml", []byte(yaml))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("plan %q: err = %v, want %q on one line", yaml, err, want)
		}
	}
}

// FuzzParsePlan checks that no plan file makes the parser panic, and that
// errors stay on one line.
func FuzzParsePlan(f *testing.F) {
	f.Add(PlanExample)
	f.Add("versions: [16, 17]\nreps: zero\n")
	f.Add("versions: 16\nstudies:\n  - vacuum: {rows: 5}\n")
	f.Add("a: &x [1]\nb: *x\n")
	f.Add("configs:\n  a: {x: 1}\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, err := ParsePlan("f.yaml", []byte(s))
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error: %q", err)
		}
	})
}

func TestParsePlanVerdict(t *testing.T) {
	spec, err := ParsePlan("p.yaml", []byte("versions: 17\naa: true\nmin_change: 2.5%\nfail_on: regression\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !spec.AA || spec.MinChange != 0.025 || spec.FailOn != FailOnRegression {
		t.Errorf("aa %v, min_change %v, fail_on %q", spec.AA, spec.MinChange, spec.FailOn)
	}
	targets, err := spec.Targets()
	if err != nil || names(targets) != "a b" {
		t.Errorf("A/A plan's targets: %q, %v", names(targets), err)
	}
}
