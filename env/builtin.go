package env

import "time"

// The built-in profiles. Each one's Doc names where its figures come from;
// ../shared/reference/environments.md §0 collects the sources. MB is 2^20
// bytes throughout.

// Local is this machine as it is: no limits. A server under it still gets
// a cgroup of its own when one can be made, so that its memory, CPU and
// disk counters are read like those of a limited server.
var Local = Profile{
	Name:   "local",
	Origin: "built-in",
	Doc:    "this machine as it is, no limits (the server's cgroup counters are still read when a cgroup can be made)",
}

// T3Micro is an AWS t3.micro with its gp3 EBS volume as the seed studies
// measured it (seeds 000 and 002: "t3.micro (2vCPU・1GiB) EBS 30GB").
//   - cpus=2: 2 vCPUs, in T3's default "unlimited" credit mode, in which
//     the instance may use both vCPUs fully (AWS, "Burstable performance
//     instances": T3 launches as unlimited by default).
//   - memory=1GiB: the instance's memory (the OS and its daemons share it
//     on a real instance; here the server has all of it).
//   - read=87MB/s: the ceiling seed 002 §4.4 measured in CloudWatch during
//     its cold scans (PostgreSQL 16 and 17 both flat at about 87 MB/s). It
//     matches no documented limit (the documented t3.micro EBS baseline is
//     87 Mbit/s, gp3's is 125 MiB/s): a measured figure, not a property of
//     t3.micro.
//   - write=87MB/s: assumed equal to the measured read ceiling (the seeds
//     measured no write ceiling; an instance's EBS bandwidth caps both
//     directions).
//   - read_iops=3000, write_iops=3000: gp3's included baseline of 3,000
//     IOPS (AWS EBS "General Purpose SSD volumes").
var T3Micro = Profile{
	Name:    "t3.micro",
	Origin:  "built-in",
	Doc:     "AWS t3.micro as the seeds measured it: 2 vCPUs (T3 unlimited mode), 1 GiB, the 87 MB/s disk ceiling seed 002 measured (write assumed the same), gp3's 3,000 IOPS",
	Machine: Machine{CPUs: 2, Memory: 1 * gib, ReadBPS: 87 * mib, WriteBPS: 87 * mib, ReadIOPS: 3000, WriteIOPS: 3000},
}

// T3MicroEBSBaseline is a t3.micro held to its documented EBS baseline:
// 87 Mbit/s (10.875 decimal MB/s, 10.37 MB/s in pglab's MB) and 500 IOPS
// (AWS, "Amazon EBS-optimized instance types": t3.micro baseline
// bandwidth 87 Mbps, baseline IOPS 500; the instance may burst to
// 2,085 Mbps and 11,800 IOPS for 30 minutes once every 24 hours, which a
// fixed limit cannot show). CPUs and memory as [T3Micro].
var T3MicroEBSBaseline = Profile{
	Name:    "t3.micro-ebs-baseline",
	Origin:  "built-in",
	Doc:     "t3.micro at its documented EBS baseline, 87 Mbit/s and 500 IOPS (AWS EBS-optimized instances), 2 vCPUs, 1 GiB; the 30-minute burst is not emulated",
	Machine: Machine{CPUs: 2, Memory: 1 * gib, ReadBPS: 87e6 / 8, WriteBPS: 87e6 / 8, ReadIOPS: 500, WriteIOPS: 500},
}

// T3MicroStandard is a t3.micro in "standard" credit mode once its
// credits are spent: 10 % of each of its 2 vCPUs, 0.2 CPUs in all (AWS,
// "Key concepts for burstable instances": t3.micro earns 12 credits an
// hour, baseline 10 % per vCPU). Memory and disk as [T3Micro]. The credit
// bucket itself (bursting while credits last) is not emulated.
var T3MicroStandard = Profile{
	Name:    "t3.micro-standard",
	Origin:  "built-in",
	Doc:     "t3.micro in standard credit mode with its credits spent: 10 % of 2 vCPUs = 0.2 CPUs (AWS burstable baseline), 1 GiB, disk as t3.micro; no credit bucket",
	Machine: Machine{CPUs: 0.2, Memory: 1 * gib, ReadBPS: 87 * mib, WriteBPS: 87 * mib, ReadIOPS: 3000, WriteIOPS: 3000},
}

// GP3 is an EBS gp3 volume at its included baseline: 3,000 IOPS and
// 125 MiB/s (AWS EBS "General Purpose SSD volumes": "gp3 volumes do not
// use burst performance"). The disk alone: no CPU or memory limit.
var GP3 = Profile{
	Name:    "gp3",
	Origin:  "built-in",
	Doc:     "an EBS gp3 volume at its baseline, 3,000 IOPS and 125 MiB/s (AWS General Purpose SSD); the disk alone",
	Machine: Machine{ReadBPS: 125 * mib, WriteBPS: 125 * mib, ReadIOPS: 3000, WriteIOPS: 3000},
}

// GP2Small is an EBS gp2 volume of 30 GiB (the seeds' "EBS 30GB") with
// its burst credits spent: 3 IOPS per GiB with a floor of 100, and up to
// 128 MiB/s for volumes of 170 GiB or less (AWS EBS "General Purpose SSD
// volumes", gp2 table row "1 to 33.33 GiB"). While credits last a real
// volume bursts to 3,000 IOPS for about 31 minutes, which a fixed limit
// cannot show. The disk alone.
var GP2Small = Profile{
	Name:    "gp2-30g",
	Origin:  "built-in",
	Doc:     "an EBS gp2 volume of 30 GiB with its burst credits spent: 100 IOPS, 128 MiB/s (AWS General Purpose SSD, gp2); the disk alone, no burst bucket",
	Machine: Machine{ReadBPS: 128 * mib, WriteBPS: 128 * mib, ReadIOPS: 100, WriteIOPS: 100},
}

// OneCPU1GB is the server of seed 003: "CPU: 1つ, メモリ: 1GB" (one CPU,
// 1 GB, Amazon Linux 2, tuned with PGTune for 1 GB and 1 CPU). The seed
// names no disk; none is limited.
var OneCPU1GB = Profile{
	Name:    "1cpu-1gb",
	Origin:  "built-in",
	Doc:     "the server of seed 003: 1 CPU, 1 GB (disk not limited: the seed names none)",
	Machine: Machine{CPUs: 1, Memory: 1 * gib},
}

// AuroraLike is a server whose commits wait for remote, replicated
// storage, as Aurora PostgreSQL's do, seen from a client in the same
// availability zone. Seed 004 measured 10,000 single-row UPDATEs on Aurora
// at 25.45 s in autocommit and 2.84 s in one transaction: 2.26 ms more per
// commit (0.09 ms on its local Docker PostgreSQL). Aurora waits for 4 of
// its 6 storage copies over 3 AZs to acknowledge the commit's log records
// (AWS, "Aurora under the hood: quorum sets"; the wait is IO:XactSync).
//   - replica=sync, synchronous_commit=remote_write, fsync=off: the commit
//     waits for a managed standby to have written the WAL, not for this
//     server's own disk flush (Aurora's compute node keeps no durable log
//     of its own).
//   - replica_rtt=1.6ms: calibrated on pglab's 2-CPU development VM so that
//     the single-client autocommit UPDATE pays about 2.2 ms per commit more
//     than the same update in a transaction (scripts/commit-cost; the
//     standby's wake-ups and write add about 0.5 ms to the round trip).
//     Calibrate again on another machine with scripts/commit-cost.
//   - rtt=0.3ms: a client in the same AZ (pings of 0.26–0.41 ms inside one
//     AZ, orensol.com 2009; under 1 ms, Liesis 2022).
//
// What it does not reproduce: Aurora's storage engine (a 4-of-6 quorum
// that ships log records rather than pages, no checkpoints, no
// full-page writes), its read path and buffer behaviour, its instance
// classes' CPUs; the standby shares this machine's disk and CPUs.
var AuroraLike = Profile{
	Name:   "aurora-like",
	Origin: "built-in",
	Doc:    "commits wait for remote replicated storage, as on Aurora PostgreSQL (seed 004: 2.26 ms per commit), from a client in the same AZ (0.3 ms): a synchronous standby behind a 1.6 ms round trip, synchronous_commit=remote_write, fsync=off, calibrated on pglab's 2-CPU VM; not Aurora's storage engine (quorum, log shipping, no checkpoints)",
	Network: Network{RTT: 300 * time.Microsecond, Replica: ReplicaSync, ReplicaRTT: 1600 * time.Microsecond,
		SynchronousCommit: "remote_write", Fsync: "off"},
}

// Builtins returns the built-in profiles in the order `pglab doctor` and
// the README list them.
func Builtins() []Profile {
	return []Profile{Local, T3Micro, T3MicroEBSBaseline, T3MicroStandard, GP3, GP2Small, OneCPU1GB, AuroraLike}
}
