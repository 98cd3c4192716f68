package cli

import (
	"strings"
	"testing"
)

func TestParsePlanErrors(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"versions: [16, 17]\nreps: zero\n", "p.yaml:2:7: reps: want a whole number of at least 1"},
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
	}
	for _, c := range cases {
		_, err := parsePlan("p.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan %q: err = %v, want %q", c.yaml, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("plan %q: error spans lines: %q", c.yaml, err)
		}
	}
}

func TestParsePlan(t *testing.T) {
	spec, err := parsePlan("p.yaml", []byte(planExample))
	if err != nil {
		t.Fatalf("the help's example plan: %v", err)
	}
	if spec.flags.versions != "16,17" || spec.reps != 5 || spec.quick || spec.alpha != 0.05 || spec.out != "pglab-report" {
		t.Errorf("spec = %+v", spec)
	}
	if strings.Join(spec.studies, ",") != "vacuum,tps,copy-errors" {
		t.Errorf("studies = %v", spec.studies)
	}
	var params []string
	for _, p := range spec.params {
		params = append(params, p.text)
	}
	want := "vacuum.rows=1000000 vacuum.cases=95:index,5:index tps.clients=5,10,20 tps.duration=30s"
	if strings.Join(params, " ") != want {
		t.Errorf("params = %q, want %q", strings.Join(params, " "), want)
	}
	if strings.Join(spec.flags.sets, " ") != "shared_buffers=256MB" {
		t.Errorf("settings = %v", spec.flags.sets)
	}
	spec, err = parsePlan("p.yaml", []byte("versions: 17\nconfigs:\n  small: {shared_buffers: 128MB, work_mem: 4MB}\n  big:\n    shared_buffers: 1GB\ntargets:\n  mine: postgres://u@h/db\n  named:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(spec.configs, " ") != "small:shared_buffers=128MB,work_mem=4MB big:shared_buffers=1GB" {
		t.Errorf("configs = %v", spec.configs)
	}
	if strings.Join(spec.flags.targets, " ") != "mine=postgres://u@h/db named" {
		t.Errorf("targets = %v", spec.flags.targets)
	}
}

// FuzzParsePlan checks that no plan file makes the parser panic, and that
// errors stay on one line.
func FuzzParsePlan(f *testing.F) {
	f.Add(planExample)
	f.Add("versions: [16, 17]\nreps: zero\n")
	f.Add("versions: 16\nstudies:\n  - vacuum: {rows: 5}\n")
	f.Add("a: &x [1]\nb: *x\n")
	f.Add("configs:\n  a: {x: 1}\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, err := parsePlan("f.yaml", []byte(s))
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error: %q", err)
		}
	})
}
