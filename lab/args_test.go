package lab

import (
	"errors"
	"strings"
	"testing"
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
