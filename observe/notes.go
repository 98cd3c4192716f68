package observe

import (
	"fmt"
	"math"
	"sort"
)

// Note is a bottleneck the measurements show, in words for a report.
type Note struct {
	// Resource is "cpu", "iowait", "disk_read", "disk_write", "disk_busy"
	// or "waits".
	Resource string
	// Text is the sentence, e.g. "disk read throughput flat at 87 MB/s
	// for 92 % of the scan".
	Text string
	// Level is the value the resource sat at, in Unit.
	Level float64
	Unit  string
	// Pct is the share of the step (time, or session-samples for waits)
	// at that level, in percent.
	Pct float64
}

// The rules of OSNotes and WaitNotes.
const (
	// A series needs noteMinSamples samples over noteMinSeconds to be
	// judged at all.
	noteMinSamples = 5
	noteMinSeconds = 2.0
	// A plateau: samples within plateauBand of the series' 90th
	// percentile ("the peak", robust to one spike) for at least
	// plateauShare of the step's time.
	plateauBand  = 0.15
	plateauShare = 0.70
	// A disk plateau counts only when the disk had I/O in flight for at
	// least diskBusyFloor of those samples' time (a steady light load is
	// flat too, but not a ceiling), and the level is above a floor.
	diskBusyFloor = 50.0
	minDiskMBs    = 1.0
	minDiskIOPS   = 50.0
	// CPU saturated: busy at least cpuSaturated % of all CPUs for
	// plateauShare of the step.
	cpuSaturated = 90.0
	// I/O wait worth a note: at least iowaitNote % of all CPU time over
	// the step.
	iowaitNote = 20.0
	// Disk busy without a throughput plateau: util at least diskBusyNote
	// % for plateauShare of the step.
	diskBusyNote = 90.0
	// A wait event worth a note: at least waitNoteShare % of the
	// session-samples, from at least waitNoteMin session-samples; CPU is
	// not a wait.
	waitNoteShare = 40.0
	waitNoteMin   = 20
)

// OSNotes returns the bottlenecks an OS series shows, for a step called
// step ("scan", "run"; "" means "step"). No series, too few samples
// (under 5) or too short a step (under 2 s) give no notes. The rules, in
// order:
//
//   - CPU saturated: busy ≥ 90 % of all CPUs for ≥ 70 % of the step's
//     time: "CPU saturated (98 % busy) for 95 % of the run".
//   - I/O wait: ≥ 20 % of all CPU time over the step: "I/O wait 40 % of
//     CPU time".
//   - Disk read, then disk write: throughput (MB/s), else operations per
//     second, within 15 % of its 90th percentile for ≥ 70 % of the step,
//     while the disk had I/O in flight ≥ 50 % of that time, above 1 MB/s
//     or 50 IOPS: "disk read throughput flat at 87 MB/s (700 IOPS) for
//     92 % of the scan".
//   - Disk busy: with no such plateau, the disk had I/O in flight ≥ 90 %
//     of the time for ≥ 70 % of the step: "disk busy (util 97 %) for 80 %
//     of the step".
func OSNotes(s *OSSeries, step string) []Note {
	if s == nil || len(s.Samples) < noteMinSamples || totalSeconds(s.Samples) < noteMinSeconds {
		return nil
	}
	if step == "" {
		step = "step"
	}
	var out []Note
	busy := series(s.Samples, func(x OSSample) float64 { return x.CPUBusyPct })
	if share, level := busy.above(cpuSaturated); share >= plateauShare {
		out = append(out, Note{Resource: "cpu", Level: level, Unit: "pct", Pct: 100 * share,
			Text: fmt.Sprintf("CPU saturated (%.0f %% busy) for %.0f %% of the %s", level, 100*share, step)})
	}
	if s.Mean.IOWaitPct >= iowaitNote {
		out = append(out, Note{Resource: "iowait", Level: s.Mean.IOWaitPct, Unit: "pct", Pct: 100,
			Text: fmt.Sprintf("I/O wait %.0f %% of CPU time", s.Mean.IOWaitPct)})
	}
	if !s.HasDisk() {
		return out
	}
	util := series(s.Samples, func(x OSSample) float64 { return x.DiskUtilPct })
	plateaus := 0
	for _, dir := range []struct {
		mbs, iops      func(OSSample) float64
		resource, what string
	}{
		{func(x OSSample) float64 { return x.ReadMBs }, func(x OSSample) float64 { return x.ReadIOPS }, "disk_read", "disk read"},
		{func(x OSSample) float64 { return x.WriteMBs }, func(x OSSample) float64 { return x.WriteIOPS }, "disk_write", "disk write"},
	} {
		mbs, iops := series(s.Samples, dir.mbs), series(s.Samples, dir.iops)
		if share, level, mask := mbs.plateau(minDiskMBs); share >= plateauShare && util.meanOver(mask) >= diskBusyFloor {
			out = append(out, Note{Resource: dir.resource, Level: level, Unit: "MB/s", Pct: 100 * share,
				Text: fmt.Sprintf("%s throughput flat at %s MB/s (%s IOPS) for %.0f %% of the %s",
					dir.what, fmtLevel(level), fmtLevel(iops.meanOver(mask)), 100*share, step)})
			plateaus++
		} else if share, level, mask := iops.plateau(minDiskIOPS); share >= plateauShare && util.meanOver(mask) >= diskBusyFloor {
			out = append(out, Note{Resource: dir.resource, Level: level, Unit: "count/s", Pct: 100 * share,
				Text: fmt.Sprintf("%s operations flat at %s IOPS (%s MB/s) for %.0f %% of the %s",
					dir.what, fmtLevel(level), fmtLevel(mbs.meanOver(mask)), 100*share, step)})
			plateaus++
		}
	}
	if plateaus == 0 {
		if share, level := util.above(diskBusyNote); share >= plateauShare {
			out = append(out, Note{Resource: "disk_busy", Level: level, Unit: "pct", Pct: 100 * share,
				Text: fmt.Sprintf("disk busy (util %.0f %%) for %.0f %% of the %s", level, 100*share, step)})
		}
	}
	return out
}

// WaitNotes returns a note when one wait event (not CPU) took at least
// 40 % of the session-samples of a profile with at least 20 of them:
// "sessions spent 62 % of their time waiting on IO:WALSync".
func WaitNotes(p *WaitProfile) []Note {
	if p == nil || p.Sessions < waitNoteMin {
		return nil
	}
	var out []Note
	for _, e := range p.Events {
		if e.Event != CPUEvent && e.Pct >= waitNoteShare {
			out = append(out, Note{Resource: "waits", Level: e.Pct, Unit: "pct", Pct: e.Pct,
				Text: fmt.Sprintf("sessions spent %.0f %% of their time waiting on %s", e.Pct, e.Event)})
		}
	}
	return out
}

// timed is a series of values with the length of each sample.
type timed struct {
	v, secs []float64
	total   float64
}

func series(xs []OSSample, get func(OSSample) float64) timed {
	t := timed{v: make([]float64, len(xs)), secs: make([]float64, len(xs))}
	for i, x := range xs {
		t.v[i], t.secs[i] = get(x), x.Seconds
		t.total += x.Seconds
	}
	return t
}

func totalSeconds(xs []OSSample) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x.Seconds
	}
	return sum
}

// above returns the share of time with values ≥ floor and their
// time-weighted mean.
func (t timed) above(floor float64) (share, level float64) {
	mask := make([]bool, len(t.v))
	for i, v := range t.v {
		mask[i] = v >= floor
	}
	return t.shareOf(mask), t.meanOver(mask)
}

// plateau finds the samples within plateauBand of the 90th percentile and
// returns their share of the time, their mean, and which they are. A peak
// below floor is no plateau.
func (t timed) plateau(floor float64) (share, level float64, mask []bool) {
	if t.total <= 0 {
		return 0, 0, nil
	}
	peak := percentile(t.v, 0.90)
	if peak < floor || math.IsNaN(peak) {
		return 0, 0, nil
	}
	mask = make([]bool, len(t.v))
	for i, v := range t.v {
		mask[i] = math.Abs(v-peak) <= plateauBand*peak
	}
	return t.shareOf(mask), t.meanOver(mask), mask
}

func (t timed) shareOf(mask []bool) float64 {
	if t.total <= 0 {
		return 0
	}
	sum := 0.0
	for i, m := range mask {
		if m {
			sum += t.secs[i]
		}
	}
	return sum / t.total
}

// meanOver is the time-weighted mean of the masked samples (0 if none).
func (t timed) meanOver(mask []bool) float64 {
	sum, secs := 0.0, 0.0
	for i, m := range mask {
		if m {
			sum += t.v[i] * t.secs[i]
			secs += t.secs[i]
		}
	}
	if secs == 0 {
		return 0
	}
	return sum / secs
}

// percentile returns the q-quantile of vs (nearest rank).
func percentile(vs []float64, q float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// fmtLevel prints a rate: one decimal below 10, whole numbers above.
func fmtLevel(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
