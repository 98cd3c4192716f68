package observe

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// WALInspectSince is the first major version with pg_walinspect, which
// WALRecords reads.
const WALInspectSince = 15

// WAL-by-record metric names: a prefix and the record type
// ("Heap2/PRUNE_VACUUM_SCAN"), one metric per record type seen.
const (
	// WALRecCountPrefix names a record type's count.
	WALRecCountPrefix = "wal_rec_count:"
	// WALRecBytesPrefix names its bytes without full-page images.
	WALRecBytesPrefix = "wal_rec_bytes:"
	// WALFPIBytesPrefix names the bytes of its full-page images.
	WALFPIBytesPrefix = "wal_fpi_bytes:"
	// WALRecTotalBytes is the sum of every record type's bytes with
	// their full-page images: the WAL the record types account for.
	WALRecTotalBytes = "wal_rec_total_bytes"
)

// WALRecordType is one resource manager's record type over a range of
// WAL, as pg_get_wal_stats(start, end, per_record => true) gives it.
type WALRecordType struct {
	// Rmgr is the resource manager ("Heap2"), Record the record type
	// within it ("PRUNE_VACUUM_SCAN"; "INSERT+INIT" when it initialised
	// the page). Names change between versions: 17 split 16's
	// Heap2/PRUNE into PRUNE_ON_ACCESS, PRUNE_VACUUM_SCAN and
	// PRUNE_VACUUM_CLEANUP and folded Heap2/VACUUM and FREEZE_PAGE into
	// them.
	Rmgr   string `json:"rmgr"`
	Record string `json:"record"`
	Count  int64  `json:"count"`
	// RecordBytes are the records' bytes without their full-page images;
	// FPIBytes those of the images (compressed when wal_compression is
	// on). Their sum is what pg_stat_wal's wal_bytes counts.
	RecordBytes int64 `json:"record_bytes"`
	FPIBytes    int64 `json:"fpi_bytes"`
}

// Name is "Rmgr/Record".
func (r WALRecordType) Name() string { return r.Rmgr + "/" + r.Record }

// WALRecords is the WAL written between two positions, by record type.
type WALRecords struct {
	// Start and End bound the WAL read: [Start, End), as LSN text.
	Start, End string
	// Bytes is End − Start: the WAL's length with page headers and
	// padding, which the records' sizes do not count.
	Bytes int64 `json:"bytes"`
	// Types are the record types seen (count > 0), most bytes first.
	Types []WALRecordType `json:"types"`
	// Rmgrs are the same summed per resource manager (Record empty),
	// most bytes first.
	Rmgrs []WALRecordType `json:"rmgrs"`
	// ReadMS is how long reading the WAL took.
	ReadMS float64 `json:"read_ms"`
}

// Total returns the records' count, their bytes and their full-page
// images' bytes.
func (w *WALRecords) Total() (count, recordBytes, fpiBytes int64) {
	for _, t := range w.Types {
		count += t.Count
		recordBytes += t.RecordBytes
		fpiBytes += t.FPIBytes
	}
	return count, recordBytes, fpiBytes
}

// Metrics gives, per record type, wal_rec_count:TYPE (count),
// wal_rec_bytes:TYPE and wal_fpi_bytes:TYPE (bytes; 0 when the type
// wrote no image), and wal_rec_total_bytes. A record type the range did
// not hold has no metrics: its count was 0.
func (w *WALRecords) Metrics() []Metric {
	var out []Metric
	for _, t := range w.Types {
		n := t.Name()
		out = append(out,
			Metric{Name: WALRecCountPrefix + n, Value: float64(t.Count), Unit: "count"},
			Metric{Name: WALRecBytesPrefix + n, Value: float64(t.RecordBytes), Unit: "bytes"},
			Metric{Name: WALFPIBytesPrefix + n, Value: float64(t.FPIBytes), Unit: "bytes"})
	}
	_, rec, fpi := w.Total()
	out = append(out, Metric{Name: WALRecTotalBytes, Value: float64(rec + fpi), Unit: "bytes"})
	sortMetrics(out)
	return out
}

// WALRecordsAbsent says why a server of versionNum gives no WAL by record
// type, or "" when its version can (pg_walinspect, 15+). pg_waldump, which
// reads 13's and 14's WAL, is a client program of the same major version
// that the builds pglab installs do not include.
func WALRecordsAbsent(versionNum int) string {
	if major := versionNum / 10000; major < WALInspectSince {
		return fmt.Sprintf("PostgreSQL %d has no pg_walinspect (new in %d), and pg_waldump %d, which could read its WAL, is not in pglab's builds", major, WALInspectSince, major)
	}
	return ""
}

// WALInspectSchema returns the schema pg_walinspect is installed in in the
// connection's database, or "" when it is not.
func WALInspectSchema(ctx context.Context, q Querier) (string, error) {
	var schema string
	err := q.QueryRow(ctx, `SELECT n.nspname FROM pg_catalog.pg_extension e
		JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_walinspect'`).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look for pg_walinspect: %w", err)
	}
	return schema, nil
}

// LSNText formats a WAL position given in bytes from 0/0 (as Counters
// hold it under wal_lsn_bytes) as PostgreSQL writes it: "0/19134E0".
func LSNText(pos float64) string {
	v := uint64(pos)
	return fmt.Sprintf("%X/%X", v>>32, uint32(v))
}

// flushWait bounds the wait for the server to flush WAL up to the end of
// a range before reading it (under synchronous_commit=off the WAL writer
// flushes a commit within three times wal_writer_delay, 200 ms by
// default).
const flushWait = 2 * time.Second

// ReadWALRecords reads the WAL between start and end (positions in bytes
// from 0/0, as Counters' wal_lsn_bytes) by record type with
// pg_walinspect's pg_get_wal_stats, whose functions are in schema (see
// WALInspectSchema). The server reads only WAL it has flushed: when end
// is not yet flushed, ReadWALRecords commits a transaction whose commit
// flushes everything before it (forceFlush), and waits for the flush (at
// most flushWait). The caller needs
// pg_walinspect's privileges (superuser or pg_read_server_files). WAL a
// checkpoint removed in between cannot be read: the error says so.
func ReadWALRecords(ctx context.Context, q Querier, schema string, start, end float64) (*WALRecords, error) {
	w := &WALRecords{Start: LSNText(start), End: LSNText(end), Bytes: int64(end - start)}
	if end <= start {
		return w, nil
	}
	began := time.Now()
	if err := awaitFlush(ctx, q, w.End); err != nil {
		return nil, err
	}
	fn := pgx.Identifier{schema, "pg_get_wal_stats"}.Sanitize()
	rows, err := q.Query(ctx, `SELECT "resource_manager/record_type", count, record_size, fpi_size
		FROM `+fn+`($1::text::pg_lsn, $2::text::pg_lsn, true) WHERE count > 0`, w.Start, w.End)
	if err != nil {
		return nil, fmt.Errorf("read WAL %s–%s by record type: %w", w.Start, w.End, err)
	}
	defer rows.Close()
	rmgrs := map[string]*WALRecordType{}
	for rows.Next() {
		var name string
		var t WALRecordType
		if err := rows.Scan(&name, &t.Count, &t.RecordBytes, &t.FPIBytes); err != nil {
			return nil, fmt.Errorf("read WAL by record type: %w", err)
		}
		t.Rmgr, t.Record, _ = strings.Cut(name, "/")
		w.Types = append(w.Types, t)
		r := rmgrs[t.Rmgr]
		if r == nil {
			r = &WALRecordType{Rmgr: t.Rmgr}
			rmgrs[t.Rmgr] = r
		}
		r.Count += t.Count
		r.RecordBytes += t.RecordBytes
		r.FPIBytes += t.FPIBytes
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read WAL %s–%s by record type: %w", w.Start, w.End, err)
	}
	for _, r := range rmgrs {
		w.Rmgrs = append(w.Rmgrs, *r)
	}
	byBytes(w.Types)
	byBytes(w.Rmgrs)
	w.ReadMS = float64(time.Since(began).Microseconds()) / 1000
	return w, nil
}

// byBytes orders record types by their bytes with images, then by name.
func byBytes(ts []WALRecordType) {
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i].RecordBytes+ts[i].FPIBytes, ts[j].RecordBytes+ts[j].FPIBytes
		if a != b {
			return a > b
		}
		return ts[i].Name() < ts[j].Name()
	})
}

// awaitFlush waits until the server has flushed its WAL up to lsn: when
// it has not, it forces a flush (forceFlush) and waits for it.
func awaitFlush(ctx context.Context, q Querier, lsn string) error {
	deadline := time.Now().Add(flushWait)
	forced := false
	for {
		var flushed bool
		if err := q.QueryRow(ctx, "SELECT pg_catalog.pg_current_wal_flush_lsn() >= $1::text::pg_lsn", lsn).Scan(&flushed); err != nil {
			return fmt.Errorf("read the WAL flush position: %w", err)
		}
		if flushed {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not flush its WAL up to %s within %s", lsn, flushWait)
		}
		if !forced {
			if err := forceFlush(ctx, q); err != nil {
				return fmt.Errorf("flush the WAL up to %s: %w", lsn, err)
			}
			forced = true
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// forceFlush commits a transaction that wrote WAL: a transactional
// logical decoding message (a few dozen bytes; output plugins pass it on
// only when asked for messages). Its commit flushes the WAL up to its
// commit record, under synchronous_commit on or local; under off, the
// WAL writer flushes it within three times wal_writer_delay. A role
// that may not emit messages commits a transaction ID instead, which a
// server commits asynchronously (no WAL of its own): the WAL writer
// flushes it as soon.
func forceFlush(ctx context.Context, q Querier) error {
	_, err := q.Exec(ctx, "SELECT pg_catalog.pg_logical_emit_message(true, 'pglab', 'flush')")
	if err == nil {
		return nil
	}
	_, err = q.Exec(ctx, "SELECT pg_catalog.pg_current_xact_id()")
	return err
}
