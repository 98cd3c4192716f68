package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/detect"
	"github.com/spf13/cobra"
)

func init() { register(60, newTuneCmd) }

// tuneOptions are the flags of pglab tune, as typed.
type tuneOptions struct {
	version     string
	os          string
	workload    string
	memory      string
	cpus        string
	connections string
	storage     string
	dbSize      string
	format      string
	dataDir     string
}

func newTuneCmd(env *Env) *cobra.Command {
	var o tuneOptions
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "PGTune's recommended settings for a machine and workload",
		Long: `Print the settings PGTune (` + tune.Upstream + `) recommends for a PostgreSQL
version, OS, workload, memory, CPUs, connections, storage and database size, in
PGTune's postgresql.conf style (--format conf), its ALTER SYSTEM style (alter) or
as a JSON document (json).

Memory, CPUs and storage not given are measured on this machine: memory from
/proc/meminfo, CPUs from the CPU affinity mask, storage from
/sys/block/<dev>/queue/rotational of the disk holding --data-dir; the header says
which were. Connections not given take PGTune's default for the type (web 200,
oltp 300, dw 40, desktop 20, mixed 100).`,
		Example: `  pglab tune --pg-version 11 --type web --memory 1GB --cpus 1 --connections 100 --storage ssd
  pglab tune --type oltp --format alter
  pglab tune --memory 64GB --cpus 16 --type dw --storage nvme --db-size greater_ram --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTune(env, cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.version, "pg-version", strconv.Itoa(tune.DefaultVersion), fmt.Sprintf("PostgreSQL major `version`, %d to %d", tune.MinVersion, tune.MaxVersion))
	fl.StringVar(&o.os, "os", string(tune.OSLinux), "operating `system`: linux, windows or mac")
	fl.StringVar(&o.workload, "type", string(tune.WorkloadWeb), "`workload`: web, oltp, dw (data warehouse), desktop or mixed")
	fl.StringVar(&o.memory, "memory", "", "total `memory`, a whole number of MB, GB or TB, e.g. 4GB (default: this machine's)")
	fl.StringVar(&o.cpus, "cpus", "", "`number` of CPUs (default: this machine's)")
	fl.StringVar(&o.connections, "connections", "", "max_connections, `number` from 20 (default: PGTune's default for the type)")
	fl.StringVar(&o.storage, "storage", "", "`kind` of data storage: ssd, hdd, san or nvme (default: detected from the disk of --data-dir)")
	fl.StringVar(&o.dbSize, "db-size", string(tune.DBSizeUpTo3xRAM), "database `size` relative to RAM: less_ram, mid_ram (1x-3x RAM) or greater_ram (over 3x RAM)")
	fl.StringVar(&o.format, "format", string(tune.FormatConf), "output `format`: conf, alter or json")
	fl.StringVar(&o.dataDir, "data-dir", "", "`directory` whose disk decides --storage when it is not given (default $PGDATA, else the current directory)")
	return cmd
}

func runTune(env *Env, cmd *cobra.Command, o tuneOptions) error {
	format, err := tune.ParseFormat(o.format)
	if err != nil {
		return flagError(err)
	}
	in, detected, err := o.inputs(env, cmd)
	if err != nil {
		return err
	}
	rec, err := tune.Recommend(in)
	if err != nil {
		return flagError(err)
	}
	return tune.Write(env.Stdout, rec, format, detected)
}

// inputs turns the flags into PGTune's inputs, measuring on this machine
// what was not given, and checks them against PGTune's limits.
func (o tuneOptions) inputs(env *Env, cmd *cobra.Command) (tune.Inputs, []tune.Detection, error) {
	var in tune.Inputs
	var err error
	if in.Version, err = tune.ParseVersion(o.version); err != nil {
		return in, nil, flagError(err)
	}
	if in.OS, err = tune.ParseOS(o.os); err != nil {
		return in, nil, flagError(err)
	}
	if in.Workload, err = tune.ParseWorkload(o.workload); err != nil {
		return in, nil, flagError(err)
	}
	if in.DBSize, err = tune.ParseDBSize(o.dbSize); err != nil {
		return in, nil, flagError(err)
	}
	given := cmd.Flags().Changed
	if given("connections") {
		if in.Connections, err = count(o.connections, "connections", tune.MinConnections); err != nil {
			return in, nil, err
		}
	}
	if o.dataDir != "" {
		if st, err := os.Stat(o.dataDir); err != nil || !st.IsDir() {
			return in, nil, badInput("--data-dir %s: not a directory", o.dataDir)
		}
	}
	var detected []tune.Detection
	host := detect.Host{}
	if given("memory") {
		if in.Memory, err = tune.ParseMemory(o.memory); err != nil {
			return in, nil, flagError(err)
		}
	} else {
		kb, src, err := host.MemoryKB()
		if err != nil {
			return in, nil, fmt.Errorf("cannot measure this machine's memory (%w); give --memory", err)
		}
		in.Memory = tune.MemoryFromKB(kb)
		detected = append(detected, tune.Detection{Input: tune.InputMemory, Source: src})
	}
	if given("cpus") {
		if in.CPUs, err = count(o.cpus, "cpus", 1); err != nil {
			return in, nil, err
		}
	} else {
		n, src := detect.CPUs()
		in.CPUs = n
		detected = append(detected, tune.Detection{Input: tune.InputCPUs, Source: src})
	}
	if given("storage") {
		if in.Storage, err = tune.ParseStorage(o.storage); err != nil {
			return in, nil, flagError(err)
		}
	} else {
		dir := o.dataDir
		if dir == "" {
			dir = os.Getenv("PGDATA")
		}
		if dir == "" {
			dir = "."
		}
		kind, src, err := host.Storage(dir)
		if err != nil {
			in.Storage = tune.StorageSSD
			fmt.Fprintf(env.Stderr, "pglab: tune: cannot tell the kind of storage (%v); using ssd, PGTune's default (give --storage)\n", err)
		} else {
			in.Storage = kind
			detected = append(detected, tune.Detection{Input: tune.InputStorage, Source: src})
		}
	}
	if err := in.Validate(); err != nil {
		var ie *tune.InputError
		if errors.As(err, &ie) && ie.Input == "memory" && !given("memory") {
			return in, nil, badInput("this machine's memory, %s: %s; give --memory", in.Memory, ie.Reason)
		}
		return in, nil, flagError(err)
	}
	return in, detected, nil
}

// count parses a whole number given to --name that must be at least least.
func count(s, name string, least int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, flagError(&tune.InputError{Input: name, Value: s, Reason: fmt.Sprintf("want a whole number from %d to %d", least, tune.MaxNumericValue)})
	case n < least && least == 1:
		return 0, flagError(&tune.InputError{Input: name, Value: s, Reason: "must be greater than zero"})
	case n < least:
		return 0, flagError(&tune.InputError{Input: name, Value: s, Reason: fmt.Sprintf("must be from %d to %d (PGTune's limits)", least, tune.MaxNumericValue)})
	}
	return n, nil
}

// flagError turns an input error into a one-line bad-input error naming the
// flag ("--memory 12XB: unknown unit XB; ..."); other errors pass through.
func flagError(err error) error {
	var ie *tune.InputError
	if errors.As(err, &ie) {
		return badInput("--%s", ie.Error())
	}
	return err
}
