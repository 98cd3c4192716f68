package observe

import (
	"context"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// readConfig reads a server's config for a test.
func readConfig(t *testing.T, inst *pgserver.Instance) *ServerConfig {
	t.Helper()
	c, err := ReadConfig(context.Background(), pgtest.Connect(t, inst.DSN()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConfigDriftVersions: 16 against 17 lists io_combine_limit as 17's
// only (128kB), vacuum_buffer_usage_limit's built-in default that 17
// raised (256kB → 2MB), both drift; nothing of where the servers listen;
// and the build facts of both.
func TestConfigDriftVersions(t *testing.T) {
	c16, c17 := readConfig(t, pgtest.Shared(t, "16")), readConfig(t, pgtest.Shared(t, "17"))
	order := []string{"pg16", "pg17"}
	diffs := ConfigDrift(order, map[string]*ServerConfig{"pg16": c16, "pg17": c17}, nil)
	by := map[string]SettingDiff{}
	for _, d := range diffs {
		by[d.Name] = d
		t.Log(d.Text(order))
	}
	io := by["io_combine_limit"]
	if io.Kind != DiffOnly || io.Values["pg17"] != "128kB" || !io.Drift() {
		t.Errorf("io_combine_limit: %+v", io)
	}
	if txt := io.Text(order); txt != "io_combine_limit: pg17 128kB; pg16 has no such setting" {
		t.Errorf("io_combine_limit reads %q", txt)
	}
	vb := by["vacuum_buffer_usage_limit"]
	if vb.Kind != DiffDefault || vb.Values["pg16"] != "256kB" || vb.Values["pg17"] != "2MB" || !vb.Drift() {
		t.Errorf("vacuum_buffer_usage_limit: %+v", vb)
	}
	for _, name := range []string{"port", "data_directory", "server_version"} {
		if _, ok := by[name]; ok {
			t.Errorf("%s is listed: %+v", name, by[name])
		}
	}
	for _, c := range []*ServerConfig{c16, c17} {
		b := c.Build
		if b.BlockSize != 8192 || b.WALSegmentSize != 16<<20 || b.SegmentSize != 1<<30 || b.JITProvider != "llvmjit" || b.LLVM == nil || b.Compiled == "" {
			t.Errorf("PostgreSQL %s build facts: %+v", c.Version, b)
		}
	}
}

// TestConfigDriftAsked: two servers of one version, one given another
// shared_buffers (as --config does): shared_buffers differs and is asked,
// the shared memory computed from it is derived, neither is drift.
func TestConfigDriftAsked(t *testing.T) {
	a := readConfig(t, pgtest.Shared(t, "17"))
	b := readConfig(t, pgtest.SharedWith(t, "17", pgserver.Setting{Name: "shared_buffers", Value: "256MB"}))
	order := []string{"a", "b"}
	diffs := ConfigDrift(order, map[string]*ServerConfig{"a": a, "b": b}, map[string][]string{"b": {"shared_buffers"}})
	var drift []string
	by := map[string]SettingDiff{}
	for _, d := range diffs {
		by[d.Name] = d
		if d.Drift() {
			drift = append(drift, d.Text(order))
		}
	}
	sb := by["shared_buffers"]
	if sb.Kind != DiffSetting || !sb.Asked || sb.Drift() || sb.Values["b"] != "256MB" {
		t.Errorf("shared_buffers: %+v", sb)
	}
	if d := by["shared_memory_size"]; !d.Derived || d.Drift() {
		t.Errorf("shared_memory_size: %+v", d)
	}
	// The shared servers of the tests differ in nothing else but
	// max_connections, which pgtest gives both alike.
	if len(drift) > 0 {
		t.Errorf("drift between two servers of one version: %s", strings.Join(drift, "; "))
	}
}

// TestFormatSetting: values read as SHOW writes them.
func TestFormatSetting(t *testing.T) {
	for _, c := range [][3]string{
		{"16384", "8kB", "128MB"}, {"2048", "kB", "2MB"}, {"16777216", "B", "16MB"}, {"131072", "8kB", "1GB"},
		{"-1", "8kB", "-1"}, {"0", "ms", "0"}, {"60000", "ms", "1min"}, {"200", "ms", "200ms"},
		{"on", "", "on"}, {"1024", "MB", "1GB"}, {"300", "s", "5min"},
	} {
		if got := FormatSetting(c[0], c[1]); got != c[2] {
			t.Errorf("FormatSetting(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
