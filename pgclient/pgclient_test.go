package pgclient

import (
	"slices"
	"testing"
)

// TestDependsOf reads apt-cache depends' output: the first of each group of
// alternatives, no virtual packages, no recommendations.
func TestDependsOf(t *testing.T) {
	out := []byte(`postgresql-client-17
  Depends: libpq5
 |Depends: libzstd1
  Depends: libzstd-alt
  Depends: <perl:any>
    perl
  PreDepends: libc6
  Recommends: less
`)
	got := dependsOf(out)
	if want := []string{"libpq5", "libzstd1", "libc6"}; !slices.Equal(got, want) {
		t.Errorf("dependsOf = %v, want %v", got, want)
	}
}

// TestFetchRefusesOtherVersions: only the versions Debian ships are
// fetched, with a message that says what to do instead.
func TestFetchRefusesOtherVersions(t *testing.T) {
	if _, err := Fetch(t.Context(), 15, nil); err == nil || err.Error() != "pglab fetches the client programs of PostgreSQL 17 and 18 only (Debian's packages), not 15's: 17's pg_dump dumps servers of 13 to 17" {
		t.Errorf("Fetch(15): %v", err)
	}
}
