package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestHTMLFragment checks that the fragment is the page's <main> content,
// byte for byte, and that the page's style sheet is HTMLStyle.
func TestHTMLFragment(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	var page, frag bytes.Buffer
	if err := WriteHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLFragment(&frag, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<main>\n"+frag.String()+"</main>") {
		t.Error("the fragment is not the page's <main> content")
	}
	for _, tag := range []string{"<html", "<head", "<main", "<style"} {
		if strings.Contains(frag.String(), tag) {
			t.Errorf("the fragment has %s", tag)
		}
	}
	if !strings.Contains(page.String(), "<style>\n"+HTMLStyle()+"</style>") {
		t.Error("the page's style sheet is not HTMLStyle()")
	}
}
