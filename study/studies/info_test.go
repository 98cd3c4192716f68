package studies

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// literals returns every string literal of the non-test Go files of the
// directories, outside presentations: the names the code can record or
// store.
func literals(t *testing.T, dirs ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok && isPresentation(cl.Type) {
					return false // what a presentation names is not what code records
				}
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						out[s] = true
					}
				}
				return true
			})
		}
	}
	return out
}

// isPresentation reports whether a composite literal's type is
// results.Presentation.
func isPresentation(typ ast.Expr) bool {
	sel, ok := typ.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "results" && sel.Sel.Name == "Presentation"
}

// TestRegisteredInfo: every registered study describes itself so that the
// rest of pglab needs nothing else: under its registered name, with a
// version, parameters whose defaults parse, a presentation that holds
// together and names only metrics that pglab's code records (the study's
// own, the load runs' and the observers'), label columns its cases have,
// and text artefacts that some code stores. A study in --studies all plans
// with its default and its --quick parameters.
func TestRegisteredInfo(t *testing.T) {
	recorded := literals(t, ".", "..", "../../observe")
	stored := literals(t, ".", "..", "../../results")
	names := study.Names()
	if len(names) < 8 {
		t.Fatalf("registered studies: %v", names)
	}
	inAll := 0
	for _, name := range names {
		st, err := study.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		info := st.Info()
		if info.Name != name || info.Title == "" || info.Source == "" {
			t.Errorf("%s: name %q, title %q, source %q", name, info.Name, info.Title, info.Source)
		}
		if err := info.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		p := info.Presentation
		if p == nil || len(p.Primary) == 0 && name != "copy-errors" {
			t.Errorf("%s: no headline metrics", name)
			continue
		}
		for _, m := range p.Metrics() {
			if !recorded[m] {
				t.Errorf("%s: its presentation names %q, which no code of study or observe records", name, m)
			}
		}
		for _, tv := range p.Texts {
			if !stored[tv.Name] {
				t.Errorf("%s: its presentation shows the text %q, which no code stores", name, tv.Name)
			}
		}
		for _, quick := range []bool{false, true} {
			pv, err := study.ParseParams(name, info.Params, nil, quick)
			if err != nil {
				t.Errorf("%s: its default parameters (quick %v): %v", name, quick, err)
				continue
			}
			plan, err := st.Plan(pv)
			if err != nil {
				if info.InAll {
					t.Errorf("%s is in --studies all but does not plan with its defaults (quick %v): %v", name, quick, err)
				}
				continue
			}
			if plan.Recorded == 0 {
				checkLabels(t, name, p, plan)
			}
		}
		if info.InAll {
			inAll++
		}
	}
	if inAll == 0 || inAll == len(names) {
		t.Errorf("%d of %d studies are in --studies all", inAll, len(names))
	}
}

// checkLabels checks that the label columns and line charts of a
// presentation name labels of the plan's cases.
func checkLabels(t *testing.T, name string, p *results.Presentation, plan study.Plan) {
	t.Helper()
	have := map[string]bool{}
	for _, c := range plan.Cases {
		for k := range c.Labels {
			have[k] = true
		}
	}
	for _, l := range p.Labels {
		if !have[l.Key] {
			t.Errorf("%s: label column %q is no label of its cases", name, l.Key)
		}
	}
	for _, c := range p.Charts {
		if c.Kind == results.Lines && !have[c.X] {
			t.Errorf("%s: line chart %q over %q, no label of its cases", name, c.Title, c.X)
		}
	}
}

// TestStudiesInAll: the studies that compare servers join --studies all,
// tune (configurations of one server) and replay (the user's workload) do
// not.
func TestStudiesInAll(t *testing.T) {
	for name, want := range map[string]bool{
		"tps": true, "vacuum": true, "copy-out": true, "copy-errors": true, "seqscan": true, "commit": true,
		"tune": false, "replay": false,
	} {
		st, err := study.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Info().InAll; got != want {
			t.Errorf("%s: InAll %v, want %v", name, got, want)
		}
	}
}

// TestStored: what a run stores of a study carries its version and
// presentation, and names its cases.
func TestStored(t *testing.T) {
	st, _ := study.Get("vacuum")
	info := st.Info()
	pv, err := study.ParseParams("vacuum", info.Params, map[string]string{"cases": "95:index,5:noindex"}, true)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := st.Plan(pv)
	if err != nil {
		t.Fatal(err)
	}
	si := info.Stored(pv, plan, 4)
	if si.Name != "vacuum" || si.Version != info.Version || si.Reps != 4 || si.Params["cases"] != "95:index,5:noindex" || len(si.Cases) != 2 || si.Cases[1].Labels["index"] != "no" {
		t.Errorf("stored: %+v", si)
	}
	data, err := json.Marshal(si)
	if err != nil {
		t.Fatal(err)
	}
	var back results.StudyInfo
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Presentation, info.Presentation) || back.Version != info.Version {
		t.Errorf("the stored presentation:\n got %+v\nwant %+v", back.Presentation, info.Presentation)
	}
}
