package apply

import (
	"context"
	"fmt"

	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/detect"
)

// Inputs completes in with what the server tells and, when it runs on
// this machine, what the machine tells: Version (when 0) from
// server_version_num, Connections (when 0) from max_connections, and for a
// local server Memory (when zero) from /proc/meminfo, CPUs (when 0) from
// the CPU affinity mask and Storage (when empty) from the disk holding the
// data directory. Empty OS, Workload and DBSize take PGTune's defaults;
// Storage that cannot be told is PGTune's default, ssd. The detections
// list what was filled in and from where. A server elsewhere needs Memory;
// its CPUs stay unknown (no parallel settings) when not given. The result
// is checked with tune.Inputs.Validate.
//
// It is what pglab tune --target does when no input flag is given, for Go
// callers such as a study.
func (s *Server) Inputs(ctx context.Context, in tune.Inputs) (tune.Inputs, []tune.Detection, error) {
	def := tune.DefaultInputs()
	if in.OS == "" {
		in.OS = def.OS
	}
	if in.Workload == "" {
		in.Workload = def.Workload
	}
	if in.DBSize == "" {
		in.DBSize = def.DBSize
	}
	var detected []tune.Detection
	if in.Version == 0 || in.Connections == 0 || (s.Local && in.Storage == "") {
		f, err := s.Facts(ctx)
		if err != nil {
			return in, nil, err
		}
		if in.Version == 0 {
			if in.Version, err = tune.VersionFromNum(f.VersionNum); err != nil {
				return in, nil, fmt.Errorf("%s runs PostgreSQL %s: %w", s.Label, f.Version, err)
			}
			detected = append(detected, tune.Detection{Input: tune.InputVersion, Source: "server_version_num", Server: true})
		}
		if in.Connections == 0 {
			in.Connections = f.MaxConnections
			detected = append(detected, tune.Detection{Input: tune.InputConnections, Source: "max_connections", Server: true})
		}
		if s.Local && in.Storage == "" && f.DataDirectory != "" {
			if kind, src, err := (detect.Host{}).Storage(f.DataDirectory); err == nil {
				in.Storage = kind
				detected = append(detected, tune.Detection{Input: tune.InputStorage, Source: src})
			}
		}
	}
	if in.Storage == "" {
		in.Storage = def.Storage
	}
	if in.Memory.IsZero() {
		if !s.Local {
			return in, nil, fmt.Errorf("%s is not on this machine, so its memory cannot be measured: give the memory", s.Label)
		}
		kb, src, err := (detect.Host{}).MemoryKB()
		if err != nil {
			return in, nil, fmt.Errorf("cannot measure this machine's memory: %w", err)
		}
		in.Memory = tune.MemoryFromKB(kb)
		detected = append(detected, tune.Detection{Input: tune.InputMemory, Source: src})
	}
	if in.CPUs == 0 && s.Local {
		n, src := detect.CPUs()
		in.CPUs = n
		detected = append(detected, tune.Detection{Input: tune.InputCPUs, Source: src})
	}
	if err := in.Validate(); err != nil {
		return in, nil, err
	}
	return in, detected, nil
}
