package env

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pglab/pglab/internal/units"
)

// Environment is what one managed server runs in under a profile, as the
// lab sets it up and the studies see it: the profile, and the cgroup that
// enforces its machine limits and reads the server's counters.
// ("Environments, part 2" adds the proxy between the clients and the
// server, and the standby.)
type Environment struct {
	Profile Profile
	// Cgroup is the server's cgroup; nil when none could be made (then
	// every limit is not enforced).
	Cgroup *Cgroup
	// why is the reason there is no cgroup.
	why string
	// network is what became of the network keys (the lab's proxy and
	// standby).
	network []Enforcement
}

// SetNetwork records how the profile's network keys are enforced (by the
// lab: a delay proxy, a managed standby), for Enforcement and Record.
func (e *Environment) SetNetwork(x []Enforcement) { e.network = x }

// NewEnvironment makes the environment of one server: its cgroup with the
// profile's limits (see [New]). A machine without cgroup access gives an
// environment without a cgroup whose limits are all not enforced.
func NewEnvironment(p Profile, o Options) (*Environment, error) {
	cg, err := New(p, o)
	if err != nil {
		return nil, err
	}
	e := &Environment{Profile: p, Cgroup: cg}
	if cg.Empty() {
		e.Cgroup, e.why = nil, "no cgroup could be made"
	}
	return e, nil
}

// Placer returns what places the server in the environment (its cgroup),
// or nil when there is nothing to place it in.
func (e *Environment) Placer() *Cgroup { return e.Cgroup }

// Enforcement returns what became of each limit of the profile: the
// machine's (the cgroup), then the network's (see SetNetwork).
func (e *Environment) Enforcement() []Enforcement {
	return append(e.machineEnforcement(), e.network...)
}

// machineEnforcement returns what became of each machine limit.
func (e *Environment) machineEnforcement() []Enforcement {
	if e.Cgroup == nil {
		var out []Enforcement
		for _, s := range e.Profile.Settings() {
			if IsMachineKey(s.Key) {
				out = append(out, Enforcement{Key: s.Key, Value: s.Value, Status: NotEnforced, Why: e.why})
			}
		}
		return out
	}
	return e.Cgroup.Enforcement()
}

// NoneEnforced reports whether the profile sets limits and not one of them
// holds (no cgroup access): a comparison under it would measure the
// machine as it is.
func (e *Environment) NoneEnforced() bool {
	enf := e.machineEnforcement()
	for _, x := range enf {
		if x.Status != NotEnforced {
			return false
		}
	}
	return len(enf) > 0
}

// StartStep starts reading the environment's counters across one measured
// step; nil (and no error) without a cgroup.
func (e *Environment) StartStep() (*StepCounters, error) {
	if e == nil || e.Cgroup == nil {
		return nil, nil
	}
	return e.Cgroup.StartStep()
}

// DropCache empties the page cache charged to the server's cgroup (cold
// runs); it reports what it did, or "" when there was nothing to do.
func (e *Environment) DropCache() (string, error) {
	if e == nil || e.Cgroup == nil || e.Cgroup.Dir(Memory) == "" {
		return "", nil
	}
	if err := e.Cgroup.DropCache(); err != nil {
		return "", err
	}
	if e.Cgroup.layout.Hierarchies[Memory].Version == 1 {
		return "the cgroup's page cache emptied (memory.force_empty)", nil
	}
	return "the cgroup's page cache reclaimed (memory.reclaim)", nil
}

// Close removes the cgroup; its server must have stopped.
func (e *Environment) Close() error {
	if e == nil || e.Cgroup == nil {
		return nil
	}
	return e.Cgroup.Remove()
}

// Record is an environment as runs store it (in the target's extra facts,
// key "env") and reports show it.
type Record struct {
	Name   string `json:"name"`
	Origin string `json:"origin,omitempty"`
	Doc    string `json:"doc,omitempty"`
	// Spec is the profile as an ad-hoc SPEC (every limit spelled out).
	Spec   string        `json:"spec"`
	Limits []LimitRecord `json:"limits"`
	Cgroup string        `json:"cgroup,omitempty"`
	Disk   string        `json:"disk,omitempty"`
}

// Lines describes the environment for a terminal: the profile and its
// origin ("environment t3.micro (built-in)", with ", no limits" when it
// sets none), then one line per limit and what became of it.
func (r Record) Lines() []string {
	head := fmt.Sprintf("environment %s (%s)", r.Name, r.Origin)
	if len(r.Limits) == 0 {
		head += ", no limits"
	}
	out := []string{head}
	for _, l := range r.Limits {
		out = append(out, l.String())
	}
	return out
}

// LimitRecord is one limit and what became of it.
type LimitRecord struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Status Status `json:"status"`
	How    string `json:"how,omitempty"`
	// Mechanism is How without the values written: "cgroup v1
	// blkio.throttle.read_bps_device on vda".
	Mechanism string `json:"mechanism,omitempty"`
	Why       string `json:"why,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Record describes the environment for the results store.
func (e *Environment) Record() Record {
	r := Record{Name: e.Profile.Name, Origin: e.Profile.Origin, Doc: e.Profile.Doc, Spec: e.Profile.Spec(), Limits: []LimitRecord{}}
	for _, x := range e.Enforcement() {
		r.Limits = append(r.Limits, x.limitRecord())
	}
	if e.Cgroup != nil {
		r.Cgroup, r.Disk = e.Cgroup.Name, e.Cgroup.Disk()
	}
	return r
}

func (e Enforcement) limitRecord() LimitRecord {
	return LimitRecord{Key: e.Key, Value: e.Value, Status: e.Status, How: e.How, Mechanism: e.Mechanism, Why: e.Why, Note: e.Note}
}

// RecordOf reads the environment record out of a stored target's extra
// facts; ok is false when the target had none.
func RecordOf(extra json.RawMessage) (r Record, ok bool) {
	var doc struct {
		Env *Record `json:"env"`
	}
	if len(extra) == 0 || json.Unmarshal(extra, &doc) != nil || doc.Env == nil {
		return Record{}, false
	}
	return *doc.Env, true
}

// String is the limit in one line, as Enforcement.String writes it.
func (l LimitRecord) String() string {
	return Enforcement{Key: l.Key, Value: l.Value, Status: l.Status, How: l.How, Why: l.Why, Note: l.Note}.String()
}

// Notes returns the bottlenecks a step's counters show against the
// profile's limits, as sentences for a report; step names the step
// ("scan", "run"). os is the machine's disk series over the step (nil
// when not sampled): it tells a flat ceiling from an average. Steps under
// two seconds give no notes.
//
//   - a disk direction at ≥ 80 % of its bandwidth limit: "disk read flat at
//     86 MB/s, the profile's ceiling (read=87MB/s), for 95 % of the scan"
//     (the step's mean; flat when samples within 15 % of the limit cover
//     half of it or more),
//     or "disk read averaged 75 MB/s over the scan, 86 % of the profile's
//     ceiling (read=87MB/s)";
//   - disk operations at ≥ 80 % of an IOPS limit: "disk reads at 2,950
//     IOPS, the profile's ceiling (read_iops=3000)";
//   - the CPU quota throttling ≥ 5 % of CFS periods: "CPU quota throttled
//     the server in 41 % of the run's 100 ms periods (cpus=0.5)";
//   - the memory peak at ≥ 90 % of the limit: "server memory at the
//     profile's limit: peak 255 MB of memory=256MiB (page cache included)".
func Notes(p Profile, c Counters, step string) []string {
	secs := c.Elapsed.Seconds()
	if secs < 2 {
		return nil
	}
	if step == "" {
		step = "step"
	}
	var out []string
	for _, d := range []struct {
		what, key string
		limit     int64
		bytes     int64
		sample    func(IOSample) float64
	}{
		{"disk read", KeyRead, p.ReadBPS, c.ReadBytes, func(x IOSample) float64 { return x.ReadMBs }},
		{"disk write", KeyWrite, p.WriteBPS, c.WriteBytes, func(x IOSample) float64 { return x.WriteMBs }},
	} {
		if d.limit <= 0 || !c.Have["io"] {
			continue
		}
		limit, mean := RateMB(d.limit), float64(d.bytes)/mib/secs
		if mean < 0.8*limit {
			continue
		}
		ceiling := fmt.Sprintf("the profile's ceiling (%s=%s)", d.key, FormatRate(d.limit))
		if share := flatNear(c.IO, d.sample, limit); share >= 0.5 {
			out = append(out, fmt.Sprintf("%s flat at %s, %s, for %.0f %% of the %s", d.what, units.ByteRate(mean*mib), ceiling, 100*share, step))
		} else {
			out = append(out, fmt.Sprintf("%s averaged %s over the %s, %.0f %% of %s", d.what, units.ByteRate(mean*mib), step, 100*mean/limit, ceiling))
		}
	}
	for _, d := range []struct {
		what, key string
		limit     int64
		ops       int64
	}{
		{"disk reads", KeyReadIOPS, p.ReadIOPS, c.ReadOps},
		{"disk writes", KeyWriteIOPS, p.WriteIOPS, c.WriteOps},
	} {
		if d.limit <= 0 || !c.Have["io"] {
			continue
		}
		if rate := float64(d.ops) / secs; rate >= 0.8*float64(d.limit) {
			out = append(out, fmt.Sprintf("%s at %s IOPS over the %s, the profile's ceiling (%s=%d)", d.what, units.Number(rate), step, d.key, d.limit))
		}
	}
	if p.CPUs > 0 && c.Periods > 0 {
		if share := float64(c.ThrottledPeriods) / float64(c.Periods); share >= 0.05 {
			out = append(out, fmt.Sprintf("CPU quota throttled the server in %.0f %% of the %s's %d ms periods (cpus=%s)", 100*share, step, cfsPeriodUs/1000, FormatCPUs(p.CPUs)))
		}
	}
	if p.Memory > 0 && c.MemoryPeak >= 0 && float64(c.MemoryPeak) >= 0.9*float64(p.Memory) {
		out = append(out, fmt.Sprintf("server memory at the profile's limit: peak %s of memory=%s (page cache included)", units.Bytes(float64(c.MemoryPeak)), FormatSize(p.Memory)))
	}
	return out
}

// flatNear returns the share of the samples' time spent within 15 % of
// level.
func flatNear(samples []IOSample, get func(IOSample) float64, level float64) float64 {
	var in, total float64
	for _, x := range samples {
		total += x.Seconds
		if v := get(x); v >= 0.85*level && v <= 1.15*level {
			in += x.Seconds
		}
	}
	if total == 0 {
		return 0
	}
	return in / total
}

// stateFile is where a detached instance keeps its environment.
const stateFile = "env.json"

// state is an environment kept beside a detached instance (pglab pg
// start --env), so that later commands place its restarts in the same
// cgroup and remove the cgroup when it stops.
type state struct {
	Profile string                `json:"profile"`
	Record  Record                `json:"record"`
	Cgroup  string                `json:"cgroup"`
	Dirs    map[Controller]string `json:"dirs"`
}

// Save keeps the environment in an instance directory (see Load).
func (e *Environment) Save(dir string) error {
	st := state{Profile: e.Profile.Spec(), Record: e.Record()}
	if e.Cgroup != nil {
		st.Cgroup, st.Dirs = e.Cgroup.Name, e.Cgroup.dirs
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, stateFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("keep the instance's environment: %w", err)
	}
	return nil
}

// Load reads the environment a detached instance keeps in its directory;
// ok is false when it has none. The cgroup's directories are those that
// still exist.
func Load(dir string) (e *Environment, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("the instance's environment: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, false, fmt.Errorf("the instance's environment (%s): %w", stateFile, err)
	}
	p, err := ParseSpec(st.Profile)
	if err != nil {
		return nil, false, fmt.Errorf("the instance's environment (%s): %w", stateFile, err)
	}
	p.Origin, p.Doc = st.Record.Origin, st.Record.Doc
	e = &Environment{Profile: p, why: "no cgroup could be made"}
	if st.Cgroup == "" {
		return e, true, nil
	}
	cg := &Cgroup{Name: st.Cgroup, profile: p, layout: Detect(), dirs: map[Controller]string{}, disk: diskInfo{Name: st.Record.Disk}}
	for c, d := range st.Dirs {
		if _, err := os.Stat(d); err == nil {
			cg.dirs[c] = d
		}
	}
	for _, l := range st.Record.Limits {
		cg.enforcement = append(cg.enforcement, Enforcement{Key: l.Key, Value: l.Value, Status: l.Status, How: l.How, Mechanism: l.Mechanism, Why: l.Why, Note: l.Note})
	}
	if !cg.Empty() {
		e.Cgroup = cg
	} else {
		e.why = "its cgroup is gone"
	}
	return e, true, nil
}

// Forget removes the environment's state file from an instance directory.
func Forget(dir string) error {
	err := os.Remove(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
