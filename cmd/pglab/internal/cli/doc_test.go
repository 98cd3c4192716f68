package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pglab/pglab/bench"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDoc, in the spirit of benchstat's: every pglab command line that
// README.md shows (in its shell blocks, and as inline code that is a
// command rather than a synopsis) and every command's examples go through
// pglab's real flag parsers — cobra's for the commands, the pgbench
// parser for pglab bench — without running anything. A flag renamed or
// removed fails here before a reader types it.
func TestDoc(t *testing.T) {
	var lines []docLine
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, readmeCommands(string(readme))...)
	workflows, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "docs", "ci", "*.yml"))
	if len(workflows) == 0 {
		t.Fatal("no example workflow in docs/ci")
	}
	for _, path := range workflows {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, workflowCommands(filepath.Base(path), string(data))...)
	}
	root := newRootCmd(&Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	walkCommands(root, func(c *cobra.Command) {
		for _, l := range strings.Split(c.Example, "\n") {
			if l = strings.TrimSpace(firstCommand(l)); strings.HasPrefix(l, "pglab ") {
				lines = append(lines, docLine{where: c.CommandPath() + " --help", text: l})
			}
		}
	})
	t.Logf("%d command lines", len(lines))
	if len(lines) < 40 {
		t.Fatalf("only %d command lines found: the extraction is broken", len(lines))
	}
	for _, l := range lines {
		args, err := shellWords(l.text)
		if err != nil {
			t.Errorf("%s: %q: %v", l.where, l.text, err)
			continue
		}
		if err := parseOnly(args[1:], l.mention); err != nil {
			t.Errorf("%s: %q does not parse: %v", l.where, l.text, err)
		}
	}
}

// docLine is a command line of the documentation and where it stands. A
// mention is inline code in prose that names a command or a flag ("the
// `pglab study --json` document"): its flags must exist, but it need not
// be complete.
type docLine struct {
	where, text string
	mention     bool
}

var (
	fenceRE  = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	inlineRE = regexp.MustCompile("`(pglab [^`]+)`")
	// synopsisRE marks inline code that describes a command rather than
	// showing one: optional parts, alternatives, ellipses.
	synopsisRE = regexp.MustCompile(`[\[\]|…(]|\.\.\.`)
	// leadRE is what may stand before pglab on a shell line: "go run
	// ./cmd/pglab" for pglab, environment variables.
	leadRE = regexp.MustCompile(`^((?:[A-Z_]+=\S*\s+)*)(?:go run \./cmd/pglab|pglab)\s`)
	// continuedRE joins a shell line continued with a backslash.
	continuedRE = regexp.MustCompile(`\\\n\s*`)
	// placeholderRE is what a reader fills in ("--version <major>"): it
	// parses as the value 1.
	placeholderRE = regexp.MustCompile(`<[a-z][a-z ]*>`)
)

// readmeCommands returns the pglab command lines of a Markdown text: the
// lines of its code blocks that run pglab (continued lines joined), then
// inline code that is a whole command line.
func readmeCommands(md string) []docLine {
	var out []docLine
	for _, block := range fenceRE.FindAllStringSubmatch(md, -1) {
		text := placeholderRE.ReplaceAllString(continuedRE.ReplaceAllString(block[1], " "), "1")
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(firstCommand(l))
			if m := leadRE.FindStringSubmatch(l); m != nil {
				out = append(out, docLine{where: "README.md", text: "pglab " + strings.TrimSpace(l[len(m[0]):])})
			}
		}
	}
	prose := fenceRE.ReplaceAllString(md, "")
	for _, m := range inlineRE.FindAllStringSubmatch(prose, -1) {
		text := strings.Join(strings.Fields(m[1]), " ")
		if !synopsisRE.MatchString(text) {
			out = append(out, docLine{where: "README.md", text: text, mention: true})
		}
	}
	return out
}

// workflowCommands returns the pglab command lines of a CI workflow file:
// its lines that run pglab, in run blocks or in comments (continued lines
// joined).
func workflowCommands(name, text string) []docLine {
	var out []docLine
	text = regexp.MustCompile(`\\\n[\s#]*`).ReplaceAllString(text, " ")
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(firstCommand(strings.TrimLeft(strings.TrimSpace(l), "# ")))
		if m := leadRE.FindStringSubmatch(l); m != nil && !strings.HasSuffix(l, "@latest") {
			out = append(out, docLine{where: name, text: "pglab " + strings.TrimSpace(l[len(m[0]):])})
		}
	}
	return out
}

// firstCommand keeps the first command of a shell line: it drops a
// comment (a # after a blank) and what follows an unquoted &, | or ;.
func firstCommand(l string) string {
	var quote rune
	for i, r := range l {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'), r == '&', r == '|', r == ';':
			return l[:i]
		}
	}
	return l
}

// shellWords splits a command line as a shell does for simple words and
// quotes; what a shell would expand ($T, $(…)) is kept as it is.
func shellWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	word := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, word = r, true
		case r == ' ' || r == '\t':
			if word {
				out = append(out, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteRune(r)
			word = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if word {
		out = append(out, cur.String())
	}
	return out, nil
}

// parseOnly parses a pglab command line (without "pglab") as pglab would,
// and checks its positional arguments, without running the command. Of a
// mention only the flags are checked, and a flag named without its value
// is taken as named.
func parseOnly(args []string, mention bool) error {
	root := newRootCmd(&Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd.Name() == "bench" {
		var f benchFlags
		var c coordFlags
		_, err := bench.ParseCommandLine(rest, bench.ParseEnv{Stdin: strings.NewReader(""), Stderr: io.Discard,
			Extra:         append(f.extra(), c.coordOptions()...),
			ResolveTarget: func(db string) (string, string, error) { return "", db, nil }})
		return err
	}
	cmd.InitDefaultHelpFlag()
	err = cmd.ParseFlags(rest)
	if mention && err != nil && strings.HasPrefix(err.Error(), "flag needs an argument") {
		err = cmd.ParseFlags(append(rest, "VALUE"))
	}
	if err != nil && !errors.Is(err, pflag.ErrHelp) {
		return err
	}
	var old []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if n := f.Annotations[deprecatedKey]; len(n) > 0 {
			old = append(old, "--"+f.Name+" (now --"+n[0]+")")
		}
	})
	if len(old) > 0 {
		return errors.New("an old spelling: " + strings.Join(old, ", "))
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	if mention {
		return nil
	}
	if !cmd.Runnable() {
		return errors.New(cmd.CommandPath() + " is not a command that runs")
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// walkCommands calls f for c and every command below it.
func walkCommands(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, f)
	}
}

// TestDocCatchesABadLine checks that the test above would fail: a flag
// that does not exist, a missing argument, an unknown command.
func TestDocCatchesABadLine(t *testing.T) {
	for _, l := range []string{
		"pglab compare --versions 16,17 --no-such-flag",
		"pglab study vacuum extra --versions 17",
		"pglab nosuch",
		"pglab bench --no-such-flag mydb",
		"pglab tune --memory",
	} {
		args, _ := shellWords(l)
		if err := parseOnly(args[1:], false); err == nil {
			t.Errorf("%q parses", l)
		}
	}
	if err := parseOnly([]string{"study", "--no-such-flag"}, true); err == nil {
		t.Errorf("a mention of a flag that does not exist parses")
	}
	got := readmeCommands("x `pglab runs` and `pglab report [RUN…]`\n```sh\nPGPASSWORD=x pglab worker --join h:1 \\\n  --token \"$T\"  # a comment\ngo run ./cmd/pglab version\n```\n")
	var texts []string
	for _, l := range got {
		texts = append(texts, strings.Join(strings.Fields(l.text), " "))
	}
	if strings.Join(texts, "; ") != `pglab worker --join h:1 --token "$T"; pglab version; pglab runs` {
		t.Errorf("extracted %q", texts)
	}
}
