// Package dist runs one pgbench workload from several processes, usually
// on several machines: a Coordinator (pglab bench --listen) hands each
// worker (pglab worker --join) a share of the run, starts them together
// behind a barrier, merges their progress intervals and final figures
// exactly (HDR histograms of one configuration, summed counts), and prints
// one pgbench summary for the whole run.
//
// Workers dial out to the coordinator, so SSH-started processes,
// containers and Kubernetes pods all work. The protocol (Protocol) is
// length-prefixed JSON frames over TCP: challenge, hello (the token's
// HMAC of the challenge's nonce, never the token), assign (the share's
// bench.Config, without a password: each worker takes it from its own
// environment, PGPASSWORD, .pgpass or a service file), ready, start,
// intervals, logs, result, stop, bye, and heartbeats both ways so that a
// lost peer is seen within LostAfter.
package dist

import (
	"fmt"

	"github.com/pglab/pglab/bench"
)

// Split divides a run of cfg among n workers: worker i gets a contiguous
// range of the clients (dealt evenly, as pgbench deals clients to
// threads), so that client ids and :client_id are those of one process
// running the whole run; a share of the threads (-j is the total, each
// worker has at least one and at most one per client); the rate in
// proportion to its clients, so that the workers' Poisson schedules
// together are one Poisson stream of the whole rate; every client runs
// -t transactions, so the run's total is c × t as in one process. Only
// worker 0 runs pgbench's vacuum and prints the scale warning.
func Split(cfg bench.Config, n int) ([]bench.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("--expect-workers must be at least 1")
	}
	clients := max(cfg.Clients, 1)
	if clients < n {
		return nil, fmt.Errorf("%d clients (-c) cannot be shared by %d workers: each needs one at least", clients, n)
	}
	threads := min(max(cfg.Threads, 1), clients)
	shares := make([]bench.Config, n)
	var dealtC, dealtT int
	totalThreads := 0
	nc := make([]int, n)
	nt := make([]int, n)
	for i := range shares {
		nc[i] = (clients - dealtC + n - i - 1) / (n - i)
		dealtC += nc[i]
		if threads >= n {
			nt[i] = (threads - dealtT + n - i - 1) / (n - i)
			dealtT += nt[i]
		} else {
			nt[i] = 1
		}
		nt[i] = min(nt[i], nc[i])
		totalThreads += nt[i]
	}
	firstC, firstT := 0, 0
	for i := range shares {
		s := cfg
		s.Scripts = append([]bench.ScriptSpec(nil), cfg.Scripts...)
		s.Defines = append([]bench.Define(nil), cfg.Defines...)
		s.Clients, s.Threads = nc[i], nt[i]
		s.Part = bench.Part{FirstClient: firstC, TotalClients: clients, FirstThread: firstT, TotalThreads: totalThreads}
		if cfg.Rate > 0 {
			s.Rate = cfg.Rate * float64(nc[i]) / float64(clients)
		}
		if i > 0 {
			s.NoVacuum = true
			s.ScaleGiven = false
		}
		firstC += nc[i]
		firstT += nt[i]
		shares[i] = s
	}
	return shares, nil
}

// TotalThreads is the number of threads the shares of Split run together.
func TotalThreads(shares []bench.Config) int {
	n := 0
	for _, s := range shares {
		n += s.Threads
	}
	return n
}
