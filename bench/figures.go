package bench

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Series is pgbench's SimpleStats in exported form: the count, minimum,
// maximum, sum and sum of squares of a series (latencies in microseconds,
// command latencies in seconds). Two series merge exactly.
type Series struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Sum   float64 `json:"sum"`
	Sum2  float64 `json:"sum2"`
}

// Stats are transactions counted by outcome, with their latency and
// schedule lag (pgbench's StatsData).
type Stats struct {
	Count                 int64  `json:"count"`
	Skipped               int64  `json:"skipped"`
	Retries               int64  `json:"retries"`
	Retried               int64  `json:"retried"`
	SerializationFailures int64  `json:"serialization_failures"`
	DeadlockFailures      int64  `json:"deadlock_failures"`
	Latency               Series `json:"latency"`
	Lag                   Series `json:"lag"`
}

// CommandStats are one script command's figures for -r.
type CommandStats struct {
	Latency  Series `json:"latency"`
	Failures int64  `json:"failures"`
	Retries  int64  `json:"retries"`
}

// Figures are the mergeable totals of a run, or of one process's part of
// a coordinated run: everything the summary is computed from. Summarize
// turns them into a Result; Merge adds another part's.
type Figures struct {
	Stats    Stats            `json:"stats"`
	Scripts  []Stats          `json:"scripts"`
	Commands [][]CommandStats `json:"commands"`
	// LatencyLate counts transactions above -L.
	LatencyLate int64 `json:"latency_late"`
	// ConnDurationUS is the time spent connecting under -C (all clients).
	ConnDurationUS int64 `json:"conn_duration_us"`
	// ConnectUS is the initial connection time: from the start until the
	// first thread began its transactions. BenchUS is the measured window
	// that follows, until the last thread ended.
	ConnectUS int64 `json:"connect_us"`
	BenchUS   int64 `json:"bench_us"`
	// Hist holds the latencies of successful transactions in microseconds
	// (HistConfig's range and precision); it is sent encoded (see
	// EncodeHist).
	Hist *hdrhistogram.Histogram `json:"-"`
}

func (s *simpleStats) export() Series {
	return Series{Count: s.count, Min: s.min, Max: s.max, Sum: s.sum, Sum2: s.sum2}
}

func (s Series) internal() simpleStats {
	return simpleStats{count: s.Count, min: s.Min, max: s.Max, sum: s.Sum, sum2: s.Sum2}
}

func (s *statsData) export() Stats {
	return Stats{Count: s.cnt, Skipped: s.skipped, Retries: s.retries, Retried: s.retried,
		SerializationFailures: s.serFailures, DeadlockFailures: s.deadFailures,
		Latency: s.latency.export(), Lag: s.lag.export()}
}

func (s Stats) internal() statsData {
	return statsData{cnt: s.Count, skipped: s.Skipped, retries: s.Retries, retried: s.Retried,
		serFailures: s.SerializationFailures, deadFailures: s.DeadlockFailures,
		latency: s.Latency.internal(), lag: s.Lag.internal()}
}

// Add merges o into s exactly.
func (s *Stats) Add(o Stats) {
	a, b := s.internal(), o.internal()
	a.merge(&b)
	*s = a.export()
}

// Failures is the number of failed transactions (serialization and
// deadlock failures).
func (s Stats) Failures() int64 { return s.SerializationFailures + s.DeadlockFailures }

// Merge adds another part's figures to f: counts and series are summed,
// histograms merged bucket for bucket (both must have HistConfig's range
// and precision, else Merge refuses), and the windows are those of the
// slowest part (parts run side by side).
func (f *Figures) Merge(o *Figures) error {
	if len(o.Scripts) != len(f.Scripts) || len(o.Commands) != len(f.Commands) {
		return fmt.Errorf("figures of %d scripts cannot merge with %d", len(o.Scripts), len(f.Scripts))
	}
	for j := range o.Commands {
		if len(o.Commands[j]) != len(f.Commands[j]) {
			return fmt.Errorf("script %d has %d commands, not %d", j+1, len(o.Commands[j]), len(f.Commands[j]))
		}
	}
	if err := CheckHist(o.Hist); err != nil {
		return err
	}
	if f.Hist == nil {
		f.Hist = newHist()
	}
	if dropped := f.Hist.Merge(o.Hist); dropped != 0 {
		return fmt.Errorf("histogram merge dropped %d values", dropped)
	}
	f.Stats.Add(o.Stats)
	for j := range o.Scripts {
		f.Scripts[j].Add(o.Scripts[j])
		for k, c := range o.Commands[j] {
			d := &f.Commands[j][k]
			a, b := d.Latency.internal(), c.Latency.internal()
			a.merge(&b)
			d.Latency = a.export()
			d.Failures += c.Failures
			d.Retries += c.Retries
		}
	}
	f.LatencyLate += o.LatencyLate
	f.ConnDurationUS += o.ConnDurationUS
	f.ConnectUS = max(f.ConnectUS, o.ConnectUS)
	f.BenchUS = max(f.BenchUS, o.BenchUS)
	return nil
}

// NewFigures returns empty figures shaped for the scripts of cfg (one
// Stats per script, one CommandStats per command).
func NewFigures(cfg *Config) (*Figures, error) {
	scripts, _, err := ParseScripts(cfg)
	if err != nil {
		return nil, err
	}
	f := &Figures{Scripts: make([]Stats, len(scripts)), Commands: make([][]CommandStats, len(scripts)), Hist: newHist()}
	for j, s := range scripts {
		f.Commands[j] = make([]CommandStats, len(s.Commands))
	}
	return f, nil
}

// HistConfig is the range and precision of every latency histogram: the
// same everywhere, so that merges are exact (bucket for bucket).
type HistConfig struct {
	Lowest  int64 `json:"lowest"`
	Highest int64 `json:"highest"`
	SigFigs int64 `json:"sigfigs"`
}

// Hist returns this build's histogram configuration.
func Hist() HistConfig {
	return HistConfig{Lowest: histLowest, Highest: histHighest, SigFigs: histSigFigs}
}

// CheckHist refuses a histogram whose range or precision differs from
// Hist(): merging it would re-quantize or drop values.
func CheckHist(h *hdrhistogram.Histogram) error {
	if h == nil {
		return fmt.Errorf("no histogram")
	}
	got := HistConfig{Lowest: h.LowestTrackableValue(), Highest: h.HighestTrackableValue(), SigFigs: h.SignificantFigures()}
	if got != Hist() {
		return fmt.Errorf("histogram of range %d..%d with %d significant figures, want %d..%d with %d",
			got.Lowest, got.Highest, got.SigFigs, histLowest, histHighest, histSigFigs)
	}
	return nil
}

// EncodeHist encodes a histogram in HdrHistogram's compressed V2 format.
func EncodeHist(h *hdrhistogram.Histogram) ([]byte, error) {
	return h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
}

// DecodeHist decodes a histogram of EncodeHist and checks its
// configuration (CheckHist).
func DecodeHist(b []byte) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if err := CheckHist(h); err != nil {
		return nil, err
	}
	return h, nil
}

// Interval is one progress interval's figures of a run or a part of one:
// what a -P line is computed from.
type Interval struct {
	// No numbers the intervals from 1.
	No int `json:"no"`
	// ElapsedUS is the time since the run's start at the interval's end;
	// EpochUS the same moment as Unix time.
	ElapsedUS int64 `json:"elapsed_us"`
	EpochUS   int64 `json:"epoch_us"`
	Stats     Stats `json:"stats"`
	// Hist holds the interval's latencies (sent encoded).
	Hist *hdrhistogram.Histogram `json:"-"`
}
