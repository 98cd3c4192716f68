package results

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkAddMeasurements stores batches of 100 measurements in an SQLite
// store, as a study does after each repetition.
func BenchmarkAddMeasurements(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "results.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r, err := s.BeginRun(ctx, RunInfo{Kind: KindBench})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.AddTarget(ctx, Target{Name: "a", Kind: TargetManaged}); err != nil {
		b.Fatal(err)
	}
	ms := make([]Measurement, 100)
	for i := range ms {
		ms[i] = Measurement{Target: "a", Study: "tps", Case: map[string]string{"clients": "10"},
			Metric: fmt.Sprintf("m%d", i), Value: float64(i), Unit: "ms", Direction: DirectionLower}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.AddMeasurements(ctx, ms); err != nil {
			b.Fatal(err)
		}
	}
}
