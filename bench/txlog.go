package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

// txLog is one thread's -l log: per-transaction lines, or aggregates per
// --aggregate-interval (pgbench's doLog).
type txLog struct {
	f        *os.File
	w        *bufio.Writer
	buf      []byte
	agg      statsData
	aggStart int64 // epoch µs
	t        *thread
}

func openTxLog(t *thread, prefix string, pid int) (*txLog, error) {
	path := fmt.Sprintf("%s.%d", prefix, pid)
	if t.id > 0 {
		path = fmt.Sprintf("%s.%d.%d", prefix, pid, t.id)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("could not open logfile \"%s\": %v", path, unwrapPathErr(err))
	}
	return &txLog{f: f, w: bufio.NewWriterSize(f, 64<<10), t: t}, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func resultString(skipped bool, es estatus, detailed bool) string {
	if skipped {
		return "skipped"
	}
	if detailed {
		switch es {
		case esSerialization:
			return "serialization"
		case esDeadlock:
			return "deadlock"
		}
	}
	return "failed"
}

func appendF0(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 0, 64) }

func (l *txLog) doLog(c *client, skipped bool, lat, lag float64) {
	r := l.t.r
	if r.samplingRate != 0 && l.t.sampleRng.Double() > r.samplingRate {
		return
	}
	now := nowUS() + r.epochShift
	if r.aggInterval > 0 {
		l.flushIntervals(now)
		l.agg.accum(skipped, lat, lag, c.es, c.tries, r.throttleDelay > 0)
		return
	}
	b := l.buf[:0]
	b = strconv.AppendInt(b, int64(c.id), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, c.cnt, 10)
	b = append(b, ' ')
	if !skipped && c.es == esNone {
		b = appendF0(b, lat)
	} else {
		b = append(b, resultString(skipped, c.es, r.cfg.FailuresDetailed)...)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(c.useFile), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, now/1000000, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, now%1000000, 10)
	if r.throttleDelay > 0 {
		b = append(b, ' ')
		b = appendF0(b, lag)
	}
	if r.maxTries != 1 {
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(c.tries-1), 10)
	}
	b = append(b, '\n')
	l.buf = b
	_, _ = l.w.Write(b)
}

// flushIntervals writes every aggregation interval that ended before now
// (epoch µs), empty ones included.
func (l *txLog) flushIntervals(now int64) {
	r := l.t.r
	for {
		next := l.aggStart + r.aggInterval
		if next > now {
			return
		}
		a := &l.agg
		b := l.buf[:0]
		b = strconv.AppendInt(b, l.aggStart/1000000, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, a.cnt, 10)
		for _, v := range []float64{a.latency.sum, a.latency.sum2, a.latency.min, a.latency.max} {
			b = append(b, ' ')
			b = appendF0(b, v)
		}
		var lagv [4]float64
		if r.throttleDelay > 0 {
			lagv = [4]float64{a.lag.sum, a.lag.sum2, a.lag.min, a.lag.max}
		}
		for _, v := range lagv {
			b = append(b, ' ')
			b = appendF0(b, v)
		}
		var skipped, retried, retries, ser, dead int64
		if r.latencyLimit > 0 {
			skipped = a.skipped
		}
		if r.maxTries != 1 {
			retried, retries = a.retried, a.retries
		}
		if r.cfg.FailuresDetailed {
			ser, dead = a.serFailures, a.deadFailures
		}
		for _, v := range []int64{skipped, retried, retries, ser, dead} {
			b = append(b, ' ')
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, '\n')
		l.buf = b
		_, _ = l.w.Write(b)
		l.agg = statsData{}
		l.aggStart = next
	}
}

func (l *txLog) close() error {
	if l.t.r.aggInterval > 0 {
		l.flushIntervals(nowUS() + l.t.r.epochShift)
	}
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
