package tune

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenSets are the input sets whose output is kept in testdata.
var goldenSets = []struct {
	name     string
	in       Inputs
	detected []Detection
}{
	{"seed003", Inputs{Version: 11, OS: OSLinux, Workload: WorkloadWeb, Memory: gb(1), CPUs: 1, Connections: 100, Storage: StorageSSD, DBSize: DBSizeUpTo3xRAM}, nil},
	{"pg18-dw-nvme-64gb", Inputs{Version: 18, OS: OSLinux, Workload: WorkloadDW, Memory: gb(64), CPUs: 16, Storage: StorageNVMe, DBSize: DBSizeUpTo3xRAM}, nil},
	{"pg17-windows-oltp-256gb", Inputs{Version: 17, OS: OSWindows, Workload: WorkloadOLTP, Memory: gb(256), CPUs: 32, Connections: 500, Storage: StorageSAN, DBSize: DBSizeOver3xRAM}, nil},
	{"pg16-desktop-detected", Inputs{Version: 16, OS: OSLinux, Workload: WorkloadDesktop, Memory: mb(24105), CPUs: 2, Storage: StorageHDD, DBSize: DBSizeLessThanRAM},
		[]Detection{{Input: InputMemory, Source: "/proc/meminfo"}, {Input: InputCPUs, Source: "the CPU affinity mask"}, {Input: InputStorage, Source: "/sys/block/vda/queue/rotational"}}},
	// pglab tune --target on a local server: version and connections read
	// from it, memory and CPUs measured on this machine.
	{"pg17-target-detected", Inputs{Version: 17, OS: OSLinux, Workload: WorkloadOLTP, Memory: gb(8), CPUs: 4, Connections: 100, Storage: StorageSSD, DBSize: DBSizeUpTo3xRAM},
		[]Detection{{Input: InputVersion, Source: "server_version_num", Server: true}, {Input: InputConnections, Source: "max_connections", Server: true},
			{Input: InputMemory, Source: "/proc/meminfo"}, {Input: InputCPUs, Source: "the CPU affinity mask"}}},
}

func TestGolden(t *testing.T) {
	for _, g := range goldenSets {
		r := mustRecommend(t, g.in)
		for _, f := range []Format{FormatConf, FormatAlter, FormatJSON} {
			t.Run(g.name+"."+string(f), func(t *testing.T) {
				var buf bytes.Buffer
				if err := Write(&buf, r, f, g.detected); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", g.name+"."+string(f)+".golden")
				if *update {
					if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./tune -update to create it)", err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Errorf("output differs from %s:\n%s", path, buf.Bytes())
				}
			})
		}
	}
}
