package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/netdelay"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/study"
)

// startNetwork gives a managed target its environment's network: the
// managed standby (replica, replica_rtt, synchronous_commit), then the
// round trip between its clients and it (rtt). The standby runs outside
// the server's machine limits: it stands for remote storage.
func (l *Lab) startNetwork(ctx context.Context, s Target, inst *pgserver.Instance, t *study.Target) error {
	if s.Env == nil {
		return nil
	}
	n := s.Env.Network
	var enf []env.Enforcement
	if n.Replica != env.ReplicaNone {
		sb, err := inst.StartStandby(ctx, pgserver.StandbyOptions{
			Sync:              n.Replica == env.ReplicaSync,
			SynchronousCommit: n.SynchronousCommit,
			RTT:               n.ReplicaRTT,
			Progress:          l.opts.Progress,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		l.standbys = append(l.standbys, sb)
		mode := "asynchronous"
		if n.Replica == env.ReplicaSync {
			mode = "synchronous"
		}
		commit := n.SynchronousCommit
		if commit == "" {
			commit = "on"
		}
		l.note(s.Name, "%s standby %s, replicating through %s (synchronous_commit=%s); it runs outside the server's limits and writes to this machine's disk",
			mode, sb.Name(), roundTripText(n.ReplicaRTT), commit)
		enf = append(enf, enforced(env.KeyReplica, n.Replica.String(), "managed standby "+sb.Name()+", streaming replication"))
		if n.ReplicaRTT > 0 {
			enf = append(enf, enforced(env.KeyReplicaRTT, env.FormatDuration(n.ReplicaRTT), "delay proxy on the replication connection"+proxySched(sb.Proxy())))
		}
	}
	if n.SynchronousCommit != "" {
		how := "synchronous_commit = " + n.SynchronousCommit + " on the server"
		if n.Replica == env.ReplicaSync {
			how += ", its standby in synchronous_standby_names"
		}
		enf = append(enf, enforced(env.KeySynchronousCommit, n.SynchronousCommit, how))
	}
	if n.Fsync != "" {
		how := "fsync = " + n.Fsync + " on the server"
		if n.Fsync == "off" {
			how += ": its own WAL and data flushes are skipped"
			if n.Replica == env.ReplicaSync {
				how += ", a commit is durable on the standby only"
			}
		}
		enf = append(enf, enforced(env.KeyFsync, n.Fsync, how))
	}
	if n.RTT > 0 {
		if err := t.AddRoundTrip(n.RTT); err != nil {
			return err
		}
		l.note(s.Name, "its clients reach it through a delay proxy adding a %v round trip; each measured step first measures the round trip achieved (env_rtt_us)", n.RTT)
		enf = append(enf, enforced(env.KeyRTT, env.FormatDuration(n.RTT), "delay proxy between the clients and the server"+proxySched(t.RoundTrip())))
	}
	if e := t.Environment(); e != nil {
		e.SetNetwork(enf)
	}
	return nil
}

// enforced is a network key held for a run, how, by its key's mechanism.
func enforced(key, value, how string) env.Enforcement {
	k, _ := env.LookupKey(key)
	return env.Enforcement{Key: key, Value: value, Status: env.Enforced, How: how, Mechanism: k.Mechanism}
}

// proxySched says how the proxy's thread is scheduled, when it is not
// real-time (a busy machine then stretches its round trips).
func proxySched(px *netdelay.Proxy) string {
	if px == nil {
		return ""
	}
	st, err := px.Stats()
	if err != nil || st.Sched == "SCHED_FIFO" {
		return ""
	}
	return "; its thread runs at " + st.Sched + " priority, not real-time"
}

func roundTripText(d time.Duration) string {
	if d == 0 {
		return "loopback (no delay)"
	}
	return fmt.Sprintf("a %v round trip", d)
}

// serverNetworkSettings are the settings a server's environment implies:
// fsync, and synchronous_commit without a standby (with one, the standby
// sets it once it streams).
func serverNetworkSettings(p *env.Profile) []pgserver.Setting {
	if p == nil {
		return nil
	}
	var out []pgserver.Setting
	if p.Fsync != "" {
		out = append(out, pgserver.Setting{Name: "fsync", Value: p.Fsync})
	}
	if p.Replica == env.ReplicaNone && p.SynchronousCommit != "" {
		out = append(out, pgserver.Setting{Name: "synchronous_commit", Value: p.SynchronousCommit})
	}
	return out
}

// StandbyError is a run ended by the death of a managed standby (its
// message names the standby).
type StandbyError struct{ Err error }

func (e *StandbyError) Error() string { return e.Err.Error() }

func (e *StandbyError) Unwrap() error { return e.Err }

// watchStandbys returns a context that ends, with a StandbyError as its
// cause, when one of the lab's standbys fails; stop releases it.
func (l *Lab) watchStandbys(ctx context.Context) (context.Context, func()) {
	if len(l.standbys) == 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	for _, sb := range l.standbys {
		go func() {
			select {
			case <-sb.Failed():
				cancel(&StandbyError{Err: fmt.Errorf("the run cannot go on: %w", sb.Err())})
			case <-ctx.Done():
			}
		}()
	}
	return ctx, func() { cancel(nil) }
}

// standbyFailure returns the failure of a standby that ended ctx, or nil.
func standbyFailure(ctx context.Context) error {
	if se, ok := context.Cause(ctx).(*StandbyError); ok {
		return se
	}
	return nil
}

// closeTargets stops what the targets started for the run (delay proxies).
func (l *Lab) closeTargets() error {
	var first error
	for _, t := range l.Targets {
		if err := t.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
