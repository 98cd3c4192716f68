// Package flamegraph draws a differential flame graph of two profiles as
// an SVG: folded stacks ("root;caller;callee weight") of a baseline and a
// target, each already put on one scale (milliseconds of CPU per
// operation, say), merged into one tree. A frame's width is the larger of
// its two weights, so that a stack that vanished on the target is still
// there to see; its colour says how it changed: red grew, blue shrank,
// the deeper the more, grey did not move; a frame that only one side has
// is striped. Brendan Gregg's differential flame graphs colour the
// target's shape; CPython's --diff-flamegraph keeps an "elided" view of
// what vanished, which the width of the larger side gives here in one
// picture.
package flamegraph

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// Stacks is a folded profile: a stack ("root;…;leaf") and its weight.
type Stacks map[string]float64

// Options say how a graph is drawn.
type Options struct {
	// Title heads the graph; Unit names the weights ("ms").
	Title, Unit string
	// Width is the picture's width in pixels (1000 when 0).
	Width int
	// MinShare is the smallest share of the root a frame needs to be
	// drawn (0.002 when 0): thinner ones merge into their parent.
	MinShare float64
}

// node is a frame of the merged tree.
type node struct {
	name     string
	base, tg float64
	children []*node
	index    map[string]*node
}

// child returns the child frame of n named name, made when missing.
func (n *node) child(name string) *node {
	if c, ok := n.index[name]; ok {
		return c
	}
	c := &node{name: name, index: map[string]*node{}}
	n.index[name] = c
	n.children = append(n.children, c)
	return c
}

// merge builds the tree of both profiles.
func merge(base, target Stacks) *node {
	root := &node{name: "all", index: map[string]*node{}}
	add := func(s Stacks, tg bool) {
		for stack, w := range s {
			if w <= 0 {
				continue
			}
			n := root
			if tg {
				n.tg += w
			} else {
				n.base += w
			}
			for _, f := range strings.Split(stack, ";") {
				n = n.child(f)
				if tg {
					n.tg += w
				} else {
					n.base += w
				}
			}
		}
	}
	add(base, false)
	add(target, true)
	return root
}

// frameHeight is a frame's height in pixels.
const frameHeight = 17

// Diff returns the SVG of the differential flame graph of base and
// target.
func Diff(base, target Stacks, o Options) string {
	if o.Width == 0 {
		o.Width = 1000
	}
	if o.MinShare == 0 {
		o.MinShare = 0.002
	}
	root := merge(base, target)
	total := math.Max(root.base, root.tg)
	var b strings.Builder
	depth := maxDepth(root, total, o.MinShare)
	height := (depth+1)*frameHeight + 40
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`,
		o.Width, height, o.Width, height)
	b.WriteString(`<defs><pattern id="only" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#fff" fill-opacity="0.45"/></pattern></defs>`)
	fmt.Fprintf(&b, `<text x="4" y="14" font-size="13">%s</text>`, html.EscapeString(o.Title))
	fmt.Fprintf(&b, `<text x="4" y="30" fill="#555">width: the larger side · red: grew · blue: shrank · striped: one side only · %s</text>`,
		html.EscapeString(totalText(root, o.Unit)))
	if total > 0 {
		draw(&b, root, 0, float64(o.Width), height-frameHeight-2, total, o)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// totalText says the two sides' totals.
func totalText(root *node, unit string) string {
	return fmt.Sprintf("baseline %s %s, target %s %s", formatWeight(root.base), unit, formatWeight(root.tg), unit)
}

// maxDepth returns the deepest frame wide enough to draw.
func maxDepth(n *node, total, minShare float64) int {
	d := 0
	for _, c := range n.children {
		if math.Max(c.base, c.tg)/total >= minShare {
			d = max(d, 1+maxDepth(c, total, minShare))
		}
	}
	return d
}

// draw draws n at x with width w on the line at y, then its children
// above it, widest first.
func draw(b *strings.Builder, n *node, x, w float64, y int, total float64, o Options) {
	fmt.Fprintf(b, `<g><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" stroke="#fff" stroke-width="0.5"/>`,
		html.EscapeString(frameTitle(n, o.Unit)), x, y, math.Max(w, 0.5), frameHeight-1, colour(n))
	if n.base == 0 || n.tg == 0 {
		fmt.Fprintf(b, `<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="url(#only)"/>`, x, y, math.Max(w, 0.5), frameHeight-1)
	}
	if label := fit(n.name, w); label != "" {
		fmt.Fprintf(b, `<text x="%.2f" y="%d">%s</text>`, x+3, y+12, html.EscapeString(label))
	}
	b.WriteString(`</g>`)
	kids := slices.Clone(n.children)
	slices.SortFunc(kids, func(a, c *node) int {
		return cmpFloat(math.Max(c.base, c.tg), math.Max(a.base, a.tg))
	})
	scale := w / math.Max(n.base, n.tg)
	cx := x
	for _, c := range kids {
		cw := math.Max(c.base, c.tg) * scale
		if math.Max(c.base, c.tg)/total < o.MinShare {
			continue
		}
		draw(b, c, cx, cw, y-frameHeight, total, o)
		cx += cw
	}
}

// cmpFloat orders floats ascending.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// colour returns a frame's fill: red when its weight grew, blue when it
// shrank, by how much of the larger side; grey when it did not move.
func colour(n *node) string {
	big := math.Max(n.base, n.tg)
	if big == 0 {
		return "#ddd"
	}
	d := (n.tg - n.base) / big // −1 … 1
	a := math.Min(1, math.Abs(d)*1.5)
	switch {
	case math.Abs(d) < 0.02:
		return "#d9d9d9"
	case d > 0:
		return fmt.Sprintf("rgb(%d,%d,%d)", 230, int(210-150*a), int(200-170*a))
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", int(200-170*a), int(215-120*a), 235)
}

// frameTitle is a frame's hover text: its name, both sides and the
// change.
func frameTitle(n *node, unit string) string {
	s := fmt.Sprintf("%s: %s → %s %s", n.name, formatWeight(n.base), formatWeight(n.tg), unit)
	if n.base > 0 {
		s += fmt.Sprintf(" (%+.0f %%)", 100*(n.tg-n.base)/n.base)
	}
	return s
}

// formatWeight formats a weight to three significant digits.
func formatWeight(w float64) string {
	switch a := math.Abs(w); {
	case a >= 100:
		return fmt.Sprintf("%.0f", w)
	case a >= 10:
		return fmt.Sprintf("%.1f", w)
	}
	return fmt.Sprintf("%.2f", w)
}

// fit returns the label that fits a frame w pixels wide (about 6.5
// pixels a character), cut with "…", or "" when none does.
func fit(name string, w float64) string {
	chars := int((w - 6) / 6.5)
	switch {
	case chars < 3:
		return ""
	case len([]rune(name)) <= chars:
		return name
	}
	return string([]rune(name)[:chars-1]) + "…"
}
