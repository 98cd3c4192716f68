package lab

import (
	"strings"
	"testing"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver"
)

func versions(t *testing.T, vs ...string) []pgserver.VersionSpec {
	t.Helper()
	var out []pgserver.VersionSpec
	for _, v := range vs {
		s, err := pgserver.ParseVersionSpec(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func names(ts []Target) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, " ")
}

func TestTargetsAreVersionsConfigsEnvironments(t *testing.T) {
	small, _ := env.ParseSpec("small:memory=256MiB")
	cases := []struct {
		spec Spec
		want string
	}{
		{Spec{Versions: versions(t, "16", "17")}, "pg16 pg17"},
		{Spec{Versions: versions(t, "17.2", "17.4")}, "pg17.2 pg17.4"},
		{Spec{Versions: versions(t, "16", "17"), Envs: []env.Profile{env.T3Micro}}, "pg16@t3.micro pg17@t3.micro"},
		{Spec{Versions: versions(t, "17"), Envs: []env.Profile{env.Local, env.T3Micro}}, "pg17@local pg17@t3.micro"},
		{Spec{Configs: []Config{{Name: "a"}, {Name: "b"}}, Envs: []env.Profile{env.Local, small}}, "a@local a@small b@local b@small"},
		{Spec{Versions: versions(t, "17"), Servers: []Server{{Name: "prod", DSN: "postgres://x@y/z"}}, Envs: []env.Profile{small}}, "pg17@small prod"},
	}
	for _, c := range cases {
		got, err := c.spec.Targets()
		if err != nil {
			t.Errorf("%+v: %v", c.spec, err)
			continue
		}
		if names(got) != c.want {
			t.Errorf("targets %q, want %q", names(got), c.want)
		}
		for _, tg := range got {
			if tg.Managed() && len(c.spec.Envs) > 0 && (tg.Env == nil || !strings.HasSuffix(tg.Name, "@"+tg.Env.Name)) {
				t.Errorf("%s: environment %v", tg.Name, tg.Env)
			}
			if !tg.Managed() && tg.Env != nil {
				t.Errorf("%s: a user's server got an environment", tg.Name)
			}
		}
	}
}

func TestTargetsBadInput(t *testing.T) {
	cases := []struct {
		spec Spec
		want string
	}{
		{Spec{}, "name the servers"},
		{Spec{Versions: versions(t, "17", "17")}, `target name "pg17" is given twice`},
		{Spec{Versions: versions(t, "17"), Envs: []env.Profile{env.T3Micro, env.T3Micro}}, "--env t3.micro is given twice"},
		{Spec{Servers: []Server{{Name: "prod", DSN: "x"}}, Envs: []env.Profile{env.T3Micro}}, "--env applies to servers pglab starts"},
		{Spec{Configs: []Config{{Name: "a/b"}}}, `--config a/b: invalid instance name`},
	}
	for _, c := range cases {
		_, err := c.spec.Targets()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Targets(%+v) = %v, want %q", c.spec, err, c.want)
		}
		if _, ok := err.(*InputError); err != nil && !ok {
			t.Errorf("%v is not an InputError", err)
		}
	}
}

func TestStudies(t *testing.T) {
	all, err := StudyNames("all")
	if err != nil || len(all) == 0 {
		t.Fatal(all, err)
	}
	for _, n := range all {
		if n == "tune" || n == "replay" {
			t.Errorf("%s is in all", n)
		}
	}
	runs, err := Studies([]string{"seqscan", "tps"}, []string{"seqscan.scale=2", "duration=2s"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Params.Int("scale") != 2 {
		t.Errorf("runs %+v", runs)
	}
	for args, want := range map[string]string{
		"nosuch.x=1": `study "nosuch" is not in this comparison`,
		"bogus=1":    "--param bogus: no study in this comparison has that parameter",
	} {
		if _, err := Studies([]string{"seqscan"}, []string{args}, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Studies(%s) = %v, want %q", args, err, want)
		}
	}
	if _, err := StudyNames("seqscan,nosuch"); err == nil || !strings.Contains(err.Error(), "--studies:") {
		t.Errorf("StudyNames with an unknown study: %v", err)
	}
}

func TestAATargetsAreOneVersionTwice(t *testing.T) {
	got, err := (&Spec{AA: true, Versions: versions(t, "17"), Settings: []pgserver.Setting{{Name: "work_mem", Value: "4MB"}}}).Targets()
	if err != nil {
		t.Fatal(err)
	}
	if names(got) != "a b" {
		t.Fatalf("targets %q, want \"a b\"", names(got))
	}
	if got[0].Version != got[1].Version || len(got[0].Settings) != 0 || len(got[1].Settings) != 0 {
		t.Errorf("the two servers differ: %+v vs %+v", got[0], got[1])
	}
	withEnv, err := (&Spec{AA: true, Versions: versions(t, "17"), Envs: []env.Profile{env.T3Micro}}).Targets()
	if err != nil || names(withEnv) != "a@t3.micro b@t3.micro" {
		t.Errorf("A/A in an environment: %q, %v", names(withEnv), err)
	}
	bad := []Spec{
		{AA: true, Versions: versions(t, "16", "17")},
		{AA: true},
		{AA: true, Versions: versions(t, "17"), Configs: []Config{{Name: "x"}}},
		{AA: true, Versions: versions(t, "17"), Servers: []Server{{Name: "prod", DSN: "postgres://x@y/z"}}},
	}
	for _, s := range bad {
		if _, err := s.Targets(); err == nil || !strings.Contains(err.Error(), "--aa") {
			t.Errorf("%+v: error %v, want one naming --aa", s, err)
		}
	}
}

// TestParseReps: auto, auto with a cap, and fixed counts; the rest is
// refused with what is wanted.
func TestParseReps(t *testing.T) {
	for _, tc := range []struct {
		in         string
		reps, capN int
		bad        bool
	}{
		{"auto", 0, 0, false}, {"", 0, 0, false}, {"AUTO:20", 0, 20, false}, {"auto:2", 0, 2, false},
		{"5", 5, 0, false}, {"auto:1", 0, 0, true}, {"auto:x", 0, 0, true}, {"0", 0, 0, true}, {"many", 0, 0, true},
	} {
		reps, capN, err := ParseReps(tc.in)
		if (err != nil) != tc.bad || reps != tc.reps || capN != tc.capN {
			t.Errorf("ParseReps(%q) = %d, %d, %v", tc.in, reps, capN, err)
		}
	}
	a := newAutoReps(&Spec{Studies: mustStudies(t, "commit"), Quick: true, RepsCap: 20}, 2, nil)
	if a.design.Cap() != 20 {
		t.Errorf("--reps auto:20: design cap %d", a.design.Cap())
	}
}

// mustStudies returns the quick runs of the named studies.
func mustStudies(t *testing.T, names ...string) []StudyRun {
	t.Helper()
	runs, err := Studies(names, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}
