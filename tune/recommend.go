package tune

import (
	"fmt"
	"math"
	"strconv"
)

// Upstream names the PGTune source whose rules this package follows.
const Upstream = "le0pard/pgtune@7caef27"

// Memory sizes in KB used by the rules.
const (
	kbMB = 1024
	kbGB = 1024 * 1024
)

// defaultMaxWorkerProcesses is PostgreSQL's default max_worker_processes,
// which PGTune adds to the connections in work_mem's divisor when it
// recommends no parallel settings.
const defaultMaxWorkerProcesses = 8

// Parameter is one recommended setting.
type Parameter struct {
	// Name is the PostgreSQL parameter name, e.g. "shared_buffers".
	Name string `json:"name"`
	// Value is the value in PostgreSQL's syntax, exactly as PGTune prints it:
	// "256MB", "7864kB", "0.9", "lz4". It can be used in postgresql.conf or,
	// quoted, in ALTER SYSTEM SET.
	Value string `json:"value"`
	// Unit is the unit text of a memory value ("kB", "MB" or "GB") and empty
	// for every other value.
	Unit string `json:"unit"`
	// KB is a memory value in kilobytes, and 0 for every other value.
	KB int64 `json:"kb,omitempty"`
}

// Warning is one of PGTune's warnings: a code naming it and the comment
// lines PGTune prints for it.
type Warning struct {
	Code  string   `json:"code"`
	Lines []string `json:"lines"`
}

// The warning codes.
const (
	WarnLowMemory  = "low_memory"  // under 256 MB of RAM
	WarnHighMemory = "high_memory" // over 100 GB of RAM
	WarnLZ4        = "lz4"         // wal_compression = lz4 needs a build --with-lz4
	WarnIOURing    = "io_uring"    // io_method = io_uring needs a build --with-liburing
	WarnDWCost     = "dw_cost"     // random_page_cost left at 4 for a data warehouse on fast storage
)

// Recommendation is PGTune's output for one set of inputs.
type Recommendation struct {
	// Inputs are the inputs as given (Connections stays 0 when it was not
	// given; max_connections holds the value used).
	Inputs Inputs
	// Parameters are the settings in PGTune's order, without the ones PGTune
	// leaves out for these inputs.
	Parameters []Parameter
	// Warnings are PGTune's warnings, in its order.
	Warnings []Warning
}

// Get returns the parameter called name and whether it is recommended.
func (r Recommendation) Get(name string) (Parameter, bool) {
	for _, p := range r.Parameters {
		if p.Name == name {
			return p, true
		}
	}
	return Parameter{}, false
}

// FormatKB formats a memory value in kilobytes as PGTune does: in GB or MB
// when that unit holds it exactly, otherwise in kB ("7864kB"). It returns the
// value text and its unit.
func FormatKB(kb int64) (value, unit string) {
	switch {
	case kb%kbGB == 0:
		return strconv.FormatInt(kb/kbGB, 10) + "GB", "GB"
	case kb%kbMB == 0:
		return strconv.FormatInt(kb/kbMB, 10) + "MB", "MB"
	}
	return strconv.FormatInt(kb, 10) + "kB", "kB"
}

func memParam(name string, kb int64) Parameter {
	v, u := FormatKB(kb)
	return Parameter{Name: name, Value: v, Unit: u, KB: kb}
}

func intParam(name string, v int) Parameter {
	return Parameter{Name: name, Value: strconv.Itoa(v)}
}

func numParam(name string, v float64) Parameter {
	return Parameter{Name: name, Value: strconv.FormatFloat(v, 'f', -1, 64)}
}

func textParam(name, v string) Parameter {
	return Parameter{Name: name, Value: v}
}

// Recommend computes PGTune's recommendations for in. It needs a known
// version, OS, workload, storage and database size and a positive memory;
// it does not apply the form's limits (see Inputs.Validate).
func Recommend(in Inputs) (Recommendation, error) {
	if err := in.check(); err != nil {
		return Recommendation{}, fmt.Errorf("tune: %w", err)
	}
	c := calc{in: in, mem: in.Memory.KB()}
	c.sharedBuffers = c.computeSharedBuffers()
	c.maintenanceWorkMem = c.computeMaintenanceWorkMem()

	var ps []Parameter
	add := func(p Parameter, ok bool) {
		if ok {
			ps = append(ps, p)
		}
	}
	add(intParam("max_connections", c.maxConnections()), true)
	add(memParam("shared_buffers", c.sharedBuffers), true)
	add(memParam("effective_cache_size", c.effectiveCacheSize()), true)
	add(memParam("maintenance_work_mem", c.maintenanceWorkMem), true)
	add(numParam("checkpoint_completion_target", 0.9), true)
	add(memParam("wal_buffers", c.walBuffers()), true)
	add(intParam("default_statistics_target", c.defaultStatisticsTarget()), true)
	add(numParam("random_page_cost", c.randomPageCost()), true)
	eio, ok := c.effectiveIOConcurrency()
	add(intParam("effective_io_concurrency", eio), ok)
	add(memParam("work_mem", c.workMem()), true)
	add(textParam("huge_pages", c.hugePages()), true)
	jit, ok := c.jit()
	add(textParam("jit", jit), ok)
	add(textParam("wal_compression", c.walCompression()), true)
	avw, ok := c.autovacuumMaxWorkers()
	add(intParam("autovacuum_max_workers", avw), ok)
	avm, ok := c.autovacuumWorkMem()
	add(memParam("autovacuum_work_mem", avm), ok)
	iom, ok := c.ioMethod()
	add(textParam("io_method", iom), ok)
	iow, ok := c.ioWorkers()
	add(intParam("io_workers", iow), ok)
	minWAL, maxWAL := c.walSizes()
	add(memParam("min_wal_size", minWAL), true)
	add(memParam("max_wal_size", maxWAL), true)
	ps = append(ps, c.parallelSettings()...)
	if in.Workload == WorkloadDesktop {
		// max_wal_senders must be 0 when wal_level is minimal.
		ps = append(ps, textParam("wal_level", "minimal"), intParam("max_wal_senders", 0))
	}
	return Recommendation{Inputs: in, Parameters: ps, Warnings: c.warnings()}, nil
}

// calc holds the inputs and the values other rules depend on.
type calc struct {
	in                 Inputs
	mem                int64 // total memory, KB
	sharedBuffers      int64 // KB
	maintenanceWorkMem int64 // KB
}

func (c *calc) windowsUpTo17() bool {
	return c.in.OS == OSWindows && c.in.Version <= 17
}

func (c *calc) maxConnections() int {
	if c.in.Connections > 0 {
		return c.in.Connections
	}
	return DefaultConnections(c.in.Workload)
}

func (c *calc) computeSharedBuffers() int64 {
	// PGTune caps shared_buffers at 512MB on Windows below PostgreSQL 10;
	// no version it offers is that old.
	if c.in.Workload == WorkloadDesktop {
		return c.mem / 16
	}
	return c.mem / 4
}

func (c *calc) hugePages() string {
	if c.in.OS == OSMac || c.sharedBuffers < 2*kbGB {
		return "off"
	}
	return "try"
}

func (c *calc) effectiveCacheSize() int64 {
	if c.in.Workload == WorkloadDesktop {
		return c.mem / 4
	}
	return c.mem * 3 / 4
}

func (c *calc) computeMaintenanceWorkMem() int64 {
	v := c.mem / 16
	if c.in.Workload == WorkloadDW {
		v = c.mem / 8
	}
	if c.windowsUpTo17() {
		// Windows before PostgreSQL 18 refuses 2GB: one MB less.
		if v >= 2*kbGB {
			v = 2*kbGB - kbMB
		}
		return v
	}
	return min(v, 8*kbGB)
}

func (c *calc) walSizes() (minKB, maxKB int64) {
	switch c.in.Workload {
	case WorkloadOLTP:
		return 2 * kbGB, 8 * kbGB
	case WorkloadDW:
		return 4 * kbGB, 16 * kbGB
	case WorkloadDesktop:
		return 100 * kbMB, 2 * kbGB
	}
	return 1 * kbGB, 4 * kbGB // web, mixed
}

func (c *calc) walBuffers() int64 {
	// 3% of shared_buffers, at most 16MB, rounded up to 16MB above 14MB,
	// at least 32kB.
	v := 3 * c.sharedBuffers / 100
	v = min(v, 16*kbMB)
	if v > 14*kbMB && v < 16*kbMB {
		v = 16 * kbMB
	}
	return max(v, 32)
}

func (c *calc) defaultStatisticsTarget() int {
	if c.in.Workload == WorkloadDW {
		return 500
	}
	return 100
}

func (c *calc) randomPageCost() float64 {
	switch {
	case c.in.DBSize == DBSizeLessThanRAM:
		return 1.1 // reads come from the page cache, even on HDD
	case c.in.Storage == StorageHDD:
		return 4
	case c.in.Workload == WorkloadDW:
		return 4 // keeps the planner off index scans over large ranges
	}
	return 1.1
}

func (c *calc) effectiveIOConcurrency() (int, bool) {
	if c.in.OS != OSLinux {
		return 0, false
	}
	return map[Storage]int{StorageHDD: 2, StorageSSD: 200, StorageSAN: 300, StorageNVMe: 1000}[c.in.Storage], true
}

// parallel reports whether parallel settings are recommended (4 CPUs or more).
func (c *calc) parallel() bool { return c.in.CPUs >= 4 }

func (c *calc) parallelSettings() []Parameter {
	if !c.parallel() {
		return nil
	}
	n := c.in.CPUs
	half := (n + 1) / 2
	perGather := half
	if c.in.Workload != WorkloadDW {
		perGather = min(perGather, 4)
	}
	ps := []Parameter{
		intParam("max_worker_processes", n),
		intParam("max_parallel_workers_per_gather", perGather),
		intParam("max_parallel_workers", n), // PostgreSQL 10 and later
	}
	if c.in.Version >= 11 {
		ps = append(ps, intParam("max_parallel_maintenance_workers", min(half, 4)))
	}
	return ps
}

func (c *calc) workMem() int64 {
	workers := defaultMaxWorkerProcesses
	if c.parallel() {
		workers = c.in.CPUs
	}
	base := float64(c.mem-c.sharedBuffers) / float64((c.maxConnections()+workers)*3)
	var v float64
	switch c.in.Workload {
	case WorkloadDW, WorkloadMixed:
		v = math.Floor(base / 2)
	case WorkloadDesktop:
		v = math.Floor(base / 6)
	default:
		v = math.Floor(base)
	}
	switch c.in.DBSize {
	case DBSizeLessThanRAM:
		v = math.Floor(v * 1.3)
	case DBSizeOver3xRAM:
		v = math.Floor(v * 0.9)
	}
	kb := max(int64(v), 4*kbMB)
	if c.windowsUpTo17() {
		kb = min(kb, 2*kbGB-kbMB)
	}
	return kb
}

func (c *calc) jit() (string, bool) {
	if c.in.Version >= 12 {
		switch c.in.Workload {
		case WorkloadWeb, WorkloadOLTP, WorkloadMixed:
			return "off", true
		}
	}
	return "", false
}

func (c *calc) walCompression() string {
	if c.in.Version >= 15 {
		return "lz4"
	}
	return "on"
}

func (c *calc) autovacuumMaxWorkers() (int, bool) {
	switch {
	case c.in.CPUs >= 32:
		return 5, true
	case c.in.CPUs >= 16:
		return 4, true
	}
	return 0, false
}

func (c *calc) autovacuumWorkMem() (int64, bool) {
	// On Windows up to 17, maintenance_work_mem is at most 2GB-1MB, so this
	// never applies there.
	if c.maintenanceWorkMem >= 2*kbGB {
		return 2 * kbGB, true
	}
	return 0, false
}

func (c *calc) ioMethod() (string, bool) {
	switch {
	case c.in.Version < 18:
		return "", false
	case c.in.OS == OSLinux:
		return "io_uring", true
	}
	return "worker", true
}

func (c *calc) ioWorkers() (int, bool) {
	if m, _ := c.ioMethod(); c.in.Version < 18 || c.in.CPUs == 0 || m == "io_uring" {
		return 0, false
	}
	v := min(32, max(3, c.in.CPUs/4))
	return v, v > 3
}

func (c *calc) warnings() []Warning {
	var ws []Warning
	switch {
	case c.mem < 256*kbMB:
		ws = append(ws, Warning{WarnLowMemory, []string{"this tool not being optimal", "for low memory systems"}})
	case c.mem > 100*kbGB:
		ws = append(ws, Warning{WarnHighMemory, []string{"this tool not being optimal", "for very high memory systems"}})
	}
	if c.walCompression() == "lz4" {
		ws = append(ws, Warning{WarnLZ4, []string{"wal_compression = lz4 requires PostgreSQL", "to be compiled with --with-lz4"}})
	}
	if m, _ := c.ioMethod(); m == "io_uring" {
		ws = append(ws, Warning{WarnIOURing, []string{"io_method = io_uring requires PostgreSQL", "to be compiled with --with-liburing"}})
	}
	if c.in.Workload == WorkloadDW && c.in.Storage != StorageHDD && c.in.DBSize != DBSizeLessThanRAM {
		drive := map[Storage]string{StorageSSD: "SSDs", StorageNVMe: "NVMe drives", StorageSAN: "SAN storage"}[c.in.Storage]
		ws = append(ws, Warning{WarnDWCost, []string{
			"Cost parameters for Data Warehouses on " + drive + " are left at defaults",
			"to avoid catastrophic index scan selections",
			"Monitor query planner behavior and adjust random_page_cost if necessary",
		}})
	}
	return ws
}
