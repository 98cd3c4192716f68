package cli

import (
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/lab"
)

// pgStartProfile resolves pg start's --env (at most one: one server).
func pgStartProfile(specs, files []string) (*env.Profile, error) {
	if len(specs) > 1 {
		return nil, badInput("pg start: one --env per server (got %d)", len(specs))
	}
	ps, err := lab.ResolveEnvs(specs, files)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	if err := ps[0].CheckForInstance(); err != nil {
		return nil, asUsage(err)
	}
	return &ps[0], nil
}
