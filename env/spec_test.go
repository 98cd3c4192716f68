package env

import (
	"strings"
	"testing"
	"time"
)

func TestParseSpecAdHoc(t *testing.T) {
	cases := []struct {
		spec string
		want Profile
		back string // Spec() of the result
	}{
		{"ebs87:read=87MB/s", Profile{Name: "ebs87", Machine: Machine{ReadBPS: 87 << 20}}, "ebs87:read=87MB/s"},
		{"small:memory=256MiB", Profile{Name: "small", Machine: Machine{Memory: 256 << 20}}, "small:memory=256MB"},
		{"half:cpus=0.5", Profile{Name: "half", Machine: Machine{CPUs: 0.5}}, "half:cpus=0.5"},
		{" x : cpus=2 , memory=1GB , write=512kB/s ", Profile{Name: "x", Machine: Machine{CPUs: 2, Memory: 1 << 30, WriteBPS: 512 << 10}}, "x:cpus=2,memory=1GB,write=512kB/s"},
		{"ebs:read=87Mbit/s,write=87Mbps,read_iops=500,write_iops=500", Profile{Name: "ebs", Machine: Machine{ReadBPS: 10875000, WriteBPS: 10875000, ReadIOPS: 500, WriteIOPS: 500}},
			"ebs:read=87Mbit/s,write=87Mbit/s,read_iops=500,write_iops=500"},
		{"m:memory=1.5GiB", Profile{Name: "m", Machine: Machine{Memory: 3 << 29}}, "m:memory=1536MB"},
		{"prod:cpus=2,memory=16GiB,rtt=0.4ms,replica=sync,replica_rtt=1ms", Profile{Name: "prod",
			Machine: Machine{CPUs: 2, Memory: 16 << 30},
			Network: Network{RTT: 400 * time.Microsecond, Replica: ReplicaSync, ReplicaRTT: time.Millisecond}},
			"prod:cpus=2,memory=16GB,rtt=0.4ms,replica=sync,replica_rtt=1ms"},
		{"far:rtt=300us,synchronous_commit=off", Profile{Name: "far", Network: Network{RTT: 300 * time.Microsecond, SynchronousCommit: "off"}}, "far:rtt=0.3ms,synchronous_commit=off"},
		{"r:replica=async,replica_rtt=20ms,synchronous_commit=LOCAL", Profile{Name: "r", Network: Network{Replica: ReplicaAsync, ReplicaRTT: 20 * time.Millisecond, SynchronousCommit: "local"}},
			"r:replica=async,replica_rtt=20ms,synchronous_commit=local"},
		{"n:replica=none", Profile{Name: "n"}, "n"},
	}
	for _, c := range cases {
		got, err := ParseSpec(c.spec)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", c.spec, err)
			continue
		}
		c.want.Origin = "--env"
		if got != c.want {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", c.spec, got, c.want)
		}
		if s := got.Spec(); s != c.back {
			t.Errorf("ParseSpec(%q).Spec() = %q, want %q", c.spec, s, c.back)
		}
		again, err := ParseSpec(got.Spec())
		if err != nil || again != got {
			t.Errorf("ParseSpec(%q) does not read back its Spec %q: %+v, %v", c.spec, got.Spec(), again, err)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"", "no profile name"},
		{":cpus=1", "no profile name"},
		{"bad name:cpus=1", `invalid profile name "bad name"`},
		{"x:", `no key=value after "x:"`},
		{"x:cpu=2", `unknown key "cpu"; did you mean cpus?`},
		{"x:disk=1", `unknown key "disk" (keys: cpus, memory, read, write, read_iops, write_iops, rtt, replica, replica_rtt, synchronous_commit, fsync)`},
		{"x:cpus", `"cpus" is not key=value`},
		{"x:cpus=", "cpus: no value; cpus takes a number of CPUs"},
		{"x:cpus=1,,memory=1GiB", "an empty key=value"},
		{"x:cpus=1,cpus=2", "cpus is given twice"},
		{"x:cpus=-1", "cpus=-1: must be more than 0; leave the key out for no limit"},
		{"x:cpus=0", "cpus=0: must be more than 0"},
		{"x:cpus=two", "cpus=two: not a number; cpus takes a number of CPUs, e.g. 0.5 or 2"},
		{"x:cpus=0.001", "the smallest CPU quota is 0.01 CPUs"},
		{"x:memory=1", "memory=1: no unit: write e.g. 1MB or 1GB"},
		{"x:memory=1GiBs", `memory=1GiBs: unknown unit "GiBs"`},
		{"x:memory=-1GiB", "memory=-1GiB: must be more than 0"},
		{"x:memory=1MiB", "memory=1MiB: at least 16MB: PostgreSQL does not start in less"},
		{"x:read=87", "read=87: no unit: write e.g. 87MB/s"},
		{"x:read=87MB", `read=87MB: unknown unit "MB"`},
		{"x:read=-87MB/s", "read=-87MB/s: must be more than 0"},
		{"x:read_iops=3k", "read_iops=3k: not a whole number"},
		{"x:write_iops=-5", "write_iops=-5: must be more than 0"},
		{"x:rtt=1", "rtt=1: no unit: write e.g. 1ms"},
		{"x:rtt=-1ms", "rtt=-1ms: must be more than 0"},
		{"x:rtt=1h", "rtt=1h: at most 10s"},
		{"x:replica=maybe", "replica=maybe: unknown mode; replica takes none, sync or async"},
		{"x:replica_rtt=1ms", "replica_rtt=1ms needs a standby: add replica=sync or replica=async"},
		{"x:synchronous_commit=remote_apply", "synchronous_commit=remote_apply waits for a synchronous standby: add replica=sync"},
		{"x:synchronous_commit=yes", "synchronous_commit=yes: unknown mode"},
	}
	for _, c := range cases {
		_, err := ParseSpec(c.spec)
		if err == nil {
			t.Errorf("ParseSpec(%q) accepted a bad SPEC", c.spec)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("ParseSpec(%q) = %q, want it to contain %q", c.spec, msg, c.want)
		}
		if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "--env ") {
			t.Errorf("ParseSpec(%q) error is not one line naming --env: %q", c.spec, msg)
		}
	}
}

func TestCatalogResolve(t *testing.T) {
	c := NewCatalog()
	p, err := c.Resolve("t3.micro")
	if err != nil {
		t.Fatal(err)
	}
	if p.CPUs != 2 || p.Memory != 1<<30 || p.ReadBPS != 87<<20 || p.ReadIOPS != 3000 || p.Origin != "built-in" || p.Doc == "" {
		t.Errorf("t3.micro = %+v", p)
	}
	if p, err := c.Resolve("local"); err != nil || !p.Unlimited() {
		t.Errorf("local = %+v, %v", p, err)
	}
	if p, err := c.Resolve("ebs87:read=87MB/s"); err != nil || p.ReadBPS != 87<<20 {
		t.Errorf("ad hoc = %+v, %v", p, err)
	}
	for spec, want := range map[string]string{
		"t3.mikro":         `no profile "t3.mikro"; did you mean t3.micro?`,
		"nosuch":           `no profile "nosuch"; profiles: local, t3.micro,`,
		"t3.micro:cpus=1":  `"t3.micro" is already a profile (built-in): give the ad-hoc profile a name of its own`,
		"local:memory=1GB": `"local" is already a profile`,
	} {
		_, err := c.Resolve(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%q) = %v, want %q", spec, err, want)
		}
	}
}

func TestBuiltinsReadBack(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Builtins() {
		if names[p.Name] {
			t.Errorf("built-in %s twice", p.Name)
		}
		names[p.Name] = true
		if p.Doc == "" || p.Origin != "built-in" {
			t.Errorf("built-in %s: no doc or origin", p.Name)
		}
		if err := ValidateName(p.Name); err != nil {
			t.Error(err)
		}
		if p.Unlimited() {
			continue
		}
		q, err := ParseSpec("x" + strings.TrimPrefix(p.Spec(), p.Name))
		if err != nil {
			t.Errorf("built-in %s: its Spec %q does not parse: %v", p.Name, p.Spec(), err)
			continue
		}
		if q.Machine != p.Machine || q.Network != p.Network {
			t.Errorf("built-in %s: Spec %q reads back as %+v", p.Name, p.Spec(), q)
		}
	}
	for _, want := range []string{"local", "t3.micro", "t3.micro-ebs-baseline", "gp2-30g", "gp3", "1cpu-1gb"} {
		if !names[want] {
			t.Errorf("no built-in profile %s", want)
		}
	}
	if got := T3MicroEBSBaseline.LimitsText(); !strings.Contains(got, "read=87Mbit/s") || !strings.Contains(got, "read_iops=500") {
		t.Errorf("t3.micro-ebs-baseline limits %q", got)
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1GB", 256 << 20: "256MB", 1536 << 10: "1536kB", 1000: "1000B"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{87 << 20: "87MB/s", 1 << 30: "1GB/s", 10875000: "87Mbit/s", 125e6: "1Gbit/s", 512 << 10: "512kB/s", 1001: "1001B/s"} {
		if got := FormatRate(n); got != want {
			t.Errorf("FormatRate(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{300 * time.Microsecond: "0.3ms", 20 * time.Millisecond: "20ms", 1500 * time.Millisecond: "1.5s"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
