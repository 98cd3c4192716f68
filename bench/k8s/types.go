package k8s

// The Kubernetes objects Build makes, as small local types: only the
// fields pglab sets, with the API's JSON names (goccy/go-yaml reads the
// json tags). Fields stand in the order of their names, so that the YAML
// lists keys as kubectl does. The tests decode the printed manifests
// strictly into k8s.io/api's types, which keeps these names honest
// without linking that module into pglab.

// ObjectMeta is metav1.ObjectMeta's part that pglab sets.
type ObjectMeta struct {
	Labels    map[string]string `json:"labels,omitempty"`
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
}

// ConfigMap is a v1 ConfigMap.
type ConfigMap struct {
	APIVersion string            `json:"apiVersion"`
	Data       map[string]string `json:"data,omitempty"`
	Kind       string            `json:"kind"`
	Metadata   ObjectMeta        `json:"metadata"`
}

// Service is a v1 Service.
type Service struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   ObjectMeta  `json:"metadata"`
	Spec       ServiceSpec `json:"spec"`
}

// ServiceSpec is a Service's spec.
type ServiceSpec struct {
	Ports    []ServicePort     `json:"ports"`
	Selector map[string]string `json:"selector"`
}

// ServicePort is one port of a Service; TargetPort names a container port.
type ServicePort struct {
	Name       string `json:"name"`
	Port       int32  `json:"port"`
	Protocol   string `json:"protocol"`
	TargetPort string `json:"targetPort"`
}

// Job is a batch/v1 Job.
type Job struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   ObjectMeta `json:"metadata"`
	Spec       JobSpec    `json:"spec"`
}

// IndexedCompletion is the completion mode of the workers' Job: each pod
// gets its index.
const IndexedCompletion = "Indexed"

// JobSpec is a Job's spec.
type JobSpec struct {
	BackoffLimit   *int32          `json:"backoffLimit"`
	CompletionMode string          `json:"completionMode,omitempty"`
	Completions    *int32          `json:"completions,omitempty"`
	Parallelism    *int32          `json:"parallelism,omitempty"`
	Template       PodTemplateSpec `json:"template"`
}

// PodTemplateSpec is a Job's pod template.
type PodTemplateSpec struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     PodSpec    `json:"spec"`
}

// RestartNever is the pods' restart policy: a failed pod is never
// restarted into a running test.
const RestartNever = "Never"

// PodSpec is a pod's spec.
type PodSpec struct {
	Affinity      *Affinity   `json:"affinity,omitempty"`
	Containers    []Container `json:"containers"`
	RestartPolicy string      `json:"restartPolicy"`
	Volumes       []Volume    `json:"volumes,omitempty"`
}

// Affinity holds the workers' pod anti-affinity.
type Affinity struct {
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity"`
}

// PodAntiAffinity spreads pods over nodes where it can.
type PodAntiAffinity struct {
	Preferred []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution"`
}

// WeightedPodAffinityTerm is one preferred term.
type WeightedPodAffinityTerm struct {
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
	Weight          int32           `json:"weight"`
}

// PodAffinityTerm selects pods by label within a topology domain.
type PodAffinityTerm struct {
	LabelSelector *LabelSelector `json:"labelSelector"`
	TopologyKey   string         `json:"topologyKey"`
}

// LabelSelector matches labels exactly.
type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// Container is a pod's container.
type Container struct {
	Args         []string        `json:"args,omitempty"`
	Command      []string        `json:"command,omitempty"`
	Env          []EnvVar        `json:"env,omitempty"`
	Image        string          `json:"image"`
	Name         string          `json:"name"`
	Ports        []ContainerPort `json:"ports,omitempty"`
	VolumeMounts []VolumeMount   `json:"volumeMounts,omitempty"`
}

// ContainerPort is a named port of a container.
type ContainerPort struct {
	ContainerPort int32  `json:"containerPort"`
	Name          string `json:"name"`
	Protocol      string `json:"protocol"`
}

// EnvVar is an environment variable taken from a Secret.
type EnvVar struct {
	Name      string       `json:"name"`
	ValueFrom EnvVarSource `json:"valueFrom"`
}

// EnvVarSource names the Secret's key.
type EnvVarSource struct {
	SecretKeyRef SecretKeySelector `json:"secretKeyRef"`
}

// SecretKeySelector is a key of a Secret.
type SecretKeySelector struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	MountPath string `json:"mountPath"`
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// Volume is a pod's volume from a ConfigMap.
type Volume struct {
	ConfigMap *ConfigMapVolumeSource `json:"configMap"`
	Name      string                 `json:"name"`
}

// ConfigMapVolumeSource names the ConfigMap.
type ConfigMapVolumeSource struct {
	Name string `json:"name"`
}
