package initdata

import (
	"context"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// BenchmarkGenerate measures the row generator alone: the COPY text of
// the accounts rows at scale 10 (one million rows), in 64 kB reads as
// pgconn makes them.
func BenchmarkGenerate(b *testing.B) {
	const rows = 10 * AccountsPerScale
	buf := make([]byte, 65531)
	var bytes int64
	for b.Loop() {
		src := newRowSource(Accounts, 0, rows, nil)
		for {
			n, err := src.Read(buf)
			bytes += int64(n)
			if err == io.EOF {
				break
			}
		}
	}
	b.SetBytes(bytes / int64(b.N))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*rows), "ns/row")
}

// BenchmarkInit runs the whole initialization at scale 10 on the shared
// test server, with each load method (compare the two; pgbench itself is
// compared in scripts and the report of issue 3).
func BenchmarkInit(b *testing.B) {
	inst := pgtest.Shared(b, "")
	cfg, err := pgconn.ParseConfig(pgtest.CreateDB(b, inst))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name   string
		method LoadMethod
	}{{"fast", MethodFast}, {"pgbench", MethodPgbench}} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), cfg, Options{Scale: 10, Method: m.method}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
