// Package dataset keeps studies' data built once: each dataset (the vacuum
// table, pgbench's tables at a scale, t_copy_large, …) is built once per
// [Key] — server build, initdb choices, database, definition and its
// parameters — into pglab's cache as a stopped, cleanly shut down,
// checkpointed data directory, and every load is a [Clone] of it.
//
// # The cache
//
// [Cache] is a directory (DefaultDir: beside the PostgreSQL builds,
// /var/cache/pglab/datasets as root, $XDG_CACHE_HOME/pglab/datasets
// otherwise; $PGLAB_DATASET_CACHE moves it) of entries <id>/ holding
// data/ (owned by the server user, as pgserver's data directories),
// password (the data directory's superuser password, 0600) and
// manifest.json, written last. [Cache.Acquire] takes an flock on <id>.lock:
// shared while a process uses the entry, exclusive while one builds or
// removes it, so two processes acquiring one key build it once (the second
// waits, and says how long: Acquired.Waited). An entry is used only when
// its manifest is there, names its key, lists its files as they are on
// disk (names, sizes, modes) and pg_control says "shut down"; anything
// else — a build that was killed, a file changed behind the cache's back —
// is built again. Before the manifest is written the WAL segments the
// server recycled for later use are removed ([TrimWAL]: up to max_wal_size
// of files no clone needs) and every file is flushed.
//
// After each build, entries are removed least recently used first (the
// manifest's modification time is the last use) until the cache fits its
// limit ($PGLAB_CACHE_LIMIT, --cache-limit; [DefaultLimit] 40 GB, room
// for the seed-size datasets of three versions); entries in use are kept.
// `pglab cache list|clear` shows and empties it.
//
// # Which clone
//
// [Clone] tries FICLONE (blocks shared: constant time on Btrfs, XFS with
// reflink, bcachefs), then copy_file_range (in the kernel), then plain
// reads and writes, per file system, with 4 workers, and can write the
// copy out before it returns (sync_file_range: no journal commits, a clone
// needs no durability, only that its write-back does not fall into a
// measured step). Measured on this project's development machine (ext4 on
// a virtual disk, 2 cores, PostgreSQL 17, 2026-12-02, the page cache
// dropped before each copy; other sessions were loading the same disk, so
// the spread is wide; median of 3, 2 for the largest):
//
//	data directory                    FICLONE   copy_file_range      plain copy         CREATE DATABASE
//	                                            1 worker  4 workers  1 worker  2 wkrs   FILE_COPY  WAL_LOG
//	vacuum table, 3M rows + index     refused   0.98 s    0.91 s     3.5 s     2.5 s    1.0 s      0.9 s
//	  (593 MB untrimmed; 224 MB       refused   2.6 s     1.7 s      2.5 s     9.2 s    2.3 s      2.7 s
//	   trimmed, a busier disk)
//	pgbench scale 100 (1.6 GB)        refused   2.3 s     1.6 s      6.5 s     15.5 s   14.7 s     21.7 s
//	4.8 GB table (5.2 GB)             refused   19.0 s    9.0 s      90 s      27 s     69 s       78 s
//
// ext4 has no reflink (FICLONE: "operation not supported"), so a reset
// costs a full read and write of the data directory; copy_file_range does
// it 3–10 times faster than a plain copy and needs no user-space buffer.
// CREATE DATABASE … STRATEGY FILE_COPY (15+; 18 adds file_copy_method =
// clone) forces a checkpoint before and after the copy, which on this
// machine costs more than the copy, and resets one database only, not
// the cluster's WAL position, checkpoints and counters; WAL_LOG writes the
// whole database to WAL. pglab therefore clones whole stopped data
// directories with copy_file_range here, and reflinks where the file
// system has them. scripts/clone-cost measures the options again.
package dataset
