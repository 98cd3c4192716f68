package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	data := `# our machines
prod:
  doc: r6g.large with gp3
  cpus: 2
  memory: 16GiB
  read: 125MB/s
  read_iops: 3000
t3.micro:            # replaces the built-in
  cpus: 2
  memory: 1GiB
empty:
far: {rtt: 1ms, replica: sync, replica_rtt: 0.5ms, synchronous_commit: remote_write}
`
	ps, err := ParseFile("profiles.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 4 {
		t.Fatalf("got %d profiles: %+v", len(ps), ps)
	}
	prod := ps[0]
	if prod.Name != "prod" || prod.Doc != "r6g.large with gp3" || prod.CPUs != 2 || prod.Memory != 16<<30 || prod.ReadBPS != 125<<20 || prod.ReadIOPS != 3000 || prod.Origin != "profiles.yaml:2" {
		t.Errorf("prod = %+v", prod)
	}
	if ps[2].Name != "empty" || !ps[2].Unlimited() {
		t.Errorf("empty = %+v", ps[2])
	}
	if f := ps[3]; f.RTT.String() != "1ms" || f.Replica != ReplicaSync || f.SynchronousCommit != "remote_write" {
		t.Errorf("far = %+v", f)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog()
	if err := c.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	tm, _ := c.Get("t3.micro")
	if tm.ReadBPS != 0 || tm.Origin != file+":8" {
		t.Errorf("t3.micro not replaced by the file: %+v", tm)
	}
	if p, err := c.Resolve("prod"); err != nil || p.Memory != 16<<30 {
		t.Errorf("Resolve(prod) = %+v, %v", p, err)
	}
	names := namesOf(c.Profiles())
	if !strings.Contains(names, "prod") || strings.Count(names, "t3.micro,") != 1 {
		t.Errorf("catalog names %s", names)
	}
}

// namesOf lists profile names, each followed by a comma.
func namesOf(ps []Profile) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Name + ",")
	}
	return b.String()
}

func TestParseFileErrors(t *testing.T) {
	cases := []struct{ data, want string }{
		{"prod:\n  cpus: -1\n", "p.yaml:2:9: prod: cpus=-1: must be more than 0"},
		{"prod:\n  cpu: 2\n", `p.yaml:2:8: prod: unknown key "cpu"; did you mean cpus?`},
		{"prod:\n  memory: 1\n", "p.yaml:2:11: prod: memory=1: no unit"},
		{"prod:\n  cpus: 2\n  cpus: 3\n", `p.yaml:3:3: invalid YAML: mapping key "cpus" already defined at [2:3]`},
		{"prod: {cpus: 1}\nprod: {cpus: 2}\n", `p.yaml:2:1: invalid YAML: mapping key "prod" already defined`},
		{"bad name: {cpus: 1}\n", `p.yaml:1:1: invalid profile name "bad name"`},
		{"prod: 3\n", "p.yaml:1:7: prod: want a mapping of keys"},
		{"- a\n- b\n", "p.yaml:1:1: want a mapping of profile names"},
		{"prod:\n  cpus: [1, 2]\n", "p.yaml:2:9: prod.cpus: want a single value"},
		{"prod: {replica_rtt: 1ms}\n", "p.yaml:1:1: prod: replica_rtt=1ms needs a standby"},
		{"prod: {cpus: 1\n", "p.yaml:1:"},
	}
	for _, c := range cases {
		_, err := ParseFile("p.yaml", []byte(c.data))
		if err == nil {
			t.Errorf("ParseFile(%q) accepted it", c.data)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseFile(%q) = %q, want it to start with %q (one line)", c.data, err, c.want)
		}
	}
}

func TestLoadCatalogDefaultFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "pglab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if DefaultFile() != filepath.Join(dir, "pglab", "profiles.yaml") {
		t.Fatalf("DefaultFile() = %s", DefaultFile())
	}
	os.WriteFile(DefaultFile(), []byte("mine: {cpus: 1}\n"), 0o644)
	extra := filepath.Join(dir, "extra.yaml")
	os.WriteFile(extra, []byte("mine: {cpus: 3}\nother: {memory: 1GiB}\n"), 0o644)
	c, err := LoadCatalog(extra)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Get("mine"); p.CPUs != 3 {
		t.Errorf("--env-file does not override the default file: %+v", p)
	}
	if _, ok := c.Get("other"); !ok {
		t.Error("no profile from --env-file")
	}
	if _, err := LoadCatalog(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing --env-file: %v", err)
	}
}
