package env

import (
	"strings"
	"testing"
)

// TestKeyTable: every key is one row that reads, writes and says how it
// is enforced; a profile with every key set reads back from its SPEC.
func TestKeyTable(t *testing.T) {
	p, err := ParseSpec("all:cpus=0.5,memory=1GiB,read=87MB/s,write=10MB/s,read_iops=3000,write_iops=3000,rtt=1ms,replica=sync,replica_rtt=2ms,synchronous_commit=remote_apply,fsync=off")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Settings()) != len(Keys()) {
		t.Errorf("settings %v, keys %v: a key without its getter", p.Settings(), Keys())
	}
	for _, k := range KeyTable() {
		switch {
		case k.set == nil || k.get == nil || k.Takes == "":
			t.Errorf("%s: incomplete row", k.Name)
		case k.Kind == MachineKey && k.Controller == "":
			t.Errorf("%s: a machine key without its cgroup controller", k.Name)
		case k.Kind == NetworkKey && (k.Mechanism == "" || k.Enforcement == ""):
			t.Errorf("%s: a network key without what holds it", k.Name)
		}
		if IsMachineKey(k.Name) != (k.Kind == MachineKey) {
			t.Errorf("%s: IsMachineKey disagrees with its kind", k.Name)
		}
	}
	if got := strings.Join(KeysOf(MachineKey), ","); got != "cpus,memory,read,write,read_iops,write_iops" {
		t.Errorf("machine keys = %s", got)
	}
	for _, k := range KeyTable() {
		c := k.check(map[string]Enforcement{})
		if k.Kind == NetworkKey && (!c.OK || c.Detail == "") {
			t.Errorf("doctor's line for %s: %+v", k.Name, c)
		}
	}
}
