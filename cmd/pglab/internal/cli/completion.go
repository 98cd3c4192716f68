package cli

import (
	"context"
	"strings"

	"github.com/pglab/pglab/lab"
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
	"versions": listOf(func(cmd *cobra.Command) []string { return (&pgserver.Finder{}).VersionWords(context.Background()) }),
	"target":   words(func(*cobra.Command) []string { return pgserver.NamedNames() }),
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
		c.ValidArgsFunction = words(func(*cobra.Command) []string { return pgserver.NamedNames() })
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
	keys := lab.ParamKeys(nil, true)
	if cmd.Name() == "study" && len(args) > 0 {
		keys = lab.ParamKeys(args[:1], false)
	}
	return keys, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
