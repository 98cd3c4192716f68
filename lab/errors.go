package lab

import (
	"errors"
	"fmt"

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
// that a plan error can name the line that gave the value.
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
}

// Error returns the cause's message.
func (e *InputError) Error() string { return e.Err.Error() }

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
