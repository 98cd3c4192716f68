package study

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// planStudy records the plan of a count over an indexed table in each of
// two repetitions of its one case.
type planStudy struct{}

func (planStudy) Info() Info { return Info{Name: "planned", Title: "a count's plan", Version: 1} }

func (planStudy) Plan(Params) (Plan, error) {
	return Plan{Cases: []Case{{Name: "count", Labels: map[string]string{"case": "count"}}}, Reps: 2}, nil
}

func (planStudy) Setup(ctx context.Context, s *Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS pt (id int PRIMARY KEY, v text)",
		"INSERT INTO pt SELECT g, 'x' FROM generate_series(1, 20000) g ON CONFLICT DO NOTHING",
		"VACUUM ANALYZE pt",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (planStudy) Teardown(context.Context, *Session) error { return nil }

func (planStudy) Run(ctx context.Context, s *Session, c Case, rep int) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if err := s.RecordPlan(ctx, conn, "count", "SELECT count(*) FROM pt WHERE id > $1", "0"); err != nil {
		return err
	}
	s.Record("n", 1, "count")
	return nil
}

// TestRecordPlanShape: the plan of one statement on three targets of one
// server, one of them with enable_seqscan=off: the two alike have the
// same shape hash, the third another (an index scan for the sequential
// scan); the plan is stored once per case and target, with its tree.
func TestRecordPlanShape(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.CreateDB(t, pgtest.Shared(t, ""))
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.RawQuery += "&options=-c%20enable_seqscan%3Doff"
	var targets []*Target
	for _, c := range [][2]string{{"a", dsn}, {"a2", dsn}, {"noseq", u.String()}} {
		tg, err := DSNTarget(ctx, c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	store := &memStore{}
	if _, err := (&Runner{Targets: targets, Store: store}).Run(ctx, planStudy{}, Params{}); err != nil {
		t.Fatal(err)
	}
	hash := map[string]string{}
	for _, a := range store.artefacts {
		if a.Name != PlanArtefact {
			continue
		}
		var p PlanShape
		if err := json.Unmarshal(a.Data, &p); err != nil {
			t.Fatal(err)
		}
		if _, twice := hash[a.Target]; twice {
			t.Errorf("%s: plan stored twice in one case", a.Target)
		}
		hash[a.Target] = p.Hash
		t.Logf("%s: %s %s", a.Target, p.Hash, strings.Join(p.Shape, " / "))
		if p.Statement != "count" || len(p.Hash) != 16 || len(p.Plan) == 0 {
			t.Errorf("%s: %+v", a.Target, p)
		}
		scan := strings.Join(p.Shape, "\n")
		if want := map[string]string{"noseq": "Index Only Scan using pt_pkey on pt"}[a.Target]; want != "" && !strings.Contains(scan, want) {
			t.Errorf("%s: shape %q lacks %q", a.Target, scan, want)
		}
	}
	if len(hash) != 3 || hash["a"] != hash["a2"] || hash["a"] == hash["noseq"] {
		t.Errorf("shape hashes %v: want a = a2 ≠ noseq", hash)
	}
}
