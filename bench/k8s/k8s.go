// Package k8s builds the Kubernetes objects of a coordinated pglab bench
// run (pglab bench --k8s-job): a coordinator Job with its Service, and an
// Indexed Job of workers (completionMode Indexed, parallelism =
// completions = workers, backoffLimit 0, so that a failed pod is never
// retried into a running test) whose pods run pglab worker --join. The
// token and the database password come from a Secret the user creates;
// neither is ever written into the manifests. The objects are small local
// types (types.go); k8s.io/api checks them in the tests only, so that
// pglab does not link it.
package k8s

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"

	"github.com/goccy/go-yaml"
)

// Keys of the Secret.
const (
	TokenKey    = "token"      // the coordinator's token (PGLAB_TOKEN)
	PasswordKey = "pgpassword" // the database password (PGPASSWORD of the workers)
)

// ScriptDir is where the coordinator's pod mounts the -f scripts.
const ScriptDir = "/etc/pglab/scripts"

// DefaultPort is the coordinator's port.
const DefaultPort = 7788

// Spec describes a coordinated run on Kubernetes.
type Spec struct {
	// Name prefixes every object (a DNS-1123 label).
	Name string
	// Namespace of the objects; empty leaves it to kubectl.
	Namespace string
	// Image is a container image with pglab on its PATH.
	Image string
	// Workers is the number of worker pods.
	Workers int
	// Port is the coordinator's port (DefaultPort when 0).
	Port int
	// Secret names the Secret with TokenKey and PasswordKey (default
	// Name-secrets).
	Secret string
	// BenchArgs are the coordinator's pgbench options and database name
	// (no password, no --listen, --expect-workers or --token: those are
	// added).
	BenchArgs []string
	// Scripts are the -f files' texts by base name, shipped in a
	// ConfigMap mounted at ScriptDir in the coordinator's pod (the
	// coordinator sends them to the workers).
	Scripts map[string]string
}

// Objects are the manifests of a Spec.
type Objects struct {
	Scripts     *ConfigMap // nil without scripts
	Service     *Service
	Coordinator *Job
	Workers     *Job
}

var labelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (s *Spec) check() error {
	switch {
	case len(s.Name) > 40 || !labelRE.MatchString(s.Name):
		return fmt.Errorf("--k8s-job %q: use at most 40 lower-case letters, digits and '-' (a DNS label; objects are named after it)", s.Name)
	case s.Namespace != "" && !labelRE.MatchString(s.Namespace):
		return fmt.Errorf("--k8s-namespace %q is not a DNS label", s.Namespace)
	case s.Image == "":
		return fmt.Errorf("--k8s-job needs --image IMAGE")
	case s.Workers < 1:
		return fmt.Errorf("--expect-workers must be at least 1")
	case s.Secret != "" && !regexp.MustCompile(`^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$`).MatchString(s.Secret):
		return fmt.Errorf("--k8s-secret %q is not a valid Secret name", s.Secret)
	}
	return nil
}

// Build returns the objects of s.
func Build(s Spec) (*Objects, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.Port == 0 {
		s.Port = DefaultPort
	}
	if s.Secret == "" {
		s.Secret = s.Name + "-secrets"
	}
	coordName := s.Name + "-coordinator"
	labels := func(role string) map[string]string {
		return map[string]string{"app.kubernetes.io/name": "pglab", "app.kubernetes.io/instance": s.Name, "app.kubernetes.io/component": role}
	}
	meta := func(name, role string) ObjectMeta {
		return ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels(role)}
	}
	secretEnv := func(name, key string) EnvVar {
		return EnvVar{Name: name, ValueFrom: EnvVarSource{SecretKeyRef: SecretKeySelector{Name: s.Secret, Key: key}}}
	}
	zero := int32(0)
	workers := int32(s.Workers)
	o := &Objects{}

	coordArgs := append([]string{"bench", "--listen=0.0.0.0:" + strconv.Itoa(s.Port), "--expect-workers=" + strconv.Itoa(s.Workers)}, s.BenchArgs...)
	coordPod := PodSpec{
		RestartPolicy: RestartNever,
		Containers: []Container{{
			Name: "coordinator", Image: s.Image, Command: []string{"pglab"}, Args: coordArgs,
			Ports: []ContainerPort{{Name: "pglab", ContainerPort: int32(s.Port), Protocol: "TCP"}},
			Env:   []EnvVar{secretEnv("PGLAB_TOKEN", TokenKey)},
		}},
	}
	if len(s.Scripts) > 0 {
		o.Scripts = &ConfigMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: meta(s.Name+"-scripts", "coordinator"), Data: map[string]string{}}
		names := make([]string, 0, len(s.Scripts))
		for n := range s.Scripts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if n != path.Base(n) || n == "" || n == "." || n == ".." {
				return nil, fmt.Errorf("script name %q is not a file name", n)
			}
			o.Scripts.Data[n] = s.Scripts[n]
		}
		coordPod.Volumes = []Volume{{Name: "scripts", ConfigMap: &ConfigMapVolumeSource{Name: o.Scripts.Metadata.Name}}}
		coordPod.Containers[0].VolumeMounts = []VolumeMount{{Name: "scripts", MountPath: ScriptDir, ReadOnly: true}}
	}
	o.Service = &Service{APIVersion: "v1", Kind: "Service", Metadata: meta(coordName, "coordinator"),
		Spec: ServiceSpec{Selector: labels("coordinator"), Ports: []ServicePort{{
			Name: "pglab", Port: int32(s.Port), TargetPort: "pglab", Protocol: "TCP"}}}}
	o.Coordinator = &Job{APIVersion: "batch/v1", Kind: "Job", Metadata: meta(coordName, "coordinator"),
		Spec: JobSpec{BackoffLimit: &zero, Template: PodTemplateSpec{
			Metadata: ObjectMeta{Labels: labels("coordinator")}, Spec: coordPod}}}

	join := coordName + ":" + strconv.Itoa(s.Port)
	if s.Namespace != "" {
		join = coordName + "." + s.Namespace + ".svc:" + strconv.Itoa(s.Port)
	}
	o.Workers = &Job{APIVersion: "batch/v1", Kind: "Job", Metadata: meta(s.Name+"-workers", "worker"),
		Spec: JobSpec{
			CompletionMode: IndexedCompletion, Completions: &workers, Parallelism: &workers, BackoffLimit: &zero,
			Template: PodTemplateSpec{
				Metadata: ObjectMeta{Labels: labels("worker")},
				Spec: PodSpec{
					RestartPolicy: RestartNever,
					// one worker per node where the cluster has the nodes:
					// load generators that share a node share its CPU
					Affinity: &Affinity{PodAntiAffinity: &PodAntiAffinity{
						Preferred: []WeightedPodAffinityTerm{{
							Weight: 100, PodAffinityTerm: PodAffinityTerm{
								LabelSelector: &LabelSelector{MatchLabels: labels("worker")},
								TopologyKey:   "kubernetes.io/hostname"}}}}},
					Containers: []Container{{
						Name: "worker", Image: s.Image, Command: []string{"pglab"},
						Args: []string{"worker", "--join=" + join, "--join-timeout=10m"},
						Env:  []EnvVar{secretEnv("PGLAB_TOKEN", TokenKey), secretEnv("PGPASSWORD", PasswordKey)},
					}},
				},
			},
		}}
	return o, nil
}

// Header is the comment printed above the manifests: what to create
// first and how to follow the run.
func Header(s Spec) string {
	secret := s.Secret
	if secret == "" {
		secret = s.Name + "-secrets"
	}
	ns := ""
	if s.Namespace != "" {
		ns = " -n " + s.Namespace
	}
	return fmt.Sprintf(`# pglab bench on Kubernetes: %d workers (Indexed Job %s-workers) and their
# coordinator (Job and Service %s-coordinator). The coordinator prints the run's
# summary. Neither the token nor the database password is in this file: create
# the Secret first, then apply, then follow the coordinator's log:
#   kubectl%s create secret generic %s --from-literal=%s="$(openssl rand -hex 16)" --from-literal=%s='DATABASE PASSWORD'
#   kubectl%s apply -f THIS-FILE.yaml
#   kubectl%s logs -f job/%s-coordinator
`, s.Workers, s.Name, s.Name, ns, secret, TokenKey, PasswordKey, ns, ns, s.Name)
}

// Manifests returns the objects of s as one YAML stream (documents
// separated by ---), after Header.
func Manifests(s Spec) ([]byte, error) {
	o, err := Build(s)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(Header(s))
	objs := []any{o.Service, o.Coordinator, o.Workers}
	if o.Scripts != nil {
		objs = append([]any{o.Scripts}, objs...)
	}
	for _, obj := range objs {
		y, err := yaml.MarshalWithOptions(obj, yaml.Indent(2), yaml.UseLiteralStyleIfMultiline(true))
		if err != nil {
			return nil, fmt.Errorf("encode manifest: %w", err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}
