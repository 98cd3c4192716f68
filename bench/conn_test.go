package bench

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// slowWriteConn makes its first writes (the start-up exchange) take 30 ms
// longer, as a loaded machine that deschedules the writer does: longer than
// pgconn's 15 ms slow-write timer, which then starts pgconn's background
// reader.
type slowWriteConn struct {
	net.Conn
	slow *int
}

func (c slowWriteConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if *c.slow > 0 {
		*c.slow--
		time.Sleep(30 * time.Millisecond)
	}
	return n, err
}

// TestDialLeavesNoReaderBehind takes over a connection whose start-up
// writes were slow and checks that the reply to the first query reaches the
// new owner: pgconn's background reader, left blocked on the socket, used
// to swallow it (a run then hung on an idle server).
func TestDialLeavesNoReaderBehind(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.Versions()[0])
	cfg, err := ConnConfig(inst.DSN(), "", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var d net.Dialer
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		slow := 3 // start-up message, SCRAM's two responses
		return slowWriteConn{c, &slow}, nil
	}
	// Whether the reader is left blocked depends on how the server's reply
	// is split into reads: several attempts make a miss unlikely.
	for attempt := 1; attempt <= 5; attempt++ {
		firstReplyArrives(t, cfg, attempt)
	}
}

func firstReplyArrives(t *testing.T, cfg *pgconn.Config, attempt int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := dial(ctx, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	if _, err := l.nc.Write(appendQuery(nil, []byte("SELECT 1"))); err != nil {
		t.Fatal(err)
	}
	l.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	got := 0
	for {
		n, err := l.nc.Read(buf[got:])
		got += n
		if got >= 6 && buf[got-6] == 'Z' { // ReadyForQuery: 'Z', length 5, status
			return
		}
		if err != nil {
			t.Fatalf("attempt %d: no reply to the first query on the taken-over connection after %d bytes: %v", attempt, got, err)
		}
	}
}
