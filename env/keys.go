package env

import (
	"strconv"
	"time"
)

// The keys of a SPEC and of a profiles file.
const (
	KeyCPUs              = "cpus"
	KeyMemory            = "memory"
	KeyRead              = "read"
	KeyWrite             = "write"
	KeyReadIOPS          = "read_iops"
	KeyWriteIOPS         = "write_iops"
	KeyRTT               = "rtt"
	KeyReplica           = "replica"
	KeyReplicaRTT        = "replica_rtt"
	KeySynchronousCommit = "synchronous_commit"
	KeyFsync             = "fsync"
)

// Kind says who enforces a key.
type Kind int

// The kinds of keys.
const (
	// MachineKey is a limit of the server's machine, held by the cgroup
	// the server runs in, for as long as the server lives.
	MachineKey Kind = iota
	// NetworkKey is the network and replication around the server, set
	// up by the lab for one run: a delay proxy, a managed standby, a
	// server setting.
	NetworkKey
)

// The mechanisms that enforce network keys, as enforcements name them.
const (
	MechanismDelayProxy    = "delay proxy"
	MechanismStandby       = "managed standby"
	MechanismServerSetting = "server setting"
)

// Key is one key of a SPEC and of a profiles file: everything pglab does
// with it — how a value is read and written, what enforces it and what
// doctor says about that. A new key is one row of the table.
type Key struct {
	Name string
	Kind Kind
	// Takes says what a value is, for messages: "a size, e.g. 256MiB".
	Takes string
	// Controller is the cgroup controller that holds a machine key.
	Controller Controller
	// Mechanism names what holds a network key (Mechanism…).
	Mechanism string
	// Enforcement says how pglab holds a network key, for doctor.
	Enforcement string
	// NotSupported, when set, says why nothing enforces the key yet: the
	// lab refuses a profile that sets it.
	NotSupported string

	set func(p *Profile, value string) error
	get func(p Profile) (string, bool)
}

// keyTable are the keys in the order SPECs, reports and doctor list them.
var keyTable = []Key{
	{Name: KeyCPUs, Kind: MachineKey, Controller: CPU, Takes: "a number of CPUs, e.g. 0.5 or 2",
		set: setCPUs, get: func(p Profile) (string, bool) { return FormatCPUs(p.CPUs), p.CPUs > 0 }},
	{Name: KeyMemory, Kind: MachineKey, Controller: Memory, Takes: "a size, e.g. 256MiB or 1GiB",
		set: setSize(func(p *Profile) *int64 { return &p.Memory }, 16*mib), get: func(p Profile) (string, bool) { return FormatSize(p.Memory), p.Memory > 0 }},
	{Name: KeyRead, Kind: MachineKey, Controller: IO, Takes: "a bandwidth, e.g. 87MB/s",
		set: setRate(func(p *Profile) *int64 { return &p.ReadBPS }), get: func(p Profile) (string, bool) { return FormatRate(p.ReadBPS), p.ReadBPS > 0 }},
	{Name: KeyWrite, Kind: MachineKey, Controller: IO, Takes: "a bandwidth, e.g. 87MB/s",
		set: setRate(func(p *Profile) *int64 { return &p.WriteBPS }), get: func(p Profile) (string, bool) { return FormatRate(p.WriteBPS), p.WriteBPS > 0 }},
	{Name: KeyReadIOPS, Kind: MachineKey, Controller: IO, Takes: "operations per second, e.g. 3000",
		set: setCount(func(p *Profile) *int64 { return &p.ReadIOPS }), get: countOf(func(p Profile) int64 { return p.ReadIOPS })},
	{Name: KeyWriteIOPS, Kind: MachineKey, Controller: IO, Takes: "operations per second, e.g. 3000",
		set: setCount(func(p *Profile) *int64 { return &p.WriteIOPS }), get: countOf(func(p Profile) int64 { return p.WriteIOPS })},
	{Name: KeyRTT, Kind: NetworkKey, Mechanism: MechanismDelayProxy, Takes: "a round trip, e.g. 0.3ms or 20ms",
		Enforcement: "a delay proxy between clients and server (pglab's own)",
		set:         setDuration(func(p *Profile) *time.Duration { return &p.RTT }), get: durationOf(func(p Profile) time.Duration { return p.RTT })},
	{Name: KeyReplica, Kind: NetworkKey, Mechanism: MechanismStandby, Takes: "none, sync or async",
		Enforcement: "a managed standby: a copy of the stopped primary's data directory, streaming",
		set:         setReplica, get: func(p Profile) (string, bool) { return p.Replica.String(), p.Replica != ReplicaNone }},
	{Name: KeyReplicaRTT, Kind: NetworkKey, Mechanism: MechanismDelayProxy, Takes: "a round trip, e.g. 1ms",
		Enforcement: "a delay proxy on the standby's replication connection",
		set:         setDuration(func(p *Profile) *time.Duration { return &p.ReplicaRTT }), get: durationOf(func(p Profile) time.Duration { return p.ReplicaRTT })},
	{Name: KeySynchronousCommit, Kind: NetworkKey, Mechanism: MechanismServerSetting, Takes: "on, remote_write, remote_apply, local or off",
		Enforcement: "the primary's synchronous_commit (with a sync standby: synchronous_standby_names)",
		set:         setSyncCommit, get: func(p Profile) (string, bool) { return p.SynchronousCommit, p.SynchronousCommit != "" }},
	{Name: KeyFsync, Kind: NetworkKey, Mechanism: MechanismServerSetting, Takes: "on or off",
		Enforcement: "the server's fsync (off: commits skip its own disk flushes)",
		set:         setFsync, get: func(p Profile) (string, bool) { return p.Fsync, p.Fsync != "" }},
}

func countOf(field func(Profile) int64) func(Profile) (string, bool) {
	return func(p Profile) (string, bool) { return strconv.FormatInt(field(p), 10), field(p) > 0 }
}

func durationOf(field func(Profile) time.Duration) func(Profile) (string, bool) {
	return func(p Profile) (string, bool) { return FormatDuration(field(p)), field(p) > 0 }
}

// KeyTable returns every key, in the order profiles list them.
func KeyTable() []Key { return append([]Key(nil), keyTable...) }

// Keys returns the names of the keys a SPEC may set, in the order profiles
// list them.
func Keys() []string { return KeysOf(MachineKey, NetworkKey) }

// KeysOf returns the names of the keys of the given kinds, in order.
func KeysOf(kinds ...Kind) []string {
	var out []string
	for _, k := range keyTable {
		for _, kind := range kinds {
			if k.Kind == kind {
				out = append(out, k.Name)
			}
		}
	}
	return out
}

// LookupKey returns the key of a name.
func LookupKey(name string) (Key, bool) {
	for _, k := range keyTable {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// IsMachineKey reports whether a SPEC key is a machine limit (enforced by
// the server's cgroup) rather than a network one (a delay proxy, a
// standby: set up by the lab for one run).
func IsMachineKey(name string) bool {
	k, ok := LookupKey(name)
	return ok && k.Kind == MachineKey
}

// controllerOf returns the controller that enforces a machine key.
func controllerOf(name string) Controller {
	k, _ := LookupKey(name)
	return k.Controller
}
