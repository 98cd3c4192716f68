// Package observe measures what happens around a measured step of a
// study: the server's facts and cumulative counters (version-aware), the
// report of VACUUM VERBOSE, the machine's CPU and disk (from /proc), the
// CPU of a local server's processes and of everything else on the
// machine, what the server's sessions wait on, and the bottlenecks these
// show.
//
// # Around a step
//
//	info, _ := observe.Server(ctx, conn)            // version, checksums, settings
//	os := observe.StartOS(ctx, dataDir, 0)          // CPU and the data disk
//	waits, _ := observe.StartWaits(ctx, dsn, 0)     // wait events
//	before, _ := observe.Snapshot(ctx, conn)
//	cpu := observe.StartServerCPU(dataDir)          // the server's processes' CPU
//	… the step, on worker connections …
//	used, _ := cpu.Stop()
//	observe.Flush(ctx, worker)                      // each worker connection
//	after, _ := observe.Snapshot(ctx, conn)
//	series, _ := os.Stop()
//	profile, _ := waits.Stop()
//	metrics := observe.Diff(before, after)          // []Metric
//	metrics = append(metrics, series.Metrics()...)
//	metrics = append(metrics, used.Metrics()...)
//	metrics = append(metrics, profile.Metrics(5)...)
//	notes := append(observe.OSNotes(series, "scan"), observe.WaitNotes(profile)...)
//
// A Metric is {Name, Value, Unit}; names are stable across versions, and a
// figure a version (or a setting) cannot give is absent, never zero.
//
// # Server facts
//
// Server returns version(), server_version_num, data_checksums, block_size
// and the settings not at their built-in default (pg_settings rows whose
// source is not "default"/"override" or whose value differs from
// boot_val). Each Setting keeps name, setting, unit, source, context,
// boot_val and source file; Boilerplate marks values nobody chose
// (derived at start-up, connection start-up parameters, initdb's locale
// and platform lines, lines restating the default). Changed() leaves them
// out; Settings keeps them.
//
// # Counters: Snapshot and Diff
//
// Snapshot reads, in one transaction after pg_stat_clear_snapshot(), what
// the server has; which view and column is found by catalog lookup
// (to_regclass, pg_attribute) and server_version_num. Diff subtracts two
// snapshots. The metrics and where they come from:
//
//	metric                          unit   source (versions)
//	xact_commit, xact_rollback,     count  pg_stat_database, current database (13+)
//	  blks_read, blks_hit, tup_returned, tup_fetched, tup_inserted,
//	  tup_updated, tup_deleted, temp_files, deadlocks
//	temp_bytes                      bytes  pg_stat_database (13+)
//	blk_read_ms, blk_write_ms       ms     pg_stat_database (13+), track_io_timing
//	wal_lsn_bytes                   bytes  pg_current_wal_insert_lsn(), replay LSN on a
//	                                       standby (13+); includes page headers
//	wal_records, wal_fpi,           count  pg_stat_wal (14+)
//	  wal_buffers_full
//	wal_bytes                       bytes  pg_stat_wal (14+)
//	wal_writes, wal_syncs           count  pg_stat_wal wal_write, wal_sync (14–17);
//	                                       pg_stat_io object 'wal' writes, fsyncs (18)
//	wal_write_ms, wal_sync_ms       ms     the same (14+), track_wal_io_timing
//	wal_write_bytes                 bytes  pg_stat_io object 'wal' write_bytes (18)
//	checkpoints                     count  pg_stat_bgwriter checkpoints_timed + _req (13–16);
//	                                       pg_stat_checkpointer num_timed + num_requested (17),
//	                                       num_done (18: skipped ones not counted)
//	checkpoints_timed,              count  pg_stat_bgwriter (13–16),
//	  checkpoints_requested,               pg_stat_checkpointer (17+)
//	  checkpoint_buffers
//	checkpoint_write_ms,            ms     the same (always timed)
//	  checkpoint_sync_ms
//	bgwriter_buffers,               count  pg_stat_bgwriter buffers_clean, maxwritten_clean,
//	  bgwriter_maxwritten, buffers_alloc   buffers_alloc (13+)
//	buffers_backend,                count  pg_stat_bgwriter (13–16; pg_stat_io after)
//	  buffers_backend_fsync
//	io_reads, io_writes,            count  pg_stat_io (16+): relation and temp relation
//	  io_writebacks, io_extends,           rows of every backend type, not 18's wal rows
//	  io_hits, io_evictions, io_reuses, io_fsyncs
//	io_read_bytes, io_write_bytes,  bytes  pg_stat_io reads/writes/extends × op_bytes (16–17),
//	  io_extend_bytes                      read_bytes/write_bytes/extend_bytes (18)
//	io_read_ms, io_write_ms,        ms     pg_stat_io (16+), track_io_timing
//	  io_fsync_ms
//
// Everything but pg_stat_database is cluster-wide. A time metric is
// absent when its setting (track_io_timing, track_wal_io_timing; both
// superuser-settable, e.g. per database with ALTER DATABASE … SET) is off
// in the snapshot's session; the server times I/O by the setting of the
// session doing it. Diff leaves out the counters of a view whose
// stats_reset changed between the snapshots, and counters that went down.
//
// Statistics reach other sessions late: a backend flushes its counters
// when it goes idle, at most once a second (15+), or sends them to the
// stats collector every 500 ms (13, 14). For consistent figures:
//
//   - call Flush on every connection that did measured work, after the
//     work and before the closing Snapshot (15+: pg_stat_force_next_flush(),
//     visible when Flush returns; 13/14: about a second of waiting);
//   - for work on connections you cannot reach (closed, another program),
//     call Settle (waits SettleTime, 1.2 s) before the closing Snapshot;
//   - Snapshot and Flush are each one committed transaction in their
//     database, counted like any other: 1000 autocommit updates on a
//     worker read as xact_commit = 1003 — the updates, the statement
//     preparation pgx did before the first one, Flush, and the opening
//     Snapshot — and wal_syncs = 1000.
//
// # VACUUM VERBOSE
//
// The report arrives as INFO notices. Collect them with CaptureNotices on
// the connection's config (pgconn's OnNotice) and parse them with
// ParseVacuumVerbose, which reads the formats of 13 and 14 (several INFO
// messages with DETAIL lines) and of 15–18 (one message per relation):
// one VacuumReport per relation, the table first, then its TOAST table,
// kept apart. Metrics and the versions printing them:
//
//	index_scans                 all (13/14: rounds of "scanned index")
//	pages_removed, pages_remain all (13/14: from "truncated A to B pages")
//	pages_scanned               all; pages_total 13/14; pages_scanned_pct 15+
//	pages_eagerly_scanned       18
//	tuples_removed, tuples_remain, tuples_dead_not_removable   all
//	tuples_missed_dead, pages_missed_dead   15+, when a page could not be cleaned
//	pages_skipped_pins, pages_skipped_frozen, unused_item_ids, pages_empty   13/14
//	pages_frozen, pages_frozen_pct, tuples_frozen   16+
//	vm_all_visible, vm_all_frozen, vm_were_all_visible   18
//	dead_item_pages, dead_item_ids   all (13/14: "removed N row versions in M pages")
//	read_mb_s, write_mb_s       15+
//	buffer_hits, buffer_misses, buffer_dirtied   15+ (18 prints "reads" for misses)
//	wal_records, wal_fpi, wal_bytes   15+; wal_buffers_full 18
//	io_read_ms, io_write_ms     15+ with track_io_timing; delay_ms 18 with track_cost_delay_timing
//	cpu_user_s, cpu_sys_s, elapsed_s   all (13/14: the heap scan's CPU line)
//
// Per index (VacuumIndex): pages, pages_deleted, pages_reusable (all),
// pages_newly_deleted (14+), index_tuples and index_tuples_removed
// (13/14). On 13 and 14 VACUUM VERBOSE prints no WAL or buffer figures:
// take them from a counter Diff around the VACUUM. testdata/vacuum holds
// real outputs of 13–18 (regenerate with go test -run VacuumVerboseLive
// -update, PGLAB_TEST_VERSIONS=13,14,15 for the older ones).
//
// # OS sampler
//
// StartOS samples /proc/stat (the whole machine's CPU) and /proc/diskstats
// every DefaultOSInterval (250 ms) until Stop. The disk is the block
// device holding the data directory: stat's device number, then
// /sys/dev/block/MAJ:MIN/uevent. A directory on a file system without
// device statistics (overlay, tmpfs, btrfs subvolume) falls back to the
// overlay's upper directory or the mount's source device, else to all
// physical disks; OSSeries.DiskNote says which. Series.Metrics gives the
// means over the step (exact, from the first and last readings):
// cpu_busy_pct, cpu_user_pct, cpu_sys_pct, iowait_pct (percent of all
// CPUs' time), disk_read_mb_s, disk_write_mb_s (MB = 2^20 bytes),
// disk_read_iops, disk_write_iops, disk_util_pct (time with I/O in
// flight), each with its peak sample as NAME_max, and os_samples. The
// sampler costs about 0.16 % of one CPU at the default interval.
//
// # Server CPU
//
// StartServerCPU and Stop read, at a step's start and end, the CPU
// accounting of a local instance's processes, of pglab's own process and
// of the machine: how much the machine, rather than PostgreSQL, moved
// the step's time. The postmaster is the PID on the first line of
// DATADIR/postmaster.pid, taken only if /proc/PID/cwd is the data
// directory (where a postmaster works); its children (backends,
// parallel workers, background processes; zombies not yet reaped too)
// are the processes whose /proc/PID/stat names it as parent. Processes are told apart by
// PID and start time, so a PID reused during the step is two processes.
//
//	metric           unit  source
//	server_cpu_ms    ms    the instance's CPU: for the postmaster and each child
//	                       alive at the end, /proc/PID/schedstat's run time (ns)
//	                       less its run time at the start (0 if it started during
//	                       the step); plus, for those that exited, the growth of
//	                       the postmaster's cutime + cstime (/proc/PID/stat, its
//	                       reaped children's CPU, clock ticks) less what the ones
//	                       alive at the start had used by then
//	server_runq_ms   ms    /proc/PID/schedstat's run-queue wait (runnable, no CPU)
//	                       of the processes alive at the end, less their wait at
//	                       the start; the wait of processes that exited during
//	                       the step is not known and not counted
//	client_cpu_ms    ms    this process's user + system CPU (getrusage RUSAGE_SELF):
//	                       pglab, its load generator and its samplers (not the
//	                       programs it runs, which count as foreign)
//	steal_pct        pct   /proc/stat steal: the share of all CPUs' time the
//	                       hypervisor ran something else
//	foreign_cpu_pct  pct   /proc/stat's busy time (user, nice, system, irq,
//	                       softirq) less server_cpu_ms and client_cpu_ms, as a
//	                       share of all CPUs' time, floored at 0: other
//	                       processes, and interrupts outside the two
//
// Clock ticks are converted with the kernel's USER_HZ, read from the
// auxiliary vector's AT_CLKTCK (what sysconf(_SC_CLK_TCK) returns; 100 on
// Linux). The reaped time has a resolution of one tick (10 ms); a child
// exiting while the processes are read would be counted twice or not at
// all, so a read is repeated (three times at most) until the postmaster's
// reaped time stayed still across it. schedstat counts a process's main
// thread, which is the whole of every PostgreSQL process. Programs the
// children run (archive_command's, restore_command's shells) are the
// instance's only once their parent exits: until then they count as
// foreign. As root every
// user's processes and postmaster.pid are readable; a server started by
// another user is read by pglab running as that user.
//
// A figure that cannot be read is absent, never zero: server_cpu_ms,
// server_runq_ms and foreign_cpu_pct without a postmaster.pid or its
// process, when the PID works elsewhere (a server in a container, whose
// PIDs are another namespace's; a stale file), when the postmaster
// changed between the reads (a restart), or on a kernel
// without per-process scheduler statistics (no schedstat file, or one
// that reads "0 0 0", CONFIG_SCHED_INFO off); steal_pct and
// foreign_cpu_pct without /proc/stat.
//
// Checked against a real server (servercpu_live_test.go): a 0.6–0.9 s
// CPU-bound query reads as 99 % of its time; connections that work and
// close within the step count through the reaped time, and one that
// worked before the step only for its work within it; a spinning
// process beside an idle second reads as at least its own run time (a
// sh using 49.8 % of 2 CPUs as 51.2 % foreign, 0.2 % without it). By
// hand, on a shared development VM busy with other tests and a step of
// 30,000 SELECT 1 on one connection: 57.5 % foreign, and 57.5 % in the
// summed run times of every other live thread. Where the kernel accounts
// interrupt time apart from the interrupted process
// (CONFIG_IRQ_TIME_ACCOUNTING; not this VM's kernel), the step's own
// network and disk interrupts count as foreign.
// Cost: one read takes about 1 ms of CPU with 100 processes on a 2-core
// VM (0.8 ms on a quiet one), about 9 µs per process on the machine
// (BenchmarkServerCPURead); a step makes two, outside its timed part.
//
// # Wait events
//
// StartWaits samples pg_stat_activity on a connection of its own every
// DefaultWaitInterval (200 ms): every session doing work — active client
// sessions and parallel workers of all databases, and background
// processes outside their idle loop — counts once per sample under
// "wait_event_type:wait_event", or "CPU" when it waits on nothing; idle
// sessions and the sampler are left out. It reads in one long transaction
// without a transaction ID, so it adds no commits to the counters and
// holds back no vacuum horizon. WaitProfile gives the shares, Top(n),
// ActiveSessions, and Metrics(n): wait_samples, wait_active_sessions and
// "wait_pct:EVENT" of the top n. Cost at the default interval: about
// 0.25 % of one CPU on the client and 0.05 % on the server.
//
// # WAL by record type
//
// ReadWALRecords reads the WAL between two positions (Counters'
// wal_lsn_bytes before and after a step) with pg_walinspect's
// pg_get_wal_stats(start, end, per_record => true) (15+; 13 and 14 have
// no pg_walinspect, and pg_waldump, which could read their WAL, is not in
// pglab's builds: WALRecordsAbsent says so). It waits for the WAL to be
// flushed first (a transactional logical message forces the flush).
// Metrics, one set per record type seen (RMGR/RECORD, e.g.
// Heap2/PRUNE_VACUUM_SCAN; names change between versions):
//
//	wal_rec_count:TYPE    count  records of the type
//	wal_rec_bytes:TYPE    bytes  their bytes without full-page images
//	wal_fpi_bytes:TYPE    bytes  their full-page images' bytes
//	wal_rec_total_bytes   bytes  all types' bytes with images: what
//	                             pg_stat_wal's wal_bytes counts over the
//	                             same WAL (equal in a quiet window; the
//	                             LSN difference adds page headers and
//	                             alignment)
//
// A type missing from a window whose wal_rec_total_bytes is there wrote
// no record. Reading 1 MB of WAL takes a few milliseconds.
//
// # CPU by function
//
// StartProfile starts perf record on every CPU, its events disabled, and
// keeps the samples of a local server's postmaster and its descendants
// (followed through the forks perf records: new backends and parallel
// workers too); Enable and Stop bound the samples to the step through
// perf's control pipe; Profile runs perf script. Sampling every CPU
// rather than the server's processes is the cheap way on a VM: a
// per-process timer is re-armed at every context switch (Profiler's doc
// has the measurements). Two software cpu-clock events:
// ProfileHz (249 Hz) without call chains gives each function's self time,
// StackHz (49 Hz) with DWARF call chains (StackBytes of user stack: the
// builds have no frame pointers) gives folded stacks, root first under
// the process's kind (client backend, checkpointer, …, from its title).
//
//	cpu_fn_ms:FUNCTION    ms     self time of the functions with at least
//	                             MinFunctionPct of the samples (at most
//	                             MaxFunctions), kernel functions included
//	cpu_sampled_ms        ms     the CPU all samples stand for (within a
//	                             few percent of server_cpu_ms)
//
// ProfileAbsent says why a server cannot be sampled (elsewhere, no perf);
// StartProfile's error why perf could not attach (permissions).
//
// # Configuration
//
// ReadConfig reads every pg_settings row (setting, unit, boot_val,
// source, context) and the build's facts (checksums, block and segment
// sizes, assertions, pg_jit_available(), pg_config's CONFIGURE, CC and
// CFLAGS where readable). ConfigDrift lists the settings that differ
// between servers: values, built-in defaults that differ between
// versions, settings only some servers have, and build facts
// (build:cflags, …), each marked asked (pglab was told to set it),
// derived (computed by the server from others) or neither: drift.
//
// # Bottleneck notes
//
// OSNotes and WaitNotes turn a series or a profile into sentences for a
// report ("disk read throughput flat at 87 MB/s (700 IOPS) for 92 % of
// the scan", "CPU saturated (98 % busy) for 95 % of the run", "I/O wait
// 40 % of CPU time", "sessions spent 62 % of their time waiting on
// IO:WALSync"); their doc comments give the thresholds. Series too short
// to judge (under 5 samples or 2 s) give no notes.
package observe
