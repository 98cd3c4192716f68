package cli

import (
	"fmt"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/bench/k8s"
)

// printManifests is --k8s-job: it prints the Kubernetes objects of a
// coordinated run of this command line (a coordinator Job and Service, an
// Indexed Job of workers; see k8s.Spec.SetCommandLine) and returns the
// exit code.
func (b *benchRun) printManifests(cfg bench.Config) int {
	f := &b.coord
	if _, err := dist.Split(cfg, f.workers); err != nil {
		return b.errorf("%s", err)
	}
	spec := k8s.Spec{Name: f.k8sJob, Namespace: f.namespace, Image: f.image, Workers: f.workers, Secret: f.secret}
	notes, err := spec.SetCommandLine(b.args, append(b.flags.extra(), b.coord.coordOptions()...), cfg)
	if err != nil {
		return b.errorf("%s", err)
	}
	out, err := k8s.Manifests(spec)
	if err != nil {
		return b.errorf("%s", err)
	}
	b.env.Stdout.Write(out)
	for _, n := range notes {
		fmt.Fprintf(b.env.Stderr, "%s: note: %s\n", benchProg, n)
	}
	return exitOK
}
