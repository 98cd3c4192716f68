package dataset

import (
	"strings"
	"testing"
	"time"
)

// TestWriteList: the cache's entries as pglab cache list shows them,
// complete or not, in use or not; and an empty cache.
func TestWriteList(t *testing.T) {
	built := time.Date(2026, 12, 7, 3, 10, 0, 0, time.Local)
	list := []Info{
		{ID: "5379aa20df47f640e1c4", Bytes: 55 << 20, Created: built, LastUsed: built.Add(time.Hour), Complete: true,
			Key: Key{Version: "17.10", Initdb: []string{"checksums=off", "locale=C"}, Dataset: "vacuum-table", Params: []string{"rows=300000", "index=no"}}},
		{ID: "0dafdfb8b0707deb1064", Bytes: 1 << 10, InUse: true},
	}
	var b strings.Builder
	if err := WriteList(&b, "/cache/datasets", list, 40<<30); err != nil {
		t.Fatal(err)
	}
	want := "Datasets (/cache/datasets; limit 40 GB):\n" +
		"ID                    DATASET                            POSTGRESQL  INITDB                  SIZE   BUILT             LAST USED         STATE\n" +
		"5379aa20df47f640e1c4  vacuum-table rows=300000 index=no  17.10       checksums=off locale=C  55 MB  2026-12-07 03:10  2026-12-07 04:10  complete\n" +
		"0dafdfb8b0707deb1064  ?                                  ?                                   1 kB   –                 –                 incomplete (never used), in use\n" +
		"2 datasets, 55 MB\n"
	if b.String() != want {
		t.Errorf("WriteList:\n got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	if err := WriteList(&b, "/cache/datasets", nil, 0); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "Datasets (/cache/datasets; no limit):\n") || !strings.Contains(got, "\n(none) ") || !strings.HasSuffix(got, "\n0 datasets, 0 bytes\n") {
		t.Errorf("WriteList of an empty cache:\n%s", got)
	}
}
