package compare

import "fmt"

// Outcome is the three-way verdict of a change in a family of tests
// (AnalyzeFamily):
//
//   - OutcomeChanged: a called change — in the Benjamini-Hochberg family
//     with q ≤ Alpha and at least the practical floor in size; for an
//     exact metric, two consistent values that differ;
//   - OutcomeSame: the 1 − 2·Alpha interval of the ratio lies within
//     ± the floor (equivalence); for an exact metric, equal values;
//   - OutcomeUnresolved: neither; the change carries the smallest change
//     the repetitions could have seen (Change.MDEPercent).
//
// The zero value OutcomeNone means no outcome was decided (Analyze).
type Outcome int

const (
	// OutcomeNone means the change was not assessed by AnalyzeFamily.
	OutcomeNone Outcome = iota
	// OutcomeChanged is a called change.
	OutcomeChanged
	// OutcomeSame is an established equivalence within the floor.
	OutcomeSame
	// OutcomeUnresolved is neither a call nor an equivalence.
	OutcomeUnresolved
)

// outcomeNames lists the names Outcome.String returns, by value.
var outcomeNames = []string{"", "changed", "same", "unresolved"}

// String returns "changed", "same", "unresolved", or "" for OutcomeNone.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// MarshalText encodes o as its name (see String).
func (o Outcome) MarshalText() ([]byte, error) {
	if o < 0 || int(o) >= len(outcomeNames) {
		return nil, fmt.Errorf("compare: invalid outcome %d", int(o))
	}
	return []byte(outcomeNames[o]), nil
}

// UnmarshalText decodes a name written by MarshalText.
func (o *Outcome) UnmarshalText(text []byte) error {
	for i, name := range outcomeNames {
		if name == string(text) {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("compare: unknown outcome %q", text)
}
