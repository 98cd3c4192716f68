package cli

import (
	"errors"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/apply"
)

// tuneTarget is the server of pglab tune --target and what it told.
type tuneTarget struct {
	srv   *apply.Server
	facts apply.Facts
}

// openTuneTarget resolves --target: the name of a running managed
// instance, NAME=DSN (a DSN labelled NAME), or a DSN, with the parts of
// -h, -p, -U and -d put in place of its own (with no --target, of the
// PG* variables').
func openTuneTarget(target string, conn pgserver.ConnParts) (*apply.Server, error) {
	t, err := connTarget(target, conn)
	if err != nil {
		return nil, err
	}
	if t.Named() {
		srv, err := apply.Managed(t.Instance)
		if err != nil {
			return nil, badInput("--target %s: %v", t.Label, err)
		}
		return srv, nil
	}
	srv, err := apply.Remote(t.Label, t.DSN)
	if err != nil {
		return nil, badInput("--target %s: %s", redact.DSN(target), redact.Text(err.Error()))
	}
	return srv, nil
}

// report returns what --diff and --apply tell about the target.
func (tt *tuneTarget) report(action apply.Action, rec tune.Recommendation, detected []tune.Detection) apply.Report {
	return apply.Report{Action: action, Server: tt.srv, Version: tt.facts.Version, VersionNum: tt.facts.VersionNum, Recommendation: rec, Detected: detected}
}

// runTuneDiff prints the server's values next to the recommended ones.
func runTuneDiff(env *Env, tt *tuneTarget, rec tune.Recommendation, format tune.Format, detected []tune.Detection) error {
	rows, err := tt.srv.Compare(env.Ctx, rec.Parameters)
	if err != nil {
		return liveError(err)
	}
	r := tt.report(apply.ActionDiff, rec, detected)
	r.Rows = rows
	return r.Write(env.Stdout, format)
}

// runTuneApply applies the recommendations and reports what happened.
func runTuneApply(env *Env, tt *tuneTarget, rec tune.Recommendation, format tune.Format, detected []tune.Detection) error {
	res, err := tt.srv.Apply(env.Ctx, rec.Parameters)
	if err != nil {
		return liveError(err)
	}
	r := tt.report(apply.ActionApply, rec, detected)
	r.Result = res
	if err := r.Write(env.Stdout, format); err != nil {
		return err
	}
	return res.NotTakenError()
}

// runTuneRevert undoes what pglab applied and reports it.
func runTuneRevert(env *Env, srv *apply.Server, format tune.Format) error {
	res, err := srv.Revert(env.Ctx)
	if err != nil {
		return liveError(err)
	}
	if err := (apply.Report{Action: apply.ActionRevert, Server: srv, Result: res}).Write(env.Stdout, format); err != nil {
		return err
	}
	return res.NotTakenError()
}

// liveError keeps errors of package apply on one line and without any
// password.
func liveError(err error) error {
	if errors.Is(err, apply.ErrAlterSystemDisabled) || errors.Is(err, apply.ErrPermission) || errors.Is(err, apply.ErrNothingToRevert) {
		return err
	}
	return errors.New(redact.Text(err.Error()))
}
