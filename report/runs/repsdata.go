package runs

import (
	"encoding/json"
	"fmt"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

// repsExtra is what a run's manifest keeps of --reps auto.
type repsExtra struct {
	Design *struct {
		Looks  []int   `json:"looks"`
		Family int     `json:"family"`
		Alpha  float64 `json:"alpha"`
		Paired bool    `json:"paired"`
	} `json:"design"`
	Budget string `json:"budget"`
}

// RepsExtra returns the run's record of --reps auto (zero for a fixed
// count, and for a report of several runs: their repetitions were chosen
// for other comparisons than the report's).
func (d *Dataset) RepsExtra() repsExtra {
	var e repsExtra
	if runs := d.RunRecords(); len(runs) == 1 {
		json.Unmarshal(runs[0].Extra, &e)
	}
	return e
}

// studyReps returns how many repetitions each case of a study ran, as the
// run stored it.
func (d *Dataset) studyReps(study string) (results.StudyReps, bool) {
	for _, r := range d.Reps {
		if r.Study == study {
			return r, true
		}
	}
	return results.StudyReps{}, false
}

// studyDesign returns the sequential design a study's repetitions were
// chosen by (its cells' p are then sequential, compare.Design), or nil for
// a fixed count and for a report of several runs.
func (d *Dataset) studyDesign(study string) *compare.Design {
	sr, ok := d.studyReps(study)
	if !ok || len(sr.Looks) == 0 || !d.Interleaved() {
		return nil
	}
	des := &compare.Design{Looks: sr.Looks, Alpha: d.SignificanceLevel(), Paired: true}
	if e := d.RepsExtra(); e.Design != nil {
		des.Family = e.Design.Family
	}
	if des.Check() != nil {
		return nil
	}
	return des
}

// caseCaps returns each case's cap under the study's design, by case key
// (nil for a fixed count).
func (d *Dataset) caseCaps(study string) map[string]int {
	sr, ok := d.studyReps(study)
	if !ok || len(sr.Looks) == 0 {
		return nil
	}
	caps := map[string]int{}
	for _, c := range sr.Cases {
		if c.Cap > 0 {
			caps[results.CaseKey(c.Labels)] = c.Cap
		}
	}
	return caps
}

// AutoRepsText says how many repetitions a study's cases ran when the
// data chose them: "8 repetitions per case and target, chosen by the data
// (cap 10)", "8–40 repetitions per case and target, chosen by the data
// per case (caps 10–40, from each case's cost)"; "" for a fixed count.
func (d *Dataset) AutoRepsText(study string) string {
	sr, ok := d.studyReps(study)
	if !ok || len(sr.Looks) == 0 || len(sr.Cases) == 0 {
		return ""
	}
	lo, hi := sr.Cases[0].N, sr.Cases[0].N
	capLo, capHi := sr.Looks[len(sr.Looks)-1], 0
	for _, c := range sr.Cases {
		lo, hi = min(lo, c.N), max(hi, c.N)
		if c.Cap > 0 {
			capLo, capHi = min(capLo, c.Cap), max(capHi, c.Cap)
		}
	}
	caps := fmt.Sprintf("cap %d", sr.Looks[len(sr.Looks)-1])
	switch {
	case capHi > 0 && capLo < capHi:
		caps = fmt.Sprintf("caps %d–%d, from each case's cost", capLo, capHi)
	case capHi > 0:
		caps = fmt.Sprintf("cap %d", capHi)
	}
	if lo == hi {
		return fmt.Sprintf("%s per case and target, chosen by the data (%s)", words.Plural(lo, "repetition"), caps)
	}
	return fmt.Sprintf("%d–%d repetitions per case and target, chosen by the data per case (%s)", lo, hi, caps)
}
