package study

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Catalogue returns the registered studies, a line each: the name, the
// title and the source, as pglab study --help lists them.
func Catalogue() string {
	var b strings.Builder
	for _, n := range Names() {
		st, _ := Get(n)
		info := st.Info()
		fmt.Fprintf(&b, "  %-12s %s (%s)\n", n, info.Title, info.Source)
	}
	return b.String()
}

// WriteParams prints every registered study with its parameters (kind,
// default, --quick value, description), as pglab study list shows them.
func WriteParams(w io.Writer) error {
	for _, n := range Names() {
		st, _ := Get(n)
		info := st.Info()
		fmt.Fprintf(w, "%s — %s (%s)\n", n, info.Title, info.Source)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, p := range info.Params {
			fmt.Fprintf(tw, "  --param %s=\t%s\t(default %s, quick %s)\t%s\n", p.Name, p.Kind, p.Default, cmp.Or(p.Quick, p.Default), p.Doc)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("write the studies' parameters: %w", err)
		}
		fmt.Fprintln(w)
	}
	return nil
}
