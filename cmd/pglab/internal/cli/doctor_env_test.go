package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/pglab/pglab/env"
)

// TestDoctorEnvironmentLimits checks that doctor reports, per SPEC key,
// whether this machine can enforce it (from a probe cgroup it removes).
func TestDoctorEnvironmentLimits(t *testing.T) {
	r := run(t, "doctor")
	if r.code != 0 {
		t.Fatalf("doctor: exit %d: %s", r.code, r.stderr)
	}
	i := strings.Index(r.stdout, "Environment limits (--env)")
	if i < 0 {
		t.Fatalf("doctor has no environment section:\n%s", r.stdout)
	}
	section := r.stdout[i:]
	for _, k := range env.Keys() {
		if !strings.Contains(section, "] "+k+" ") {
			t.Errorf("doctor says nothing about %s:\n%s", k, section)
		}
	}
	for _, want := range []string{"cgroups: ", "t3.micro", "] rtt ", "a delay proxy between clients and server"} {
		if !strings.Contains(section, want) {
			t.Errorf("doctor's environment section lacks %q:\n%s", want, section)
		}
	}
	// On this machine kind (root, cgroup v1 or v2) every machine key can
	// be written.
	for _, k := range []string{"cpus", "memory", "read", "read_iops"} {
		if !strings.Contains(section, "[yes] "+k+" ") {
			t.Errorf("doctor cannot enforce %s here (run the tests as root, as CI does):\n%s", k, section)
		}
	}
	if left := env.Owned(env.Detect(), os.Getpid()); len(left) > 0 {
		t.Errorf("doctor left cgroups behind: %v", left)
	}
}
