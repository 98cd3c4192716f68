package observe

import (
	"slices"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testVersions are the major versions every server test runs on: 16, 17
// and 18, plus any others named in PGLAB_TEST_VERSIONS (e.g. 13,14,15).
func testVersions() []string {
	vs := []string{"16", "17", "18"}
	for _, v := range pgtest.Versions() {
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs
}
