package env

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pglab/pglab/internal/units"
)

// Profile is a named environment: the machine limits of a managed server
// and the network and replication around it.
type Profile struct {
	// Name is what users type (--env NAME) and what target names show
	// (pg17@t3.micro).
	Name string
	// Doc says what the profile stands for and where its figures come
	// from.
	Doc string
	// Origin says where the profile was defined: "built-in", a file
	// position "profiles.yaml:12", or "--env" for an ad-hoc one.
	Origin string
	Machine
	Network
}

// Machine holds the limits of the machine a server runs on. A zero field
// is no limit.
type Machine struct {
	// CPUs is the CPU time the server may use, in CPUs (0.5 is half of
	// one CPU's time, 2 is two CPUs' worth), spread over all CPUs.
	CPUs float64
	// Memory is the memory the server may use, in bytes, page cache and
	// shared memory included.
	Memory int64
	// ReadBPS and WriteBPS are disk bandwidths in bytes per second.
	ReadBPS, WriteBPS int64
	// ReadIOPS and WriteIOPS are disk operations per second.
	ReadIOPS, WriteIOPS int64
}

// Network holds the network and replication of an environment
// ("Environments, part 2"). A zero field is none.
type Network struct {
	// RTT is the round trip added between every client and the server.
	RTT time.Duration
	// Replica is the managed standby: ReplicaNone, ReplicaSync or
	// ReplicaAsync.
	Replica Replica
	// ReplicaRTT is the round trip between primary and standby.
	ReplicaRTT time.Duration
	// SynchronousCommit is the primary's synchronous_commit ("" leaves
	// PostgreSQL's default).
	SynchronousCommit string
	// Fsync is the server's fsync, "off" for a server whose own disk
	// flushes are not part of a commit (with a synchronous standby, its
	// WAL is durable on the standby only, as with remote storage); ""
	// leaves PostgreSQL's default (on).
	Fsync string
}

// Replica says whether a managed standby runs beside the server.
type Replica string

// The replica modes.
const (
	ReplicaNone  Replica = ""      // no standby (spelled "none" in a SPEC)
	ReplicaSync  Replica = "sync"  // a synchronous standby
	ReplicaAsync Replica = "async" // an asynchronous standby
)

// String returns the mode as a SPEC spells it.
func (r Replica) String() string {
	if r == ReplicaNone {
		return "none"
	}
	return string(r)
}

// IsZero reports whether the machine has no limit.
func (m Machine) IsZero() bool { return m == Machine{} }

// IsZero reports whether the network adds nothing.
func (n Network) IsZero() bool { return n == Network{} }

// Unlimited reports whether the profile sets nothing at all (like
// "local").
func (p Profile) Unlimited() bool { return p.Machine.IsZero() && p.Network.IsZero() }

// Setting is one key of a profile with its value as a SPEC writes it.
type Setting struct {
	// Key is the SPEC key: "cpus", "memory", "read", …
	Key string
	// Value is the canonical value ("0.5", "1GiB", "87MB/s").
	Value string
}

// String returns "key=value".
func (s Setting) String() string { return s.Key + "=" + s.Value }

// Settings returns the keys the profile sets, in the order of [Keys].
func (p Profile) Settings() []Setting {
	var out []Setting
	for _, k := range keyTable {
		if v, ok := k.get(p); ok {
			out = append(out, Setting{k.Name, v})
		}
	}
	return out
}

// Spec returns the profile as an ad-hoc SPEC that [ParseSpec] reads back
// to the same limits: "NAME:key=value,…", or "NAME" alone when it sets
// nothing.
func (p Profile) Spec() string {
	s := p.Settings()
	if len(s) == 0 {
		return p.Name
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = x.String()
	}
	return p.Name + ":" + strings.Join(parts, ",")
}

// LimitsText is the profile's settings as one line, "cpus=2, memory=1GiB,
// read=87MB/s", or "no limits".
func (p Profile) LimitsText() string {
	s := p.Settings()
	if len(s) == 0 {
		return "no limits"
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = x.String()
	}
	return strings.Join(parts, ", ")
}

// Units of sizes and rates: pglab's MB is 2^20 bytes.
const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
	tib = 1 << 40
)

// FormatCPUs prints a CPU count as a SPEC takes it: "0.5", "2".
func FormatCPUs(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }

// FormatSize prints a size as a SPEC takes it, in the largest binary unit
// that holds it exactly: "1GB", "256MB", "1536kB", else bytes "1000B"
// (units.Exact: pglab's MB is 2^20 bytes).
func FormatSize(n int64) string { return units.Exact(n) }

// FormatRate prints a bandwidth so that [ParseSpec] reads back the same
// number of bytes per second: "87MB/s", "512kB/s", "87Mbit/s" (decimal
// bits, as cloud providers state them), else "1234B/s".
func FormatRate(bps int64) string {
	switch {
	case bps != 0 && bps%gib == 0:
		return strconv.FormatInt(bps/gib, 10) + "GB/s"
	case bps != 0 && bps%mib == 0:
		return strconv.FormatInt(bps/mib, 10) + "MB/s"
	case bps != 0 && (bps*8)%1e9 == 0:
		return strconv.FormatInt(bps*8/1e9, 10) + "Gbit/s"
	case bps != 0 && (bps*8)%1e6 == 0:
		return strconv.FormatInt(bps*8/1e6, 10) + "Mbit/s"
	case bps != 0 && bps%kib == 0:
		return strconv.FormatInt(bps/kib, 10) + "kB/s"
	}
	return strconv.FormatInt(bps, 10) + "B/s"
}

// RateMB returns a bandwidth in pglab's MB/s (2^20 bytes per second).
func RateMB(bps int64) float64 { return float64(bps) / mib }

// FormatDuration prints a round trip as a SPEC takes it: "0.3ms", "20ms",
// "1.5s".
func FormatDuration(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
}

// Describe is a one-line description of the profile for progress lines
// and reports: "t3.micro (cpus=2, memory=1GiB, read=87MB/s, …)".
func (p Profile) Describe() string {
	return fmt.Sprintf("%s (%s)", p.Name, p.LimitsText())
}
