package apply

import (
	"context"

	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/detect"
)

// Inputs completes in with what the server tells and, when it runs on
// this machine, what the machine tells, as tune.Resolve does for pglab
// tune --target: Version and Connections (when 0) from the server, and for
// a local server Memory, CPUs and Storage (when not set) measured here.
// The detections list what was filled in and from where; warnings (inputs
// left at PGTune's defaults) are dropped. A server elsewhere needs Memory.
func (s *Server) Inputs(ctx context.Context, in tune.Inputs) (tune.Inputs, []tune.Detection, error) {
	srv := &tune.Server{Label: s.Label, Local: s.Local}
	if in.Version == 0 || in.Connections == 0 || (s.Local && in.Storage == "") {
		f, err := s.Facts(ctx)
		if err != nil {
			return in, nil, err
		}
		srv.Version, srv.VersionNum, srv.MaxConnections, srv.DataDirectory = f.Version, f.VersionNum, f.MaxConnections, f.DataDirectory
	}
	r, err := tune.Resolve(tune.Given{Inputs: in}, srv, detect.Host{})
	if err != nil {
		return in, nil, err
	}
	return r.Inputs, r.Detected, nil
}
