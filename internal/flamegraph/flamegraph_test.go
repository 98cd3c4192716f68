package flamegraph

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestDiff: the merged tree keeps both sides' weights, a vanished stack
// is drawn (striped, blue), a grown one is red, and the SVG is well
// formed.
func TestDiff(t *testing.T) {
	base := Stacks{"postgres;CopyOneRowTo;CopyAttributeOutText": 40, "postgres;CopyOneRowTo;pq_putmessage": 10, "postgres;gone": 5}
	target := Stacks{"postgres;CopyOneRowTo;CopyAttributeOutText": 18, "postgres;CopyOneRowTo;pq_putmessage": 10, "postgres;new": 7}
	root := merge(base, target)
	pg := root.index["postgres"]
	if root.base != 55 || root.tg != 35 || pg.index["CopyOneRowTo"].base != 50 || pg.index["CopyOneRowTo"].tg != 28 {
		t.Fatalf("merged weights: root %v/%v", root.base, root.tg)
	}
	svg := Diff(base, target, Options{Title: "COPY TO: CPU per row", Unit: "ms"})
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	for _, want := range []string{"gone: 5.00 → 0.00 ms (-100 %)", "new: 0.00 → 7.00 ms", "CopyAttributeOutText: 40.0 → 18.0 ms (-55 %)", `fill="url(#only)"`, "baseline 55.0 ms, target 35.0 ms"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if c := colour(&node{base: 10, tg: 20}); !strings.HasPrefix(c, "rgb(230,") {
		t.Errorf("a frame that grew is %s, want red", c)
	}
	if c := colour(&node{base: 20, tg: 10}); !strings.HasSuffix(c, ",235)") {
		t.Errorf("a frame that shrank is %s, want blue", c)
	}
}
