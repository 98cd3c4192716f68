package env

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// nameRE is what a profile name may be: it becomes part of target names
// (pg17@t3.micro) and of cgroup directory names.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)

// ValidateName checks a profile name: letters, digits, '_', '.' and '-',
// at most 40, starting with a letter or digit.
func ValidateName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("invalid profile name %q: use letters, digits, '_', '.' and '-' (at most 40, starting with a letter or digit)", name)
	}
	return nil
}

// SpecError is a SPEC that cannot be read. Its message is one line naming
// the SPEC and what is wrong.
type SpecError struct {
	Spec string
	Msg  string
}

func (e *SpecError) Error() string { return fmt.Sprintf("--env %q: %s", e.Spec, e.Msg) }

// ParseSpec reads an ad-hoc SPEC, "NAME:key=value[,key=value…]", into a
// profile with Origin "--env". A SPEC without ':' is a profile name (see
// [Catalog.Resolve]) and is returned with no limits.
func ParseSpec(spec string) (Profile, error) {
	bad := func(format string, args ...any) (Profile, error) {
		return Profile{}, &SpecError{Spec: spec, Msg: fmt.Sprintf(format, args...)}
	}
	name, body, hasBody := strings.Cut(strings.TrimSpace(spec), ":")
	name = strings.TrimSpace(name)
	if name == "" {
		return bad("no profile name: write NAME or NAME:key=value,… (keys: %s)", strings.Join(Keys(), ", "))
	}
	if err := ValidateName(name); err != nil {
		return bad("%v", err)
	}
	p := Profile{Name: name, Origin: "--env"}
	if !hasBody {
		return p, nil
	}
	if strings.TrimSpace(body) == "" {
		return bad("no key=value after %q: write %s:key=value,… (keys: %s)", name+":", name, strings.Join(Keys(), ", "))
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return bad("an empty key=value (two commas in a row, or one at the end)")
		}
		key, value, ok := strings.Cut(part, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok {
			return bad("%q is not key=value (keys: %s)", part, strings.Join(Keys(), ", "))
		}
		if seen[key] {
			return bad("%s is given twice", key)
		}
		seen[key] = true
		if err := p.set(key, value); err != nil {
			return bad("%v", err)
		}
	}
	if err := p.check(); err != nil {
		return bad("%v", err)
	}
	return p, nil
}

// set reads one key's value into the profile.
func (p *Profile) set(key, value string) error {
	k, ok := LookupKey(key)
	if !ok {
		return unknownKey(key)
	}
	if value == "" {
		return fmt.Errorf("%s: no value; %s takes %s", key, key, k.Takes)
	}
	if err := k.set(p, value); err != nil {
		if strings.HasPrefix(err.Error(), "not ") || strings.HasPrefix(err.Error(), "unknown ") {
			return fmt.Errorf("%s=%s: %v; %s takes %s", key, value, err, key, k.Takes)
		}
		return fmt.Errorf("%s=%s: %v", key, value, err)
	}
	return nil
}

// unknownKey is the error of a key no profile has, with the nearest key
// when the name is a likely typo.
func unknownKey(key string) error {
	hint := ""
	if near := nearestKey(key); near != "" {
		hint = fmt.Sprintf("; did you mean %s?", near)
	}
	return fmt.Errorf("unknown key %q%s (keys: %s)", key, hint, strings.Join(Keys(), ", "))
}

// nearestKey returns the key within two edits of s, if any.
func nearestKey(s string) string {
	best, bestD := "", 3
	for _, k := range Keys() {
		if d := editDistance(strings.ToLower(s), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// check tests the keys against each other.
func (p *Profile) check() error {
	n := p.Network
	if n.ReplicaRTT > 0 && n.Replica == ReplicaNone {
		return fmt.Errorf("replica_rtt=%s needs a standby: add replica=sync or replica=async", FormatDuration(n.ReplicaRTT))
	}
	switch n.SynchronousCommit {
	case "remote_write", "remote_apply":
		if n.Replica != ReplicaSync {
			return fmt.Errorf("synchronous_commit=%s waits for a synchronous standby: add replica=sync", n.SynchronousCommit)
		}
	}
	return nil
}

func setCPUs(p *Profile, v string) error {
	c, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("not a number")
	}
	switch {
	case c <= 0:
		return fmt.Errorf("must be more than 0; leave the key out for no limit")
	case c < 0.01:
		// The kernel's CFS quota is at least 1 ms per 100 ms period.
		return fmt.Errorf("the smallest CPU quota is 0.01 CPUs")
	case c > 4096:
		return fmt.Errorf("at most 4096 CPUs")
	}
	p.CPUs = c
	return nil
}

// sizeUnits are the units of sizes, all binary (PostgreSQL's kB, MB and
// GB are 1024-based too).
var sizeUnits = map[string]int64{
	"b": 1, "k": kib, "kb": kib, "kib": kib, "m": mib, "mb": mib, "mib": mib,
	"g": gib, "gb": gib, "gib": gib, "t": tib, "tb": tib, "tib": tib,
}

// numberUnit splits "1.5GiB" into 1.5 and "GiB".
func numberUnit(s string) (float64, string, error) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		if strings.HasPrefix(s, "-") {
			return 0, "", fmt.Errorf("must be more than 0")
		}
		return 0, "", fmt.Errorf("not a number with a unit")
	}
	x, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", fmt.Errorf("not a number with a unit")
	}
	return x, strings.TrimSpace(s[i:]), nil
}

// ParseSize reads a size: a number and a unit (B, kB, MB, GB, TB or KiB,
// MiB, GiB, TiB, all binary; case does not matter).
func ParseSize(s string) (int64, error) {
	x, unit, err := numberUnit(s)
	if err != nil {
		return 0, err
	}
	if unit == "" {
		return 0, fmt.Errorf("no unit: write e.g. %sMB or %sGB", s, s)
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)", unit)
	}
	n := x * float64(mult)
	if n >= 1<<62 {
		return 0, fmt.Errorf("too large")
	}
	if n < 1 {
		return 0, fmt.Errorf("must be more than 0")
	}
	return int64(math.Round(n)), nil
}

func setSize(field func(*Profile) *int64, least int64) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		n, err := ParseSize(v)
		if err != nil {
			return err
		}
		if n < least {
			return fmt.Errorf("at least %s: PostgreSQL does not start in less", FormatSize(least))
		}
		*field(p) = n
		return nil
	}
}

// rateUnits are the units of bandwidths in bytes per second: bytes in
// pglab's binary MB, bits in decimal (as instance bandwidths are stated).
var rateUnits = map[string]float64{
	"b/s": 1, "kb/s": kib, "kib/s": kib, "mb/s": mib, "mib/s": mib, "gb/s": gib, "gib/s": gib,
	"kbit/s": 1e3 / 8, "kbps": 1e3 / 8, "mbit/s": 1e6 / 8, "mbps": 1e6 / 8, "gbit/s": 1e9 / 8, "gbps": 1e9 / 8,
}

// ParseRate reads a bandwidth in bytes per second: "87MB/s" (MB = 2^20
// bytes, as pglab prints it), "512kB/s", "1GB/s", or decimal bits
// "87Mbit/s" (also "87Mbps").
func ParseRate(s string) (int64, error) {
	x, unit, err := numberUnit(s)
	if err != nil {
		return 0, err
	}
	if unit == "" {
		return 0, fmt.Errorf("no unit: write e.g. %sMB/s", s)
	}
	mult, ok := rateUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (B/s, kB/s, MB/s, GB/s, or Mbit/s, Gbit/s)", unit)
	}
	n := x * mult
	if n > 1<<50 {
		return 0, fmt.Errorf("too large")
	}
	if n < 1 {
		return 0, fmt.Errorf("must be at least 1B/s")
	}
	return int64(math.Round(n)), nil
}

func setRate(field func(*Profile) *int64) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		n, err := ParseRate(v)
		if err != nil {
			return err
		}
		*field(p) = n
		return nil
	}
}

func setCount(field func(*Profile) *int64) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil && strings.HasPrefix(v, "-"):
			return fmt.Errorf("must be more than 0")
		case err != nil:
			return fmt.Errorf("not a whole number")
		case n <= 0:
			return fmt.Errorf("must be more than 0; leave the key out for no limit")
		case n > 1e9:
			return fmt.Errorf("too large")
		}
		*field(p) = n
		return nil
	}
}

// ParseDuration reads a round trip: "0.3ms", "300us", "20ms", "1s".
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, perr := strconv.ParseFloat(s, 64); perr == nil {
			return 0, fmt.Errorf("no unit: write e.g. %sms", s)
		}
		return 0, fmt.Errorf("not a duration (units us, ms, s)")
	}
	switch {
	case d <= 0:
		return 0, fmt.Errorf("must be more than 0; leave the key out for none")
	case d > 10*time.Second:
		return 0, fmt.Errorf("at most 10s")
	}
	return d, nil
}

func setDuration(field func(*Profile) *time.Duration) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		d, err := ParseDuration(v)
		if err != nil {
			return err
		}
		*field(p) = d
		return nil
	}
}

func setReplica(p *Profile, v string) error {
	switch strings.ToLower(v) {
	case "none":
		p.Replica = ReplicaNone
	case "sync":
		p.Replica = ReplicaSync
	case "async":
		p.Replica = ReplicaAsync
	default:
		return fmt.Errorf("unknown mode")
	}
	return nil
}

func setFsync(p *Profile, v string) error {
	switch v = strings.ToLower(v); v {
	case "on", "off":
		p.Fsync = v
		return nil
	}
	return fmt.Errorf("want on or off")
}

func setSyncCommit(p *Profile, v string) error {
	switch v = strings.ToLower(v); v {
	case "on", "remote_write", "remote_apply", "local", "off":
		p.SynchronousCommit = v
		return nil
	}
	return fmt.Errorf("unknown mode")
}
