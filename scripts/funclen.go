//go:build ignore

// Funclen lists the Go functions of the module, outside _test.go files,
// that are longer than a limit (150 lines by default), longest first, and
// exits 1 when there is any. The engine's client state machine
// (bench/client.go) and the script language (bench/script/) are left out.
//
//	go run scripts/funclen.go [-max 150] [DIR]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// exempt are the paths (slash-separated, relative to the root) whose
// functions may be longer.
var exempt = []string{"bench/client.go", "bench/script/"}

type long struct {
	where string
	name  string
	lines int
}

func main() {
	max := flag.Int("max", 150, "the longest a function may be, in lines")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	var found []long
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || isExempt(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse: %w", err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > *max {
				found = append(found, long{where: fmt.Sprintf("%s:%d", rel, fset.Position(fn.Pos()).Line), name: funcName(fn), lines: n})
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].lines > found[j].lines })
	for _, l := range found {
		fmt.Printf("%s: %s is %d lines (limit %d)\n", l.where, l.name, l.lines, *max)
	}
	if len(found) > 0 {
		os.Exit(1)
	}
}

func isExempt(rel string) bool {
	for _, e := range exempt {
		if rel == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(rel, e)) {
			return true
		}
	}
	return false
}

// funcName is "Name" or "(Recv).Name".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		return fmt.Sprintf("(*%s).%s", typeName(s.X), fn.Name.Name)
	}
	return fmt.Sprintf("(%s).%s", typeName(t), fn.Name.Name)
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	}
	return "?"
}
