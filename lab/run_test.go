package lab

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/results"
)

// TestWriteSetup: a line per target, its environment's lines under it
// (the profile, then each limit further in), then the set-up's notes.
func TestWriteSetup(t *testing.T) {
	rec := env.Record{Name: "t3.micro", Origin: "built-in", Limits: []env.LimitRecord{{Key: "cpus", Value: "2", Status: env.Enforced, How: "cpu.max"}}}
	extra, err := json.Marshal(map[string]any{"env": rec})
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Targets: []results.Target{
		{Name: "pg16", ServerVersion: "16.14", Conn: "managed"},
		{Name: "pg17", ServerVersion: "17.10", DataChecksums: true, Conn: "managed", Extra: extra},
	}, Notes: []Note{{Target: "pg17", Text: "jit left out"}}}
	var b strings.Builder
	if err := r.WriteSetup(&b); err != nil {
		t.Fatal(err)
	}
	want := "  pg16: PostgreSQL 16.14, data checksums off (managed)\n" +
		"  pg17: PostgreSQL 17.10, data checksums on (managed)\n" +
		"    environment t3.micro (built-in)\n" +
		"      " + rec.Limits[0].String() + "\n" +
		"  note: pg17: jit left out\n"
	if b.String() != want {
		t.Errorf("WriteSetup:\n got %q\nwant %q", b.String(), want)
	}
}
