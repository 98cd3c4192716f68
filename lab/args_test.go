package lab

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestArgsFill(t *testing.T) {
	var s Spec
	a := Args{Versions: "16,17", Targets: []string{"prod=postgres://u@h/db", "named"}, Sets: []string{"work_mem=8MB"}, Checksums: "on", Workers: 2, Listen: "127.0.0.1:0", Token: "t"}
	if err := a.Fill(&s); err != nil {
		t.Fatal(err)
	}
	if len(s.Versions) != 2 || len(s.Servers) != 2 || s.Servers[0] != (Server{"prod", "postgres://u@h/db"}) || s.Servers[1] != (Server{Name: "named"}) ||
		!s.Checksums || len(s.Settings) != 1 || s.Workers != (Workers{2, "127.0.0.1:0", "t"}) {
		t.Errorf("spec = %+v", s)
	}
	for _, c := range []struct {
		args  Args
		field string
		want  string
	}{
		{Args{Workers: -1}, FieldWorkers, "--workers must be 1 or more"},
		{Args{Workers: 2}, FieldWorkers, "--workers needs --listen"},
		{Args{Token: "x"}, FieldWorkers, "--listen and --token belong to --workers N"},
		{Args{Versions: "12"}, FieldVersions, "--versions: PostgreSQL 12 is not supported"},
		{Args{Targets: []string{"postgres://u:secret@h/db"}}, FieldServers, "name the server, NAME=DSN"},
		{Args{Targets: []string{"a=host=h port=notaport"}}, FieldServers, "target a: invalid DSN host=h port=notaport"},
		{Args{Sets: []string{"nonsense"}}, FieldSettings, ""},
	} {
		err := c.args.Fill(&Spec{})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v (%#v), want %s %q", c.args, err, ie, c.field, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%+v: the error shows the password: %v", c.args, err)
		}
	}
	if _, err := ParseChecksums("maybe"); err == nil || err.Error() != `--checksums must be on or off: got "maybe"` {
		t.Errorf("checksums maybe: %v", err)
	}
}

// TestRepsFromEnvironment: $PGLAB_REPS and $PGLAB_BUDGET stand for
// --reps and --budget when those are not given, a flag wins over them,
// and a bad value is refused under the variable's name.
func TestRepsFromEnvironment(t *testing.T) {
	t.Setenv(RepsEnv, "auto:10")
	t.Setenv(BudgetEnv, "3m")
	var s Spec
	if err := (Args{Versions: "17"}).Fill(&s); err != nil {
		t.Fatal(err)
	}
	if s.Reps != 0 || s.RepsCap != 10 || s.Budget != 3*time.Minute {
		t.Errorf("from the environment: reps %d, cap %d, budget %v; want auto:10 and 3m", s.Reps, s.RepsCap, s.Budget)
	}
	s = Spec{}
	if err := (Args{Versions: "17", Reps: "auto:20", Budget: "none"}).Fill(&s); err != nil {
		t.Fatal(err)
	}
	if s.RepsCap != 20 || s.Budget != NoBudget {
		t.Errorf("flags over the environment: cap %d, budget %v; want 20 and none", s.RepsCap, s.Budget)
	}
	for _, c := range []struct{ reps, budget, want string }{
		{"many", "", "$PGLAB_REPS: want auto"},
		{"auto", "soon", "$PGLAB_BUDGET: "},
		{"5", "3m", "$PGLAB_BUDGET goes with $PGLAB_REPS auto: a fixed $PGLAB_REPS 5 runs"},
	} {
		t.Setenv(RepsEnv, c.reps)
		t.Setenv(BudgetEnv, c.budget)
		err := (Args{Versions: "17"}).Fill(&Spec{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PGLAB_REPS=%s PGLAB_BUDGET=%s: err %v, want %q", c.reps, c.budget, err, c.want)
		}
	}
}
