package netdelay

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

// A process started with helperEnv set is a proxy helper: it runs the
// delay loop on its main thread and exits, before the program's main (and
// before a test binary's TestMain) runs. Any executable that links this
// package can therefore serve as its own helper.
func init() {
	cfg, ok := os.LookupEnv(helperEnv)
	if !ok {
		return
	}
	os.Exit(helperMain(cfg))
}

// helperMain runs the helper: fd 3 is the listening socket, stdin the
// requests (EOF stops the helper), stdout the answers.
func helperMain(raw string) int {
	runtime.LockOSThread()
	// Chunks are short-lived and few: collect rarely, so that a collection
	// never stands between a chunk and its release.
	debug.SetGCPercent(400)
	var cfg helperConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintf(os.Stdout, "error: bad configuration: %v\n", err)
		return 2
	}
	l, err := newLoop(cfg, 3, 0, 1)
	if err != nil {
		fmt.Fprintf(os.Stdout, "error: %v\n", err)
		return 2
	}
	os.Stdout.WriteString("ready\n")
	if err := l.run(); err != nil {
		fmt.Fprintf(os.Stderr, "netdelay helper: %v\n", err)
		return 1
	}
	return 0
}
