package tune

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// OS is the operating system PostgreSQL runs on, as PGTune names it.
type OS string

// The operating systems PGTune knows.
const (
	OSLinux   OS = "linux"
	OSWindows OS = "windows"
	OSMac     OS = "mac"
)

// Workload is PGTune's "DB Type": what the database is used for.
type Workload string

// The workloads PGTune knows.
const (
	WorkloadWeb     Workload = "web"     // web application
	WorkloadOLTP    Workload = "oltp"    // online transaction processing
	WorkloadDW      Workload = "dw"      // data warehouse
	WorkloadDesktop Workload = "desktop" // desktop application
	WorkloadMixed   Workload = "mixed"   // mixed type of application
)

// Storage is PGTune's "Data Storage": the kind of disk holding the data.
type Storage string

// The storage kinds PGTune knows.
const (
	StorageSSD  Storage = "ssd"
	StorageHDD  Storage = "hdd"
	StorageSAN  Storage = "san"
	StorageNVMe Storage = "nvme"
)

// DBSize is PGTune's "Database Size": how big the data is compared with RAM.
type DBSize string

// The database sizes PGTune knows.
const (
	DBSizeLessThanRAM DBSize = "less_ram"    // the database fits in RAM
	DBSizeUpTo3xRAM   DBSize = "mid_ram"     // between 1x and 3x RAM (PGTune's default)
	DBSizeOver3xRAM   DBSize = "greater_ram" // more than 3x RAM
)

// MemoryUnit is a unit in which PGTune takes the total memory.
type MemoryUnit string

// The memory units PGTune takes, 1024-based.
const (
	UnitMB MemoryUnit = "MB"
	UnitGB MemoryUnit = "GB"
	UnitTB MemoryUnit = "TB"
)

// kbPer gives the kilobytes in one unit.
var kbPer = map[MemoryUnit]int64{UnitMB: 1 << 10, UnitGB: 1 << 20, UnitTB: 1 << 30}

// Limits of PGTune's input form (validation.js).
const (
	// MaxNumericValue is the largest memory amount, CPU count or connection
	// count PGTune's form accepts.
	MaxNumericValue = 999999
	// MinMemoryMB is the smallest memory PGTune's form accepts when the unit is MB.
	MinMemoryMB = 512
	// MinConnections is the smallest connection count PGTune's form accepts.
	MinConnections = 20
)

// Versions PGTune knows, newest first, and the one it assumes.
const (
	// DefaultVersion is the PostgreSQL major version PGTune selects by default.
	DefaultVersion = 18
	// MinVersion is the oldest PostgreSQL major version PGTune offers.
	MinVersion = 10
	// MaxVersion is the newest PostgreSQL major version PGTune offers.
	MaxVersion = 18
)

// Memory is an amount of RAM as PGTune takes it: a whole number of MB, GB or TB.
// The header prints it as typed ("4 GB"), and every computation uses KB.
type Memory struct {
	Amount int64
	Unit   MemoryUnit
}

// KB returns the memory in kilobytes (1024 bytes), or 0 for an unknown unit.
func (m Memory) KB() int64 { return m.Amount * kbPer[m.Unit] }

// String returns the memory as PGTune's header prints it, e.g. "4 GB".
func (m Memory) String() string { return fmt.Sprintf("%d %s", m.Amount, m.Unit) }

// IsZero reports whether no memory was given.
func (m Memory) IsZero() bool { return m.Amount == 0 }

// MemoryFromKB returns kb as a Memory that PGTune takes: whole megabytes
// (rounded down), in GB or TB when that unit holds them exactly. Beyond
// 999999 MB (PGTune's largest number) it rounds down to whole GB, and beyond
// 999999 GB to whole TB. It is meant for memory measured on a machine or
// read from a server.
func MemoryFromKB(kb int64) Memory {
	mb := kb / 1024
	switch {
	case mb > 0 && mb%(1<<20) == 0:
		return Memory{Amount: mb >> 20, Unit: UnitTB}
	case mb > 0 && mb%(1<<10) == 0 && mb>>10 <= MaxNumericValue:
		return Memory{Amount: mb >> 10, Unit: UnitGB}
	case mb <= MaxNumericValue:
		return Memory{Amount: mb, Unit: UnitMB}
	case mb>>10 <= MaxNumericValue:
		return Memory{Amount: mb >> 10, Unit: UnitGB}
	}
	return Memory{Amount: mb >> 20, Unit: UnitTB}
}

// InputError is an input that PGTune does not take.
type InputError struct {
	// Input names the input as pglab's flags do: "versions", "os", "type",
	// "memory", "cpus", "connections", "storage", "db-size" or "format".
	Input string
	// Value is the value as given.
	Value string
	// Reason says what is wrong and what is accepted.
	Reason string
}

// Error returns "input value: reason", e.g. "os nosuch: unknown OS; want
// linux, windows or mac".
func (e *InputError) Error() string {
	v := e.Value
	if v == "" || strings.ContainsAny(v, " \t\"") {
		v = strconv.Quote(v)
	}
	return e.Input + " " + v + ": " + e.Reason
}

func inputError(input, value, format string, args ...any) *InputError {
	return &InputError{Input: input, Value: value, Reason: fmt.Sprintf(format, args...)}
}

var memoryRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)$`)

// ParseMemory parses a memory amount such as "4GB", "512MB", "1 TB" or
// "4gb": a whole number and one of PGTune's units (MB, GB, TB, any case).
// It checks the syntax and that the amount is not zero; Inputs.Validate
// checks PGTune's limits. Errors are *InputError.
func ParseMemory(s string) (Memory, error) {
	m := memoryRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Memory{}, inputError("memory", s, "want a whole number and a unit (MB, GB or TB), e.g. 4GB")
	}
	unit := MemoryUnit(strings.ToUpper(m[2]))
	if m[2] != "" {
		if _, ok := kbPer[unit]; !ok {
			return Memory{}, inputError("memory", s, "unknown unit %s; PGTune takes MB, GB or TB", m[2])
		}
	}
	if strings.Contains(m[1], ".") {
		return Memory{}, inputError("memory", s, "want a whole number of MB, GB or TB (as PGTune), e.g. 1536MB for 1.5GB")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return Memory{}, inputError("memory", s, "too large")
	}
	if n == 0 {
		return Memory{}, inputError("memory", s, "must be greater than zero")
	}
	if m[2] == "" {
		return Memory{}, inputError("memory", s, "missing unit (MB, GB or TB), e.g. %dGB", n)
	}
	return Memory{Amount: n, Unit: unit}, nil
}

// ParseVersion parses a PostgreSQL major version that PGTune knows ("10" to
// "18"). Errors are *InputError.
func ParseVersion(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < MinVersion || v > MaxVersion {
		return 0, inputError("versions", s, "PGTune knows PostgreSQL %d to %d", MinVersion, MaxVersion)
	}
	return v, nil
}

// VersionFromNum returns the major version of a server_version_num (170002
// gives 17), for inputs read from a live server. Errors are *InputError when
// PGTune does not know that major version.
func VersionFromNum(num int) (int, error) {
	v := num / 10000
	if num < 100000 || v < MinVersion || v > MaxVersion {
		return 0, inputError("versions", strconv.Itoa(num), "not a version PGTune knows; PGTune knows PostgreSQL %d to %d", MinVersion, MaxVersion)
	}
	return v, nil
}

// ParseOS parses an operating system name: linux, windows or mac. Errors
// are *InputError.
func ParseOS(s string) (OS, error) {
	switch o := OS(s); o {
	case OSLinux, OSWindows, OSMac:
		return o, nil
	}
	return "", inputError("os", s, "unknown OS; want linux, windows or mac")
}

// ParseWorkload parses a workload (PGTune's DB type): web, oltp, dw, desktop
// or mixed. Errors are *InputError.
func ParseWorkload(s string) (Workload, error) {
	switch w := Workload(s); w {
	case WorkloadWeb, WorkloadOLTP, WorkloadDW, WorkloadDesktop, WorkloadMixed:
		return w, nil
	}
	return "", inputError("type", s, "unknown type; want web, oltp, dw, desktop or mixed")
}

// ParseStorage parses a storage kind: ssd, hdd, san or nvme. Errors are
// *InputError.
func ParseStorage(s string) (Storage, error) {
	switch st := Storage(s); st {
	case StorageSSD, StorageHDD, StorageSAN, StorageNVMe:
		return st, nil
	}
	return "", inputError("storage", s, "unknown storage; want ssd, hdd, san or nvme")
}

// ParseDBSize parses a database size relative to RAM: less_ram, mid_ram or
// greater_ram. Errors are *InputError.
func ParseDBSize(s string) (DBSize, error) {
	switch d := DBSize(s); d {
	case DBSizeLessThanRAM, DBSizeUpTo3xRAM, DBSizeOver3xRAM:
		return d, nil
	}
	return "", inputError("db-size", s, "unknown database size; want less_ram (fits in RAM), mid_ram (1x-3x RAM) or greater_ram (over 3x RAM)")
}

// Inputs are everything PGTune asks for. The zero values of CPUs and
// Connections mean "not given", as in PGTune's form: no parallel settings
// are computed without CPUs, and max_connections takes the workload's
// default without Connections. Every other field must be set; DefaultInputs
// gives PGTune's defaults.
type Inputs struct {
	Version     int // PostgreSQL major version, MinVersion..MaxVersion
	OS          OS
	Workload    Workload
	Memory      Memory
	CPUs        int // 0: not given
	Connections int // 0: not given
	Storage     Storage
	DBSize      DBSize
}

// DefaultInputs returns PGTune's form defaults: PostgreSQL 18, linux, web,
// ssd, database of 1x-3x RAM, and no memory, CPUs or connections.
func DefaultInputs() Inputs {
	return Inputs{
		Version:  DefaultVersion,
		OS:       OSLinux,
		Workload: WorkloadWeb,
		Storage:  StorageSSD,
		DBSize:   DBSizeUpTo3xRAM,
	}
}

// DefaultConnections returns the max_connections PGTune uses for a workload
// when no connection count is given, or 0 for an unknown workload.
func DefaultConnections(w Workload) int {
	return map[Workload]int{
		WorkloadWeb:     200,
		WorkloadOLTP:    300,
		WorkloadDW:      40,
		WorkloadDesktop: 20,
		WorkloadMixed:   100,
	}[w]
}

// check verifies what the formulas need: known names, a known version,
// some memory and no negative counts.
func (in Inputs) check() error {
	if in.Version < MinVersion || in.Version > MaxVersion {
		return inputError("versions", strconv.Itoa(in.Version), "PGTune knows PostgreSQL %d to %d", MinVersion, MaxVersion)
	}
	if _, err := ParseOS(string(in.OS)); err != nil {
		return err
	}
	if _, err := ParseWorkload(string(in.Workload)); err != nil {
		return err
	}
	if _, err := ParseStorage(string(in.Storage)); err != nil {
		return err
	}
	if _, err := ParseDBSize(string(in.DBSize)); err != nil {
		return err
	}
	mem := fmt.Sprintf("%d%s", in.Memory.Amount, in.Memory.Unit)
	if in.Memory.IsZero() {
		return inputError("memory", "", "total memory is required")
	}
	if _, ok := kbPer[in.Memory.Unit]; !ok {
		return inputError("memory", mem, "unknown unit %q; PGTune takes MB, GB or TB", in.Memory.Unit)
	}
	if in.Memory.Amount < 0 {
		return inputError("memory", mem, "must be greater than zero")
	}
	if in.CPUs < 0 {
		return inputError("cpus", strconv.Itoa(in.CPUs), "must be greater than zero")
	}
	if in.Connections < 0 {
		return inputError("connections", strconv.Itoa(in.Connections), "must be at least %d", MinConnections)
	}
	return nil
}

// Validate checks the inputs against PGTune's form: known names and version,
// memory of at least 512 MB (or 1 GB/TB) and at most 999999 of its unit, CPUs
// from 1 and connections from 20 when given, both at most 999999. Recommend
// itself accepts more (any positive memory, any non-negative count), as
// PGTune's formulas do. Errors are *InputError.
func (in Inputs) Validate() error {
	if err := in.check(); err != nil {
		return err
	}
	mem := fmt.Sprintf("%d%s", in.Memory.Amount, in.Memory.Unit)
	if in.Memory.Unit == UnitMB && in.Memory.Amount < MinMemoryMB {
		return inputError("memory", mem, "must be at least %d MB (PGTune's minimum)", MinMemoryMB)
	}
	if in.Memory.Amount > MaxNumericValue {
		return inputError("memory", mem, "must be at most %d %s (PGTune's maximum); use a larger unit", MaxNumericValue, in.Memory.Unit)
	}
	if in.CPUs > MaxNumericValue {
		return inputError("cpus", strconv.Itoa(in.CPUs), "must be at most %d (PGTune's maximum)", MaxNumericValue)
	}
	if in.Connections != 0 && (in.Connections < MinConnections || in.Connections > MaxNumericValue) {
		return inputError("connections", strconv.Itoa(in.Connections), "must be from %d to %d (PGTune's limits)", MinConnections, MaxNumericValue)
	}
	return nil
}
