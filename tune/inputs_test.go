package tune

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMemory(t *testing.T) {
	good := []struct {
		in   string
		want Memory
		kb   int64
	}{
		{"4GB", gb(4), 4 << 20},
		{"4gb", gb(4), 4 << 20},
		{" 1 GB ", gb(1), 1 << 20},
		{"512MB", mb(512), 512 << 10},
		{"1536mb", mb(1536), 1536 << 10},
		{"2TB", Memory{2, UnitTB}, 2 << 30},
	}
	for _, c := range good {
		got, err := ParseMemory(c.in)
		if err != nil || got != c.want || got.KB() != c.kb {
			t.Errorf("ParseMemory(%q) = %v (%d kB), %v; want %v (%d kB)", c.in, got, got.KB(), err, c.want, c.kb)
		}
	}
	bad := []struct{ in, want string }{
		{"12XB", "memory 12XB: unknown unit XB; PGTune takes MB, GB or TB"},
		{"0", "memory 0: must be greater than zero"},
		{"0GB", "memory 0GB: must be greater than zero"},
		{"4", "memory 4: missing unit (MB, GB or TB), e.g. 4GB"},
		{"1.5GB", "memory 1.5GB: want a whole number of MB, GB or TB (as PGTune), e.g. 1536MB for 1.5GB"},
		{"-1GB", "memory -1GB: want a whole number and a unit (MB, GB or TB), e.g. 4GB"},
		{"", `memory "": want a whole number and a unit (MB, GB or TB), e.g. 4GB`},
		{"GB", "memory GB: want a whole number and a unit (MB, GB or TB), e.g. 4GB"},
		{"4096kB", "memory 4096kB: unknown unit kB; PGTune takes MB, GB or TB"},
		{"99999999999999999999GB", "memory 99999999999999999999GB: too large"},
	}
	for _, c := range bad {
		_, err := ParseMemory(c.in)
		var ie *InputError
		if !errors.As(err, &ie) || err.Error() != c.want || ie.Input != "memory" || ie.Value != c.in {
			t.Errorf("ParseMemory(%q) err = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestMemoryString(t *testing.T) {
	if got := gb(4).String(); got != "4 GB" {
		t.Errorf("String = %q, want %q", got, "4 GB")
	}
}

func TestMemoryFromKB(t *testing.T) {
	cases := []struct {
		kb   int64
		want Memory
	}{
		{24684084, mb(24105)},
		{1 << 20, gb(1)},
		{(1 << 20) + 1023, gb(1)}, // less than a MB over: rounded down
		{3 << 30, Memory{3, UnitTB}},
		{1536 << 10, mb(1536)},
		{1000, mb(0)},
		{999999 << 10, mb(999999)},
		{(1000000 << 10) + 5, gb(976)}, // 976.56 GB
		{(2000 << 20) + 7, gb(2000)},   // above 999999 MB
		{(1000000 << 20) + 9, Memory{976, UnitTB}},
	}
	for _, c := range cases {
		if got := MemoryFromKB(c.kb); got != c.want {
			t.Errorf("MemoryFromKB(%d) = %v, want %v", c.kb, got, c.want)
		}
	}
}

func TestParseNames(t *testing.T) {
	for _, v := range []string{"10", "11", "17", "18"} {
		if _, err := ParseVersion(v); err != nil {
			t.Errorf("ParseVersion(%q): %v", v, err)
		}
	}
	for _, v := range []string{"9", "9.6", "19", "17.2", "", "x"} {
		if _, err := ParseVersion(v); err == nil || !strings.HasSuffix(err.Error(), ": PGTune knows PostgreSQL 10 to 18") {
			t.Errorf("ParseVersion(%q) err = %v", v, err)
		}
	}
	for _, s := range []string{"linux", "windows", "mac"} {
		if got, err := ParseOS(s); err != nil || string(got) != s {
			t.Errorf("ParseOS(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"web", "oltp", "dw", "desktop", "mixed"} {
		if got, err := ParseWorkload(s); err != nil || string(got) != s {
			t.Errorf("ParseWorkload(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"ssd", "hdd", "san", "nvme"} {
		if got, err := ParseStorage(s); err != nil || string(got) != s {
			t.Errorf("ParseStorage(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"less_ram", "mid_ram", "greater_ram"} {
		if got, err := ParseDBSize(s); err != nil || string(got) != s {
			t.Errorf("ParseDBSize(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"conf", "alter", "json"} {
		if got, err := ParseFormat(s); err != nil || string(got) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseOS("darwin"); err == nil {
		t.Error("ParseOS(darwin) accepted")
	}
	if _, err := ParseWorkload("Web"); err == nil {
		t.Error("ParseWorkload(Web) accepted")
	}
	if _, err := ParseStorage("tape"); err == nil {
		t.Error("ParseStorage(tape) accepted")
	}
	if _, err := ParseDBSize("huge"); err == nil {
		t.Error("ParseDBSize(huge) accepted")
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat(yaml) accepted")
	}
}

func TestValidate(t *testing.T) {
	ok := []Inputs{
		with(nil),
		with(func(in *Inputs) { in.Memory = mb(512) }),
		with(func(in *Inputs) { in.Memory = Memory{999999, UnitTB} }),
		with(func(in *Inputs) { in.CPUs = 1; in.Connections = 20 }),
		with(func(in *Inputs) { in.CPUs = 999999; in.Connections = 999999 }),
	}
	for _, in := range ok {
		if err := in.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", in, err)
		}
	}
	bad := []struct {
		in   Inputs
		want string
	}{
		{with(func(in *Inputs) { in.Memory = mb(511) }), "memory 511MB: must be at least 512 MB (PGTune's minimum)"},
		{with(func(in *Inputs) { in.Memory = gb(1000000) }), "memory 1000000GB: must be at most 999999 GB (PGTune's maximum); use a larger unit"},
		{with(func(in *Inputs) { in.Connections = 19 }), "connections 19: must be from 20 to 999999 (PGTune's limits)"},
		{with(func(in *Inputs) { in.Connections = 1000000 }), "connections 1000000: must be from 20 to 999999 (PGTune's limits)"},
		{with(func(in *Inputs) { in.CPUs = 1000000 }), "cpus 1000000: must be at most 999999 (PGTune's maximum)"},
		{with(func(in *Inputs) { in.Version = 19 }), "versions 19: PGTune knows PostgreSQL 10 to 18"},
		{with(func(in *Inputs) { in.Memory = Memory{} }), `memory "": total memory is required`},
	}
	for _, c := range bad {
		if err := c.in.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("Validate(%+v) = %v, want %q", c.in, err, c.want)
		}
	}
	// Recommend takes what only the form refuses, as PGTune's formulas do.
	if _, err := Recommend(with(func(in *Inputs) { in.Memory = mb(128); in.Connections = 5 })); err != nil {
		t.Errorf("Recommend(128 MB, 5 connections): %v", err)
	}
}

func TestDefaults(t *testing.T) {
	in := DefaultInputs()
	if in.Version != 18 || in.OS != OSLinux || in.Workload != WorkloadWeb || in.Storage != StorageSSD || in.DBSize != DBSizeUpTo3xRAM {
		t.Errorf("DefaultInputs = %+v", in)
	}
	if in.CPUs != 0 || in.Connections != 0 || !in.Memory.IsZero() {
		t.Errorf("DefaultInputs gives CPUs, connections or memory: %+v", in)
	}
	want := map[Workload]int{WorkloadWeb: 200, WorkloadOLTP: 300, WorkloadDW: 40, WorkloadDesktop: 20, WorkloadMixed: 100, "x": 0}
	for w, n := range want {
		if got := DefaultConnections(w); got != n {
			t.Errorf("DefaultConnections(%q) = %d, want %d", w, got, n)
		}
	}
}

func TestAlterSystem(t *testing.T) {
	cases := []struct {
		p    Parameter
		want string
	}{
		{Parameter{Name: "wal_buffers", Value: "7864kB"}, "ALTER SYSTEM SET wal_buffers = '7864kB';"},
		{Parameter{Name: "max_wal_senders", Value: "0"}, "ALTER SYSTEM SET max_wal_senders = '0';"},
		{Parameter{Name: "x", Value: "it's"}, "ALTER SYSTEM SET x = 'it''s';"},
	}
	for _, c := range cases {
		if got := AlterSystem(c.p); got != c.want {
			t.Errorf("AlterSystem(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestVersionFromNum(t *testing.T) {
	for num, want := range map[int]int{100000: 10, 110005: 11, 170002: 17, 180000: 18, 189999: 18} {
		if got, err := VersionFromNum(num); err != nil || got != want {
			t.Errorf("VersionFromNum(%d) = %d, %v; want %d", num, got, err, want)
		}
	}
	for _, num := range []int{90624, 90600, 190000, 0, -1} {
		if _, err := VersionFromNum(num); err == nil || !strings.Contains(err.Error(), "PGTune knows PostgreSQL 10 to 18") {
			t.Errorf("VersionFromNum(%d) err = %v", num, err)
		}
	}
}
