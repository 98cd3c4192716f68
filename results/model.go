package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Kind says which pglab command made a run.
type Kind string

// The kinds of run.
const (
	KindStudy   Kind = "study"   // pglab study
	KindCompare Kind = "compare" // pglab compare
	KindPlan    Kind = "plan"    // pglab plan
	KindBench   Kind = "bench"   // pglab bench
	KindTune    Kind = "tune"    // pglab tune (the tune study, before/after)
)

func (k Kind) valid() bool {
	switch k {
	case KindStudy, KindCompare, KindPlan, KindBench, KindTune:
		return true
	}
	return false
}

// Status is the state of a run.
type Status string

// The states of a run. A run is StatusRunning from [Store.BeginRun] until
// [Run.Finish]; a run still marked running after its process ended was cut
// short by a crash or a kill.
const (
	StatusRunning     Status = "running"
	StatusDone        Status = "done"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

func (s Status) valid() bool {
	switch s {
	case StatusRunning, StatusDone, StatusFailed, StatusInterrupted:
		return true
	}
	return false
}

// TargetKind says how pglab reached a target.
type TargetKind string

// The kinds of target.
const (
	TargetManaged TargetKind = "managed" // a server pglab started itself
	TargetDSN     TargetKind = "dsn"     // an existing server given by a connection string
)

func (k TargetKind) valid() bool { return k == TargetManaged || k == TargetDSN }

// Direction says which way a metric is better, for comparisons.
type Direction string

// The directions of a metric. The zero value is stored as DirectionNeutral.
const (
	DirectionHigher  Direction = "higher"  // more is better (tps, MB/s)
	DirectionLower   Direction = "lower"   // less is better (latency, WAL bytes)
	DirectionNeutral Direction = "neutral" // neither (row counts, settings)
)

func (d Direction) valid() bool {
	return d == DirectionHigher || d == DirectionLower || d == DirectionNeutral
}

// RunInfo is what a caller tells [Store.BeginRun] about a new run: its kind
// and its manifest.
type RunInfo struct {
	// ID is the run's identifier. Leave it empty to have one made from the
	// start time, e.g. "20261130-103245-ab12" (UTC, then 4 random hex
	// digits), which sorts in time order. A given ID must use only
	// lower-case letters, digits, '-' and '_'.
	ID string
	// Kind is the command that made the run.
	Kind Kind
	// StartedAt is when the run started; zero means now. Times are kept in
	// UTC to the microsecond.
	StartedAt time.Time
	// Version is pglab's version (buildinfo.String()).
	Version string
	// Command is the command line, program name first. It is redacted again
	// with [redact.Args] before it is stored.
	Command []string
	// Host describes the machine pglab ran on.
	Host Host
	// Extra holds further manifest fields as a JSON object, e.g. alpha,
	// reps, studies, params, checksums of plan files. Empty means {}.
	// Strings that look like connection strings are redacted, and so is the
	// value of every object key that names a password.
	Extra json.RawMessage
}

// Host describes the machine a run ran on. Any field may be empty when it
// could not be found out. [CollectHost] fills it for the current machine.
type Host struct {
	Hostname    string // the machine's host name
	OS          string // operating system, e.g. "Debian GNU/Linux 13 (trixie)"
	Arch        string // processor architecture as Go names it, e.g. "amd64"
	Kernel      string // kernel release, e.g. "6.12.48+deb13-amd64"
	CPUs        int    // logical CPUs this process may run on
	CPUModel    string // processor model name
	MemoryBytes int64  // physical memory
	Disk        Disk   // the disk holding the data directory
}

// Disk describes the file system and block device under a directory.
type Disk struct {
	Path       string // the directory that was examined
	Device     string // the mounted device, e.g. "/dev/nvme0n1p2"
	Filesystem string // file system type, e.g. "ext4"
	// Rotational is true for spinning disks, false for solid-state ones,
	// and nil when unknown (network or virtual file systems).
	Rotational *bool
}

// RunRecord is a stored run: its manifest and its outcome.
type RunRecord struct {
	RunInfo
	// Status is the run's state.
	Status Status
	// Error is the error text of a failed or interrupted run (redacted).
	Error string
	// FinishedAt is when the run finished; zero while it is running.
	FinishedAt time.Time
}

// Target describes one server measured in a run.
type Target struct {
	// Name is the target's name within the run, e.g. "pg16" or "prod".
	Name string
	// Kind says whether pglab manages the server or was given a DSN.
	Kind TargetKind
	// Conn describes how the server was reached. It is redacted again with
	// [redact.DSN] before it is stored.
	Conn string
	// ServerVersion is the server's version string (SHOW server_version).
	ServerVersion string
	// ServerVersionNum is server_version_num, e.g. 170002.
	ServerVersionNum int
	// DataChecksums is whether the cluster has data checksums on.
	DataChecksums bool
	// Settings are the server's settings that differ from their defaults,
	// returned sorted by name. Values are redacted (primary_conninfo can
	// hold a password).
	Settings []Setting
	// Extra holds further facts as a JSON object; empty means {}. It is
	// redacted like [RunInfo.Extra].
	Extra json.RawMessage
}

// Setting is one server setting, as pg_settings shows it.
type Setting struct {
	Name   string // e.g. "shared_buffers"
	Value  string // e.g. "16384"
	Unit   string // e.g. "8kB"; empty for unitless settings
	Source string // e.g. "configuration file", "command line"
}

// Measurement is one value measured in one repetition of one case of a
// study on one target.
type Measurement struct {
	// Target is the name of a target added to the run with
	// [Run.AddTarget], or empty for a value that belongs to no target.
	Target string
	// Study is the study's name, e.g. "vacuum".
	Study string
	// Case holds the parameters that tell this case apart within the study,
	// e.g. {"clients": "10", "mode": "prepared"}. Values are redacted.
	Case map[string]string
	// CaseKey is a short key for Case, set by the store (see [CaseKey]);
	// it is ignored when writing.
	CaseKey string
	// Rep is the repetition number.
	Rep int
	// Metric is the name of what was measured, e.g. "tps".
	Metric string
	// Value is the measured value; it must be finite.
	Value float64
	// Unit is the value's unit, e.g. "ms", "bytes", "1/s".
	Unit string
	// Exact marks a metric that is compared exactly rather than
	// statistically (row counts, WAL records of a deterministic step).
	Exact bool
	// Direction says which way the metric is better; empty means neutral.
	Direction Direction
	// At is when the value was measured; zero means when it is stored.
	At time.Time
}

// Artefact is a raw piece of output kept with a run: VACUUM VERBOSE text,
// server notices, an HDR histogram, a JSON time series of samples.
type Artefact struct {
	// ID is set by the store when reading.
	ID int64
	// Target is the name of a target of the run, or empty.
	Target string
	// Study, Case and Rep place the artefact like a [Measurement]; all may
	// be empty or zero for an artefact of the whole run.
	Study   string
	Case    map[string]string
	CaseKey string // set by the store, see [CaseKey]
	Rep     int
	// Name names the artefact within its place, e.g. "vacuum-verbose".
	Name string
	// ContentType is a media type such as "text/plain" or
	// "application/json". Contents of text/* types and application/json are
	// redacted before they are stored; other types are kept as they are.
	ContentType string
	// Data is the content. It is nil when read with SkipData.
	Data []byte
	// Size is the length of the stored content, set by the store.
	Size int64
	// At is when the artefact was made; zero means when it is stored.
	At time.Time
}

// CaseKey returns the short key that groups measurements of one case: the
// first 12 hex digits of the SHA-256 of the case's canonical JSON (sorted
// keys, no spaces). Equal maps give equal keys, and a nil map has the same
// key as an empty one.
func CaseKey(c map[string]string) string {
	sum := sha256.Sum256([]byte(caseJSON(c)))
	return hex.EncodeToString(sum[:6])
}

// caseJSON is the canonical JSON of a case: encoding/json sorts map keys.
func caseJSON(c map[string]string) string {
	if len(c) == 0 {
		return "{}"
	}
	// Marshalling a map[string]string cannot fail: invalid UTF-8 is
	// replaced, and keys come out sorted.
	b, _ := json.Marshal(c)
	return string(b)
}

// StudyInfoArtefact names the artefact in which a run keeps a StudyInfo
// for each of its studies.
const StudyInfoArtefact = "study-info"

// StudyInfo describes one study of a run as the run keeps it (artefact
// StudyInfoArtefact, JSON), so that reports of stored runs can name the
// study, its cases and parameters without the study's code.
type StudyInfo struct {
	Name     string            `json:"name"`
	Title    string            `json:"title"`
	Source   string            `json:"source"`
	Params   map[string]string `json:"params"`
	Reps     int               `json:"reps"`
	Settings []string          `json:"settings"`
	Cases    []CaseInfo        `json:"cases"`
	// Order says how the targets were ordered within each round, and
	// OrderSeed the seed of that order (a decimal number, as
	// --order-seed takes it): the same seed runs the same order again.
	// Both are empty for runs stored before pglab recorded them.
	Order     string `json:"order,omitempty"`
	OrderSeed string `json:"order_seed,omitempty"`
	// Version is the study's version when the run ran it (study.Info's,
	// 1 or more, bumped when what the study records changes); 0 for runs
	// stored before studies had versions.
	Version int `json:"version,omitempty"`
	// Presentation says how reports show the study's figures. Nil for a
	// study without one, every metric of which is shown in one table and
	// can be called; for a run stored before studies carried their
	// presentation (Version 0), reports show the study as they did then.
	Presentation *Presentation `json:"presentation,omitempty"`
}

// CaseInfo names one case of a stored study.
type CaseInfo struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

// MetricNote is the content of a "note" artefact of type
// application/json: a remark on one metric of a case and target, such as
// why a server version cannot give it. Notes of type text/plain are the
// remark alone, on the case and target.
type MetricNote struct {
	Metric string `json:"metric"`
	Text   string `json:"text"`
}

// StudyRepsArtefact names the artefact (JSON, a StudyReps) in which a
// run keeps how many repetitions each case of a study ran and why.
const StudyRepsArtefact = "study-reps"

// StudyReps is how many repetitions each case of a study ran: a fixed
// count, or under --reps auto as the stopping rule chose.
type StudyReps struct {
	Study string `json:"study"`
	// Looks are the repetitions per target at which the stopping rule
	// looked at the cases (the last is the cap); empty for a fixed
	// count.
	Looks []int      `json:"looks,omitempty"`
	Cases []CaseReps `json:"cases"`
}

// CaseReps is one case's repetitions per target and why they stopped
// there: the resolutions of its primary figures ("called", "same", joined
// with ", "), "cap" (its own cap), "budget" (the run's time budget), "no
// primary figures", or empty for a fixed count.
type CaseReps struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	N      int               `json:"n"`
	Reason string            `json:"reason,omitempty"`
	// Cap is the most repetitions the stopping rule let the case run,
	// chosen at its first look from what its rounds cost (0: the study's
	// last look, or a fixed count).
	Cap int `json:"cap,omitempty"`
}

// StudyTimeArtefact names the artefact (JSON, a StudyTime) in which a run
// keeps where each study's wall time went.
const StudyTimeArtefact = "study-time"

// StudyTime splits a study's wall time, all targets together: the time in
// its measured steps (what its figures time, summed over targets and
// repetitions) and the rest, set-up (settings and restarts, tables and
// data, waiting for statistics, the counters read around each step).
type StudyTime struct {
	Study string `json:"study"`
	// WallMS is the study's whole time, from applying its settings to
	// restoring them.
	WallMS float64 `json:"wall_ms"`
	// MeasuredMS is the time in measured steps.
	MeasuredMS float64 `json:"measured_ms"`
	// Steps counts the measured steps.
	Steps int `json:"steps"`
	// PrepareMS is applying the settings and Setup on every target;
	// RepsMS the repetitions (their measured steps included); CleanupMS
	// Teardown and restoring the settings.
	PrepareMS float64 `json:"prepare_ms"`
	RepsMS    float64 `json:"reps_ms"`
	CleanupMS float64 `json:"cleanup_ms"`
	// ResetMS is the time spent giving repetitions fresh data (a clone of
	// the cached dataset, or the data rebuilt in place), inside RepsMS;
	// DataMS loading the study's data once in Setup, inside PrepareMS;
	// BuildMS, inside either, building cache entries that were missing;
	// WaitMS waiting for another pglab process that was building or
	// removing a dataset this study needed. Set-up is the rest:
	// WallMS − MeasuredMS − ResetMS − WaitMS.
	ResetMS float64 `json:"reset_ms"`
	DataMS  float64 `json:"data_ms"`
	BuildMS float64 `json:"build_ms"`
	WaitMS  float64 `json:"wait_ms"`
	// ProfileMS is the profiler's time under --profile (attaching perf,
	// reading its samples), inside RepsMS, outside the measured steps and
	// not charged to the run's budget.
	ProfileMS float64 `json:"profile_ms,omitempty"`
	// Cases split the repetitions' time per case.
	Cases []CaseTime `json:"cases,omitempty"`
	// Data says how each target's datasets were loaded.
	Data []DataSummary `json:"data,omitempty"`
}

// CaseTime is the time of one case's repetitions, every target together:
// measured steps, resets of the data, waiting, and the rest (set-up inside
// the repetitions: an UPDATE before the VACUUM, a prewarm, a restart).
type CaseTime struct {
	Case       map[string]string `json:"case"`
	Name       string            `json:"name"`
	Reps       int               `json:"reps"`
	RunMS      float64           `json:"run_ms"`
	MeasuredMS float64           `json:"measured_ms"`
	ResetMS    float64           `json:"reset_ms"`
	WaitMS     float64           `json:"wait_ms"`
}

// The ways a dataset was loaded (DataSummary.Method), besides the clone
// methods of package dataset ("reflink", "copy_file_range", "copy").
const (
	// DataInPlace is data built on the target itself by the study's
	// statements (a user's server, a server with a standby, no cache).
	DataInPlace = "in place"
)

// DataUse is one load of a study's dataset on a target.
type DataUse struct {
	Target  string            `json:"target"`
	Dataset string            `json:"dataset"`
	Case    map[string]string `json:"case,omitempty"`
	// Rep is the repetition the load started (0: Setup, for every case).
	Rep    int    `json:"rep"`
	Method string `json:"method"`
	Entry  string `json:"entry,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
	Built  bool   `json:"built,omitempty"`
	// MS is the whole load: stopping the server, the clone, starting
	// it (or the statements in place), waiting and building included.
	MS      float64 `json:"ms"`
	CloneMS float64 `json:"clone_ms,omitempty"`
	BuildMS float64 `json:"build_ms,omitempty"`
	WaitMS  float64 `json:"wait_ms,omitempty"`
}

// DataSummary sums up the loads of one dataset on one target in a study:
// how, how often, and what a load cost.
type DataSummary struct {
	Target  string `json:"target"`
	Dataset string `json:"dataset"`
	// Method is how the data came: a clone method of the cache, or
	// DataInPlace.
	Method string `json:"method"`
	// Entry is the cache entry cloned; Bytes its size.
	Entry string `json:"entry,omitempty"`
	Bytes int64  `json:"bytes,omitempty"`
	// Loads counts the loads; PerRep is true when each repetition
	// started from a fresh copy (a reset), false for a load in Setup.
	Loads  int  `json:"loads"`
	PerRep bool `json:"per_rep"`
	// FromCache is true when the entry was already in the cache; BuildMS
	// is the time building it otherwise.
	FromCache bool    `json:"from_cache"`
	BuildMS   float64 `json:"build_ms,omitempty"`
	WaitMS    float64 `json:"wait_ms,omitempty"`
	// TotalMS and MedianMS are the loads' time (without building);
	// CloneMedianMS the median time of the copy alone (the rest is
	// stopping and starting the server and warming its buffers).
	TotalMS       float64 `json:"total_ms"`
	MedianMS      float64 `json:"median_ms"`
	CloneMedianMS float64 `json:"clone_median_ms,omitempty"`
}

// RunTimeArtefact names the artefact (JSON, a RunTime) with the time a
// run spent before it began: finding or installing the binaries, initdb
// and starting the managed servers, connecting to the others.
const RunTimeArtefact = "run-time"

// RunTime is the part of a run's wall time before its start was stored.
type RunTime struct {
	ServersMS float64 `json:"servers_ms"`
}
