// Command pglab is a PostgreSQL performance lab in one binary: managed
// servers of any version, a pgbench-compatible load generator, studies that
// reproduce hand-made benchmarks, and reports that say which differences are
// real. See README.md and `pglab --help`.
package main

import (
	"context"
	"os"

	"github.com/pglab/pglab/cmd/pglab/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
