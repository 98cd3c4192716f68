package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressUI shows what a long command is doing on stderr: one progress
// bar per study (repetitions done of all, with an ETA) when stderr is a
// terminal, plain lines otherwise, nothing with --quiet.
type progressUI struct {
	w   io.Writer
	tty bool

	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	study string
}

func newProgressUI(w io.Writer) *progressUI {
	u := &progressUI{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		u.tty = true
	}
	return u
}

// Line prints one progress line (above the bar on a terminal).
func (u *progressUI) Line(msg string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.bar != nil {
		u.bar.Clear()
		fmt.Fprintf(u.w, "pglab: %s\n", msg)
		u.bar.RenderBlank()
		return
	}
	fmt.Fprintf(u.w, "pglab: %s\n", msg)
}

// Print writes text to w (standard output) without breaking the bar: on a
// terminal the bar is cleared first and drawn again after.
func (u *progressUI) Print(w io.Writer, text string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.bar != nil {
		u.bar.Clear()
		io.WriteString(w, text)
		u.bar.RenderBlank()
		return
	}
	io.WriteString(w, text)
}

// Step moves a study's bar: done of total repetitions finished (total
// falls as cases stop early under --reps auto), label saying what runs
// now. Only on a terminal; elsewhere the runner's lines
// say the same.
func (u *progressUI) Step(study string, done, total int, label string) {
	if !u.tty {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.bar == nil || u.study != study {
		if u.bar != nil {
			u.bar.Finish()
			fmt.Fprintln(u.w)
		}
		u.study = study
		u.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(u.w),
			progressbar.OptionSetDescription(study),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(24),
		)
	}
	if total != u.bar.GetMax() {
		u.bar.ChangeMax(total) // --reps auto: cases that stop early lower it
	}
	u.bar.Describe(study + ": " + label)
	u.bar.Set(done)
}

// Done closes the current bar.
func (u *progressUI) Done() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.bar != nil {
		u.bar.Finish()
		fmt.Fprintln(u.w)
		u.bar = nil
	}
}
