package bench

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// simpleStats is pgbench's SimpleStats: count, min, max, sum and sum of
// squares of a series (latencies in microseconds, or seconds for commands).
type simpleStats struct {
	count     int64
	min, max  float64
	sum, sum2 float64
}

func (s *simpleStats) add(v float64) {
	if s.count == 0 || v < s.min {
		s.min = v
	}
	if s.count == 0 || v > s.max {
		s.max = v
	}
	s.count++
	s.sum += v
	s.sum2 += v * v
}

func (s *simpleStats) merge(o *simpleStats) {
	if o.count == 0 {
		return
	}
	if s.count == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.count == 0 || o.max > s.max {
		s.max = o.max
	}
	s.count += o.count
	s.sum += o.sum
	s.sum2 += o.sum2
}

func (s *simpleStats) avg() float64 {
	if s.count == 0 {
		return 0
	}
	return s.sum / float64(s.count)
}

func (s *simpleStats) stddev() float64 {
	if s.count == 0 {
		return 0
	}
	a := s.avg()
	v := s.sum2/float64(s.count) - a*a
	if v < 0 {
		return 0
	}
	return math.Sqrt(v)
}

// statsData is pgbench's StatsData: transactions counted by outcome, with
// latency and schedule lag in microseconds.
type statsData struct {
	cnt, skipped, retries, retried int64
	serFailures, deadFailures      int64
	latency, lag                   simpleStats
}

func (s *statsData) failures() int64 { return s.serFailures + s.deadFailures }

// accum is pgbench's accumStats.
func (s *statsData) accum(skipped bool, lat, lag float64, es estatus, tries uint32, throttled bool) {
	if skipped {
		s.skipped++
		return
	}
	if tries > 1 {
		s.retries += int64(tries - 1)
		s.retried++
	}
	switch es {
	case esNone:
		s.cnt++
		s.latency.add(lat)
		if throttled {
			s.lag.add(lag)
		}
	case esSerialization:
		s.serFailures++
	case esDeadlock:
		s.deadFailures++
	}
}

func (s *statsData) merge(o *statsData) {
	s.cnt += o.cnt
	s.skipped += o.skipped
	s.retries += o.retries
	s.retried += o.retried
	s.serFailures += o.serFailures
	s.deadFailures += o.deadFailures
	s.latency.merge(&o.latency)
	s.lag.merge(&o.lag)
}

// cmdStats are one command's figures for -r.
type cmdStats struct {
	latency  simpleStats // seconds
	failures int64
	retries  int64
}

// Histogram bounds: latencies are recorded in microseconds from 1 µs to one
// hour with 3 significant digits (about 190 KB per histogram).
const (
	histLowest  = 1
	histHighest = 3600 * 1000 * 1000
	histSigFigs = 3
)

func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histSigFigs)
}

func recordHist(h *hdrhistogram.Histogram, us float64) {
	v := int64(us + 0.5)
	if v < histLowest {
		v = histLowest
	}
	if v > histHighest {
		v = histHighest
	}
	_ = h.RecordValue(v)
}
