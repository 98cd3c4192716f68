package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// deprecatedKey marks a flag as the old spelling of another: its
// annotation holds the new name.
const deprecatedKey = "pglab-deprecated"

// alias adds old as a hidden spelling of flag name of f, kept for the
// command lines written before name: it sets the same value, and using it
// prints a one-line note (noteDeprecated).
func alias(f *pflag.FlagSet, old, name string) {
	fl := f.Lookup(name)
	f.Var(fl.Value, old, fl.Usage)
	a := f.Lookup(old)
	a.Hidden, a.NoOptDefVal = true, fl.NoOptDefVal
	a.Annotations = map[string][]string{deprecatedKey: {name}}
}

// noteDeprecated prints a line for each old spelling of a flag cmd was
// given.
func noteDeprecated(w io.Writer, cmd *cobra.Command) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if n := f.Annotations[deprecatedKey]; len(n) > 0 {
			fmt.Fprintf(w, "pglab: --%s is deprecated: use --%s\n", f.Name, n[0])
		}
	})
}

// flagGiven reports whether flag name of f was given, under its name or
// an old spelling.
func flagGiven(f *pflag.FlagSet, name string) bool {
	given := false
	f.Visit(func(fl *pflag.Flag) {
		if n := fl.Annotations[deprecatedKey]; fl.Name == name || len(n) > 0 && n[0] == name {
			given = true
		}
	})
	return given
}

// parseTimeout reads a timeout: a Go duration (90s, 5m) or, as the
// options took before, a whole number of seconds; at least a second.
func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if n, nerr := strconv.Atoi(s); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err == nil && d < time.Second {
		err = fmt.Errorf("%s: less than a second", s)
	}
	return d, err
}

// timeoutValue is a flag of parseTimeout's values.
type timeoutValue struct{ d *time.Duration }

func (v timeoutValue) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v timeoutValue) Set(s string) (err error) {
	*v.d, err = parseTimeout(s)
	return err
}

func (v timeoutValue) Type() string { return "duration" }

// registerConnFlags adds psql's -h, -p, -U and -d to a command that
// connects: the parts of its --target's connection they override (or,
// with no --target, of the PG* variables'). Help is then -? (or --help),
// as psql's.
func registerConnFlags(cmd *cobra.Command, p *pgserver.ConnParts) {
	f := cmd.Flags()
	f.StringVarP(&p.Host, "host", "h", "", "the server's host or socket directory, as psql's -h (overrides the --target DSN's)")
	f.StringVarP(&p.Port, "port", "p", "", "the server's port, as psql's -p (overrides the --target DSN's)")
	f.StringVarP(&p.User, "username", "U", "", "the user to connect as, as psql's -U (overrides the --target DSN's)")
	f.StringVarP(&p.DBName, "dbname", "d", "", "the database to connect to, as psql's -d (overrides the --target DSN's)")
	f.BoolP("help", "?", false, "help for "+cmd.Name())
}
