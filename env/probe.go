package env

import (
	"fmt"
	"runtime"
)

// CheckSupported returns an error naming the first key of the profile that
// nothing enforces yet ([Key.NotSupported]): "rtt: not supported yet".
func (p Profile) CheckSupported() error {
	for _, s := range p.Settings() {
		if k, _ := LookupKey(s.Key); k.NotSupported != "" {
			return fmt.Errorf("%s: %s", s.Key, k.NotSupported)
		}
	}
	return nil
}

// probeProfile sets every machine key to a value that takes nothing away,
// so that a probe cgroup shows which limits could be written.
func probeProfile() Profile {
	return Profile{Name: "probe", Machine: Machine{
		CPUs: float64(runtime.NumCPU()), Memory: 1 << 40,
		ReadBPS: 1 << 40, WriteBPS: 1 << 40, ReadIOPS: 1e8, WriteIOPS: 1e8,
	}}
}

// Probe tells which machine limits this machine can enforce on a server
// whose data directory is under dataDir: it makes a cgroup with every
// limit set to a value that takes nothing away, reads what became of each,
// and removes it. For `pglab doctor`.
func Probe(l *Layout, dataDir string) ([]Enforcement, error) {
	cg, err := New(probeProfile(), Options{Server: "probe", DataDir: dataDir, Layout: l})
	if err != nil {
		return nil, err
	}
	enf := cg.Enforcement()
	if err := cg.Remove(); err != nil {
		return enf, err
	}
	for i := range enf {
		enf[i].Value, enf[i].How = "", enf[i].Mechanism
		if enf[i].Key == KeyCPUs {
			enf[i].Note = ""
		}
	}
	return enf, nil
}
