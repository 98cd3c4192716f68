package tune

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// gb and mb build Memory values for the tables.
func gb(n int64) Memory { return Memory{Amount: n, Unit: UnitGB} }
func mb(n int64) Memory { return Memory{Amount: n, Unit: UnitMB} }

// with returns PGTune's default inputs with 4 GB of memory, changed by f.
// Upstream's selector tests leave out the fields a selector does not read;
// the defaults stand in for them.
func with(f func(*Inputs)) Inputs {
	in := DefaultInputs()
	in.Memory = gb(4)
	if f != nil {
		f(&in)
	}
	return in
}

func mustRecommend(t *testing.T, in Inputs) Recommendation {
	t.Helper()
	r, err := Recommend(in)
	if err != nil {
		t.Fatalf("Recommend(%+v): %v", in, err)
	}
	return r
}

// value returns the value of name, or "<absent>".
func value(r Recommendation, name string) string {
	if p, ok := r.Get(name); ok {
		return p.Value
	}
	return "<absent>"
}

func kb(t *testing.T, r Recommendation, name string) int64 {
	t.Helper()
	p, ok := r.Get(name)
	if !ok {
		t.Fatalf("%s not recommended", name)
	}
	if p.KB == 0 {
		t.Fatalf("%s = %s has no KB value", name, p.Value)
	}
	return p.KB
}

// TestUpstreamSelectors runs every single-value vector of PGTune's own test
// file (src/features/configuration/__tests__/configurationSlice.test.js at
// 7caef27). want is the printed value; "<absent>" stands for PGTune's null.
func TestUpstreamSelectors(t *testing.T) {
	cases := []struct {
		name  string
		in    Inputs
		param string
		want  string
	}{
		{"maxConnections web", with(func(in *Inputs) { in.Workload = WorkloadWeb }), "max_connections", "200"},
		{"maxConnections oltp", with(func(in *Inputs) { in.Workload = WorkloadOLTP }), "max_connections", "300"},
		{"maxConnections dw", with(func(in *Inputs) { in.Workload = WorkloadDW }), "max_connections", "40"},
		{"maxConnections desktop", with(func(in *Inputs) { in.Workload = WorkloadDesktop }), "max_connections", "20"},
		{"maxConnections mixed", with(func(in *Inputs) { in.Workload = WorkloadMixed }), "max_connections", "100"},

		{"statistics web", with(func(in *Inputs) { in.Workload = WorkloadWeb }), "default_statistics_target", "100"},
		{"statistics oltp", with(func(in *Inputs) { in.Workload = WorkloadOLTP }), "default_statistics_target", "100"},
		{"statistics dw", with(func(in *Inputs) { in.Workload = WorkloadDW }), "default_statistics_target", "500"},
		{"statistics desktop", with(func(in *Inputs) { in.Workload = WorkloadDesktop }), "default_statistics_target", "100"},
		{"statistics mixed", with(func(in *Inputs) { in.Workload = WorkloadMixed }), "default_statistics_target", "100"},

		{"randomPageCost hdd", with(func(in *Inputs) { in.Storage = StorageHDD }), "random_page_cost", "4"},
		{"randomPageCost ssd", with(func(in *Inputs) { in.Storage = StorageSSD }), "random_page_cost", "1.1"},
		{"randomPageCost san", with(func(in *Inputs) { in.Storage = StorageSAN }), "random_page_cost", "1.1"},
		{"randomPageCost nvme", with(func(in *Inputs) { in.Storage = StorageNVMe }), "random_page_cost", "1.1"},
		{"randomPageCost hdd less_ram", with(func(in *Inputs) { in.Storage = StorageHDD; in.DBSize = DBSizeLessThanRAM }), "random_page_cost", "1.1"},
		{"randomPageCost ssd dw mid_ram", with(func(in *Inputs) { in.Storage = StorageSSD; in.Workload = WorkloadDW; in.DBSize = DBSizeUpTo3xRAM }), "random_page_cost", "4"},
		{"randomPageCost ssd dw less_ram", with(func(in *Inputs) { in.Storage = StorageSSD; in.Workload = WorkloadDW; in.DBSize = DBSizeLessThanRAM }), "random_page_cost", "1.1"},

		{"effectiveIoConcurrency linux hdd", with(func(in *Inputs) { in.OS = OSLinux; in.Storage = StorageHDD }), "effective_io_concurrency", "2"},
		{"effectiveIoConcurrency linux ssd", with(func(in *Inputs) { in.OS = OSLinux; in.Storage = StorageSSD }), "effective_io_concurrency", "200"},
		{"effectiveIoConcurrency linux san", with(func(in *Inputs) { in.OS = OSLinux; in.Storage = StorageSAN }), "effective_io_concurrency", "300"},
		{"effectiveIoConcurrency linux nvme", with(func(in *Inputs) { in.OS = OSLinux; in.Storage = StorageNVMe }), "effective_io_concurrency", "1000"},
		{"effectiveIoConcurrency windows ssd", with(func(in *Inputs) { in.OS = OSWindows; in.Storage = StorageSSD }), "effective_io_concurrency", "<absent>"},

		{"walLevel desktop", with(func(in *Inputs) { in.Workload = WorkloadDesktop }), "wal_level", "minimal"},
		{"maxWalSenders desktop", with(func(in *Inputs) { in.Workload = WorkloadDesktop }), "max_wal_senders", "0"},
		{"walLevel web", with(func(in *Inputs) { in.Workload = WorkloadWeb }), "wal_level", "<absent>"},
		{"maxWalSenders web", with(func(in *Inputs) { in.Workload = WorkloadWeb }), "max_wal_senders", "<absent>"},

		{"hugePages 4GB web linux v15", with(func(in *Inputs) { in.Version = 15 }), "huge_pages", "off"},
		{"hugePages 16GB web linux v15", with(func(in *Inputs) { in.Memory = gb(16); in.Version = 15 }), "huge_pages", "try"},
		{"hugePages 128GB web mac v15", with(func(in *Inputs) { in.Memory = gb(128); in.OS = OSMac; in.Version = 15 }), "huge_pages", "off"},

		{"jit v12 web", with(func(in *Inputs) { in.Version = 12; in.Workload = WorkloadWeb }), "jit", "off"},
		{"jit v15 oltp", with(func(in *Inputs) { in.Version = 15; in.Workload = WorkloadOLTP }), "jit", "off"},
		{"jit v15 dw", with(func(in *Inputs) { in.Version = 15; in.Workload = WorkloadDW }), "jit", "<absent>"},
		{"jit v11 web", with(func(in *Inputs) { in.Version = 11; in.Workload = WorkloadWeb }), "jit", "<absent>"},

		{"walCompression v10", with(func(in *Inputs) { in.Version = 10 }), "wal_compression", "on"},
		{"walCompression v14", with(func(in *Inputs) { in.Version = 14 }), "wal_compression", "on"},
		{"walCompression v15", with(func(in *Inputs) { in.Version = 15 }), "wal_compression", "lz4"},
		{"walCompression v17", with(func(in *Inputs) { in.Version = 17 }), "wal_compression", "lz4"},

		{"autovacuumMaxWorkers cpu 32", with(func(in *Inputs) { in.CPUs = 32 }), "autovacuum_max_workers", "5"},
		{"autovacuumMaxWorkers cpu 16", with(func(in *Inputs) { in.CPUs = 16 }), "autovacuum_max_workers", "4"},
		{"autovacuumMaxWorkers cpu 8", with(func(in *Inputs) { in.CPUs = 8 }), "autovacuum_max_workers", "<absent>"},

		{"autovacuumWorkMem 4GB web linux v15", with(func(in *Inputs) { in.Version = 15 }), "autovacuum_work_mem", "<absent>"},
		{"autovacuumWorkMem 256GB web linux v15", with(func(in *Inputs) { in.Memory = gb(256); in.Version = 15 }), "autovacuum_work_mem", "2GB"},
		{"autovacuumWorkMem 256GB web windows v17", with(func(in *Inputs) { in.Memory = gb(256); in.OS = OSWindows; in.Version = 17 }), "autovacuum_work_mem", "<absent>"},
		{"autovacuumWorkMem 256GB web windows v18", with(func(in *Inputs) { in.Memory = gb(256); in.OS = OSWindows; in.Version = 18 }), "autovacuum_work_mem", "2GB"},

		{"ioWorkers v17 cpu 32 mac", with(func(in *Inputs) { in.Version = 17; in.CPUs = 32; in.OS = OSMac }), "io_workers", "<absent>"},
		{"ioWorkers v18 mac no cpu", with(func(in *Inputs) { in.Version = 18; in.OS = OSMac }), "io_workers", "<absent>"},
		{"ioWorkers v18 cpu 8 mac", with(func(in *Inputs) { in.Version = 18; in.CPUs = 8; in.OS = OSMac }), "io_workers", "<absent>"},
		{"ioWorkers v18 cpu 32 mac", with(func(in *Inputs) { in.Version = 18; in.CPUs = 32; in.OS = OSMac }), "io_workers", "8"},
		{"ioWorkers v18 cpu 64 mac", with(func(in *Inputs) { in.Version = 18; in.CPUs = 64; in.OS = OSMac }), "io_workers", "16"},
		{"ioWorkers v18 cpu 256 mac", with(func(in *Inputs) { in.Version = 18; in.CPUs = 256; in.OS = OSMac }), "io_workers", "32"},
		{"ioWorkers v18 cpu 256 linux", with(func(in *Inputs) { in.Version = 18; in.CPUs = 256; in.OS = OSLinux }), "io_workers", "<absent>"},

		{"ioMethod v17 linux", with(func(in *Inputs) { in.Version = 17; in.OS = OSLinux }), "io_method", "<absent>"},
		{"ioMethod v18 linux", with(func(in *Inputs) { in.Version = 18; in.OS = OSLinux }), "io_method", "io_uring"},
		{"ioMethod v18 windows", with(func(in *Inputs) { in.Version = 18; in.OS = OSWindows }), "io_method", "worker"},
		{"ioMethod v18 mac", with(func(in *Inputs) { in.Version = 18; in.OS = OSMac }), "io_method", "worker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustRecommend(t, c.in)
			if got := value(r, c.param); got != c.want {
				t.Errorf("%s = %s, want %s", c.param, got, c.want)
			}
		})
	}
}

// TestUpstreamMemoryKB runs upstream's vectors that expect a number of KB.
func TestUpstreamMemoryKB(t *testing.T) {
	cases := []struct {
		name  string
		in    Inputs
		param string
		want  int64
	}{
		{"maintenanceWorkMem 256GB web linux v17", with(func(in *Inputs) { in.Memory = gb(256); in.Version = 17 }), "maintenance_work_mem", 8388608},
		{"maintenanceWorkMem 256GB web windows v17", with(func(in *Inputs) { in.Memory = gb(256); in.OS = OSWindows; in.Version = 17 }), "maintenance_work_mem", 2096128},
		{"maintenanceWorkMem 256GB web windows v18", with(func(in *Inputs) { in.Memory = gb(256); in.OS = OSWindows; in.Version = 18 }), "maintenance_work_mem", 8388608},
		{"maintenanceWorkMem 16GB web linux v15", with(func(in *Inputs) { in.Memory = gb(16); in.Version = 15 }), "maintenance_work_mem", 1048576},
		{"workMem 4GB web linux v15 conn 9999 cpu 4", with(func(in *Inputs) { in.Version = 15; in.Connections = 9999; in.CPUs = 4 }), "work_mem", 4096},
		{"workMem 256GB web windows v17 conn 20 cpu 4", with(func(in *Inputs) {
			in.Memory = gb(256)
			in.OS = OSWindows
			in.Version = 17
			in.Connections = 20
			in.CPUs = 4
		}), "work_mem", 2096128},
		// Upstream asserts only "> 2096128"; its comment gives 2796202.
		{"workMem 256GB web windows v18 conn 20 cpu 4", with(func(in *Inputs) {
			in.Memory = gb(256)
			in.OS = OSWindows
			in.Version = 18
			in.Connections = 20
			in.CPUs = 4
		}), "work_mem", 2796202},
		{"autovacuumWorkMem 256GB web linux v15", with(func(in *Inputs) { in.Memory = gb(256); in.Version = 15 }), "autovacuum_work_mem", 2097152},
		{"autovacuumWorkMem 256GB web windows v18", with(func(in *Inputs) { in.Memory = gb(256); in.OS = OSWindows; in.Version = 18 }), "autovacuum_work_mem", 2097152},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := kb(t, mustRecommend(t, c.in), c.param); got != c.want {
				t.Errorf("%s = %d kB, want %d kB", c.param, got, c.want)
			}
		})
	}
}

// TestUpstreamWorkMemDBSize checks upstream's relative vectors: less_ram
// gives floor(mid*1.3) and greater_ram floor(mid*0.9), for 64 GB web linux
// v15 with neither CPUs nor connections given.
func TestUpstreamWorkMemDBSize(t *testing.T) {
	workMem := func(size DBSize) int64 {
		return kb(t, mustRecommend(t, with(func(in *Inputs) {
			in.Memory = gb(64)
			in.Version = 15
			in.DBSize = size
		})), "work_mem")
	}
	mid := workMem(DBSizeUpTo3xRAM)
	if got, want := workMem(DBSizeLessThanRAM), int64(math.Floor(float64(mid)*1.3)); got != want {
		t.Errorf("less_ram work_mem = %d, want floor(%d*1.3) = %d", got, mid, want)
	}
	if got, want := workMem(DBSizeOver3xRAM), int64(math.Floor(float64(mid)*0.9)); got != want {
		t.Errorf("greater_ram work_mem = %d, want floor(%d*0.9) = %d", got, mid, want)
	}
	// By hand: (67108864-16777216)/((200+8)*3) = 80659.69.
	if mid != 80659 {
		t.Errorf("mid_ram work_mem = %d, want 80659", mid)
	}
}

// TestUpstreamParallelSettings runs upstream's selectParallelSettings vectors.
func TestUpstreamParallelSettings(t *testing.T) {
	names := []string{"max_worker_processes", "max_parallel_workers_per_gather", "max_parallel_workers", "max_parallel_maintenance_workers"}
	cases := []struct {
		name string
		in   Inputs
		want []string // values of names, in order; shorter when PGTune omits the rest
	}{
		{"v14 cpu 1", with(func(in *Inputs) { in.Version = 14; in.CPUs = 1 }), nil},
		{"v13 cpu 12", with(func(in *Inputs) { in.Version = 13; in.CPUs = 12 }), []string{"12", "4", "12", "4"}},
		{"v10 cpu 12", with(func(in *Inputs) { in.Version = 10; in.CPUs = 12 }), []string{"12", "4", "12"}},
		{"v10 cpu 31", with(func(in *Inputs) { in.Version = 10; in.CPUs = 31 }), []string{"31", "4", "31"}},
		{"v12 cpu 31 dw", with(func(in *Inputs) { in.Version = 12; in.CPUs = 31; in.Workload = WorkloadDW }), []string{"31", "16", "31", "4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustRecommend(t, c.in)
			var got []string
			for _, n := range names {
				if p, ok := r.Get(n); ok {
					got = append(got, p.Value)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("parallel settings = %v, want %v", got, c.want)
			}
		})
	}
}

// pgtuneWarnings flattens warnings the way PGTune's selector returns them:
// "WARNING", then each group's lines with "" between groups.
func pgtuneWarnings(ws []Warning) []string {
	if len(ws) == 0 {
		return nil
	}
	out := []string{"WARNING"}
	for i, w := range ws {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, w.Lines...)
	}
	return out
}

// TestUpstreamWarnings runs upstream's selectWarningInfoMessages vectors.
func TestUpstreamWarnings(t *testing.T) {
	lz4 := []string{"wal_compression = lz4 requires PostgreSQL", "to be compiled with --with-lz4"}
	cases := []struct {
		name string
		in   Inputs
		want []string
	}{
		{"4GB v14 linux", with(func(in *Inputs) { in.Version = 14 }), nil},
		{"128MB v14 linux", with(func(in *Inputs) { in.Memory = mb(128); in.Version = 14 }),
			[]string{"WARNING", "this tool not being optimal", "for low memory systems"}},
		{"256GB v14 linux", with(func(in *Inputs) { in.Memory = gb(256); in.Version = 14 }),
			[]string{"WARNING", "this tool not being optimal", "for very high memory systems"}},
		{"4GB v15 linux", with(func(in *Inputs) { in.Version = 15 }), append([]string{"WARNING"}, lz4...)},
		{"4GB v18 linux", with(func(in *Inputs) { in.Version = 18 }), append(append([]string{"WARNING"}, lz4...),
			"", "io_method = io_uring requires PostgreSQL", "to be compiled with --with-liburing")},
		{"64GB v15 linux dw nvme mid_ram", with(func(in *Inputs) {
			in.Memory = gb(64)
			in.Version = 15
			in.Workload = WorkloadDW
			in.Storage = StorageNVMe
			in.DBSize = DBSizeUpTo3xRAM
		}), append(append([]string{"WARNING"}, lz4...), "",
			"Cost parameters for Data Warehouses on NVMe drives are left at defaults",
			"to avoid catastrophic index scan selections",
			"Monitor query planner behavior and adjust random_page_cost if necessary")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := pgtuneWarnings(mustRecommend(t, c.in).Warnings)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("warnings =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestUpstreamIsConfigured mirrors selectIsConfigured: nothing is computed
// without a total memory.
func TestUpstreamIsConfigured(t *testing.T) {
	in := DefaultInputs()
	if _, err := Recommend(in); err == nil || !strings.Contains(err.Error(), "total memory is required") {
		t.Errorf("Recommend without memory: err = %v, want 'memory is required'", err)
	}
	in.Memory = gb(100)
	if _, err := Recommend(in); err != nil {
		t.Errorf("Recommend with 100 GB: %v", err)
	}
}

// TestSeed003Today pins today's PGTune output for seed 003's inputs (PG 11,
// linux, web, 1 GB, 1 CPU, 100 connections, ssd). The seed shows a 2020
// build's output (checkpoint_completion_target 0.7, work_mem 1310kB); today
// checkpoint_completion_target is 0.9 for every type, work_mem counts the 8
// default worker processes ((1048576-262144)/((100+8)*3) = 2427kB) and is
// raised to the 4MB floor, and huge_pages and wal_compression are added.
func TestSeed003Today(t *testing.T) {
	in := Inputs{Version: 11, OS: OSLinux, Workload: WorkloadWeb, Memory: gb(1), CPUs: 1, Connections: 100, Storage: StorageSSD, DBSize: DBSizeUpTo3xRAM}
	r := mustRecommend(t, in)
	want := [][2]string{
		{"max_connections", "100"},
		{"shared_buffers", "256MB"},
		{"effective_cache_size", "768MB"},
		{"maintenance_work_mem", "64MB"},
		{"checkpoint_completion_target", "0.9"},
		{"wal_buffers", "7864kB"},
		{"default_statistics_target", "100"},
		{"random_page_cost", "1.1"},
		{"effective_io_concurrency", "200"},
		{"work_mem", "4MB"},
		{"huge_pages", "off"},
		{"wal_compression", "on"},
		{"min_wal_size", "1GB"},
		{"max_wal_size", "4GB"},
	}
	var got [][2]string
	for _, p := range r.Parameters {
		got = append(got, [2]string{p.Name, p.Value})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parameters =\n%v\nwant\n%v", got, want)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings = %v, want none", r.Warnings)
	}
}

// TestRules covers rules no upstream vector reaches.
func TestRules(t *testing.T) {
	cases := []struct {
		name  string
		in    Inputs
		param string
		want  string
	}{
		// wal_buffers: 3% of shared_buffers; 1.5 GB gives 11796kB.
		{"wal_buffers 1536MB", with(func(in *Inputs) { in.Memory = mb(1536) }), "wal_buffers", "11796kB"},
		// 2 GB: 15728kB is above 14MB, so it is rounded up to 16MB.
		{"wal_buffers 2GB rounded up", with(func(in *Inputs) { in.Memory = gb(2) }), "wal_buffers", "16MB"},
		// 1900 MB: 3% of 486400kB = 14592kB, just above 14MB: 16MB.
		{"wal_buffers 1900MB rounded up", with(func(in *Inputs) { in.Memory = mb(1900) }), "wal_buffers", "16MB"},
		// 1860 MB: 3% of 476160kB = 14284kB, just below 14MB: kept.
		{"wal_buffers 1860MB kept", with(func(in *Inputs) { in.Memory = mb(1860) }), "wal_buffers", "14284kB"},
		{"wal_buffers 64GB capped", with(func(in *Inputs) { in.Memory = gb(64) }), "wal_buffers", "16MB"},
		// desktop 512MB: shared_buffers 32MB, 3% = 983kB.
		{"desktop shared_buffers", with(func(in *Inputs) { in.Memory = mb(512); in.Workload = WorkloadDesktop }), "shared_buffers", "32MB"},
		{"desktop wal_buffers", with(func(in *Inputs) { in.Memory = mb(512); in.Workload = WorkloadDesktop }), "wal_buffers", "983kB"},
		{"desktop effective_cache_size", with(func(in *Inputs) { in.Memory = mb(512); in.Workload = WorkloadDesktop }), "effective_cache_size", "128MB"},
		{"dw maintenance_work_mem", with(func(in *Inputs) { in.Workload = WorkloadDW }), "maintenance_work_mem", "512MB"},
		{"dw min_wal_size", with(func(in *Inputs) { in.Workload = WorkloadDW }), "min_wal_size", "4GB"},
		{"dw max_wal_size", with(func(in *Inputs) { in.Workload = WorkloadDW }), "max_wal_size", "16GB"},
		{"oltp max_wal_size", with(func(in *Inputs) { in.Workload = WorkloadOLTP }), "max_wal_size", "8GB"},
		{"desktop min_wal_size", with(func(in *Inputs) { in.Workload = WorkloadDesktop }), "min_wal_size", "100MB"},
		{"desktop jit v18", with(func(in *Inputs) { in.Workload = WorkloadDesktop }), "jit", "<absent>"},
		{"mixed jit v18", with(func(in *Inputs) { in.Workload = WorkloadMixed }), "jit", "off"},
		// Windows 32 GB dw v17: 4GB maintenance_work_mem is capped at 2GB-1MB.
		{"windows maintenance cap", with(func(in *Inputs) { in.Memory = gb(32); in.OS = OSWindows; in.Version = 17; in.Workload = WorkloadDW }), "maintenance_work_mem", "2047MB"},
		// Exactly 2GB on Windows v17 (32 GB web) is also lowered (>= since 637ff4c).
		{"windows maintenance exactly 2GB", with(func(in *Inputs) { in.Memory = gb(32); in.OS = OSWindows; in.Version = 17 }), "maintenance_work_mem", "2047MB"},
		{"linux maintenance exactly 2GB", with(func(in *Inputs) { in.Memory = gb(32); in.Version = 17 }), "maintenance_work_mem", "2GB"},
		{"linux autovacuum_work_mem exactly 2GB", with(func(in *Inputs) { in.Memory = gb(32); in.Version = 17 }), "autovacuum_work_mem", "2GB"},
		{"mac effective_io_concurrency", with(func(in *Inputs) { in.OS = OSMac }), "effective_io_concurrency", "<absent>"},
		{"4 CPUs max_worker_processes", with(func(in *Inputs) { in.CPUs = 4 }), "max_worker_processes", "4"},
		{"3 CPUs no parallel", with(func(in *Inputs) { in.CPUs = 3 }), "max_worker_processes", "<absent>"},
		{"5 CPUs per gather ceil", with(func(in *Inputs) { in.CPUs = 5 }), "max_parallel_workers_per_gather", "3"},
		// 8 GB web, 4 CPUs: (8388608-2097152)/((200+4)*3) = 10280.16.
		{"work_mem with parallel", with(func(in *Inputs) { in.Memory = gb(8); in.CPUs = 4 }), "work_mem", "10280kB"},
		// mixed halves it: floor(10280.16/2) = 5140.
		{"work_mem mixed", with(func(in *Inputs) { in.Memory = gb(8); in.CPUs = 4; in.Workload = WorkloadMixed; in.Connections = 200 }), "work_mem", "5140kB"},
		// desktop 64 GB: SB 4GB, (67108864-4194304)/((20+8)*3)/6 = 124830.5.
		{"work_mem desktop", with(func(in *Inputs) { in.Memory = gb(64); in.Workload = WorkloadDesktop }), "work_mem", "124830kB"},
		{"1 TB shared_buffers", with(func(in *Inputs) { in.Memory = Memory{1, UnitTB} }), "shared_buffers", "256GB"},
		{"io_workers windows 16 CPUs", with(func(in *Inputs) { in.OS = OSWindows; in.CPUs = 16 }), "io_workers", "4"},
		{"io_workers windows 12 CPUs", with(func(in *Inputs) { in.OS = OSWindows; in.CPUs = 12 }), "io_workers", "<absent>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := value(mustRecommend(t, c.in), c.param); got != c.want {
				t.Errorf("%s = %s, want %s", c.param, got, c.want)
			}
		})
	}
}

func TestDWWarningDriveNames(t *testing.T) {
	for st, want := range map[Storage]string{StorageSSD: "SSDs", StorageSAN: "SAN storage", StorageNVMe: "NVMe drives", StorageHDD: ""} {
		r := mustRecommend(t, with(func(in *Inputs) { in.Workload = WorkloadDW; in.Storage = st; in.Version = 14 }))
		var got string
		for _, w := range r.Warnings {
			if w.Code == WarnDWCost {
				got = strings.TrimSuffix(strings.TrimPrefix(w.Lines[0], "Cost parameters for Data Warehouses on "), " are left at defaults")
			}
		}
		if got != want {
			t.Errorf("%s: dw warning drive = %q, want %q", st, got, want)
		}
	}
}

func TestParameterOrder(t *testing.T) {
	// Every optional parameter at once: desktop is needed for wal_level,
	// but then jit is left out; check the rest of the order with oltp.
	r := mustRecommend(t, Inputs{Version: 18, OS: OSWindows, Workload: WorkloadOLTP, Memory: gb(256), CPUs: 32, Connections: 100, Storage: StorageSSD, DBSize: DBSizeUpTo3xRAM})
	want := []string{"max_connections", "shared_buffers", "effective_cache_size", "maintenance_work_mem",
		"checkpoint_completion_target", "wal_buffers", "default_statistics_target", "random_page_cost",
		"work_mem", "huge_pages", "jit", "wal_compression", "autovacuum_max_workers",
		"autovacuum_work_mem", "io_method", "io_workers", "min_wal_size", "max_wal_size",
		"max_worker_processes", "max_parallel_workers_per_gather", "max_parallel_workers", "max_parallel_maintenance_workers"}
	var got []string
	for _, p := range r.Parameters {
		got = append(got, p.Name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order =\n%v\nwant\n%v", got, want)
	}
	d := mustRecommend(t, with(func(in *Inputs) { in.Workload = WorkloadDesktop; in.CPUs = 4 }))
	n := len(d.Parameters)
	if d.Parameters[n-2].Name != "wal_level" || d.Parameters[n-1].Name != "max_wal_senders" {
		t.Errorf("desktop ends with %v, want wal_level, max_wal_senders", d.Parameters[n-2:])
	}
}

func TestRecommendRejects(t *testing.T) {
	cases := []struct {
		name string
		in   Inputs
		want string
	}{
		{"version 9", with(func(in *Inputs) { in.Version = 9 }), "tune: versions 9: PGTune knows PostgreSQL 10 to 18"},
		{"version 19", with(func(in *Inputs) { in.Version = 19 }), "tune: versions 19: PGTune knows PostgreSQL 10 to 18"},
		{"os", with(func(in *Inputs) { in.OS = "bsd" }), "tune: os bsd: unknown OS; want linux, windows or mac"},
		{"workload", with(func(in *Inputs) { in.Workload = "" }), `tune: type "": unknown type; want web, oltp, dw, desktop or mixed`},
		{"storage", with(func(in *Inputs) { in.Storage = "tape" }), "tune: storage tape: unknown storage; want ssd, hdd, san or nvme"},
		{"db size", with(func(in *Inputs) { in.DBSize = "" }), `tune: db-size "": unknown database size; want less_ram (fits in RAM), mid_ram (1x-3x RAM) or greater_ram (over 3x RAM)`},
		{"unit", with(func(in *Inputs) { in.Memory.Unit = "XB" }), `tune: memory 4XB: unknown unit "XB"; PGTune takes MB, GB or TB`},
		{"negative memory", with(func(in *Inputs) { in.Memory.Amount = -1 }), "tune: memory -1GB: must be greater than zero"},
		{"negative cpus", with(func(in *Inputs) { in.CPUs = -1 }), "tune: cpus -1: must be greater than zero"},
		{"negative connections", with(func(in *Inputs) { in.Connections = -5 }), "tune: connections -5: must be at least 20"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Recommend(c.in)
			var ie *InputError
			if err == nil || err.Error() != c.want || !errors.As(err, &ie) {
				t.Errorf("err = %v, want the InputError %q", err, c.want)
			}
		})
	}
}

func TestFormatKB(t *testing.T) {
	cases := []struct {
		kb   int64
		want string
	}{
		{7864, "7864kB"}, {1024, "1MB"}, {1536 * 1024, "1536MB"}, {1048576, "1GB"},
		{2096128, "2047MB"}, {32, "32kB"}, {8388608, "8GB"}, {1 << 30, "1024GB"},
	}
	for _, c := range cases {
		if got, unit := FormatKB(c.kb); got != c.want || !strings.HasSuffix(got, unit) {
			t.Errorf("FormatKB(%d) = %q, %q; want %q", c.kb, got, unit, c.want)
		}
	}
}
