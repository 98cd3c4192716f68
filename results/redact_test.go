package results

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRedactJSON(t *testing.T) {
	in := `{"alpha":0.05,"big":12345678901234567890,"targets":{"a":"postgres://u:secret1@h/db"},
		"conn":{"Password":"secret2","user":"u"},"list":["password=secret3",1,true,null],"html":"<a&b>"}`
	out, err := redactJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "secret") {
		t.Fatalf("a secret survived: %s", out)
	}
	var got, want any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(`{"alpha":0.05,"big":12345678901234567890,"targets":{"a":"postgres://u:xxxxx@h/db"},
		"conn":{"Password":"xxxxx","user":"u"},"list":["password=xxxxx",1,true,null],"html":"<a&b>"}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("redactJSON = %s", out)
	}
	if !strings.Contains(string(out), "12345678901234567890") || !strings.Contains(string(out), "<a&b>") {
		t.Errorf("numbers or characters changed: %s", out)
	}
	// Nothing to hide: the same bytes come back.
	clean := `{ "a": [1, 2],  "b": "x" }`
	out, err = redactJSON([]byte(clean))
	if err != nil || string(out) != clean {
		t.Errorf("clean JSON changed: %s, %v", out, err)
	}
	for _, bad := range []string{`{`, `{"a":1} {"b":2}`, `nope`} {
		if _, err := redactJSON([]byte(bad)); err == nil {
			t.Errorf("redactJSON(%q) accepted bad JSON", bad)
		}
	}
}

func TestExtraJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "{}"},
		{"  ", "{}"},
		{`{ "reps": 5 }`, `{"reps":5}`},
		{`{"dsn":"password=x"}`, `{"dsn":"password=xxxxx"}`},
	} {
		got, err := extraJSON(json.RawMessage(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("extraJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`[1]`, `"s"`, `{"a":`} {
		if _, err := extraJSON(json.RawMessage(bad)); err == nil {
			t.Errorf("extraJSON(%q) accepted it", bad)
		}
	}
}

func TestRedactArtefact(t *testing.T) {
	text := []byte("LOG:  primary_conninfo='password=secret1'\n")
	if got := string(redactArtefact("text/plain; charset=utf-8", text)); strings.Contains(got, "secret1") {
		t.Errorf("text artefact kept its secret: %q", got)
	}
	js := []byte(`{"password":"secret2"}`)
	if got := string(redactArtefact("application/json", js)); got != `{"password":"xxxxx"}` {
		t.Errorf("JSON artefact: %q", got)
	}
	bin := []byte("password=secret3\x00\x01")
	if got := redactArtefact("application/octet-stream", bin); string(got) != string(bin) {
		t.Errorf("binary artefact changed: %q", got)
	}
}
