package compare

import (
	"strings"
	"testing"
)

func TestPlanReps(t *testing.T) {
	tests := []struct {
		n, m         int
		lone         bool
		maxFamily    int
		minCalls     int
		needN        int
		stringPrefix string
	}{
		{4, 1, true, 1, 1, 4, "n=4 in a family of 1 at q=0.05: min p 0.0286 ≤ 0.05"},
		{4, 2, false, 1, 2, 5, "n=4 in a family of 2"},
		{5, 6, true, 6, 1, 5, "n=5 in a family of 6 at q=0.05: min p 0.00794 ≤ 0.0083"},
		{5, 60, false, 6, 10, 7, "n=5 in a family of 60 at q=0.05: min p 0.00794 > 0.00083 needed by a lone change; at least 10 changes"},
		{6, 60, false, 23, 3, 7, "n=6 in a family of 60"},
		{7, 60, true, 85, 1, 7, "n=7"},
		{8, 60, true, 321, 1, 7, "n=8"},
		{8, 600, false, 321, 2, 9, "n=8 in a family of 600"},
		{3, 10, false, 0, 0, 6, "n=3 in a family of 10 at q=0.05: min p 0.1 > 0.05: nothing can be called"},
	}
	for _, tt := range tests {
		p := PlanReps(tt.n, tt.m, 0)
		if p.LoneCallable != tt.lone || p.MaxFamily != tt.maxFamily || p.MinCalls != tt.minCalls || p.NeedN != tt.needN || !strings.HasPrefix(p.String(), tt.stringPrefix) {
			t.Errorf("PlanReps(%d, %d) = %+v\n%s", tt.n, tt.m, p, p)
		}
	}
}

func TestMinRepsForFamily(t *testing.T) {
	// The table of its doc comment: the largest m for each n.
	for _, tt := range []struct{ m, n int }{{1, 4}, {2, 5}, {6, 5}, {7, 6}, {23, 6}, {24, 7}, {85, 7}, {86, 8}, {321, 8}, {322, 9}, {1215, 9}, {1216, 10}, {4618, 10}, {4619, 11}} {
		if got := MinRepsForFamily(tt.m, 0.05); got != tt.n {
			t.Errorf("MinRepsForFamily(%d) = %d, want %d", tt.m, got, tt.n)
		}
	}
}
