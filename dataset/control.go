package dataset

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ClusterState is the state pg_control records for a data directory, as
// pg_controldata prints it ("shut down", "in production", …).
type ClusterState string

// ShutDown is the state of a cleanly stopped server: its last record is a
// shutdown checkpoint, nothing to recover.
const ShutDown ClusterState = "shut down"

// controlFacts are the leading fields of ControlFileData (pg_control.h),
// laid out alike in every release since 9.x: system_identifier (uint64),
// pg_control_version and catalog_version_no (uint32), state (an enum),
// time (int64), checkPoint (XLogRecPtr), then the checkpoint's copy:
// redo (XLogRecPtr) and ThisTimeLineID (uint32).
type controlFacts struct {
	SystemID   uint64
	State      ClusterState
	Checkpoint uint64
	Timeline   uint32
}

var dbStates = []ClusterState{"starting up", ShutDown, "shut down in recovery", "shutting down",
	"in crash recovery", "in archive recovery", "in production"}

// readControl reads global/pg_control of a data directory.
func readControl(dataDir string) (controlFacts, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "global", "pg_control"))
	if err != nil {
		return controlFacts{}, fmt.Errorf("read pg_control: %w", err)
	}
	if len(b) < 52 {
		return controlFacts{}, fmt.Errorf("pg_control of %s: %d bytes, too short", dataDir, len(b))
	}
	le := binary.LittleEndian
	f := controlFacts{SystemID: le.Uint64(b[0:]), Checkpoint: le.Uint64(b[32:]), Timeline: le.Uint32(b[48:])}
	if s := int(le.Uint32(b[16:])); s < len(dbStates) {
		f.State = dbStates[s]
	} else {
		f.State = ClusterState("unknown state " + strconv.Itoa(s))
	}
	return f, nil
}

// State returns the cluster state pg_control records for dataDir.
func State(dataDir string) (ClusterState, error) {
	f, err := readControl(dataDir)
	return f.State, err
}

// TrimWAL removes the WAL segments after the one holding the shutdown
// checkpoint of a cleanly stopped cluster: segments the server recycled for
// later use (up to max_wal_size of them) hold nothing it needs, and every
// clone would copy them. It returns the bytes removed.
func TrimWAL(dataDir string) (int64, error) {
	f, err := readControl(dataDir)
	if err != nil {
		return 0, err
	}
	if f.State != ShutDown {
		return 0, fmt.Errorf("data directory %s is %q, not %q", dataDir, f.State, ShutDown)
	}
	walDir := filepath.Join(dataDir, "pg_wal")
	ents, err := os.ReadDir(walDir)
	if err != nil {
		return 0, err
	}
	var removed int64
	for _, e := range ents {
		tli, seg, size, ok := segmentOf(walDir, e)
		if !ok || tli != f.Timeline || size == 0 || seg <= f.Checkpoint/uint64(size) {
			continue
		}
		if err := os.Remove(filepath.Join(walDir, e.Name())); err != nil {
			return removed, err
		}
		removed += size
	}
	return removed, nil
}

// segmentOf parses a WAL segment's name (timeline, then the segment
// number in two 8-digit halves of 4 GiB / segment size each) and size.
func segmentOf(dir string, e os.DirEntry) (tli uint32, seg uint64, size int64, ok bool) {
	name := e.Name()
	if len(name) != 24 || !e.Type().IsRegular() {
		return 0, 0, 0, false
	}
	t, err1 := strconv.ParseUint(name[:8], 16, 32)
	hi, err2 := strconv.ParseUint(name[8:16], 16, 32)
	lo, err3 := strconv.ParseUint(name[16:], 16, 32)
	info, err4 := e.Info()
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || info.Size() <= 0 {
		return 0, 0, 0, false
	}
	size = info.Size()
	perID := uint64(1<<32) / uint64(size)
	return uint32(t), hi*perID + lo, size, true
}
