package tune

import (
	"errors"
	"fmt"
)

// Given are the inputs a user gave (pglab tune's flags, parsed); the zero
// value of a field means "not given". DataDir is the directory whose disk
// decides Storage when it is not given (--data-dir); DefaultDataDir the
// one to look at when neither DataDir nor a server names one ($PGDATA,
// else the current directory).
type Given struct {
	Inputs
	DataDir        string
	DefaultDataDir string
}

// Server is what a target server tells about itself (pglab tune
// --target); a nil *Server is no server.
type Server struct {
	// Label names the server in messages.
	Label string
	// Version is server_version as text, VersionNum server_version_num.
	Version    string
	VersionNum int
	// MaxConnections is its max_connections.
	MaxConnections int
	// DataDirectory is its data_directory; empty when it could not be
	// read (that needs a superuser or pg_read_all_settings).
	DataDirectory string
	// Local reports whether it runs on this machine, so that this
	// machine's memory, CPUs and disks are its own.
	Local bool
}

// Host is what Resolve measures on this machine (see package
// tune/detect): its memory, its CPUs and the kind of disk that holds a
// directory, each with where it was read.
type Host interface {
	MemoryKB() (kb int64, source string, err error)
	CPUs() (n int, source string)
	Storage(dir string) (kind Storage, source string, err error)
}

// Resolved are PGTune's inputs as Resolve settled them: the inputs, which
// of them were detected and where, and warnings about inputs left at
// PGTune's defaults for want of a measure.
type Resolved struct {
	Inputs   Inputs
	Detected []Detection
	Warnings []string
}

// Resolve settles PGTune's inputs as timescaledb-tune does: what was
// given wins; what was not is read from the server when there is one
// (version, max_connections) and measured on this machine unless the
// server runs elsewhere (memory, CPUs, the kind of disk of its data);
// what is left takes PGTune's defaults. A server elsewhere needs its
// memory given; without CPUs it gets no parallel settings, and without a
// storage kind PGTune's default, ssd, with a warning. The result is
// checked with Inputs.Validate: an *InputError names a given input, other
// errors say which measure or server value PGTune does not take.
func Resolve(given Given, server *Server, host Host) (Resolved, error) {
	r := Resolved{Inputs: given.Inputs}
	in := &r.Inputs
	def := DefaultInputs()
	for _, d := range []struct {
		field *string
		def   string
	}{{(*string)(&in.OS), string(def.OS)}, {(*string)(&in.Workload), string(def.Workload)}, {(*string)(&in.DBSize), string(def.DBSize)}} {
		if *d.field == "" {
			*d.field = d.def
		}
	}
	if err := r.fromServer(given, server); err != nil {
		return r, err
	}
	if err := r.fromHost(given, server, host); err != nil {
		return r, err
	}
	if err := in.Validate(); err != nil {
		var ie *InputError
		switch {
		case errors.As(err, &ie) && ie.Input == "memory" && given.Memory.IsZero():
			return r, fmt.Errorf("this machine's memory, %s: %s; give --memory", in.Memory, ie.Reason)
		case errors.As(err, &ie) && ie.Input == "connections" && given.Connections == 0 && server != nil:
			return r, fmt.Errorf("max_connections of %s, %d: %s; give --connections", server.Label, in.Connections, ie.Reason)
		}
		return r, err
	}
	return r, nil
}

// fromServer fills the version and max_connections not given: the
// server's, or PGTune's default version.
func (r *Resolved) fromServer(given Given, server *Server) error {
	in := &r.Inputs
	switch {
	case given.Version != 0:
	case server != nil:
		v, err := VersionFromNum(server.VersionNum)
		if err != nil {
			return fmt.Errorf("--target %s runs PostgreSQL %s, which PGTune does not know (it knows %d to %d)", server.Label, server.Version, MinVersion, MaxVersion)
		}
		in.Version = v
		r.Detected = append(r.Detected, Detection{Input: InputVersion, Source: "server_version_num", Server: true})
	default:
		in.Version = DefaultVersion
	}
	if given.Connections == 0 && server != nil {
		in.Connections = server.MaxConnections
		r.Detected = append(r.Detected, Detection{Input: InputConnections, Source: "max_connections", Server: true})
	}
	return nil
}

// fromHost measures the memory, CPUs and storage not given on this
// machine, unless the server runs elsewhere.
func (r *Resolved) fromHost(given Given, server *Server, host Host) error {
	in := &r.Inputs
	remote := server != nil && !server.Local
	if remote && given.Memory.IsZero() {
		return fmt.Errorf("--target %s is not on this machine, so its memory cannot be measured: give --memory (and --cpus, --storage)", server.Label)
	}
	if given.Memory.IsZero() {
		kb, src, err := host.MemoryKB()
		if err != nil {
			return fmt.Errorf("cannot measure this machine's memory (%w); give --memory", err)
		}
		in.Memory = MemoryFromKB(kb)
		r.Detected = append(r.Detected, Detection{Input: InputMemory, Source: src})
	}
	switch {
	case given.CPUs != 0:
	case remote:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s is not on this machine and --cpus was not given: no parallel settings (as PGTune without a CPU count)", server.Label))
	default:
		n, src := host.CPUs()
		in.CPUs = n
		r.Detected = append(r.Detected, Detection{Input: InputCPUs, Source: src})
	}
	if given.Storage == "" {
		r.storage(given, server, host)
	}
	return nil
}

// storage tells the kind of disk of the data: of --data-dir, else of the
// server's data directory when it is here, else of the default directory
// when there is no server; PGTune's default, ssd, with a warning, when it
// cannot be told.
func (r *Resolved) storage(given Given, server *Server, host Host) {
	dir := given.DataDir
	if dir == "" && server != nil && server.Local {
		dir = server.DataDirectory
	}
	if dir == "" && server == nil {
		dir = given.DefaultDataDir
	}
	err := errors.New("the server's data directory is unknown (reading it needs a superuser or pg_read_all_settings)")
	if server != nil && !server.Local {
		err = fmt.Errorf("%s is not on this machine", server.Label)
	}
	var kind Storage
	var src string
	if dir != "" {
		kind, src, err = host.Storage(dir)
	}
	if err != nil {
		r.Inputs.Storage = StorageSSD
		r.Warnings = append(r.Warnings, fmt.Sprintf("cannot tell the kind of storage (%v); using ssd, PGTune's default (give --storage)", err))
		return
	}
	r.Inputs.Storage = kind
	r.Detected = append(r.Detected, Detection{Input: InputStorage, Source: src})
}
