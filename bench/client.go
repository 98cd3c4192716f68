package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os/exec"
	"strings"

	"github.com/pglab/pglab/bench/script"
)

// cstate is a client's state, as pgbench's ConnectionStateEnum.
type cstate uint8

const (
	csChooseScript cstate = iota
	csPrepareThrottle
	csThrottle
	csStartTx
	csStartCommand
	csWaitResult
	csSleep
	csEndCommand
	csError
	csWaitRollback
	csRetry
	csFailure
	csEndTx
	csAborted
	csFinished
)

// estatus is the error status of the current transaction (pgbench's EStatus).
type estatus uint8

const (
	esNone estatus = iota
	esMeta
	esConn
	esSerialization
	esDeadlock
	esOther
)

func sqlErrorStatus(code string) estatus {
	switch code {
	case "40001":
		return esSerialization
	case "40P01":
		return esDeadlock
	}
	return esOther
}

func (e estatus) retryable() bool { return e == esSerialization || e == esDeadlock }

// pending item markers in a client's queue of expected responses.
const (
	pendSync     = -1
	pendRollback = -2
	pendPrepare  = -3
	pendParse    = -4 // the Parse sent before a prepared statement's first use
)

type pendItem struct {
	cmd   int32
	multi bool // simple Query: results until ReadyForQuery
}

// waitKind tells the thread what a client waits for after advance.
type waitKind uint8

const (
	waitSocket waitKind = iota
	waitTime
	waitDone
)

// client is one simulated client: its connection, variables, random state
// and position in its script. It belongs to one thread.
type client struct {
	id int
	th *thread
	ln *link

	in         []byte
	inS, inE   int
	out        []byte
	outOff     int
	wantWrite  bool
	params     [][]byte
	vars       *script.Variables
	rng        script.PRNG
	savedRng   script.PRNG
	env        script.Env
	cond       script.CondStack
	state      cstate
	wait       waitKind
	useFile    int
	command    int
	cnt        int64
	tries      uint32
	es         estatus
	txnSched   int64
	txnBegin   int64
	stmtBegin  int64
	sleepUntil int64
	prepared   [][]bool
	pipeline   bool
	pend       []pendItem
	pendBuf    []pendItem
	qry        int // result number within the current command
	rows       int
	lastRows   int
	rowDesc    []byte
	row        []byte
	errMsg     string // first SQL error of the current command, formatted
	abortMsg   string
	connLost   bool
	fatalText  string // a server error that arrived while no command waited (libpq's text)
	lostMsg    string // why the connection was lost, when the socket said (libpq's text)
	lostErr    error  // the first error that may mean a lost connection (see noteLost)
	sqlText    []byte // simple-mode text being sent, for error positions
}

func (c *client) logf(format string, args ...any) { c.th.r.logError(format, args...) }

// noteLost keeps the first error of the connection that may mean it is
// lost (a socket error, end of file, a FATAL message, a failed
// reconnection): when the client aborts, pgnet.Lost decides, and the run
// counts it among the clients that lost the server (Result.LostClients).
func (c *client) noteLost(err error) {
	if c.lostErr == nil {
		c.lostErr = err
	}
}

// advance runs the client's state machine until it has to wait for the
// server, a time, or has ended (pgbench's advanceConnectionState).
func (c *client) advance(now *int64) {
	r := c.th.r
	for {
		switch c.state {
		case csChooseScript:
			c.useFile = script.ChooseScript(&c.th.chooseRng, r.weights, r.totalWeight)
			c.es = esNone
			c.tries = 1
			if r.debug {
				c.logDebug("client %d executing script \"%s\"", c.id, r.scripts[c.useFile].Source)
			}
			if r.throttleDelay > 0 {
				c.state = csPrepareThrottle
			} else {
				c.state = csStartTx
			}

		case csPrepareThrottle:
			t := c.th
			t.throttleTrigger += t.throttleRng.Poisson(r.throttleDelay)
			c.txnSched = t.throttleTrigger
			if r.latencyLimit > 0 {
				*now = nowUS()
				if t.throttleTrigger < *now-r.latencyLimit && (r.nxacts <= 0 || c.cnt < int64(r.nxacts)) {
					c.processXactStats(now, true)
					if r.nxacts > 0 && c.cnt >= int64(r.nxacts) {
						c.state = csFinished
					}
					continue
				}
			}
			if r.endTime > 0 && c.txnSched > r.endTime {
				c.state = csFinished
			} else {
				c.state = csThrottle
			}

		case csThrottle:
			*now = nowUS()
			if *now < c.txnSched {
				c.wait = waitTime
				return
			}
			c.state = csStartTx

		case csStartTx:
			if c.ln == nil {
				start := nowUS()
				if err := c.connect(); err != nil {
					c.noteLost(err)
					c.logf("%s", connError(err))
					c.logf("client %d aborted while establishing connection", c.id)
					c.state = csAborted
					continue
				}
				*now = nowUS()
				c.th.connDuration += *now - start
			} else {
				*now = nowUS()
			}
			c.txnBegin = *now
			if r.throttleDelay == 0 {
				c.txnSched = *now
			}
			c.savedRng = c.rng
			c.state = csStartCommand
			c.command = 0

		case csStartCommand:
			cmds := r.scripts[c.useFile].Commands
			if c.command >= len(cmds) {
				c.state = csEndTx
				continue
			}
			cmd := cmds[c.command]
			if r.perCommand {
				*now = nowUS()
				c.stmtBegin = *now
			}
			if cmd.Type == script.SQLCommand {
				if r.debug {
					c.logDebug("client %d sending %s", c.id, cmd.SQL)
				}
				if c.pipeline && (cmd.Meta == script.MetaGset || cmd.Meta == script.MetaAset) {
					m := cmd.Meta.String()
					c.logf("client %d aborted in command %d (%s) of script %d; \\%s is not allowed in pipeline mode", c.id, c.command, m, c.useFile, m)
					c.state = csAborted
					continue
				}
				if !c.sendSQL(cmd) {
					c.state = csAborted
					continue
				}
				if c.pipeline {
					c.state = csEndCommand
				} else {
					// csWaitResult returns to wait, unless the connection
					// is already known to be lost (its socket is then out
					// of the epoll set and would never wake the client)
					c.state = csWaitResult
				}
				continue
			}
			c.execMeta(cmd, now)
			if c.state == csSleep {
				c.wait = waitTime
				return
			}

		case csWaitResult:
			if len(c.pend) > 0 && !c.connLost {
				c.wait = waitSocket
				return
			}
			if c.abortMsg != "" {
				// an error of this command (also a FATAL before the end
				// of the connection: libpq reports the FATAL)
				c.logf("%s", c.abortMsg)
				c.abortMsg = ""
				c.state = csAborted
				continue
			}
			if c.connLost {
				msg := c.lostMsg
				if c.fatalText != "" {
					msg = c.fatalText
				}
				if msg == "" {
					msg = "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\tbefore or while processing the request."
				}
				c.logf("client %d script %d aborted in command %d query %d: %s", c.id, c.useFile, c.command, c.qry, msg)
				c.state = csAborted
				continue
			}
			if c.es != esNone {
				if c.es.retryable() {
					c.state = csError
				} else {
					c.state = csAborted
				}
				continue
			}
			c.state = csEndCommand

		case csSleep:
			*now = nowUS()
			if *now < c.sleepUntil {
				c.wait = waitTime
				return
			}
			c.state = csEndCommand

		case csEndCommand:
			if r.perCommand {
				*now = nowUS()
				c.th.cmdStats[c.useFile][c.command].latency.add(float64(*now-c.stmtBegin) / 1e6)
			}
			c.command++
			if c.cond.Active() {
				c.state = csStartCommand
			} else {
				c.skipCommands()
			}

		case csError:
			c.cond.Reset()
			if c.ln.txStatus == 'T' || c.ln.txStatus == 'E' {
				c.out = appendQuery(c.out, []byte("ROLLBACK"))
				c.pend = append(c.pend, pendItem{cmd: pendRollback, multi: true}, pendItem{cmd: pendSync})
				if !c.flush() {
					c.logf("client %d aborted: failed to send sql command for rolling back the failed transaction", c.id)
					c.state = csAborted
					continue
				}
				c.state = csWaitRollback
				continue
			}
			c.afterError(now)

		case csWaitRollback:
			if len(c.pend) > 0 && !c.connLost {
				c.wait = waitSocket
				return
			}
			if c.connLost || c.abortMsg != "" {
				c.logf("client %d aborted while rolling back the transaction after an error; %s", c.id, c.abortMsg)
				c.state = csAborted
				continue
			}
			c.afterError(now)

		case csRetry:
			if r.verboseErrors {
				c.verboseError(now, true)
			}
			c.tries++
			c.th.cmdStats[c.useFile][c.command].retries++
			c.rng = c.savedRng
			c.command = 0
			c.es = esNone
			c.state = csStartCommand

		case csFailure:
			c.th.cmdStats[c.useFile][c.command].failures++
			if r.verboseErrors {
				c.verboseError(now, false)
			}
			c.state = csEndTx

		case csEndTx:
			c.processXactStats(now, false)
			if c.pipeline {
				c.logf("client %d aborted: end of script reached with pipeline open", c.id)
				c.state = csAborted
				continue
			}
			if c.ln.txStatus != 'I' {
				c.logf("client %d aborted: end of script reached without completing the last transaction", c.id)
				c.state = csAborted
				continue
			}
			if r.connect {
				start := nowUS()
				c.ln.close()
				c.ln = nil
				*now = nowUS()
				c.th.connDuration += *now - start
			}
			if (r.nxacts > 0 && r.endTime == 0 && c.cnt >= int64(r.nxacts)) || r.timerExceeded(*now) {
				c.state = csFinished
			} else {
				c.state = csChooseScript
			}

		case csAborted, csFinished:
			if c.ln != nil {
				c.ln.close()
				c.ln = nil
			}
			c.wait = waitDone
			return
		}
	}
}

// afterError decides between retry and failure once the connection is idle
// again after a serialization or deadlock error.
func (c *client) afterError(now *int64) {
	r := c.th.r
	*now = nowUS()
	switch {
	case r.timerExceeded(*now):
		c.state = csFinished
	case c.doRetry(*now):
		c.state = csRetry
	default:
		c.state = csFailure
	}
}

func (c *client) doRetry(now int64) bool {
	r := c.th.r
	if !c.es.retryable() {
		return false
	}
	if r.maxTries > 0 && c.tries >= r.maxTries {
		return false
	}
	if r.latencyLimit > 0 && now-c.txnSched > r.latencyLimit {
		return false
	}
	return !r.timerExceeded(now)
}

func (c *client) verboseError(now *int64, retry bool) {
	r := c.th.r
	var b strings.Builder
	fmt.Fprintf(&b, "client %d ", c.id)
	if retry {
		b.WriteString("repeats the transaction after the error")
	} else {
		b.WriteString("ends the failed transaction")
	}
	fmt.Fprintf(&b, " (try %d", c.tries)
	if r.maxTries > 0 {
		fmt.Fprintf(&b, "/%d", r.maxTries)
	}
	if r.latencyLimit > 0 {
		*now = nowUS()
		fmt.Fprintf(&b, ", %.3f%% of the maximum time of tries was used", 100.0*float64(*now-c.txnSched)/float64(r.latencyLimit))
	}
	b.WriteString(")\n")
	r.logInfo("%s", b.String())
}

func (c *client) logDebug(format string, args ...any) {
	c.th.r.logDebug(format, args...)
}

// connect opens the client's connection (also under -C, before each
// transaction) and resets its per-session state.
func (c *client) connect() error {
	r := c.th.r
	ln, err := dial(r.ctx, r.pgcfg, !c.th.raw)
	if err != nil {
		return err
	}
	if ln.fd < 0 && c.th.raw {
		ln.close()
		return fmt.Errorf("TLS connections cannot be mixed with plain ones in one run")
	}
	c.ln = ln
	c.inS, c.inE = 0, 0
	c.out = c.out[:0]
	c.outOff = 0
	c.pend = c.pend[:0]
	c.pipeline = false
	for i := range c.prepared {
		clear(c.prepared[i])
	}
	if c.th.raw {
		if err := c.th.register(c); err != nil {
			ln.close()
			c.ln = nil
			return err
		}
	}
	return nil
}

// stmtName is the prepared statement name of a command; pgbench numbers
// them P_0, P_1, ... over all scripts.
func (r *runner) stmtName(file, cmd int) string { return r.stmtNames[file][cmd] }

// sendSQL encodes one SQL command into the output buffer and writes it.
func (c *client) sendSQL(cmd *script.Command) bool {
	r := c.th.r
	c.qry = 0
	c.rows = 0
	c.lastRows = -1
	c.errMsg = ""
	withVars := cmd.Meta == script.MetaGset || cmd.Meta == script.MetaAset
	switch r.mode {
	case QuerySimple:
		start := len(c.out)
		c.out, _ = appendMsgStart(c.out, 'Q')
		c.out = cmd.AppendSQL(c.out, c.vars)
		c.sqlText = append(c.sqlText[:0], c.out[start+5:]...)
		c.out = append(c.out, 0)
		c.out = finishMsg(c.out, start)
		c.pend = append(c.pend, pendItem{cmd: int32(c.command), multi: true})
		if !c.pipeline {
			c.pend = append(c.pend, pendItem{cmd: pendSync})
		}
	case QueryExtended, QueryPrepared:
		name := ""
		if r.mode == QueryPrepared {
			name = r.stmtName(c.useFile, c.command)
			if !c.prepared[c.useFile][c.command] {
				c.out = appendParse(c.out, name, cmd.ParamSQL())
				c.prepared[c.useFile][c.command] = true
				c.pend = append(c.pend, pendItem{cmd: pendParse})
			}
		} else {
			c.out = appendParse(c.out, "", cmd.ParamSQL())
		}
		c.params = cmd.AppendParams(c.params[:0], c.vars)
		var s int
		c.out, s = appendBindStart(c.out, name, len(c.params))
		for _, p := range c.params {
			c.out = appendBindParam(c.out, p, p == nil)
		}
		c.out = appendBindEnd(c.out, s)
		if withVars {
			c.out = appendDescribePortal(c.out)
		}
		c.out = appendExecute(c.out)
		c.pend = append(c.pend, pendItem{cmd: int32(c.command)})
		if !c.pipeline {
			c.out = appendSync(c.out)
			c.pend = append(c.pend, pendItem{cmd: pendSync})
		}
	}
	if c.pipeline {
		return true
	}
	if !c.flush() {
		c.logf("client %d aborted in command %d (SQL) of script %d; SQL command send failed", c.id, c.command, c.useFile)
		return false
	}
	return true
}

// flush writes the output buffer; a partial write leaves the rest for the
// thread to send when the socket is writable. It reports false when the
// connection is broken.
func (c *client) flush() bool {
	if c.ln == nil {
		return false
	}
	if c.ln.fd < 0 {
		_, err := c.ln.nc.Write(c.out[c.outOff:])
		c.out = c.out[:0]
		c.outOff = 0
		if err != nil {
			c.noteLost(err)
		}
		return err == nil
	}
	for c.outOff < len(c.out) {
		n, errno := rawWrite(c.ln.fd, c.out[c.outOff:])
		if errno != 0 {
			if errno == eagain {
				if !c.wantWrite {
					c.wantWrite = true
					c.th.armWrite(c, true)
				}
				return true
			}
			c.noteLost(errno)
			return false
		}
		c.outOff += n
	}
	c.out = c.out[:0]
	c.outOff = 0
	if c.wantWrite {
		c.wantWrite = false
		c.th.armWrite(c, false)
	}
	return true
}

// execMeta runs a meta-command and sets the next state.
func (c *client) execMeta(cmd *script.Command, now *int64) {
	r := c.th.r
	c.env.Script = c.useFile
	c.env.Command = c.command
	if r.debug {
		c.logDebug("client %d executing \\%s", c.id, cmd.Args[0])
	}
	fail := func(err error) {
		if ee, ok := err.(*script.ExecError); ok {
			if ee.Detail != "" {
				c.logf("%s", ee.Detail)
			}
			c.logf("%s", ee.AbortMessage(c.id, c.command, c.useFile))
		} else {
			c.logf("client %d aborted in command %d (%s) of script %d; %v", c.id, c.command, cmd.Args[0], c.useFile, err)
		}
		c.es = esMeta
		c.state = csAborted
	}
	switch cmd.Meta {
	case script.MetaSet:
		if err := cmd.ExecSet(&c.env); err != nil {
			fail(err)
			return
		}
	case script.MetaIf, script.MetaElif:
		if cmd.Meta == script.MetaElif && c.cond.Peek() == script.IfTrue {
			// \elif after a branch that ran: wait for \endif
			c.cond.Poke(script.IfIgnored)
			c.state = csEndCommand
			return
		}
		ok, err := cmd.EvalCondition(&c.env)
		if err != nil {
			fail(err)
			return
		}
		st := script.IfFalse
		if ok {
			st = script.IfTrue
		}
		if cmd.Meta == script.MetaIf {
			c.cond.Push(st)
		} else {
			c.cond.Poke(st)
		}
	case script.MetaElse:
		if c.cond.Peek() == script.IfTrue {
			c.cond.Poke(script.IfElseFalse)
		}
	case script.MetaEndif:
		c.cond.Pop()
	case script.MetaSleep:
		us, err := cmd.SleepMicros(c.vars)
		if err != nil {
			fail(err)
			return
		}
		*now = nowUS()
		c.sleepUntil = *now + us
		c.state = csSleep
		return
	case script.MetaSetshell, script.MetaShell:
		line, err := cmd.ShellCommand(c.vars)
		if err != nil {
			fail(err)
			return
		}
		out, runErr := exec.CommandContext(context.Background(), "/bin/sh", "-c", line).Output()
		if cmd.Meta == script.MetaShell {
			if runErr != nil {
				fail(cmd.ShellLaunchError())
				return
			}
		} else {
			if runErr != nil && len(out) == 0 {
				if _, ok := runErr.(*exec.ExitError); !ok {
					fail(cmd.ShellLaunchError())
					return
				}
			}
			if err := cmd.SetShellResult(c.vars, out); err != nil {
				fail(err)
				return
			}
		}
	case script.MetaStartPipeline:
		if r.mode == QuerySimple {
			c.logf("client %d aborted in command %d (startpipeline) of script %d; cannot use pipeline mode with the simple query protocol", c.id, c.command, c.useFile)
			c.state = csAborted
			return
		}
		if c.pipeline {
			c.logf("client %d aborted in command %d (startpipeline) of script %d; already in pipeline mode", c.id, c.command, c.useFile)
			c.state = csAborted
			return
		}
		if r.mode == QueryPrepared && c.prepareAhead() {
			c.pipeline = true
			c.state = csWaitResult
			return
		}
		c.pipeline = true
	case script.MetaSyncPipeline:
		if !c.pipeline {
			c.logf("client %d aborted in command %d (syncpipeline) of script %d; not in pipeline mode", c.id, c.command, c.useFile)
			c.state = csAborted
			return
		}
		c.out = appendSync(c.out)
		c.pend = append(c.pend, pendItem{cmd: pendSync})
	case script.MetaEndPipeline:
		if !c.pipeline {
			c.logf("client %d aborted in command %d (endpipeline) of script %d; not in pipeline mode", c.id, c.command, c.useFile)
			c.state = csAborted
			return
		}
		c.out = appendSync(c.out)
		c.pend = append(c.pend, pendItem{cmd: pendSync})
		c.pipeline = false
		c.qry = 0
		c.errMsg = ""
		if !c.flush() {
			c.logf("client %d aborted in command %d (SQL) of script %d; SQL command send failed", c.id, c.command, c.useFile)
			c.state = csAborted
			return
		}
		c.state = csWaitResult
		return
	}
	c.state = csEndCommand
}

// prepareAhead prepares, before a pipeline starts, every statement up to its
// \endpipeline that this connection has not prepared yet (as pgbench does, so
// that statements such as BEGIN ISOLATION LEVEL SERIALIZABLE work in the
// pipeline). It reports whether anything was sent.
func (c *client) prepareAhead() bool {
	r := c.th.r
	cmds := r.scripts[c.useFile].Commands
	sent := false
	for j := c.command + 1; j < len(cmds); j++ {
		cmd := cmds[j]
		if cmd.Type == script.MetaCommand && cmd.Meta == script.MetaEndPipeline {
			break
		}
		if cmd.Type != script.SQLCommand || c.prepared[c.useFile][j] {
			continue
		}
		c.out = appendParse(c.out, r.stmtName(c.useFile, j), cmd.ParamSQL())
		c.prepared[c.useFile][j] = true
		sent = true
	}
	if !sent {
		return false
	}
	c.out = appendSync(c.out)
	c.pend = append(c.pend, pendItem{cmd: pendPrepare}, pendItem{cmd: pendSync})
	c.qry = 0
	c.errMsg = ""
	return c.flush()
}

// skipCommands skips the commands of branches that do not run, keeping
// track of nested \if levels (pgbench's CSTATE_SKIP_COMMAND).
func (c *client) skipCommands() {
	cmds := c.th.r.scripts[c.useFile].Commands
	for c.command < len(cmds) {
		cmd := cmds[c.command]
		if cmd.Type != script.MetaCommand || (cmd.Meta != script.MetaIf && cmd.Meta != script.MetaElif &&
			cmd.Meta != script.MetaElse && cmd.Meta != script.MetaEndif) {
			c.command++
			continue
		}
		switch c.cond.Peek() {
		case script.IfFalse:
			switch cmd.Meta {
			case script.MetaIf:
				c.cond.Push(script.IfIgnored)
				c.command++
			case script.MetaElif:
				c.state = csStartCommand
				return
			case script.MetaElse:
				c.cond.Poke(script.IfElseTrue)
				c.command++
				c.state = csStartCommand
				return
			case script.MetaEndif:
				c.cond.Pop()
				c.command++
				if c.cond.Active() {
					c.state = csStartCommand
					return
				}
			}
		default: // ignored, or an \else that does not run
			switch cmd.Meta {
			case script.MetaIf:
				c.cond.Push(script.IfIgnored)
			case script.MetaEndif:
				c.cond.Pop()
				if c.cond.Active() {
					c.command++
					c.state = csStartCommand
					return
				}
			}
			c.command++
		}
	}
	c.state = csStartCommand
}

// processXactStats records a finished (or skipped) transaction: pgbench's
// processXactStats, plus the HDR histograms.
func (c *client) processXactStats(now *int64, skipped bool) {
	r := c.th.r
	t := c.th
	var lat, lag float64
	if !skipped && c.es == esNone {
		*now = nowUS()
		lat = float64(*now - c.txnSched)
		lag = float64(c.txnBegin - c.txnSched)
	}
	c.cnt++
	throttled := r.throttleDelay > 0
	t.stats.accum(skipped, lat, lag, c.es, c.tries, throttled)
	t.tick.accum(skipped, lat, lag, c.es, c.tries, throttled)
	if !skipped && c.es == esNone {
		recordHist(t.hist, lat)
		recordHist(t.tickHist, lat)
	}
	if r.latencyLimit > 0 && lat > float64(r.latencyLimit) {
		t.latencyLate++
	}
	if t.log != nil {
		t.log.doLog(c, skipped, lat, lag)
	}
	if r.perScript {
		t.scriptStats[c.useFile].accum(skipped, lat, lag, c.es, c.tries, throttled)
	}
}

// onInput processes the complete messages in the input buffer.
func (c *client) onInput() {
	for c.inE-c.inS >= 5 {
		typ := c.in[c.inS]
		n := int(binary.BigEndian.Uint32(c.in[c.inS+1:]))
		if n < 4 {
			c.connLost = true
			return
		}
		if c.inE-c.inS < 1+n {
			if 1+n > len(c.in) {
				grown := make([]byte, 1+n+4096)
				copy(grown, c.in[c.inS:c.inE])
				c.inE -= c.inS
				c.inS = 0
				c.in = grown
			}
			break
		}
		body := c.in[c.inS+5 : c.inS+1+n]
		c.inS += 1 + n
		c.onMessage(typ, body)
	}
	if c.inS == c.inE {
		c.inS, c.inE = 0, 0
	} else if c.inS > len(c.in)/2 {
		copy(c.in, c.in[c.inS:c.inE])
		c.inE -= c.inS
		c.inS = 0
	}
}

func (c *client) currentCmd() *script.Command {
	if len(c.pend) == 0 || c.pend[0].cmd < 0 {
		return nil
	}
	return c.th.r.scripts[c.useFile].Commands[c.pend[0].cmd]
}

func (c *client) onMessage(typ byte, body []byte) {
	switch typ {
	case 'T':
		if cmd := c.currentCmd(); cmd != nil && cmd.Meta != script.MetaNone {
			c.rowDesc = append(c.rowDesc[:0], body...)
		}
	case 'D':
		c.rows++
		if cmd := c.currentCmd(); cmd != nil && cmd.Meta != script.MetaNone {
			c.row = append(c.row[:0], body...)
		}
	case 'C', 'I':
		if len(c.pend) > 0 && c.pend[0].cmd >= 0 {
			c.endQuery()
			if !c.pend[0].multi {
				c.popPend()
			}
		}
	case '1':
		if len(c.pend) > 0 && c.pend[0].cmd == pendParse {
			c.popPend()
		}
	case 'E':
		se := parseErrorFields(body)
		if len(c.pend) > 0 && c.pend[0].cmd == pendParse {
			// pgbench prepares with a separate PQprepare: it logs the
			// failure, then runs the statement, which does not exist.
			c.popPend()
			cmd := c.th.r.scripts[c.useFile].Commands[c.command]
			c.logf("%s", strings.TrimRight(se.libpqText(cmd.ParamSQL()), "\n"))
			se = serverError{Severity: "ERROR", Code: "26000",
				Message: fmt.Sprintf("prepared statement \"%s\" does not exist", c.th.r.stmtName(c.useFile, c.command))}
		}
		c.onError(se)
		for len(c.pend) > 0 && c.pend[0].cmd != pendSync {
			c.popPend()
		}
	case 'Z':
		if len(body) > 0 {
			c.ln.txStatus = body[0]
		}
		for len(c.pend) > 0 {
			p := c.pend[0]
			c.popPend()
			if p.cmd >= 0 && p.multi {
				c.finishGset(p.cmd)
			}
			if p.cmd == pendSync {
				break
			}
		}

	case 'N':
		se := parseErrorFields(body)
		c.th.r.writeStderr(se.libpqText(""))
	case 'G', 'H', 'W', 'd':
		c.abortMsg = fmt.Sprintf("client %d script %d aborted in command %d query %d: COPY is not supported", c.id, c.useFile, c.command, c.qry)
		c.connLost = true
	}
}

func (c *client) popPend() {
	c.pend = c.pend[1:]
	if len(c.pend) == 0 {
		c.pend = c.pendBuf[:0]
	}
}

// endQuery handles the end of one query's result (CommandComplete).
func (c *client) endQuery() {
	p := c.pend[0]
	cmd := c.th.r.scripts[c.useFile].Commands[p.cmd]
	rows := c.rows
	c.rows = 0
	c.qry++
	switch cmd.Meta {
	case script.MetaAset:
		if rows > 0 {
			c.storeRow(cmd, p.cmd, "aset")
		}
	case script.MetaGset:
		if p.multi {
			c.lastRows = rows
			return
		}
		c.lastRows = rows
		c.finishGset(p.cmd)
	}
}

// finishGset checks and stores the last result of a \gset command.
func (c *client) finishGset(idx int32) {
	cmd := c.th.r.scripts[c.useFile].Commands[idx]
	if cmd.Meta != script.MetaGset || c.lastRows < 0 || c.es != esNone || c.abortMsg != "" {
		return
	}
	rows := c.lastRows
	c.lastRows = -1
	if rows != 1 {
		c.abortMsg = fmt.Sprintf("client %d script %d command %d query %d: expected one row, got %d", c.id, c.useFile, idx, c.qry-1, rows)
		return
	}
	c.storeRow(cmd, idx, "gset")
}

// storeRow stores the columns of the saved row into variables.
func (c *client) storeRow(cmd *script.Command, idx int32, what string) {
	desc, row := c.rowDesc, c.row
	if len(desc) < 2 || len(row) < 2 {
		return
	}
	nf := int(binary.BigEndian.Uint16(desc))
	desc = desc[2:]
	row = row[2:]
	for i := 0; i < nf; i++ {
		z := bytes.IndexByte(desc, 0)
		if z < 0 || len(desc) < z+19 || len(row) < 4 {
			return
		}
		name := desc[:z]
		desc = desc[z+19:]
		n := int(int32(binary.BigEndian.Uint32(row)))
		row = row[4:]
		var val []byte
		if n > 0 {
			if len(row) < n {
				return
			}
			val = row[:n]
			row = row[n:]
		}
		if err := c.vars.StoreColumn(what, cmd.VarPrefix, string(name), val); err != nil {
			c.logf("%v", err)
			c.abortMsg = fmt.Sprintf("client %d script %d command %d query %d: error storing into variable %s%s", c.id, c.useFile, idx, c.qry-1, cmd.VarPrefix, name)
			return
		}
	}
}

// onError records an SQL error of the current command.
func (c *client) onError(se serverError) {
	r := c.th.r
	if se.Severity == "FATAL" || se.Severity == "PANIC" {
		c.noteLost(se.pgError())
	}
	if len(c.pend) == 0 {
		// unsolicited (a FATAL while the client sleeps or thinks): kept
		// for the abort message when the client next uses the connection
		c.fatalText = strings.TrimRight(se.libpqText(""), "\n")
		return
	}
	if c.es != esNone || c.abortMsg != "" {
		return
	}
	es := sqlErrorStatus(se.Code)
	idx := c.command
	if len(c.pend) > 0 && c.pend[0].cmd >= 0 {
		idx = int(c.pend[0].cmd)
	}
	query := ""
	switch {
	case r.mode == QuerySimple:
		query = string(c.sqlText)
	case r.mode == QueryExtended && idx < len(r.scripts[c.useFile].Commands):
		query = r.scripts[c.useFile].Commands[idx].ParamSQL()
	}
	msg := strings.TrimRight(se.libpqText(query), "\n")
	if es.retryable() {
		c.es = es
		if r.verboseErrors {
			r.logInfo("client %d got an error in command %d (SQL) of script %d; %s", c.id, c.command, c.useFile, msg)
		}
		return
	}
	if len(c.pend) > 0 && c.pend[0].cmd == pendRollback {
		c.abortMsg = msg
		return
	}
	c.es = esOther
	c.abortMsg = fmt.Sprintf("client %d script %d aborted in command %d query %d: %s", c.id, c.useFile, c.command, c.qry, msg)
}
