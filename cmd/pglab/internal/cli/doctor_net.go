package cli

import (
	"os"

	"github.com/pglab/pglab/env"
	"golang.org/x/sys/unix"
)

// networkChecks say how the network keys of --env are enforced here: by
// pglab itself (a delay proxy, a managed standby), so always, but the
// proxy is accurate on a busy machine only with a real-time thread.
func networkChecks() []check {
	sched := "real-time scheduling for its thread (SCHED_FIFO, permitted here)"
	if !realTimeAllowed() {
		sched = "normal scheduling (SCHED_FIFO needs root or CAP_SYS_NICE): round trips run longer on a busy machine"
	}
	return []check{
		{name: env.KeyRTT, ok: true, detail: "a delay proxy between clients and server (pglab's own), " + sched},
		{name: env.KeyReplica, ok: true, detail: "a managed standby: a copy of the stopped primary's data directory, streaming"},
		{name: env.KeyReplicaRTT, ok: true, detail: "a delay proxy on the standby's replication connection"},
		{name: env.KeySynchronousCommit, ok: true, detail: "the primary's synchronous_commit (with a sync standby: synchronous_standby_names)"},
		{name: env.KeyFsync, ok: true, detail: "the server's fsync (off: commits skip its own disk flushes)"},
	}
}

// realTimeAllowed reports whether this process may give a thread the
// SCHED_FIFO class: as root, or with an RLIMIT_RTPRIO above zero.
func realTimeAllowed() bool {
	if os.Geteuid() == 0 {
		return true
	}
	var lim unix.Rlimit
	return unix.Getrlimit(unix.RLIMIT_RTPRIO, &lim) == nil && lim.Cur > 0
}
