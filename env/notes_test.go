package env

import (
	"strings"
	"testing"
	"time"
)

func TestNotes(t *testing.T) {
	p := Profile{Name: "x", Machine: Machine{CPUs: 0.5, Memory: 256 << 20, ReadBPS: 87 << 20, ReadIOPS: 3000}}
	flat := make([]IOSample, 40)
	for i := range flat {
		flat[i] = IOSample{Seconds: 0.25, ReadMBs: 86}
	}
	c := Counters{Elapsed: 10 * time.Second, Have: map[string]bool{"io": true, "cpu": true, "memory": true},
		ReadBytes: 860 << 20, ReadOps: 29800, IO: flat, Periods: 100, ThrottledPeriods: 41, MemoryPeak: 250 << 20}
	got := strings.Join(Notes(p, c, "scan"), "\n")
	for _, want := range []string{
		"disk read flat at 86 MB/s, the profile's ceiling (read=87MB/s), for 100 % of the scan",
		"disk reads at 2,980 IOPS over the scan, the profile's ceiling (read_iops=3000)",
		"CPU quota throttled the server in 41 % of the scan's 100 ms periods (cpus=0.5)",
		"server memory at the profile's limit: peak 250 MB of memory=256MB (page cache included)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
	// An uneven read at the ceiling on average is not flat.
	c.IO = []IOSample{{Seconds: 5, ReadMBs: 20}, {Seconds: 5, ReadMBs: 152}}
	if got := strings.Join(Notes(p, c, "scan"), "\n"); !strings.Contains(got, "disk read averaged 86 MB/s over the scan, 99 % of the profile's ceiling (read=87MB/s)") {
		t.Errorf("uneven reads: %s", got)
	}
	// Below the limits, or too short a step: nothing to say.
	if got := Notes(p, Counters{Elapsed: 10 * time.Second, Have: c.Have, ReadBytes: 100 << 20, Periods: 100, ThrottledPeriods: 1, MemoryPeak: 10 << 20}, "scan"); len(got) != 0 {
		t.Errorf("notes below the limits: %q", got)
	}
	c.Elapsed = time.Second
	if got := Notes(p, c, "scan"); len(got) != 0 {
		t.Errorf("notes of a 1 s step: %q", got)
	}
	if got := Notes(Local, c, "scan"); len(got) != 0 {
		t.Errorf("notes without limits: %q", got)
	}
}

func TestEnvironmentRecordAndState(t *testing.T) {
	l := fakeV2(t)
	e, err := NewEnvironment(T3Micro, Options{Server: "pg17@t3.micro", DataDir: t.TempDir(), Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Record()
	if r.Name != "t3.micro" || r.Origin != "built-in" || r.Doc == "" || r.Spec != T3Micro.Spec() || len(r.Limits) != 6 || !strings.HasPrefix(r.Cgroup, Prefix) {
		t.Errorf("record %+v", r)
	}
	if !strings.Contains(e.Cgroup.Name, "pg17_t3.micro") {
		t.Errorf("cgroup name %q", e.Cgroup.Name)
	}
	dir := t.TempDir()
	if err := e.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, ok, err := Load(dir)
	if err != nil || !ok || back.Cgroup == nil || back.Cgroup.Name != e.Cgroup.Name || back.Profile.Machine != T3Micro.Machine {
		t.Fatalf("Load = %+v, %v, %v", back, ok, err)
	}
	if len(back.Enforcement()) != 6 {
		t.Errorf("loaded enforcement %v", back.Enforcement())
	}
	if err := Forget(dir); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Load(dir); ok {
		t.Error("Forget kept the state")
	}
	// No cgroup access at all: every limit not enforced, with the reason.
	none := &Layout{Hierarchies: map[Controller]*Hierarchy{CPU: {Why: "no cpu"}, Memory: {Why: "no memory"}, IO: {Why: "no io"}}}
	e, err = NewEnvironment(T3Micro, Options{Server: "x", DataDir: t.TempDir(), Layout: none})
	if err != nil {
		t.Fatal(err)
	}
	if !e.NoneEnforced() || e.Cgroup != nil {
		t.Errorf("no access: %+v", e.Enforcement())
	}
	for _, x := range e.Enforcement() {
		if x.Status != NotEnforced || x.Why == "" {
			t.Errorf("%s", x)
		}
	}
	if e, _ := NewEnvironment(Local, Options{Server: "x", Layout: none}); e.NoneEnforced() {
		t.Error("a profile without limits counts as not enforced")
	}
}
