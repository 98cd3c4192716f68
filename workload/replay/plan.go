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
// the index and relation it reads, and the subplan or CTE it is. The
// partitions an Append or Merge Append reads are folded: the first of
// those read alike stands for them ("Append over 55 partitions: Seq Scan
// on payment_p2022_01 …"). Two plans have the same shape when their lines
// are equal.
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
	kids := children(n)
	if groups := partitionGroups(n, kids); groups != nil {
		addPartitions(n, len(kids), groups, depth, out)
		return
	}
	*out = append(*out, strings.Repeat("  ", depth)+nodeLine(n, false))
	for _, k := range kids {
		addNode(k, depth+1, out)
	}
}

// children returns a node's child plans.
func children(n map[string]any) []map[string]any {
	kids, _ := n["Plans"].([]any)
	var out []map[string]any
	for _, k := range kids {
		if m, ok := k.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// foldFrom is how many partitions an Append must read to be folded.
const foldFrom = 3

// partitionGroups returns the children of an Append or Merge Append that
// reads foldFrom partitions or more, grouped by their shape with relation
// and index names left out, in order of first appearance; nil for any
// other node. Its children are partitions when each reads a relation of
// its own under the parent's alias (EXPLAIN names partition scans
// "payment_1", "payment_2", … after the parent's "payment"; before 13, all
// "payment").
func partitionGroups(n map[string]any, kids []map[string]any) [][]map[string]any {
	if t, _ := n["Node Type"].(string); (t != "Append" && t != "Merge Append") || len(kids) < foldFrom {
		return nil
	}
	base, rels := "", map[string]bool{}
	for _, k := range kids {
		rel, alias := firstRelation(k)
		if rel == "" || rels[rel] {
			return nil
		}
		rels[rel] = true
		if b := strings.TrimRight(alias, "0123456789"); len(b) < len(alias) && strings.HasSuffix(b, "_") {
			alias = strings.TrimSuffix(b, "_")
		}
		if base != "" && alias != base {
			return nil
		}
		base = alias
	}
	var groups [][]map[string]any
	index := map[string]int{}
	for _, k := range kids {
		var masked Shape
		addMasked(k, 0, &masked)
		key := masked.String()
		if i, ok := index[key]; ok {
			groups[i] = append(groups[i], k)
			continue
		}
		index[key] = len(groups)
		groups = append(groups, []map[string]any{k})
	}
	return groups
}

// firstRelation returns the relation and alias of the first node of a
// subtree that reads a relation.
func firstRelation(n map[string]any) (rel, alias string) {
	if r, _ := n["Relation Name"].(string); r != "" {
		a, _ := n["Alias"].(string)
		return r, a
	}
	for _, k := range children(n) {
		if r, a := firstRelation(k); r != "" {
			return r, a
		}
	}
	return "", ""
}

// addMasked appends a subtree's lines without relation and index names.
func addMasked(n map[string]any, depth int, out *Shape) {
	*out = append(*out, strings.Repeat("  ", depth)+nodeLine(n, true))
	for _, k := range children(n) {
		addMasked(k, depth+1, out)
	}
}

// addPartitions appends an Append over partitions: one line naming how
// many it reads and, when they are read alike, the first one's top node;
// otherwise the first partition of each group, each with how many it
// stands for.
func addPartitions(n map[string]any, count int, groups [][]map[string]any, depth int, out *Shape) {
	head := strings.Repeat("  ", depth) + nodeLine(n, false) + fmt.Sprintf(" over %d partitions:", count)
	if len(groups) == 1 {
		var first Shape
		addNode(groups[0][0], depth+1, &first)
		*out = append(*out, head+" "+strings.TrimSpace(first[0])+" …")
		for _, l := range first[1:] {
			*out = append(*out, l[2:]) // one level up: under the Append's line
		}
		return
	}
	*out = append(*out, head)
	for _, g := range groups {
		var first Shape
		addNode(g[0], depth+1, &first)
		if len(g) > 1 {
			first[0] += fmt.Sprintf(" … (%d partitions)", len(g))
		}
		*out = append(*out, first...)
	}
}

// nodeLine describes a node as EXPLAIN's text format heads it, without
// estimates: "Parallel Index Scan Backward using items_pkey on items";
// masked, without its index and relation names.
func nodeLine(n map[string]any, masked bool) string {
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
	if ix := str("Index Name"); ix != "" && !masked {
		b.WriteString(" using " + ix)
	}
	for _, key := range []string{"Relation Name", "CTE Name", "Function Name"} {
		if v := str(key); v != "" && !(masked && key == "Relation Name") {
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
