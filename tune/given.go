package tune

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Flags is PGTune's inputs as a command line gives them (pglab tune's
// flags, named as the InputError's Input: versions, os, type, memory,
// cpus, connections, storage, db-size, data-dir).
type Flags struct {
	Version, OS, Workload, Memory, CPUs, Connections, Storage, DBSize, DataDir string
}

// ParseGiven parses the inputs of t that were given (given tells which,
// by name); OS, workload and database size always have a value. What is
// not given is left for Resolve to fill. The data directory defaults to
// $PGDATA, else the current directory. Errors are *InputError.
func ParseGiven(t Flags, given func(name string) bool) (Given, error) {
	var g Given
	var err error
	in := &g.Inputs
	if given("versions") {
		if in.Version, err = ParseVersion(t.Version); err != nil {
			return g, err
		}
	}
	if in.OS, err = ParseOS(t.OS); err != nil {
		return g, err
	}
	if in.Workload, err = ParseWorkload(t.Workload); err != nil {
		return g, err
	}
	if in.DBSize, err = ParseDBSize(t.DBSize); err != nil {
		return g, err
	}
	if given("connections") {
		if in.Connections, err = parseCount(t.Connections, "connections", MinConnections); err != nil {
			return g, err
		}
	}
	if t.DataDir != "" {
		if st, err := os.Stat(t.DataDir); err != nil || !st.IsDir() {
			return g, &InputError{Input: "data-dir", Value: t.DataDir, Reason: "not a directory"}
		}
	}
	if given("memory") {
		if in.Memory, err = ParseMemory(t.Memory); err != nil {
			return g, err
		}
	}
	if given("cpus") {
		if in.CPUs, err = parseCount(t.CPUs, "cpus", 1); err != nil {
			return g, err
		}
	}
	if given("storage") {
		if in.Storage, err = ParseStorage(t.Storage); err != nil {
			return g, err
		}
	}
	g.DataDir, g.DefaultDataDir = t.DataDir, os.Getenv("PGDATA")
	if g.DefaultDataDir == "" {
		g.DefaultDataDir = "."
	}
	return g, nil
}

// parseCount parses a whole number given as input name that must be at
// least least.
func parseCount(s, name string, least int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, &InputError{Input: name, Value: s, Reason: fmt.Sprintf("want a whole number from %d to %d", least, MaxNumericValue)}
	case n < least && least == 1:
		return 0, &InputError{Input: name, Value: s, Reason: "must be greater than zero"}
	case n < least:
		return 0, &InputError{Input: name, Value: s, Reason: fmt.Sprintf("must be from %d to %d (PGTune's limits)", least, MaxNumericValue)}
	}
	return n, nil
}
