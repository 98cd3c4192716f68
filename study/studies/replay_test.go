package studies

import (
	"strings"
	"testing"
)

func TestReplayOneSided(t *testing.T) {
	cases := []struct {
		a, b map[string]int
		want string
	}{
		{nil, nil, ""},
		{map[string]int{"23505": 2}, map[string]int{"23505": 3}, ""},
		{nil, map[string]int{"42883": 6}, "errors on pg17 only: 42883 undefined_function × 6"},
		{map[string]int{"23505": 1, "40001": 2}, nil, "errors on pg16 only: 23505 unique_violation × 1, 40001 serialization_failure × 2"},
		{map[string]int{"23505": 1}, map[string]int{"42P01": 4}, "errors on one side only: on pg16 23505 unique_violation × 1; on pg17 42P01 undefined_table × 4"},
	}
	for _, tc := range cases {
		if got := oneSided(tc.a, tc.b, "pg16", "pg17"); got != tc.want {
			t.Errorf("oneSided(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestReplayResultDiff(t *testing.T) {
	same := []resultSig{{3, 7}, {3, 7}}
	cases := []struct {
		a, b   []resultSig
		want   string
		stable bool
	}{
		{same, same, "", true},
		{same, []resultSig{{2, 7}, {2, 7}}, "results differ from pg16's: 2 rows per round, pg16 3", true},
		{same, []resultSig{{3, 8}, {3, 8}}, "results differ from pg16's: the same 3 rows per round, other values (row hash)", true},
		{same, []resultSig{{3, 7}, {4, 9}}, "", false},
		{[]resultSig{{1, 1}, {2, 2}}, same, "", false},
		{nil, same, "", true},
	}
	for _, tc := range cases {
		got, stable := resultDiff(tc.a, tc.b, "pg16")
		if got != tc.want || stable != tc.stable {
			t.Errorf("resultDiff(%v, %v) = %q, %v; want %q, %v", tc.a, tc.b, got, stable, tc.want, tc.stable)
		}
	}
}

func TestReplayQueryLabel(t *testing.T) {
	if got := queryLabel("select a,\n\t b from t"); got != "select a, b from t" {
		t.Errorf("folded: %q", got)
	}
	long := "select " + strings.Repeat("column_name, ", 20) + "x from t"
	got := queryLabel(long)
	if !strings.HasSuffix(got, " …") || len([]rune(got)) > maxQueryLabel+2 || strings.HasSuffix(strings.TrimSuffix(got, " …"), "colu") {
		t.Errorf("cut: %q", got)
	}
}
