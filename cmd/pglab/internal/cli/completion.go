package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

// completeFunc completes a flag's value or an argument in a shell.
type completeFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// completions are the value completions of flags, by name, wherever a
// command has the flag: 'pglab completion bash|zsh|fish' scripts ask for
// them.
var completions = map[string]completeFunc{
	"studies":  listOf(func(*cobra.Command) []string { return append([]string{"all"}, study.Names()...) }),
	"versions": listOf(func(cmd *cobra.Command) []string { return versionWords(cmd.Context()) }),
	"target":   words(func(*cobra.Command) []string { return instanceNames() }),
	"param":    paramWords,
	"format": words(func(cmd *cobra.Command) []string {
		if cmd.Name() == "tune" {
			return []string{"conf", "alter", "json"}
		}
		var out []string
		for _, f := range report.Formats {
			out = append(out, string(f))
		}
		return out
	}),
	"log-format": words(func(*cobra.Command) []string { return []string{"csvlog", "jsonlog", "stderr"} }),
	"fail-on":    words(func(*cobra.Command) []string { return []string{"regression"} }),
}

// setCompletions registers the completions of c's flags and arguments,
// and of its children's.
func setCompletions(c *cobra.Command) {
	for name, f := range completions {
		if c.Flags().Lookup(name) != nil {
			c.RegisterFlagCompletionFunc(name, f)
		}
	}
	switch c.CommandPath() {
	case "pglab study":
		c.ValidArgsFunction = firstArg(study.Names)
	case "pglab pg stop":
		c.ValidArgsFunction = words(func(*cobra.Command) []string { return instanceNames() })
	}
	for _, sub := range c.Commands() {
		setCompletions(sub)
	}
}

// words completes from a list of words.
func words(list func(*cobra.Command) []string) completeFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return list(cmd), cobra.ShellCompDirectiveNoFileComp
	}
}

// firstArg completes a command's first argument from a list.
func firstArg(list func() []string) completeFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return list(), cobra.ShellCompDirectiveNoFileComp
	}
}

// listOf completes the last item of a comma-separated list.
func listOf(list func(*cobra.Command) []string) completeFunc {
	return func(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		head := ""
		if i := strings.LastIndex(typed, ","); i >= 0 {
			head = typed[:i+1]
		}
		var out []string
		for _, w := range list(cmd) {
			out = append(out, head+w)
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// paramWords completes --param keys: study.name= for compare (every
// study's parameters), name= for study NAME (that study's).
func paramWords(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	names := study.Names()
	prefix := true
	if cmd.Name() == "study" && len(args) > 0 {
		names, prefix = args[:1], false
	}
	var out []string
	for _, n := range names {
		st, err := study.Get(n)
		if err != nil {
			continue
		}
		for _, p := range st.Info().Params {
			key := p.Name + "="
			if prefix {
				key = n + "." + key
			}
			out = append(out, key+"\t"+p.Doc)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// instanceNames are the names of the instances of 'pglab pg start'.
func instanceNames() []string {
	list, _ := pgserver.ListNamed()
	var out []string
	for _, inst := range list {
		out = append(out, inst.Name())
	}
	return out
}

// versionWords are the major versions pglab works with up to the newest
// found here, and the releases found here.
func versionWords(ctx context.Context) []string {
	if ctx == nil {
		ctx = context.Background()
	}
	found := (&pgserver.Finder{}).All(ctx)
	newest := 18
	for _, b := range found {
		newest = max(newest, b.Version.Major)
	}
	var out []string
	for m := pgserver.MinMajor; m <= newest; m++ {
		out = append(out, fmt.Sprint(m))
	}
	for _, b := range found {
		out = append(out, b.Version.String())
	}
	return out
}
