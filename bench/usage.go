package bench

// Usage is what 'pglab bench --help' prints: pgbench's options as pgbench
// 17 lists them, then pglab's additions (the output, the target, the
// environment, the load from several machines).
const Usage = `pglab bench is a pgbench-compatible benchmarking tool for PostgreSQL.

Usage:
  pglab bench [OPTION]... [DBNAME]

Initialization options:
  -i, --initialize         invokes initialization mode
  -I, --init-steps=[dtgGvpf]+ (default "dtgvp")
                           run selected initialization steps
  -F, --fillfactor=NUM     set fill factor
  -n, --no-vacuum          do not run VACUUM during initialization
  -q, --quiet              quiet logging (one message each 5 seconds)
  -s, --scale=NUM          scaling factor
  --foreign-keys           create foreign key constraints between tables
  --index-tablespace=TABLESPACE
                           create indexes in the specified tablespace
  --partition-method=(range|hash)
                           partition pgbench_accounts with this method (default: range)
  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)
  --tablespace=TABLESPACE  create tables in the specified tablespace
  --unlogged-tables        create tables as unlogged tables

Options to select what to run:
  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)
                           (use "-b list" to list available scripts)
  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)
  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches
                           (same as "-b simple-update")
  -S, --select-only        perform SELECT-only transactions
                           (same as "-b select-only")

Benchmarking options:
  -c, --client=NUM         number of concurrent database clients (default: 1)
  -C, --connect            establish new connection for each transaction
  -D, --define=VARNAME=VALUE
                           define variable for use by custom script
  -j, --jobs=NUM           number of threads (default: 1)
  -l, --log                write transaction times to log file
  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late
  -M, --protocol=simple|extended|prepared
                           protocol for submitting queries (default: simple)
  -n, --no-vacuum          do not run VACUUM before tests
  -P, --progress=NUM       show thread progress report every NUM seconds
  -r, --report-per-command report latencies, failures, and retries per command
  -R, --rate=NUM           target rate in transactions per second
  -s, --scale=NUM          report this scale factor in output
  -t, --transactions=NUM   number of transactions each client runs (default: 10)
  -T, --time=NUM           duration of benchmark test in seconds
  -v, --vacuum-all         vacuum all four standard tables before tests
  --aggregate-interval=NUM aggregate data over NUM seconds
  --exit-on-abort          exit when any client is aborted
  --failures-detailed      report the failures grouped by basic types
  --log-prefix=PREFIX      prefix for transaction time log file
                           (default: "pgbench_log")
  --max-tries=NUM          max number of tries to run transaction (default: 1)
  --progress-timestamp     use Unix epoch timestamps for progress
  --random-seed=SEED       set random seed ("time", "rand", integer)
  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%)
  --show-script=NAME       show builtin script code, then exit
  --verbose-errors         print messages of all errors

Common options:
  --debug                  print debugging output
  -d, --dbname=DBNAME      database name to connect to
  -h, --host=HOSTNAME      database server host or socket directory
  -p, --port=PORT          database server port number
  -U, --username=USERNAME  connect as specified database user
  -V, --version            output version information, then exit
  -?, --help               show this help, then exit

pglab additions:
  --json                   write one JSON document with every figure instead of the summary
  --target=NAME|DSN        run against a managed instance from 'pglab pg start', or a DSN
  --force                  with -i: drop tables named pgbench_* even when their columns
                           are not pgbench's (without it, -i refuses to drop them)
  --env=NAME:rtt=D         put a delay proxy adding the round trip D (e.g. 0.5ms) between
                           the clients and the server, as from another host; the round
                           trip achieved is measured first and printed
  --store=PATH|DSN         keep the run in this results store ('pglab runs', 'pglab
                           report', 'pglab serve' show it); with --listen, the merged
                           run and each worker's share

Load from several machines (see 'pglab worker --help'):
  --listen=HOST:PORT       coordinate the run: wait for the workers, share the clients,
                           threads and -R among them, merge their figures
  --expect-workers=N       number of workers (pglab worker --join HOST:PORT)
  --token=T                the workers' secret (default $PGLAB_TOKEN; required unless
                           --listen is a loopback address)
  --join-timeout=DURATION  wait at most so long for the workers to join (default 5m;
                           a bare number is seconds)
  --ready-timeout=DURATION wait at most so long for their clients to connect (default 2m)
  --k8s-job=NAME           print the Kubernetes manifests of such a run instead
                           (with --expect-workers, --image=IMAGE, --k8s-namespace=NS,
                           --k8s-secret=NAME)

After pgbench's summary, pglab prints latency percentiles (p50, p90, p99, p99.9,
max) of successful transactions from an HDR histogram. Plain TCP and Unix-socket
connections run on the fast path (raw sockets, one epoll loop per -j thread);
TLS connections run on a slower fallback path (a goroutine per client).
`
