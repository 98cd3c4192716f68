// Package env makes the machine (and, with issue 12, the network) a managed
// PostgreSQL server runs in a dimension of a comparison: environment
// profiles (built-in, from a YAML file, or ad hoc on the command line),
// the kernel limits that enforce them on the server (cgroup v2 or v1), what
// was enforced and what was not and why, and the cgroup's own counters read
// back around every measured step.
//
// A [Profile] is parsed from a SPEC with [Catalog.Resolve]: "t3.micro" names
// a profile, "ebs87:read=87MB/s,cpus=0.5" is an ad-hoc one. [Detect] finds
// the machine's cgroup controllers (v2, v1, or a hybrid of both) and whether
// pglab may create cgroups there (root, or a delegated cgroup). [New] makes a
// cgroup of its own for one server, writes the profile's limits and records
// one [Enforcement] per limit; the cgroup is a pgserver.Placer, so that the
// postmaster is born inside it and every backend it forks inherits it (v2:
// clone3 with CLONE_INTO_CGROUP; v1: the forking thread enters the
// cgroup for the fork and leaves it afterwards). [Cgroup.StartStep] and
// [StepCounters.Stop] read peak memory, CPU throttling and disk bytes of the
// server across a step; [Notes] turns them into bottleneck sentences.
//
// Every cgroup pglab creates is a directory whose name starts with "pglab-"
// and carries the creating process's id; [Cgroup.Remove] deletes it when its
// server has stopped, and [CleanStale] deletes those left by a pglab that was
// killed (no process inside, creator gone).
//
// Units follow the rest of pglab: MB is 2^20 bytes (as PostgreSQL and iostat
// count), so read=87MB/s is 87 × 2^20 bytes per second; memory takes kB, MB,
// GB, TB or KiB, MiB, GiB, TiB, all binary; Mbit/s and Gbit/s are decimal
// bits, as cloud providers state instance bandwidth.
package env
