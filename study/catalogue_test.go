package study

import (
	"strings"
	"testing"
)

// catalogueStudy is a registered study with parameters, for the listings.
type catalogueStudy struct{ *countingStudy }

func (catalogueStudy) Info() Info {
	return Info{Name: "zz-catalogue", Title: "lists its parameters", Source: "a test", Version: 1, Params: []Param{
		{Name: "rows", Kind: KindInt, Default: "1000", Quick: "10", Doc: "rows to load"},
		{Name: "mode", Kind: KindString, Default: "fast", Doc: "how"},
	}}
}

// TestCatalogue: a registered study's line in pglab study --help, and its
// parameters in pglab study list (no --quick value: the default's).
func TestCatalogue(t *testing.T) {
	Register("zz-catalogue", func() Study { return catalogueStudy{&countingStudy{}} })
	if got := Catalogue(); !strings.Contains(got, "  zz-catalogue lists its parameters (a test)\n") {
		t.Errorf("Catalogue lacks the study:\n%s", got)
	}
	var b strings.Builder
	if err := WriteParams(&b); err != nil {
		t.Fatal(err)
	}
	want := "zz-catalogue — lists its parameters (a test)\n" +
		"  --param rows=  integer  (default 1000, quick 10)    rows to load\n" +
		"  --param mode=  text     (default fast, quick fast)  how\n\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("WriteParams:\n got %q\nwant within it %q", b.String(), want)
	}
}
