package tune

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Format is an output style of a recommendation.
type Format string

// The output styles.
const (
	// FormatConf is PGTune's postgresql.conf tab: "# " comments, "key = value".
	FormatConf Format = "conf"
	// FormatAlter is PGTune's ALTER SYSTEM tab: "-- " comments,
	// "ALTER SYSTEM SET key = 'value';".
	FormatAlter Format = "alter"
	// FormatJSON is a JSON document with the inputs, parameters and warnings.
	FormatJSON Format = "json"
)

// ParseFormat parses an output style: conf, alter or json. Errors are
// *InputError.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatConf, FormatAlter, FormatJSON:
		return f, nil
	}
	return "", inputError("format", s, "unknown format; want conf, alter or json")
}

// Input names used in Detection.
const (
	InputMemory      = "memory"
	InputCPUs        = "cpus"
	InputStorage     = "storage"
	InputVersion     = "versions"
	InputConnections = "connections"
)

// Detection records an input that was not given but measured on this
// machine or read from a live server.
type Detection struct {
	// Input is InputMemory, InputCPUs, InputStorage, InputVersion or
	// InputConnections.
	Input string `json:"input"`
	// Source says where it was read, e.g. "/proc/meminfo" or
	// "server_version_num".
	Source string `json:"source"`
	// Server is true for an input read from the server being tuned
	// (pglab tune --target) and false for one measured on this machine.
	Server bool `json:"server,omitempty"`
}

// headerLabel is PGTune's header label for each detectable input.
var headerLabel = map[string]string{
	InputMemory:      "Total Memory (RAM)",
	InputCPUs:        "CPUs num",
	InputStorage:     "Data Storage",
	InputVersion:     "DB Version",
	InputConnections: "Connections num",
}

// Write writes r in format f. detected lists the inputs measured on this
// machine or read from a server; conf and alter name them in extra header
// lines ("Detected on this machine: ...", "Read from the server: ..."),
// which are absent when everything was given, so that the text is then
// exactly PGTune's.
func Write(w io.Writer, r Recommendation, f Format, detected []Detection) error {
	var text string
	switch f {
	case FormatConf, FormatAlter:
		text = Text(r, f, detected)
	case FormatJSON:
		b, err := JSON(r, detected)
		if err != nil {
			return err
		}
		text = string(b)
	default:
		return fmt.Errorf("tune: unknown format %q", f)
	}
	if _, err := io.WriteString(w, text+"\n"); err != nil {
		return fmt.Errorf("tune: writing the recommendation: %w", err)
	}
	return nil
}

// Text returns r as PGTune shows it in its postgresql.conf tab (FormatConf)
// or its ALTER SYSTEM tab (FormatAlter): the warnings, the header, a blank
// line and one line per parameter, without a final newline.
func Text(r Recommendation, f Format, detected []Detection) string {
	lines := HeaderLines(r, f, detected)
	lines = append(lines, "")
	for _, p := range r.Parameters {
		if f == FormatAlter {
			lines = append(lines, AlterSystem(p))
		} else {
			lines = append(lines, p.Name+" = "+p.Value)
		}
	}
	return strings.Join(lines, "\n")
}

// HeaderLines returns the comment lines Text puts before the parameters:
// PGTune's warnings and a blank line when there are any, the inputs, and
// the detected inputs (see DetectionLines). Comments start with "#", or
// "--" for FormatAlter.
func HeaderLines(r Recommendation, f Format, detected []Detection) []string {
	comment := "#"
	if f == FormatAlter {
		comment = "--"
	}
	var lines []string
	if len(r.Warnings) > 0 {
		lines = append(lines, comment+" WARNING")
		for i, w := range r.Warnings {
			if i > 0 {
				lines = append(lines, comment+" ")
			}
			for _, l := range w.Lines {
				lines = append(lines, comment+" "+l)
			}
		}
		lines = append(lines, "")
	}
	in := r.Inputs
	header := [][2]string{
		{"DB Version", strconv.Itoa(in.Version)},
		{"OS Type", string(in.OS)},
		{"DB Type", string(in.Workload)},
		{"Total Memory (RAM)", in.Memory.String()},
		{"CPUs num", countText(in.CPUs)},
		{"Connections num", countText(in.Connections)},
		{"Data Storage", string(in.Storage)},
	}
	for _, h := range header {
		if h[1] != "" {
			lines = append(lines, comment+" "+h[0]+": "+h[1])
		}
	}
	return append(lines, DetectionLines(detected, comment)...)
}

// DetectionLines returns the header lines naming the detected inputs, each
// starting with comment: one for those measured on this machine and one for
// those read from the server, each present only when it has inputs.
func DetectionLines(detected []Detection, comment string) []string {
	var machine, server []string
	for _, d := range detected {
		label := headerLabel[d.Input]
		if label == "" {
			label = d.Input
		}
		if d.Server {
			server = append(server, label+" from "+d.Source)
		} else {
			machine = append(machine, label+" from "+d.Source)
		}
	}
	var lines []string
	if len(machine) > 0 {
		lines = append(lines, comment+" Detected on this machine: "+strings.Join(machine, ", "))
	}
	if len(server) > 0 {
		lines = append(lines, comment+" Read from the server: "+strings.Join(server, ", "))
	}
	return lines
}

func countText(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// AlterSystem returns the statement that sets p with ALTER SYSTEM, the value
// quoted as a string literal: ALTER SYSTEM SET shared_buffers = '256MB';
func AlterSystem(p Parameter) string {
	return "ALTER SYSTEM SET " + p.Name + " = '" + strings.ReplaceAll(p.Value, "'", "''") + "';"
}

// jsonDoc is the JSON document's shape.
type jsonDoc struct {
	Upstream   string      `json:"upstream"`
	Inputs     jsonInputs  `json:"inputs"`
	Parameters []Parameter `json:"parameters"`
	Warnings   []Warning   `json:"warnings"`
}

type jsonInputs struct {
	PGVersion   int         `json:"pg_version"`
	OS          OS          `json:"os"`
	Type        Workload    `json:"type"`
	Memory      string      `json:"memory"`
	MemoryKB    int64       `json:"memory_kb"`
	CPUs        *int        `json:"cpus"`
	Connections *int        `json:"connections"`
	Storage     Storage     `json:"storage"`
	DBSize      DBSize      `json:"db_size"`
	Detected    []Detection `json:"detected"`
}

// JSON returns r as an indented JSON document: the upstream PGTune version
// followed, the inputs (cpus and connections null when not given, and which
// inputs were detected), the parameters (name, value, unit, kb) and the
// warnings (code, lines).
func JSON(r Recommendation, detected []Detection) ([]byte, error) {
	in := r.Inputs
	opt := func(n int) *int {
		if n <= 0 {
			return nil
		}
		return &n
	}
	doc := jsonDoc{
		Upstream: Upstream,
		Inputs: jsonInputs{
			PGVersion:   in.Version,
			OS:          in.OS,
			Type:        in.Workload,
			Memory:      in.Memory.String(),
			MemoryKB:    in.Memory.KB(),
			CPUs:        opt(in.CPUs),
			Connections: opt(in.Connections),
			Storage:     in.Storage,
			DBSize:      in.DBSize,
			Detected:    append([]Detection{}, detected...),
		},
		Parameters: append([]Parameter{}, r.Parameters...),
		Warnings:   append([]Warning{}, r.Warnings...),
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("tune: encoding JSON: %w", err)
	}
	return b, nil
}
