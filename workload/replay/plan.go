package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Explain returns the plan the target makes of a statement:
// EXPLAIN (FORMAT JSON) with the statement's parameters (text, types
// inferred), without running it.
func Explain(ctx context.Context, conn *pgconn.PgConn, st *Stmt) ([]byte, error) {
	rr := conn.ExecParams(ctx, "EXPLAIN (FORMAT JSON) "+st.SQL, st.Params, nil, nil, nil)
	var plan []byte
	for rr.NextRow() {
		if v := rr.Values(); len(v) > 0 {
			plan = append(plan[:0], v[0]...)
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, errors.New("EXPLAIN returned no plan")
	}
	return plan, nil
}

// Shape is a plan without its estimates: one line per node, indented by
// depth, naming the node's type, its strategy, join type or operation,
// the index and relation it reads, and the subplan or CTE it is. Two
// plans have the same shape when their lines are equal.
type Shape []string

// String writes the shape one node per line.
func (s Shape) String() string { return strings.Join(s, "\n") }

// Equal reports whether two shapes are the same.
func (s Shape) Equal(o Shape) bool {
	return s.String() == o.String()
}

// ShapeOf reads a plan of EXPLAIN (FORMAT JSON).
func ShapeOf(plan []byte) (Shape, error) {
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &doc); err != nil || len(doc) == 0 || doc[0].Plan == nil {
		return nil, fmt.Errorf("not a plan of EXPLAIN (FORMAT JSON)")
	}
	var out Shape
	addNode(doc[0].Plan, 0, &out)
	return out, nil
}

// addNode appends a node and its children.
func addNode(n map[string]any, depth int, out *Shape) {
	*out = append(*out, strings.Repeat("  ", depth)+nodeLine(n))
	kids, _ := n["Plans"].([]any)
	for _, k := range kids {
		if m, ok := k.(map[string]any); ok {
			addNode(m, depth+1, out)
		}
	}
}

// nodeLine describes a node as EXPLAIN's text format heads it, without
// estimates: "Parallel Index Scan Backward using items_pkey on items".
func nodeLine(n map[string]any) string {
	str := func(key string) string { s, _ := n[key].(string); return s }
	var b strings.Builder
	if rel := str("Parent Relationship"); rel == "InitPlan" || rel == "SubPlan" {
		// "InitPlan 1 (returns $0)" up to 16, "InitPlan 1" from 17 on.
		name, _, _ := strings.Cut(str("Subplan Name"), " (")
		if name == "" {
			name = rel
		}
		b.WriteString(name + ": ")
	}
	if p, _ := n["Parallel Aware"].(bool); p {
		b.WriteString("Parallel ")
	}
	if pm := str("Partial Mode"); pm != "" && pm != "Simple" {
		b.WriteString(pm + " ")
	}
	b.WriteString(str("Node Type"))
	for _, key := range []string{"Strategy", "Join Type", "Operation", "Command"} {
		if v := str(key); v != "" && v != "Plain" && v != "Inner" {
			b.WriteString(" (" + v + ")")
		}
	}
	if str("Scan Direction") == "Backward" {
		b.WriteString(" Backward")
	}
	if ix := str("Index Name"); ix != "" {
		b.WriteString(" using " + ix)
	}
	for _, key := range []string{"Relation Name", "CTE Name", "Function Name"} {
		if v := str(key); v != "" {
			b.WriteString(" on " + v)
			break
		}
	}
	return b.String()
}

// diffNodes is how many of the nodes only one shape has Diff names.
const diffNodes = 3

// Diff says how two shapes differ in one short line: the nodes only one
// of them has ("Index Scan using items_pkey on items → Seq Scan on
// items"), the first diffNodes of each side and how many more, or that
// the same nodes are arranged otherwise. The whole shapes are the plans'
// own texts.
func Diff(a, b Shape) string {
	count := map[string]int{}
	for _, l := range a {
		count[strings.TrimSpace(l)]++
	}
	for _, l := range b {
		count[strings.TrimSpace(l)]--
	}
	var onlyA, onlyB []string
	for _, l := range a {
		if k := strings.TrimSpace(l); count[k] > 0 {
			onlyA = append(onlyA, k)
			count[k]--
		}
	}
	for _, l := range b {
		if k := strings.TrimSpace(l); count[k] < 0 {
			onlyB = append(onlyB, k)
			count[k]++
		}
	}
	if len(onlyA)+len(onlyB) == 0 {
		return "the same nodes in another tree"
	}
	side := func(ls []string) string {
		switch {
		case len(ls) == 0:
			return "(none)"
		case len(ls) > diffNodes:
			return strings.Join(ls[:diffNodes], ", ") + fmt.Sprintf(" and %d more", len(ls)-diffNodes)
		}
		return strings.Join(ls, ", ")
	}
	return side(onlyA) + " → " + side(onlyB)
}
