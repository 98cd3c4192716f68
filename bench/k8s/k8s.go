// Package k8s builds the Kubernetes objects of a coordinated pglab bench
// run (pglab bench --k8s-job): a coordinator Job with its Service, and an
// Indexed Job of workers (completionMode Indexed, parallelism =
// completions = workers, backoffLimit 0, so that a failed pod is never
// retried into a running test) whose pods run pglab worker --join. The
// token and the database password come from a Secret the user creates;
// neither is ever written into the manifests.
package k8s

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
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
	Scripts     *corev1.ConfigMap // nil without scripts
	Service     *corev1.Service
	Coordinator *batchv1.Job
	Workers     *batchv1.Job
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
	meta := func(name, role string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels(role)}
	}
	secretEnv := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: s.Secret}, Key: key}}}
	}
	zero := int32(0)
	workers := int32(s.Workers)
	indexed := batchv1.IndexedCompletion
	o := &Objects{}

	coordArgs := append([]string{"bench", "--listen=0.0.0.0:" + strconv.Itoa(s.Port), "--expect-workers=" + strconv.Itoa(s.Workers)}, s.BenchArgs...)
	coordPod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: "coordinator", Image: s.Image, Command: []string{"pglab"}, Args: coordArgs,
			Ports: []corev1.ContainerPort{{Name: "pglab", ContainerPort: int32(s.Port), Protocol: corev1.ProtocolTCP}},
			Env:   []corev1.EnvVar{secretEnv("PGLAB_TOKEN", TokenKey)},
		}},
	}
	if len(s.Scripts) > 0 {
		o.Scripts = &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(s.Name+"-scripts", "coordinator"), Data: map[string]string{}}
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
		coordPod.Volumes = []corev1.Volume{{Name: "scripts", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.Scripts.Name}}}}}
		coordPod.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scripts", MountPath: ScriptDir, ReadOnly: true}}
	}
	o.Service = &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(coordName, "coordinator"),
		Spec: corev1.ServiceSpec{Selector: labels("coordinator"), Ports: []corev1.ServicePort{{
			Name: "pglab", Port: int32(s.Port), TargetPort: intstr.FromString("pglab"), Protocol: corev1.ProtocolTCP}}}}
	o.Coordinator = &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(coordName, "coordinator"),
		Spec: batchv1.JobSpec{BackoffLimit: &zero, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels("coordinator")}, Spec: coordPod}}}

	join := coordName + ":" + strconv.Itoa(s.Port)
	if s.Namespace != "" {
		join = coordName + "." + s.Namespace + ".svc:" + strconv.Itoa(s.Port)
	}
	o.Workers = &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(s.Name+"-workers", "worker"),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: &workers, Parallelism: &workers, BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels("worker")},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// one worker per node where the cluster has the nodes:
					// load generators that share a node share its CPU
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{
								LabelSelector: &metav1.LabelSelector{MatchLabels: labels("worker")},
								TopologyKey:   "kubernetes.io/hostname"}}}}},
					Containers: []corev1.Container{{
						Name: "worker", Image: s.Image, Command: []string{"pglab"},
						Args: []string{"worker", "--join=" + join, "--join-timeout=10m"},
						Env:  []corev1.EnvVar{secretEnv("PGLAB_TOKEN", TokenKey), secretEnv("PGPASSWORD", PasswordKey)},
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
		y, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encode manifest: %w", err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}
