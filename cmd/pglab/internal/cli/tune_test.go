package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pglab/pglab/cmd/pglab/internal/cli"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/detect"
)

// tuneRun runs "pglab tune args..." in-process.
func tuneRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), append([]string{"tune"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// seed003 are seed 003's inputs, all given.
var seed003 = []string{"--versions", "11", "--type", "web", "--memory", "1GB", "--cpus", "1", "--connections", "100", "--storage", "ssd"}

// TestTuneSeed003 prints today's PGTune recommendations for seed 003's
// inputs in each format, and checks them against the tune package's golden
// files (whose conf and alter text equal PGTune's own output for these
// inputs, see tune/testdata/pgtune-7caef27.jsonl).
func TestTuneSeed003(t *testing.T) {
	for _, format := range []string{"conf", "alter", "json"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := tuneRun(t, append(seed003, "--format", format)...)
			if code != 0 || stderr != "" {
				t.Fatalf("code %d, stderr %q", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "tune", "testdata", "seed003."+format+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
			}
		})
	}
	// The values that differ from the seed's 2020 PGTune output.
	_, conf, _ := tuneRun(t, seed003...)
	for _, line := range []string{"checkpoint_completion_target = 0.9", "work_mem = 4MB", "huge_pages = off", "wal_compression = on", "wal_buffers = 7864kB", "max_wal_size = 4GB"} {
		if !strings.Contains(conf, "\n"+line+"\n") {
			t.Errorf("conf output lacks %q:\n%s", line, conf)
		}
	}
	_, alter, _ := tuneRun(t, append(seed003, "--format", "alter")...)
	if !strings.HasPrefix(alter, "-- DB Version: 11\n") || !strings.Contains(alter, "\nALTER SYSTEM SET work_mem = '4MB';\n") {
		t.Errorf("alter output:\n%s", alter)
	}
}

// TestTuneBadInput: one line naming the problem, exit code 64, nothing on stdout.
func TestTuneBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--memory", "12XB"}, "pglab: --memory 12XB: unknown unit XB; PGTune takes MB, GB or TB"},
		{[]string{"--memory", "0"}, "pglab: --memory 0: must be greater than zero"},
		{[]string{"--memory", "4"}, "pglab: --memory 4: missing unit (MB, GB or TB), e.g. 4GB"},
		{[]string{"--memory", "1.5GB"}, "pglab: --memory 1.5GB: want a whole number of MB, GB or TB (as PGTune), e.g. 1536MB for 1.5GB"},
		{[]string{"--memory", "256MB"}, "pglab: --memory 256MB: must be at least 512 MB (PGTune's minimum)"},
		{[]string{"--memory", "1000000GB"}, "pglab: --memory 1000000GB: must be at most 999999 GB (PGTune's maximum); use a larger unit"},
		{[]string{"--cpus", "0"}, "pglab: --cpus 0: must be greater than zero"},
		{[]string{"--cpus", "-2"}, "pglab: --cpus -2: must be greater than zero"},
		{[]string{"--cpus", "four"}, "pglab: --cpus four: want a whole number from 1 to 999999"},
		{[]string{"--cpus", "1000000"}, "pglab: --cpus 1000000: must be at most 999999 (PGTune's maximum)"},
		{[]string{"--type", "nosuch"}, "pglab: --type nosuch: unknown type; want web, oltp, dw, desktop or mixed"},
		{[]string{"--os", "nosuch"}, "pglab: --os nosuch: unknown OS; want linux, windows or mac"},
		{[]string{"--storage", "nosuch"}, "pglab: --storage nosuch: unknown storage; want ssd, hdd, san or nvme"},
		{[]string{"--versions", "9.6"}, "pglab: --versions 9.6: PGTune knows PostgreSQL 10 to 18"},
		{[]string{"--versions", "19"}, "pglab: --versions 19: PGTune knows PostgreSQL 10 to 18"},
		{[]string{"--versions", ""}, `pglab: --versions "": PGTune knows PostgreSQL 10 to 18`},
		{[]string{"--connections", "-5"}, "pglab: --connections -5: must be from 20 to 999999 (PGTune's limits)"},
		{[]string{"--connections", "10"}, "pglab: --connections 10: must be from 20 to 999999 (PGTune's limits)"},
		{[]string{"--connections", "lots"}, "pglab: --connections lots: want a whole number from 20 to 999999"},
		{[]string{"--db-size", "huge"}, "pglab: --db-size huge: unknown database size; want less_ram (fits in RAM), mid_ram (1x-3x RAM) or greater_ram (over 3x RAM)"},
		{[]string{"--format", "yaml"}, "pglab: --format yaml: unknown format; want conf, alter or json"},
		{[]string{"--data-dir", "/nonexistent/pglab"}, "pglab: --data-dir /nonexistent/pglab: not a directory"},
		{[]string{"--nosuch"}, "pglab: unknown flag: --nosuch (see 'pglab tune --help')"},
		{[]string{"extra"}, `pglab: unknown command "extra" for "pglab tune"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			// Everything else given, so that only the bad input can fail.
			args := append([]string{"--memory", "4GB", "--cpus", "2", "--storage", "ssd"}, c.args...)
			code, stdout, stderr := tuneRun(t, args...)
			if code != 64 || stdout != "" || stderr != c.want+"\n" {
				t.Errorf("code %d, stdout %q, stderr %q; want 64, \"\", %q", code, stdout, stderr, c.want+"\n")
			}
		})
	}
}

// tuneDoc is the part of the JSON document the tests read.
type tuneDoc struct {
	Upstream string `json:"upstream"`
	Inputs   struct {
		PGVersion   int              `json:"pg_version"`
		OS          string           `json:"os"`
		Type        string           `json:"type"`
		Memory      string           `json:"memory"`
		MemoryKB    int64            `json:"memory_kb"`
		CPUs        *int             `json:"cpus"`
		Connections *int             `json:"connections"`
		Storage     string           `json:"storage"`
		DBSize      string           `json:"db_size"`
		Detected    []tune.Detection `json:"detected"`
	} `json:"inputs"`
	Parameters []tune.Parameter `json:"parameters"`
	Warnings   []tune.Warning   `json:"warnings"`
}

func decodeDoc(t *testing.T, stdout string) tuneDoc {
	t.Helper()
	var doc tuneDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("decoding %q: %v", stdout, err)
	}
	return doc
}

func (d tuneDoc) param(name string) string {
	for _, p := range d.Parameters {
		if p.Name == name {
			return p.Value
		}
	}
	return "<absent>"
}

// TestTuneDetects leaves memory, CPUs and storage out: they come from this
// machine, and the output says so.
func TestTuneDetects(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("detection reads /proc and /sys")
	}
	t.Setenv("PGDATA", "")
	dir := t.TempDir()
	code, stdout, stderr := tuneRun(t, "--format", "json", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	doc := decodeDoc(t, stdout)
	kb, _, err := detect.Host{}.MemoryKB()
	if err != nil {
		t.Fatal(err)
	}
	if want := tune.MemoryFromKB(kb); doc.Inputs.Memory != want.String() || doc.Inputs.MemoryKB != want.KB() {
		t.Errorf("memory = %s (%d kB), want %s from MemTotal %d kB", doc.Inputs.Memory, doc.Inputs.MemoryKB, want, kb)
	}
	if doc.Inputs.CPUs == nil || *doc.Inputs.CPUs != runtime.NumCPU() {
		t.Errorf("cpus = %v, want %d", doc.Inputs.CPUs, runtime.NumCPU())
	}
	got := map[string]string{}
	for _, d := range doc.Inputs.Detected {
		got[d.Input] = d.Source
	}
	if got["memory"] != "/proc/meminfo" || got["cpus"] == "" {
		t.Errorf("detected = %v", doc.Inputs.Detected)
	}
	kind, src, serr := detect.Host{}.Storage(dir)
	switch {
	case serr == nil && (doc.Inputs.Storage != string(kind) || got["storage"] != src):
		t.Errorf("storage = %s from %q, want %s from %q", doc.Inputs.Storage, got["storage"], kind, src)
	case serr != nil && (doc.Inputs.Storage != "ssd" || !strings.Contains(stderr, "using ssd, PGTune's default")):
		t.Errorf("undetectable storage: storage %s, stderr %q", doc.Inputs.Storage, stderr)
	}

	// The conf header names the detected inputs; given ones are not listed.
	code, conf, _ := tuneRun(t, "--memory", "8GB", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	if !strings.Contains(conf, "\n# Total Memory (RAM): 8 GB\n") || !strings.Contains(conf, "\n# Detected on this machine: CPUs num from ") ||
		strings.Contains(conf, "Total Memory (RAM) from") {
		t.Errorf("conf header:\n%s", conf)
	}
}

// TestTuneDefaults: PGTune's defaults for what is neither given nor
// detectable: version 18, linux, web, mid_ram, and max_connections by type
// with no "Connections num" header line.
func TestTuneDefaults(t *testing.T) {
	code, stdout, stderr := tuneRun(t, "--memory", "16GB", "--cpus", "8", "--storage", "nvme", "--format", "json")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	doc := decodeDoc(t, stdout)
	in := doc.Inputs
	if in.PGVersion != 18 || in.OS != "linux" || in.Type != "web" || in.DBSize != "mid_ram" || in.Connections != nil || len(in.Detected) != 0 {
		t.Errorf("inputs = %+v", in)
	}
	if doc.Upstream != tune.Upstream || doc.param("max_connections") != "200" || doc.param("io_method") != "io_uring" || doc.param("effective_io_concurrency") != "1000" {
		t.Errorf("document = %+v", doc)
	}
	for typ, conns := range map[string]string{"oltp": "300", "dw": "40", "desktop": "20", "mixed": "100"} {
		code, conf, _ := tuneRun(t, "--memory", "16GB", "--cpus", "8", "--storage", "ssd", "--type", typ)
		if code != 0 || !strings.Contains(conf, "\nmax_connections = "+conns+"\n") || strings.Contains(conf, "Connections num") {
			t.Errorf("--type %s: code %d\n%s", typ, code, conf)
		}
	}
}

// TestTuneWarnings: PGTune's warning block comes first, in the format's
// comment style, and the JSON lists the same warnings.
func TestTuneWarnings(t *testing.T) {
	args := []string{"--versions", "18", "--type", "dw", "--memory", "128GB", "--cpus", "32", "--storage", "san"}
	_, conf, _ := tuneRun(t, args...)
	wantConf := "# WARNING\n# this tool not being optimal\n# for very high memory systems\n# \n# wal_compression = lz4 requires PostgreSQL\n"
	if !strings.HasPrefix(conf, wantConf) || !strings.Contains(conf, "# Cost parameters for Data Warehouses on SAN storage are left at defaults\n") {
		t.Errorf("conf:\n%s", conf)
	}
	_, alter, _ := tuneRun(t, append(args, "--format", "alter")...)
	if !strings.HasPrefix(alter, strings.ReplaceAll(wantConf, "# ", "-- ")) {
		t.Errorf("alter:\n%s", alter)
	}
	_, js, _ := tuneRun(t, append(args, "--format", "json")...)
	var codes []string
	for _, w := range decodeDoc(t, js).Warnings {
		codes = append(codes, w.Code)
	}
	if strings.Join(codes, ",") != "high_memory,lz4,io_uring,dw_cost" {
		t.Errorf("warning codes = %v", codes)
	}
}

func TestTuneHelp(t *testing.T) {
	code, stdout, _ := tuneRun(t, "--help")
	if code != 0 || !strings.Contains(stdout, "--versions version") || !strings.Contains(stdout, tune.Upstream) {
		t.Errorf("code %d, help:\n%s", code, stdout)
	}
}
