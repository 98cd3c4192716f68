package cli_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var joinRE = regexp.MustCompile(`pglab worker --join (\S+)`)

// joinAddr waits for the coordinator's address on its stderr.
func joinAddr(co *proc) string {
	co.waitStderr(joinRE.String(), 30*time.Second)
	return joinRE.FindStringSubmatch(co.stderr.String())[1]
}

// passwordEnv is PGPASSWORD for the workers: the coordinator does not send
// the DSN's password.
func passwordEnv(t *testing.T, dsn string) []string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	return []string{"PGPASSWORD=" + pw}
}

// startWorkers starts n worker processes joining addr.
func startWorkers(t *testing.T, n int, addr string, env []string) []*proc {
	var ws []*proc
	for i := 0; i < n; i++ {
		ws = append(ws, startPglab(t, env, "worker", "--join", addr, "--join-timeout", "30s"))
	}
	return ws
}

// TestCoordinatedClientIDs is issue 15's first check: a coordinator and 3
// worker processes on loopback run a script inserting :client_id with -c 12
// -j 2 -t 10: 120/120 transactions, 120 rows, client ids 0..11 with 10 rows
// each; one run stored with the merged figures and one part per worker.
func TestCoordinatedClientIDs(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(context.Background(), "create table ids (client_id int, at timestamptz default now())"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sql := filepath.Join(dir, "ids.sql")
	if err := os.WriteFile(sql, []byte("insert into ids (client_id) values (:client_id);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "results.db")
	co := startPglab(t, nil, "bench", "--listen", "127.0.0.1:0", "--expect-workers", "3", "--store", store,
		"-n", "-f", sql, "-c", "12", "-j", "2", "-t", "10", dsn)
	addr := joinAddr(co)
	workers := startWorkers(t, 3, addr, passwordEnv(t, dsn))
	if code, _ := co.exit(90 * time.Second); code != 0 {
		t.Fatalf("coordinator exit %d\nstdout:\n%s\nstderr:\n%s", code, co.stdout.String(), co.stderr.String())
	}
	for i, w := range workers {
		if code, _ := w.exit(15 * time.Second); code != 0 {
			t.Errorf("worker %d exit %d: %s", i, code, w.stderr.String())
		}
	}
	out := co.stdout.String()
	t.Logf("coordinator stdout:\n%s\nstderr:\n%s", out, co.stderr.String())
	for _, want := range []string{"number of clients: 12\n", "number of transactions per client: 10\n",
		"number of transactions actually processed: 120/120\n", "number of failed transactions: 0 (0.000%)\n",
		"tps = ", "latency percentiles: p50 = ", "worker 0 (", "worker 2 ("} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(co.stderr.String(), "progress: ") {
		t.Errorf("progress lines without -P:\n%s", co.stderr.String())
	}
	if !strings.Contains(co.stderr.String(), "password of the connection string is not sent to the workers") {
		t.Errorf("no note that the DSN's password stays with the coordinator:\n%s", co.stderr.String())
	}
	if n := strings.Count(out, ": 40 transactions, 0 failed"); n != 3 {
		t.Errorf("%d worker lines with 40 transactions, want 3:\n%s", n, out)
	}
	if got := pgtest.QueryString(t, conn, "select count(*)::text from ids"); got != "120" {
		t.Errorf("%s rows, want 120", got)
	}
	got := pgtest.QueryString(t, conn, "select string_agg(client_id || ':' || n, ',' order by client_id) from (select client_id, count(*) n from ids group by 1) s")
	if want := "0:10,1:10,2:10,3:10,4:10,5:10,6:10,7:10,8:10,9:10,10:10,11:10"; got != want {
		t.Errorf("rows per client id: %s, want %s", got, want)
	}

	st, err := results.OpenReadOnly(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), results.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].Status != results.StatusDone || runs[0].Kind != results.KindBench {
		t.Fatalf("stored runs %+v, %v", runs, err)
	}
	ms, err := st.Measurements(context.Background(), runs[0].ID, results.MeasurementFilter{})
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]float64{}
	for _, m := range ms {
		if m.Metric == "transactions" {
			parts[m.Case["part"]] = m.Value
		}
	}
	if parts["all"] != 120 || parts["worker 0"] != 40 || parts["worker 1"] != 40 || parts["worker 2"] != 40 {
		t.Errorf("stored transactions by part: %v", parts)
	}
}

// TestCoordinatorLosesWorker is issue 15's second check: kill -9 of one
// worker in a -T 60 run makes the coordinator exit non-zero (2) within
// 15 s, saying which worker was lost; the other workers end too.
func TestCoordinatorLosesWorker(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	dir := t.TempDir()
	sql := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(sql, []byte("select 1;\n\\sleep 1 ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	co := startPglab(t, nil, "bench", "--listen", "127.0.0.1:0", "--expect-workers", "3", "--store", filepath.Join(dir, "r.db"),
		"-n", "-f", sql, "-c", "3", "-j", "3", "-T", "60", "-P", "1", dsn)
	addr := joinAddr(co)
	workers := startWorkers(t, 3, addr, passwordEnv(t, dsn))
	co.waitStderr(`(?m)^progress: `, 60*time.Second)
	if err := workers[1].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, took := co.exit(15 * time.Second)
	if took > 15*time.Second || code == 0 {
		t.Fatalf("coordinator exit %d after %v", code, took)
	}
	t.Logf("coordinator exited %d, %v after the kill", code, took)
	if code != 2 || !strings.Contains(co.stderr.String(), "lost: connection closed") {
		t.Errorf("exit %d, stderr:\n%s", code, co.stderr.String())
	}
	if strings.Contains(co.stdout.String(), "number of transactions actually processed") {
		t.Errorf("a merged summary was printed for a failed run:\n%s", co.stdout.String())
	}
	for _, i := range []int{0, 2} {
		if c, _ := workers[i].exit(15 * time.Second); c != 2 {
			t.Errorf("worker %d exit %d, want 2: %s", i, c, workers[i].stderr.String())
		}
	}
}

// TestBenchK8sJob is issue 15's manifest check: pglab bench --k8s-job …
// --expect-workers 3 prints an Indexed Job of parallelism 3 that parses
// back strictly, with the DSN's password out of the manifests and the -f
// script in a ConfigMap.
func TestBenchK8sJob(t *testing.T) {
	sql := filepath.Join(t.TempDir(), "mix.sql")
	if err := os.WriteFile(sql, []byte("select 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "bench", "--k8s-job", "sweep", "--expect-workers", "3", "--image", "registry.example/pglab:1",
		"-f", sql+"@3", "-S", "-c", "1024", "-j", "64", "-T", "60", "postgres://u:hunter2@db.example/bench")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "hunter2") {
		t.Fatal("the password is in the manifests")
	}
	if !strings.Contains(r.stderr, "the password is taken out of the connection string") {
		t.Errorf("stderr: %s", r.stderr)
	}
	var indexed, parallel3, cm bool
	for _, doc := range strings.Split(r.stdout, "\n---\n")[1:] {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Job":
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
				indexed = true
				parallel3 = *j.Spec.Parallelism == 3 && *j.Spec.Completions == 3 && *j.Spec.BackoffLimit == 0
			} else {
				args := strings.Join(j.Spec.Template.Spec.Containers[0].Args, " ")
				want := "bench --listen=0.0.0.0:7788 --expect-workers=3 --file=/etc/pglab/scripts/mix.sql@3 --select-only --client=1024 --jobs=64 --time=60 -- postgres://u@db.example/bench"
				if args != want {
					t.Errorf("coordinator args\n%s\nwant\n%s", args, want)
				}
			}
		case "ConfigMap":
			var c corev1.ConfigMap
			if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
				t.Fatal(err)
			}
			cm = c.Data["mix.sql"] == "select 1;\n"
		case "Service":
			var s corev1.Service
			if err := yaml.UnmarshalStrict([]byte(doc), &s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !indexed || !parallel3 || !cm {
		t.Errorf("indexed %v, parallelism 3 %v, script config map %v:\n%s", indexed, parallel3, cm, r.stdout)
	}
}

func TestCoordinatorBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--expect-workers", "3"}, "--expect-workers needs --listen"},
		{[]string{"--listen", "127.0.0.1:0"}, "need --expect-workers"},
		{[]string{"--listen", "127.0.0.1:0", "--expect-workers", "0"}, "invalid value \"0\" for option --expect-workers"},
		{[]string{"--listen", "0.0.0.0:0", "--expect-workers", "2", "-c", "2"}, "give --token"},
		{[]string{"--k8s-job", "x", "--expect-workers", "2"}, "--k8s-job needs --image"},
		{[]string{"--listen", "127.0.0.1:0", "--expect-workers", "3", "-c", "2"}, "cannot be shared by 3 workers"},
		{[]string{"-i", "--listen", "127.0.0.1:0"}, "cannot be used in initialization (-i) mode"},
	} {
		r := run(t, append([]string{"bench", "--store", filepath.Join(t.TempDir(), "r.db")}, tc.args...)...)
		if r.code != 1 {
			t.Errorf("%v: exit %d (%s)", tc.args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr %q, want %q", tc.args, r.stderr, tc.want)
		}
	}
}

// TestStudyTPSOnWorkers: the tps study with --workers runs its pgbench
// workload on worker processes (one command for a client-count sweep on
// a cluster): every case's transactions are those of all clients, and the
// workers exit 0 when the study ends.
func TestStudyTPSOnWorkers(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	co := startPglab(t, nil, "study", "tps", "--target", "db="+dsn, "--workers", "2", "--listen", "127.0.0.1:0", "--store", store,
		"--reps", "1", "--param", "clients=2,4", "--param", "transactions=25", "--param", "scale=1", "--param", "builtin=select-only")
	addr := joinAddr(co)
	workers := startWorkers(t, 2, addr, passwordEnv(t, dsn))
	if code, _ := co.exit(180 * time.Second); code != 0 {
		t.Fatalf("study exit %d\nstdout:\n%s\nstderr:\n%s", code, co.stdout.String(), co.stderr.String())
	}
	for i, w := range workers {
		if code, _ := w.exit(15 * time.Second); code != 0 {
			t.Errorf("worker %d exit %d: %s", i, code, w.stderr.String())
		}
		if n := strings.Count(w.stderr.String(), "worker: worker "); n != 2 {
			t.Errorf("worker %d ran %d shares, want 2 (one per case):\n%s", i, n, w.stderr.String())
		}
	}
	st, err := results.OpenReadOnly(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), results.RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	ms, err := st.Measurements(context.Background(), runs[0].ID, results.MeasurementFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range ms {
		if m.Metric == "transactions" {
			got[m.Case["clients"]] = m.Value
		}
	}
	if got["2"] != 50 || got["4"] != 100 {
		t.Errorf("transactions by clients: %v, want 2:50 4:100", got)
	}
}

// TestLoadArtefactsAlike: a coordinated 'bench --listen --store' and a
// 'study tps' keep a load run alike: the same artefacts (names and content
// types) per case, and the same figures.
func TestLoadArtefactsAlike(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	dir := t.TempDir()
	benchStore, studyStore := filepath.Join(dir, "bench.db"), filepath.Join(dir, "study.db")
	if r := run(t, "--quiet", "bench", "-i", "-s", "1", dsn); r.code != 0 {
		t.Fatalf("bench -i: %d\n%s", r.code, r.stderr)
	}
	co := startPglab(t, nil, "bench", "--listen", "127.0.0.1:0", "--expect-workers", "1", "--store", benchStore,
		"-n", "-S", "-c", "2", "-t", "20", "-P", "1", dsn)
	workers := startWorkers(t, 1, joinAddr(co), passwordEnv(t, dsn))
	if code, _ := co.exit(90 * time.Second); code != 0 {
		t.Fatalf("coordinator exit %d\n%s", code, co.stderr.String())
	}
	workers[0].exit(15 * time.Second)
	if r := run(t, "--quiet", "study", "tps", "--target", "db="+dsn, "--store", studyStore, "--reps", "1",
		"--param", "clients=2", "--param", "transactions=20", "--param", "scale=1", "--param", "builtin=select-only"); r.code != 0 {
		t.Fatalf("study tps: %d\n%s", r.code, r.stderr)
	}
	kinds := func(store string, c map[string]string) (artefacts, metrics map[string]string) {
		st, err := results.OpenReadOnly(context.Background(), store)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		runs, err := st.Runs(context.Background(), results.RunFilter{})
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: runs %v %v", store, runs, err)
		}
		as, err := st.Artefacts(context.Background(), runs[0].ID, results.ArtefactFilter{})
		if err != nil {
			t.Fatal(err)
		}
		artefacts, metrics = map[string]string{}, map[string]string{}
		for _, a := range as {
			if a.Case["clients"] == "2" && a.Case["part"] == c["part"] {
				artefacts[a.Name] = a.ContentType
			}
		}
		ms, err := st.Measurements(context.Background(), runs[0].ID, results.MeasurementFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Case["part"] == c["part"] {
				metrics[m.Metric] = m.Unit + " " + string(m.Direction)
			}
		}
		return artefacts, metrics
	}
	benchArts, benchMetrics := kinds(benchStore, map[string]string{"part": "all"})
	studyArts, studyMetrics := kinds(studyStore, map[string]string{})
	for _, name := range []string{results.ProgressArtefact, results.LatencyHistogramArtefact, results.SummaryArtefact} {
		if benchArts[name] == "" || benchArts[name] != studyArts[name] {
			t.Errorf("artefact %s: bench --listen --store keeps %q, study tps %q", name, benchArts[name], studyArts[name])
		}
	}
	for name, kind := range benchMetrics {
		if studyMetrics[name] != kind {
			t.Errorf("metric %s: bench --listen --store keeps %q, study tps %q", name, kind, studyMetrics[name])
		}
	}
}

// TestWorkersLoseCoordinator: kill -9 of the coordinator mid-run ends
// every worker (exit 2, its clients disconnected) within seconds.
func TestWorkersLoseCoordinator(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	dir := t.TempDir()
	sql := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(sql, []byte("select 1;\n\\sleep 1 ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	co := startPglab(t, nil, "bench", "--listen", "127.0.0.1:0", "--expect-workers", "2", "--store", filepath.Join(dir, "r.db"),
		"-n", "-f", sql, "-c", "4", "-j", "2", "-T", "60", "-P", "1", dsn)
	workers := startWorkers(t, 2, joinAddr(co), passwordEnv(t, dsn))
	co.waitStderr(`(?m)^progress: `, 60*time.Second)
	if err := co.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, w := range workers {
		code, took := w.exit(15 * time.Second)
		if code != 2 || !strings.Contains(w.stderr.String(), "lost the coordinator") {
			t.Errorf("worker %d: exit %d after %v: %s", i, code, took, w.stderr.String())
		}
	}
	conn := pgtest.Connect(t, dsn)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := pgtest.QueryString(t, conn, "select count(*)::text from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")
		if n == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s client connections left after the workers ended", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
