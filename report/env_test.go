package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/results"
)

// TestSetupShowsEnvironments checks the setup table of targets run under
// environments: the profile, every limit and whether it held (how), a
// numbered footnote saying why one did not, the profile's sources, and
// the JSON's env object.
func TestSetupShowsEnvironments(t *testing.T) {
	rec := env.Record{Name: "t3.micro", Origin: "built-in", Doc: "AWS t3.micro as the seeds measured it", Spec: env.T3Micro.Spec(), Cgroup: "pglab-1-pg17-abc", Limits: []env.LimitRecord{
		{Key: "cpus", Value: "2", Status: env.Enforced, How: "cgroup v1 cpu.cfs_quota_us = 200000"},
		{Key: "read", Value: "87MB/s", Status: env.Enforced, How: "cgroup v1 blkio.throttle.read_bps_device = 254:0 91226112 (vda, the data directory's disk)"},
		{Key: "write", Value: "87MB/s", Status: env.Partial, How: "cgroup v1 blkio.throttle.write_bps_device = 254:0 91226112", Why: "cgroup v1 cannot throttle buffered writeback"},
		{Key: "write_iops", Value: "3000", Status: env.Partial, How: "cgroup v1 blkio.throttle.write_iops_device = 254:0 3000", Why: "cgroup v1 cannot throttle buffered writeback"},
		{Key: "read_iops", Value: "3000", Status: env.NotEnforced, Why: "no blkio controller"},
	}}
	extra, _ := json.Marshal(map[string]any{"env": rec})
	d := &runs.Dataset{
		Targets: []results.Target{
			{Name: "pg17@local", Kind: results.TargetManaged, ServerVersion: "17.10", Extra: json.RawMessage(`{"env":{"name":"local","origin":"built-in","spec":"local","limits":[]}}`)},
			{Name: "pg17@t3.micro", Kind: results.TargetManaged, ServerVersion: "17.10", Extra: extra},
		},
		Measurements: []results.Measurement{
			{Target: "pg17@local", Study: "seqscan", Case: map[string]string{"cache": "cold"}, Rep: 1, Metric: "elapsed_ms", Value: 100, Unit: "ms"},
			{Target: "pg17@t3.micro", Study: "seqscan", Case: map[string]string{"cache": "cold"}, Rep: 1, Metric: "elapsed_ms", Value: 3000, Unit: "ms"},
		},
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| environment | local (built-in) | t3.micro (built-in) |",
		"| cpus | – | 2, enforced (cgroup v1 cpu.cfs_quota_us = 200000) |",
		"| write | – | 87MB/s, partly enforced ¹ |",
		"| write_iops | – | 3000, partly enforced ¹ |",
		"| read_iops | – | 3000, not enforced ² |",
		"- **Environment:** ¹ write=87MB/s on pg17@t3.micro, write_iops=3000 on pg17@t3.micro — partly enforced: cgroup v1 cannot throttle buffered writeback",
		"- **Environment:** ² read_iops=3000 on pg17@t3.micro — not enforced: no blkio controller",
		"- **Environment:** t3.micro: AWS t3.micro as the seeds measured it",
		"CPU model and clock, T3 credit accounting, the EBS latency distribution and noisy neighbours are not reproduced",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	if err := WriteJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Targets []struct {
			Name string      `json:"name"`
			Env  *env.Record `json:"env"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Targets[1].Env == nil || doc.Targets[1].Env.Name != "t3.micro" || len(doc.Targets[1].Env.Limits) != 5 || doc.Targets[1].Env.Limits[2].Status != env.Partial {
		t.Errorf("JSON env %+v", doc.Targets[1].Env)
	}
	b.Reset()
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<dt>Environment</dt><dd>¹ write=87MB/s on pg17@t3.micro") || !strings.Contains(b.String(), "87MB/s, partly enforced ¹") {
		t.Errorf("HTML lacks the environment rows or notes")
	}
	// Without environments, no such rows.
	d.Targets[0].Extra, d.Targets[1].Extra = nil, nil
	b.Reset()
	WriteMarkdown(&b, d)
	if strings.Contains(b.String(), "| environment |") || strings.Contains(b.String(), "**Environment:**") {
		t.Errorf("environment rows without environments:\n%s", b.String())
	}
}
