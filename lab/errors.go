package lab

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pglab/pglab/study"
)

// The fields of a Spec that an InputError may name, as its Field: the
// plan reader points an error about one at the plan key that filled it.
const (
	FieldVersions = "Versions"
	FieldConfigs  = "Configs"
	FieldServers  = "Servers"
	FieldEnvs     = "Envs"
	FieldSettings = "Settings"
	FieldStudies  = "Studies"
	FieldStore    = "Store"
	FieldWorkers  = "Workers"
)

// InputError is a comparison that cannot be run as given: a bad flag or
// plan field. Its message is one line; its fields say what it is about, so
// that a plan error can name the line that gave the value. The message
// names the options it is about as {versions}, {config}, …: Error spells
// them as the command line's flags (--versions), or as the plan file's
// keys (versions) when PlanKeys is set (the plan reader's errors).
type InputError struct {
	// Field is the Spec field the value fills (one of the Field…
	// constants); empty when the error is about the comparison as a whole.
	Field string
	// Study and Param name a study and one of its parameters, when the
	// error is about them (Param may be empty: the study's parameters
	// together).
	Study, Param string
	// Err is what is wrong.
	Err error
	// PlanKeys spells the options as a plan file's keys.
	PlanKeys bool
}

// Error returns the cause's message, its options spelled for the front
// end that gave them.
func (e *InputError) Error() string {
	if e.PlanKeys {
		return planSpelling.Replace(e.Err.Error())
	}
	return flagSpelling.Replace(e.Err.Error())
}

// options are the settings of a comparison that messages name, as
// {name}: the command line's flag and the plan file's key of each.
var options = []struct{ name, flag, key string }{
	{"versions", "--versions", "versions"},
	{"target", "--target", "targets"},
	{"config", "--config", "configs"},
	{"env", "--env", "env"},
	{"env-file", "--env-file", "env_file"},
	{"env-unenforced", "--env-unenforced", "env_unenforced"},
	{"checksums", "--checksums", "checksums"},
	{"aa", "--aa", "aa"},
	{"studies", "--studies", "studies"},
	{"param", "--param", "parameter"},
	{"cache-limit", "--cache-limit", "cache limit"},
	{"reps", "--reps", "reps"},
	{"budget", "--budget", "budget"},
	{"workers", "--workers", "workers"},
	{"listen", "--listen", "listen"},
	{"token", "--token", "token"},
}

// flagSpelling and planSpelling replace {name} by a flag and by a key.
var flagSpelling, planSpelling = spelling(func(f, _ string) string { return f }), spelling(func(_, k string) string { return k })

func spelling(pick func(flag, key string) string) *strings.Replacer {
	var pairs []string
	for _, o := range options {
		pairs = append(pairs, "{"+o.name+"}", pick(o.flag, o.key))
	}
	return strings.NewReplacer(pairs...)
}

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// inputError is an InputError about the Spec field field.
func inputError(field, format string, args ...any) error {
	return &InputError{Field: field, Err: fmt.Errorf(format, args...)}
}

// studyError is an InputError about a study (and a parameter of it, when
// err is a *study.ParamError).
func studyError(name string, err error) error {
	e := &InputError{Field: FieldStudies, Study: name, Err: err}
	var pe *study.ParamError
	if errors.As(err, &pe) {
		e.Param = pe.Param
	}
	return e
}

// WorkersError is the failure of the workers to join (pglab exits with
// code 2, as for a load that could not start).
type WorkersError struct{ Err error }

// Error returns the cause's message.
func (e *WorkersError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *WorkersError) Unwrap() error { return e.Err }
