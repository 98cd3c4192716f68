package serve

import (
	"net/url"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, to set the fixture's end times
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestPostgresStore serves a PostgreSQL store (read-only sessions): the
// pages answer as over SQLite, and none shows the store's password.
func TestPostgresStore(t *testing.T) {
	dsn := pgtest.CreateDB(t, pgtest.Shared(t, ""))
	writeFixture(t, dsn, "pgx", dsn)
	h := newTestHandler(t, dsn, Options{Hosts: loopbackHosts})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, hasPW := u.User.Password()
	for _, p := range []string{"/", "/runs/" + runCompare, "/runs/" + runCopy, "/runs/" + runLive, "/compare?runs=" + runCompare + "," + runTPS} {
		res, body := get(t, h, p)
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d %s", p, res.StatusCode, firstLine(body))
		}
		if hasPW && pw != "" && strings.Contains(body, pw) {
			t.Errorf("GET %s shows the store's password", p)
		}
		if strings.Contains(body, fixtureSecret) {
			t.Errorf("GET %s shows the fixture's password", p)
		}
	}
	_, body := get(t, h, "/runs/"+runCopy)
	if !strings.Contains(body, "skipping row due to data type incompatibility") {
		t.Error("the copy-errors run's page lacks the transcript")
	}
	_, body = get(t, h, "/")
	if !strings.Contains(body, "running for 1 h 0 min") || !strings.Contains(body, "41 min 7 s") {
		t.Error("the runs page lacks the runs' durations")
	}
}
