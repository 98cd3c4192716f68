package results

import (
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// postgresLocation gives each test a database of its own on a real server,
// so the store-agnostic suite runs on a PostgreSQL store too.
func postgresLocation(t *testing.T) string {
	return pgtest.CreateDB(t, pgtest.Shared(t, ""))
}

func init() { suiteLocations["postgres"] = postgresLocation }
