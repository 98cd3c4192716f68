package pgserver

import (
	"strings"
	"testing"
)

// FuzzParseSetting checks that any --set text parses without panicking,
// and that an accepted setting has a valid lower-case name and survives
// String and ParseSetting unchanged.
func FuzzParseSetting(f *testing.F) {
	for _, s := range []string{"shared_buffers=256MB", "autovacuum=off", "a.b=1", "x=", "=1", "nope", " Work_Mem = 64MB ",
		"search_path='$user', public", "a.b.c=1", "x=y=z", "\x00=1", "é=1", "x\n=1", "pg_stat_statements.track=all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseSetting(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid setting ") {
				t.Errorf("error %q does not name the setting", err)
			}
			return
		}
		if !settingNameRE.MatchString(st.Name) || st.Name != strings.ToLower(st.Name) {
			t.Errorf("%q: accepted name %q", s, st.Name)
		}
		again, err := ParseSetting(st.String())
		if err != nil || again != st {
			t.Errorf("%q: round trip %+v -> %+v (%v)", s, st, again, err)
		}
		if line := strings.TrimSuffix(confLine(st), "\n"); strings.ContainsAny(line, "\n\r\x00") {
			t.Errorf("%q: configuration line %q spans lines (postgres would refuse the file)", s, line)
		}
	})
}

// FuzzParseVersionSpec checks version texts: no panic, and an accepted
// version is supported and prints back as something that parses the same.
func FuzzParseVersionSpec(f *testing.F) {
	for _, s := range []string{"17", "17.10", "17.10.0", "pg16", "9.6", "12", "99", "17.", "1e2", "", " 18 ", "17.1000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersionSpec(s)
		if err != nil {
			return
		}
		if v.Major < MinMajor {
			t.Errorf("%q: accepted unsupported major %d", s, v.Major)
		}
		again, err := ParseVersionSpec(v.String())
		if err != nil || again != v {
			t.Errorf("%q: round trip %+v -> %+v (%v)", s, v, again, err)
		}
	})
}
