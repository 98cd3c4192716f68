package tune

import (
	"errors"
	"testing"
)

// FuzzParseMemory checks memory amounts ("256MB", "1GB", "4 tb"): no
// panic, errors are *InputError naming the memory input, an accepted
// amount is positive and prints back to the same amount.
// (Amounts above PGTune's maximum are refused by Inputs.Validate, which the
// catalogue test in cmd/pglab/internal/cli exercises through pglab tune.)
func FuzzParseMemory(f *testing.F) {
	for _, s := range []string{"256MB", "1GB", "4 tb", "1536mb", "1.5GB", "0GB", "GB", "", "99999999999999999999GB",
		"9223372036854775807TB", "1KB", "12", "-1GB", "1 G B", "\t2GB\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMemory(s)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Input != "memory" {
				t.Errorf("%q: error %v is not a memory InputError", s, err)
			}
			return
		}
		// ParseMemory checks syntax; Inputs.Validate checks the amount
		// against PGTune's maximum, within which KB cannot overflow.
		if m.Amount <= 0 || (m.Amount <= MaxNumericValue && m.KB() <= 0) {
			t.Errorf("%q: accepted %+v (KB %d)", s, m, m.KB())
		}
		again, err := ParseMemory(m.String())
		if err != nil || again.KB() != m.KB() {
			t.Errorf("%q: %s does not parse back (%+v, %v)", s, m, again, err)
		}
	})
}
