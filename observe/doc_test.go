package observe

import (
	"os"
	"strings"
	"testing"
)

// TestDocListsMetrics keeps doc.go's lists in step with the code.
func TestDocListsMetrics(t *testing.T) {
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for name := range units {
		if !strings.Contains(doc, name) {
			t.Errorf("counter %s not in doc.go", name)
		}
	}
	for name := range vacuumUnits {
		if !strings.Contains(doc, name) {
			t.Errorf("VACUUM metric %s not in doc.go", name)
		}
	}
	for _, m := range (&ServerCPU{PID: 1, Schedstat: true, machine: true}).Metrics() {
		if !strings.Contains(doc, m.Name) {
			t.Errorf("server CPU metric %s not in doc.go", m.Name)
		}
	}
	for _, m := range (&OSSeries{Disks: []string{"x"}, Samples: []OSSample{{}}}).Metrics() {
		if !strings.Contains(doc, strings.TrimSuffix(m.Name, "_max")) {
			t.Errorf("OS metric %s not in doc.go", m.Name)
		}
	}
}
