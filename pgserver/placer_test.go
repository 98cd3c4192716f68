package pgserver_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"golang.org/x/sys/unix"
)

// recordingPlacer records on which thread each fork was prepared and
// undone.
type recordingPlacer struct {
	mu       sync.Mutex
	prepared []int
	undone   []int
	fail     error
}

func (p *recordingPlacer) PrepareFork(attr *syscall.SysProcAttr) (func() error, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return nil, p.fail
	}
	if attr == nil || attr.Credential == nil && !attr.Setpgid {
		return nil, errors.New("PrepareFork got the wrong process attributes")
	}
	p.prepared = append(p.prepared, unix.Gettid())
	return func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.undone = append(p.undone, unix.Gettid())
		return nil
	}, nil
}

// TestPlacerAroundEveryStart checks the hook an environment uses: called
// at every start of the postmaster (restarts too), and undone on the same
// OS thread that forked it.
func TestPlacerAroundEveryStart(t *testing.T) {
	p := &recordingPlacer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: pgtest.Binaries(t, pgtest.DefaultVersion()), Name: "placer", Placer: p})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Destroy(context.Background())
	if err := inst.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.prepared) != 2 || len(p.undone) != 2 {
		t.Fatalf("prepared %v, undone %v: want one of each per start (2)", p.prepared, p.undone)
	}
	for i := range p.prepared {
		if p.prepared[i] != p.undone[i] {
			t.Errorf("start %d: prepared on thread %d, undone on %d", i+1, p.prepared[i], p.undone[i])
		}
	}
}

func TestPlacerFailureStartsNothing(t *testing.T) {
	p := &recordingPlacer{fail: errors.New("no cgroup for you")}
	dir := pgtest.TempDir(t)
	_, err := pgserver.Start(context.Background(), pgserver.Options{Binaries: pgtest.Binaries(t, pgtest.DefaultVersion()), Name: "placer", Dir: dir + "/inst", Placer: p})
	if err == nil || !strings.Contains(err.Error(), "place the server: no cgroup for you") {
		t.Fatalf("Start with a failing placer: %v", err)
	}
	if left := pgtest.ProcessesUnder(dir); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
}
