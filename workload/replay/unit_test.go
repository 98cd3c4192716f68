package replay

import (
	"math"
	"strings"
	"testing"

	"github.com/pglab/pglab/workload"
)

func TestRowHash(t *testing.T) {
	row := func(vs ...any) [][]byte {
		var out [][]byte
		for _, v := range vs {
			if v == nil {
				out = append(out, nil)
				continue
			}
			out = append(out, []byte(v.(string)))
		}
		return out
	}
	distinct := [][][]byte{
		row("a", "b"), row("ab", ""), row("", "ab"), row("a", nil), row("a", ""), row(nil, "a"), row("a"), row("b", "a"),
	}
	seen := map[uint64]int{}
	for i, r := range distinct {
		h := RowHash(r)
		if j, ok := seen[h]; ok {
			t.Errorf("rows %d and %d hash alike", j, i)
		}
		seen[h] = i
	}
	if RowHash(row("x", "1")) != RowHash(row("x", "1")) {
		t.Error("a row hashes differently twice")
	}
	// Sums do not depend on the order of rows; a duplicated row counts
	// twice (it does not cancel as with xor).
	a := RowHash(row("1")) + RowHash(row("2")) + RowHash(row("3"))
	b := RowHash(row("3")) + RowHash(row("1")) + RowHash(row("2"))
	if a != b {
		t.Error("the sum depends on the order of rows")
	}
	if RowHash(row("1"))+RowHash(row("1")) == 0 {
		t.Error("two equal rows cancel out")
	}
}

// plan16 and plan17 are EXPLAIN (FORMAT JSON) outputs (trimmed) of one
// lookup with and without index scans.
const planIndex = `[{"Plan": {"Node Type": "Index Scan", "Parallel Aware": false, "Async Capable": false,
  "Scan Direction": "Forward", "Index Name": "items_pkey", "Relation Name": "items", "Alias": "items",
  "Startup Cost": 0.42, "Total Cost": 8.44, "Plan Rows": 1, "Plan Width": 40, "Index Cond": "(id = 5)"}}]`

const planSeq = `[{"Plan": {"Node Type": "Gather", "Parallel Aware": false, "Startup Cost": 1000.00, "Total Cost": 3000.1,
  "Plan Rows": 1, "Plan Width": 40, "Workers Planned": 2, "Single Copy": false,
  "Plans": [{"Node Type": "Seq Scan", "Parent Relationship": "Outer", "Parallel Aware": true, "Relation Name": "items",
    "Alias": "items", "Startup Cost": 0.0, "Total Cost": 2000.0, "Plan Rows": 1, "Plan Width": 40, "Filter": "(id = 5)"}]}}]`

const planJoin = `[{"Plan": {"Node Type": "Aggregate", "Strategy": "Hashed", "Partial Mode": "Simple", "Plan Rows": 10,
  "Plans": [{"Node Type": "Hash Join", "Join Type": "Left", "Plan Rows": 99, "Total Cost": 12.5,
    "Plans": [{"Node Type": "Seq Scan", "Relation Name": "a", "Parallel Aware": false, "Plan Rows": 5},
              {"Node Type": "Hash", "Plans": [{"Node Type": "Index Only Scan", "Scan Direction": "Backward",
                 "Index Name": "b_idx", "Relation Name": "b", "Plan Rows": 7}]}]},
    {"Node Type": "Result", "Parent Relationship": "InitPlan", "Subplan Name": "InitPlan 1 (returns $0)"}]}}]`

func TestShape(t *testing.T) {
	ix, err := ShapeOf([]byte(planIndex))
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.String(); got != "Index Scan using items_pkey on items" {
		t.Errorf("index plan: %q", got)
	}
	seq, err := ShapeOf([]byte(planSeq))
	if err != nil {
		t.Fatal(err)
	}
	if got := seq.String(); got != "Gather\n  Parallel Seq Scan on items" {
		t.Errorf("seq plan: %q", got)
	}
	join, err := ShapeOf([]byte(planJoin))
	if err != nil {
		t.Fatal(err)
	}
	want := "Aggregate (Hashed)\n  Hash Join (Left)\n    Seq Scan on a\n    Hash\n      Index Only Scan Backward using b_idx on b\n  InitPlan 1: Result"
	if got := join.String(); got != want {
		t.Errorf("join plan:\n%s\nwant\n%s", got, want)
	}
	// Estimates are not part of the shape.
	other := strings.NewReplacer("8.44", "99.1", `"Plan Rows": 1`, `"Plan Rows": 1000`).Replace(planIndex)
	if o, _ := ShapeOf([]byte(other)); !o.Equal(ix) {
		t.Errorf("plans that differ in estimates only differ in shape: %q", o)
	}
	if ix.Equal(seq) {
		t.Error("index and seq scan plans have one shape")
	}
	if d := Diff(ix, seq); d != "Index Scan using items_pkey on items → Gather, Parallel Seq Scan on items" {
		t.Errorf("diff: %q", d)
	}
	big := Shape{"Hash Join", "  Seq Scan on a", "  Hash", "    Seq Scan on b", "    Seq Scan on c"}
	if d := Diff(big, Shape{"Nested Loop", "  Index Scan using a_pkey on a"}); d != "Hash Join, Seq Scan on a, Hash and 2 more → Nested Loop, Index Scan using a_pkey on a" {
		t.Errorf("a long diff: %s", d)
	}
	if d := Diff(Shape{"A", "  B"}, Shape{"B", "  A"}); d != "the same nodes in another tree" {
		t.Errorf("diff of a reordered tree: %q", d)
	}
	if _, err := ShapeOf([]byte(`{"x": 1}`)); err == nil {
		t.Error("a document that is no plan gave a shape")
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		text              string
		readOnly, explain bool
	}{
		{"select name from items where id = $1", true, true},
		{"with x as (select $1) select * from x", true, true},
		{"with x as (delete from t returning *) select * from x", false, true},
		{"select nextval($1)", false, true},
		{"select * into t2 from t", false, true},
		{"values ($1, $2)", true, true},
		{"insert into t values ($1)", false, true},
		{"update t set a = $1 where id = $2", false, true},
		{"begin", false, false},
		{"commit", false, false},
		{"select $1; select $2", true, false},
		{"set search_path = $1", false, false},
		{"show work_mem", false, false},
	}
	for _, tc := range cases {
		fp := classify(&workload.Fingerprint{ID: "x", Text: tc.text})
		if fp.ReadOnly != tc.readOnly || explainable(tc.text) != tc.explain {
			t.Errorf("%q: read-only %v, explainable %v; want %v, %v", tc.text, fp.ReadOnly, explainable(tc.text), tc.readOnly, tc.explain)
		}
	}
}

func TestQuantile(t *testing.T) {
	if q := Quantile([]float64{3, 1, 2, 4}, 0.5); q != 2.5 {
		t.Errorf("median of 1..4 = %v", q)
	}
	xs := make([]float64, 101)
	for i := range xs {
		xs[i] = float64(100 - i)
	}
	if q := Quantile(xs, 0.95); q != 95 {
		t.Errorf("p95 of 0..100 = %v", q)
	}
	if xs[0] != 100 {
		t.Error("Quantile sorted its input")
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}
