package tune

import (
	"errors"
	"strings"
	"testing"
)

// fakeHost is a machine with 8 GB, 4 CPUs and an NVMe disk under /data.
type fakeHost struct{ noMemory bool }

func (h fakeHost) MemoryKB() (int64, string, error) {
	if h.noMemory {
		return 0, "", errors.New("no /proc")
	}
	return 8 << 20, "/proc/meminfo", nil
}

func (fakeHost) CPUs() (int, string) { return 4, "the CPU affinity mask" }

func (fakeHost) Storage(dir string) (Storage, string, error) {
	if dir == "/data" {
		return StorageNVMe, "/sys/block/nvme0n1/queue/rotational", nil
	}
	return "", "", errors.New("no disk for " + dir)
}

func TestResolve(t *testing.T) {
	local := &Server{Label: "pg17", Version: "17.2", VersionNum: 170002, MaxConnections: 100, DataDirectory: "/data", Local: true}
	remote := &Server{Label: "db", Version: "16.4", VersionNum: 160004, MaxConnections: 500}
	gb := func(n int64) Memory { return Memory{Amount: n, Unit: UnitGB} }
	cases := []struct {
		name     string
		given    Given
		server   *Server
		host     fakeHost
		want     Inputs
		detected string // inputs detected, "versions:server"
		warning  string
		err      string
	}{
		{name: "flags win over server and machine",
			given:  Given{Inputs: Inputs{Version: 16, Memory: gb(2), CPUs: 2, Connections: 50, Storage: StorageHDD, Workload: WorkloadOLTP}},
			server: local,
			want:   Inputs{Version: 16, OS: OSLinux, Workload: WorkloadOLTP, Memory: gb(2), CPUs: 2, Connections: 50, Storage: StorageHDD, DBSize: DBSizeUpTo3xRAM}},
		{name: "server values, machine measures for a local server",
			server:   local,
			want:     Inputs{Version: 17, OS: OSLinux, Workload: WorkloadWeb, Memory: gb(8), CPUs: 4, Connections: 100, Storage: StorageNVMe, DBSize: DBSizeUpTo3xRAM},
			detected: "versions:server connections:server memory cpus storage"},
		{name: "measured without a server, PGTune's defaults for the rest",
			given:    Given{DefaultDataDir: "/data"},
			want:     Inputs{Version: DefaultVersion, OS: OSLinux, Workload: WorkloadWeb, Memory: gb(8), CPUs: 4, Storage: StorageNVMe, DBSize: DBSizeUpTo3xRAM},
			detected: "memory cpus storage"},
		{name: "storage not told: ssd with a warning",
			given:   Given{Inputs: Inputs{Memory: gb(4), CPUs: 2}, DataDir: "/elsewhere"},
			want:    Inputs{Version: DefaultVersion, OS: OSLinux, Workload: WorkloadWeb, Memory: gb(4), CPUs: 2, Storage: StorageSSD, DBSize: DBSizeUpTo3xRAM},
			warning: "cannot tell the kind of storage (no disk for /elsewhere); using ssd"},
		{name: "remote server without --memory",
			server: remote,
			err:    "--target db is not on this machine, so its memory cannot be measured: give --memory"},
		{name: "remote server with --memory: no CPUs, no storage",
			given:    Given{Inputs: Inputs{Memory: gb(16)}},
			server:   remote,
			want:     Inputs{Version: 16, OS: OSLinux, Workload: WorkloadWeb, Memory: gb(16), Connections: 500, Storage: StorageSSD, DBSize: DBSizeUpTo3xRAM},
			detected: "versions:server connections:server",
			warning:  "db is not on this machine and --cpus was not given: no parallel settings"},
		{name: "a server version PGTune does not know",
			server: &Server{Label: "old", Version: "9.6", VersionNum: 90600, Local: true},
			err:    "--target old runs PostgreSQL 9.6, which PGTune does not know"},
		{name: "a server's max_connections below PGTune's limit",
			given:  Given{Inputs: Inputs{Memory: gb(1)}},
			server: &Server{Label: "tiny", VersionNum: 170000, MaxConnections: 10, Local: true, DataDirectory: "/data"},
			err:    "max_connections of tiny, 10: must be from 20 to 999999 (PGTune's limits); give --connections"},
		{name: "memory that cannot be measured",
			host: fakeHost{noMemory: true},
			err:  "cannot measure this machine's memory (no /proc); give --memory"},
		{name: "a given value PGTune does not take",
			given: Given{Inputs: Inputs{Memory: Memory{Amount: 100, Unit: UnitMB}}},
			err:   "memory 100MB: must be at least 512 MB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(c.given, c.server, c.host)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Inputs != c.want {
				t.Errorf("inputs = %+v\nwant     %+v", r.Inputs, c.want)
			}
			var got []string
			for _, d := range r.Detected {
				s := d.Input
				if d.Server {
					s += ":server"
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != c.detected {
				t.Errorf("detected %q, want %q", strings.Join(got, " "), c.detected)
			}
			if w := strings.Join(r.Warnings, "; "); !strings.Contains(w, c.warning) || (c.warning == "") != (w == "") {
				t.Errorf("warnings %q, want %q", w, c.warning)
			}
		})
	}
}
