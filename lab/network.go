package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/pglab/pglab/env"
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
	}
	if n.RTT > 0 {
		if err := t.AddRoundTrip(n.RTT); err != nil {
			return err
		}
		l.note(s.Name, "its clients reach it through a delay proxy adding a %v round trip; each measured step first measures the round trip achieved (env_rtt_us)", n.RTT)
	}
	return nil
}

func roundTripText(d time.Duration) string {
	if d == 0 {
		return "loopback (no delay)"
	}
	return fmt.Sprintf("a %v round trip", d)
}

// serverNetworkSettings are the settings a server's environment implies
// without a standby: synchronous_commit (with one, the standby sets it
// after it streams).
func serverNetworkSettings(p *env.Profile) []pgserver.Setting {
	if p == nil || p.Replica != env.ReplicaNone || p.SynchronousCommit == "" {
		return nil
	}
	return []pgserver.Setting{{Name: "synchronous_commit", Value: p.SynchronousCommit}}
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
