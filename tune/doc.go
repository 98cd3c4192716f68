// Package tune is pglab's tuning advisor: PGTune's recommendations
// (le0pard/pgtune at commit 7caef27, see Upstream) as pure functions of its
// inputs.
//
// The inputs are those of PGTune's form: PostgreSQL major version (10 to 18),
// OS (linux, windows, mac), workload (web, oltp, dw, desktop, mixed), total
// memory (a whole number of MB, GB or TB), CPUs and connections (both
// optional), storage (ssd, hdd, san, nvme) and database size relative to RAM
// (less_ram, mid_ram, greater_ram). [Recommend] turns them into the same
// parameters, values and warnings PGTune gives, each value in PostgreSQL's
// syntax ("7864kB", "0.9", "lz4"), so that a caller can compare them with a
// live server's settings or apply them with [AlterSystem]. [Text] and [JSON]
// render a recommendation as PGTune's postgresql.conf and ALTER SYSTEM tabs
// or as a JSON document.
//
// Nothing here reads the machine or talks to a server: package tune/detect
// measures memory, CPUs and storage for callers that were not given them,
// and package tune/apply compares a recommendation with a live server,
// applies it with ALTER SYSTEM and reverts it.
package tune
