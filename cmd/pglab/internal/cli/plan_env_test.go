package cli

import (
	"strings"
	"testing"
)

func TestParsePlanEnv(t *testing.T) {
	spec, err := parsePlan("p.yaml", []byte("versions: [16, 17]\nenv:\n  - local\n  - t3.micro\n  - small: {memory: 256MiB, cpus: 0.5}\n  - ebs87:read=87MB/s\nenv_file: [a.yaml, b.yaml]\nenv_unenforced: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(spec.flags.envs, " "); got != "local t3.micro small:memory=256MiB,cpus=0.5 ebs87:read=87MB/s" {
		t.Errorf("envs = %q", got)
	}
	if strings.Join(spec.flags.envFiles, " ") != "a.yaml b.yaml" || !spec.flags.unenforced {
		t.Errorf("env_file = %v, env_unenforced = %v", spec.flags.envFiles, spec.flags.unenforced)
	}
	spec, err = parsePlan("p.yaml", []byte("versions: 17\nenv: t3.micro\n"))
	if err != nil || strings.Join(spec.flags.envs, " ") != "t3.micro" {
		t.Errorf("a single env: %v, %v", spec.flags.envs, err)
	}
	for yaml, want := range map[string]string{
		"versions: 17\nenv:\n  - x:cpu=2\n":              `p.yaml:3:5: env[0]: "x:cpu=2": unknown key "cpu"; did you mean cpus?`,
		"versions: 17\nenv:\n  - small: {memory: 1}\n":   `p.yaml:3:10: env[0]: "small:memory=1": memory=1: no unit`,
		"versions: 17\nenv:\n  - {a: {cpus: 1}, b: 2}\n": "env[0]: want one profile name with its keys",
		"versions: 17\nenv_unenforced: maybe\n":          `p.yaml:2:17: env_unenforced: want true or false, got "maybe"`,
	} {
		_, err := parsePlan("p.yaml", []byte(yaml))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("plan %q: err = %v, want %q on one line", yaml, err, want)
		}
	}
	if _, err := parsePlan("p.yaml", []byte(planExample)); err != nil {
		t.Errorf("the help's example: %v", err)
	}
}
