// Package bench is pglab's pgbench-compatible load engine: the run mode of
// `pglab bench` (pgbench's -c -j -t -T -M -C -R -L -P -r -l --max-tries ...,
// its builtin scripts and script language through package bench/script),
// with pgbench's summary, progress line and log formats, plus latency
// percentiles from HDR histograms and a JSON result. Run is the API: the
// CLI and the studies call it with a Config and get a Result.
// ParseCommandLine turns pgbench's command line into a validated Config
// (an option table with pgbench's error texts); a study builds a Config
// without one. Run is Start (scripts, setup connection, clients connected),
// Go and Wait; a coordinated run's worker (package bench/dist) puts its
// barrier between Start and Go and sends the mergeable Figures and
// Intervals, which Summarize and ProgressPrinter turn into the summary and
// the -P lines of the whole run.
//
// The client path follows pgbench's own model, because that is what makes a
// Go client as cheap per transaction as pgbench: connections are opened and
// authenticated with pgconn (so libpq's conventions hold: PG* variables,
// .pgpass, service files, TLS), then taken over (pgconn's Hijack) and
// driven without the Go runtime's network poller. Each -j thread is a
// goroutine (holding a P and so an OS thread while it runs and waits) that
// runs its clients' state machines
// (pgbench's advanceConnectionState, same states and error handling) and
// waits for their non-blocking sockets in one epoll wait per batch; reads,
// writes and the wait itself are raw system calls, so the scheduler does not
// hand the thread's P around on every wait. When the machine has at least
// as many CPUs as threads, each thread's goroutine is locked to its OS
// thread and the thread pinned to a CPU of its own, and each thread gets
// the connections whose backend runs on its CPU (placement.go: on a machine
// the client shares with the server, cross-CPU wake-ups are most of a
// transaction's kernel time). Unlocked, the goroutines changed OS thread
// after the runtime's preemptions (every 10 ms for a goroutine it sees
// running), so the kernel saw a different waker every few milliseconds.
// Bind/Execute/Sync (and Parse on a prepared statement's first use) are
// encoded into reused per-client
// buffers; a transaction allocates nothing and takes no lock shared between
// threads: each thread keeps its own statistics and HDR histograms, merged
// at every progress tick (handed over on a channel) and at the end.
//
// TLS connections cannot be driven as raw sockets: a thread whose
// connections use TLS runs each client in its own goroutine with blocking
// reads and writes on the net.Conn pgconn negotiated, under the thread's
// lock (slower, but the same state machine and figures). Config.Portable
// forces that path.
package bench
