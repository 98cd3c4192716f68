package k8s

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func demoSpec() Spec {
	return Spec{Name: "demo", Namespace: "load", Image: "registry.example/pglab:1.0", Workers: 3,
		BenchArgs: []string{"--select-only", "--protocol=prepared", "--client=1024", "--jobs=64", "--time=60", "--file=/etc/pglab/scripts/mix.sql@2", "--", "postgres://bench@db.example/bench?sslmode=require"},
		Scripts:   map[string]string{"mix.sql": "\\set aid random(1, 100000 * :scale)\nselect abalance from pgbench_accounts where aid = :aid;\n"}}
}

// TestManifestsGolden compares the YAML with testdata/demo.yaml (go test
// -update rewrites it).
func TestManifestsGolden(t *testing.T) {
	got, err := Manifests(demoSpec())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "demo.yaml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("manifests differ from %s (go test -update to accept):\n%s", golden, got)
	}
}

// decodeStream splits a YAML stream and decodes each document strictly
// (an unknown field fails) into the type its kind names.
func decodeStream(t *testing.T, data []byte) (cms []corev1.ConfigMap, svcs []corev1.Service, jobs []batchv1.Job) {
	t.Helper()
	for _, doc := range strings.Split(string(data), "\n---\n")[1:] {
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		var err error
		switch meta.Kind {
		case "ConfigMap":
			var v corev1.ConfigMap
			err = yaml.UnmarshalStrict([]byte(doc), &v)
			cms = append(cms, v)
		case "Service":
			var v corev1.Service
			err = yaml.UnmarshalStrict([]byte(doc), &v)
			svcs = append(svcs, v)
		case "Job":
			var v batchv1.Job
			err = yaml.UnmarshalStrict([]byte(doc), &v)
			jobs = append(jobs, v)
		default:
			t.Fatalf("unexpected kind %q", meta.Kind)
		}
		if err != nil {
			t.Fatalf("strict decode of a %s: %v\n%s", meta.Kind, err, doc)
		}
	}
	return
}

// TestManifestsDecodeStrictly: the stream parses back strictly into
// k8s.io/api types: an Indexed Job of 3 with backoffLimit 0 whose pods join
// the coordinator's Service, passwords and token only as Secret
// references, the script in a ConfigMap.
func TestManifestsDecodeStrictly(t *testing.T) {
	data, err := Manifests(demoSpec())
	if err != nil {
		t.Fatal(err)
	}
	objects := string(data)[strings.Index(string(data), "\n---\n"):]
	if strings.Contains(objects, "password") && !strings.Contains(objects, "key: pgpassword") || strings.Contains(objects, "password=") {
		t.Fatal("a password is inlined")
	}
	cms, svcs, jobs := decodeStream(t, data)
	if len(cms) != 1 || len(svcs) != 1 || len(jobs) != 2 {
		t.Fatalf("%d config maps, %d services, %d jobs", len(cms), len(svcs), len(jobs))
	}
	var workers, coord *batchv1.Job
	for i := range jobs {
		switch jobs[i].Name {
		case "demo-workers":
			workers = &jobs[i]
		case "demo-coordinator":
			coord = &jobs[i]
		}
	}
	if workers == nil || coord == nil {
		t.Fatal("missing a job")
	}
	s := workers.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || *s.Parallelism != 3 || *s.Completions != 3 || *s.BackoffLimit != 0 {
		t.Errorf("worker job spec: mode %v parallelism %v completions %v backoff %v", s.CompletionMode, *s.Parallelism, *s.Completions, *s.BackoffLimit)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || *coord.Spec.BackoffLimit != 0 {
		t.Error("pods may be restarted into a running test")
	}
	wc := s.Template.Spec.Containers[0]
	if strings.Join(wc.Args, " ") != "worker --join=demo-coordinator.load.svc:7788 --join-timeout=10m" {
		t.Errorf("worker args %q", wc.Args)
	}
	env := map[string]string{}
	for _, e := range wc.Env {
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "demo-secrets" {
			t.Errorf("env %s is not a Secret reference: %+v", e.Name, e)
			continue
		}
		env[e.Name] = e.ValueFrom.SecretKeyRef.Key
	}
	if env["PGPASSWORD"] != PasswordKey || env["PGLAB_TOKEN"] != TokenKey {
		t.Errorf("worker env %v", env)
	}
	cc := coord.Spec.Template.Spec.Containers[0]
	args := strings.Join(cc.Args, " ")
	if !strings.HasPrefix(args, "bench --listen=0.0.0.0:7788 --expect-workers=3 --select-only") || !strings.HasSuffix(args, "-- postgres://bench@db.example/bench?sslmode=require") {
		t.Errorf("coordinator args %q", args)
	}
	if svcs[0].Name != "demo-coordinator" || svcs[0].Spec.Selector["app.kubernetes.io/component"] != "coordinator" ||
		coord.Spec.Template.Labels["app.kubernetes.io/component"] != "coordinator" {
		t.Error("the Service does not select the coordinator's pod")
	}
	if cms[0].Data["mix.sql"] == "" || cc.VolumeMounts[0].MountPath != ScriptDir {
		t.Error("the script is not mounted for the coordinator")
	}
	// an unknown field must fail the strict decode (the check is real)
	bad := strings.Replace(string(data), "completionMode: Indexed", "completionMode: Indexed\n  completionsMode: Indexed", 1)
	var j batchv1.Job
	docs := strings.Split(bad, "\n---\n")
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &j); err == nil {
		t.Error("a misspelt field decoded strictly")
	}
}

func TestSpecChecks(t *testing.T) {
	for _, s := range []Spec{
		{Name: "Demo", Image: "i", Workers: 1}, {Name: "demo", Workers: 1}, {Name: "demo", Image: "i"},
		{Name: "demo", Image: "i", Workers: 1, Namespace: "a_b"},
	} {
		if _, err := Build(s); err == nil {
			t.Errorf("%+v built", s)
		}
	}
}
