package study

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ParamKind is the type of a parameter's value.
type ParamKind int

// The kinds of parameter values.
const (
	KindString   ParamKind = iota // any text
	KindInt                       // a whole number (underscores allowed: 3_000_000)
	KindFloat                     // a number
	KindBool                      // true/false, on/off, yes/no, 1/0
	KindDuration                  // a Go duration (90s, 1m) or a number of seconds
	KindIntList                   // comma-separated whole numbers
	KindList                      // comma-separated words
)

func (k ParamKind) String() string {
	return [...]string{"text", "integer", "number", "boolean", "duration", "list of integers", "list"}[k]
}

// Param describes one parameter of a study.
type Param struct {
	Name    string
	Kind    ParamKind
	Default string
	// Quick is the value under --quick; empty means the same as Default.
	Quick string
	// Choices, when set, are the only values allowed (for KindString and
	// each element of KindList).
	Choices []string
	// Min is the smallest allowed value for KindInt and KindIntList
	// elements (checked only when MinSet).
	Min    int64
	MinSet bool
	Doc    string
}

// Params holds a study's parsed parameter values.
type Params struct {
	values map[string]any
	text   map[string]string
	defs   []Param
}

// ParseParams checks overrides (name → value text) against defs and
// returns every parameter's value: override, else quick value when quick,
// else default. Errors name the study, the parameter and the value.
func ParseParams(study string, defs []Param, overrides map[string]string, quick bool) (Params, error) {
	p := Params{values: map[string]any{}, text: map[string]string{}, defs: defs}
	known := map[string]Param{}
	for _, d := range defs {
		known[d.Name] = d
	}
	for name := range overrides {
		if _, ok := known[name]; !ok {
			names := make([]string, 0, len(defs))
			for _, d := range defs {
				names = append(names, d.Name)
			}
			sort.Strings(names)
			if len(names) == 0 {
				return Params{}, &ParamError{study, name, fmt.Errorf("study %s takes no parameters (got --param %s)", study, name)}
			}
			return Params{}, &ParamError{study, name, fmt.Errorf("study %s has no parameter %q (it has: %s)", study, name, strings.Join(names, ", "))}
		}
	}
	for _, d := range defs {
		text := d.Default
		if quick && d.Quick != "" {
			text = d.Quick
		}
		if v, ok := overrides[d.Name]; ok {
			text = v
		}
		v, err := parseValue(d, text)
		if err != nil {
			return Params{}, &ParamError{study, d.Name, fmt.Errorf("study %s: --param %s=%s: %w", study, d.Name, text, err)}
		}
		p.values[d.Name] = v
		p.text[d.Name] = text
	}
	return p, nil
}

func parseValue(d Param, text string) (any, error) {
	t := strings.TrimSpace(text)
	checkChoice := func(s string) error {
		if len(d.Choices) == 0 {
			return nil
		}
		for _, c := range d.Choices {
			if s == c {
				return nil
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(d.Choices, ", "))
	}
	parseInt := func(s string) (int64, error) {
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("want an integer")
		}
		if d.MinSet && n < d.Min {
			return 0, fmt.Errorf("must be at least %d", d.Min)
		}
		return n, nil
	}
	switch d.Kind {
	case KindString:
		return t, checkChoice(t)
	case KindInt:
		return parseInt(t)
	case KindFloat:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number")
		}
		return f, nil
	case KindBool:
		switch strings.ToLower(t) {
		case "true", "on", "yes", "1":
			return true, nil
		case "false", "off", "no", "0":
			return false, nil
		}
		return nil, fmt.Errorf("want true or false")
	case KindDuration:
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			if f <= 0 {
				return nil, fmt.Errorf("must be positive")
			}
			return time.Duration(f * float64(time.Second)), nil
		}
		dur, err := time.ParseDuration(t)
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("want a positive duration such as 60s or 2m")
		}
		return dur, nil
	case KindIntList:
		var out []int64
		for _, part := range strings.Split(t, ",") {
			n, err := parseInt(part)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", strings.TrimSpace(part), err)
			}
			out = append(out, n)
		}
		return out, nil
	case KindList:
		var out []string
		for _, part := range strings.Split(t, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if err := checkChoice(part); err != nil {
				return nil, fmt.Errorf("%q: %w", part, err)
			}
			out = append(out, part)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("want at least one value")
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown parameter kind")
}

func (p Params) get(name string) any {
	v, ok := p.values[name]
	if !ok {
		panic("study: undeclared parameter " + name) // a programming error in a study
	}
	return v
}

// Int returns an integer parameter.
func (p Params) Int(name string) int64 { return p.get(name).(int64) }

// Float returns a number parameter.
func (p Params) Float(name string) float64 { return p.get(name).(float64) }

// Bool returns a boolean parameter.
func (p Params) Bool(name string) bool { return p.get(name).(bool) }

// String returns a text parameter.
func (p Params) String(name string) string { return p.get(name).(string) }

// Duration returns a duration parameter.
func (p Params) Duration(name string) time.Duration { return p.get(name).(time.Duration) }

// IntList returns a list-of-integers parameter.
func (p Params) IntList(name string) []int64 { return p.get(name).([]int64) }

// List returns a list parameter.
func (p Params) List(name string) []string { return p.get(name).([]string) }

// Text returns every parameter as the text it was given in, for manifests.
func (p Params) Text() map[string]string {
	out := make(map[string]string, len(p.text))
	for k, v := range p.text {
		out[k] = v
	}
	return out
}

// ParseParamArgs turns --param name=value strings into a map.
func ParseParamArgs(args []string) (map[string]string, error) {
	out := map[string]string{}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("invalid --param %q: want name=value", a)
		}
		out[name] = value
	}
	return out, nil
}

// ParamError is a parameter a study does not have, or a value it cannot
// take. Err says what is wrong, naming the study and the parameter; Study
// and Param say which they are, so that a caller can point at the place
// the value was given (a plan file's line).
type ParamError struct {
	// Study is the study's name; empty when the study's Plan, which does
	// not know it, made the error.
	Study string
	// Param is the parameter's name.
	Param string
	// Err is the whole message.
	Err error
}

// Error returns the message.
func (e *ParamError) Error() string { return e.Err.Error() }

// Unwrap returns the message's error.
func (e *ParamError) Unwrap() error { return e.Err }
