package dist

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/pglab/pglab/bench"
)

// Protocol names the version of the coordinator-worker protocol. Both
// sides refuse a peer of another protocol.
const Protocol = "pglab-worker/1"

// maxFrame bounds one frame (a Config with its scripts, or a result with
// its histogram, is far smaller).
const maxFrame = 64 << 20

// Timing of the protocol's liveness checks: each side sends a heartbeat
// every HeartbeatEvery and calls its peer lost after LostAfter without any
// frame from it.
const (
	HeartbeatEvery = time.Second
	LostAfter      = 5 * time.Second
)

// The frame types.
const (
	msgChallenge = "challenge" // coordinator → worker, first: protocol, version, nonce
	msgHello     = "hello"     // worker → coordinator: who it is, the token's MAC of the nonce
	msgRefuse    = "refuse"    // coordinator → worker: not admitted (then closed)
	msgAssign    = "assign"    // coordinator → worker: a run's Config with the worker's share
	msgReady     = "ready"     // worker → coordinator: connected, waiting at the barrier
	msgFail      = "fail"      // worker → coordinator: the run could not be set up
	msgStart     = "start"     // coordinator → workers: the barrier opens
	msgInterval  = "interval"  // worker → coordinator: one progress interval
	msgLog       = "log"       // worker → coordinator: lines the engine printed on stderr
	msgResult    = "result"    // worker → coordinator: the share's final figures
	msgStop      = "stop"      // coordinator → worker: end the run now
	msgBye       = "bye"       // coordinator → worker: the session is over, exit
	msgHeartbeat = "heartbeat" // both ways, every HeartbeatEvery
)

// frame is one message on the wire: a 4-byte big-endian length, then this
// object as JSON.
type frame struct {
	Type string          `json:"type"`
	Body json.RawMessage `json:"body,omitempty"`
}

type challengeMsg struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	Nonce    string `json:"nonce"`
}

type helloMsg struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	// Name is the worker's host name and process id; Index its
	// Kubernetes completion index, or -1.
	Name  string `json:"name"`
	Index int    `json:"index"`
	// MAC is hex HMAC-SHA256 of the nonce keyed by the token (the token
	// itself never crosses the wire); empty without a token.
	MAC string `json:"mac"`
}

type refuseMsg struct {
	Reason string `json:"reason"`
}

type assignMsg struct {
	Run     int `json:"run"`
	Worker  int `json:"worker"`
	Workers int `json:"workers"`
	// Config is the share's bench.Config, without a password.
	Config json.RawMessage `json:"config"`
	// Hist is the histogram configuration every side must use.
	Hist bench.HistConfig `json:"hist"`
}

type readyMsg struct {
	Run int `json:"run"`
	// Fingerprint is what the worker will run (see fingerprint).
	Fingerprint     string `json:"fingerprint"`
	ServerVersion   string `json:"server_version"`
	Scale           int    `json:"scale"`
	PartitionMethod string `json:"partition_method,omitempty"`
	Partitions      int    `json:"partitions,omitempty"`
}

type failMsg struct {
	Run int `json:"run"`
	// Text is the engine's message (pgbench's lines, without the last
	// newline); Code the exit code a single process would have had.
	Text string `json:"text"`
	Code int    `json:"code"`
}

type intervalMsg struct {
	Run       int         `json:"run"`
	No        int         `json:"no"`
	ElapsedUS int64       `json:"elapsed_us"`
	EpochUS   int64       `json:"epoch_us"`
	Stats     bench.Stats `json:"stats"`
	// Hist is HdrHistogram's compressed V2 encoding (base64 in JSON).
	Hist []byte `json:"hist"`
}

type logMsg struct {
	Text string `json:"text"`
}

type resultMsg struct {
	Run     int            `json:"run"`
	Figures *bench.Figures `json:"figures"`
	Hist    []byte         `json:"hist"`
	// Aborted: some client did not finish; AbortThread >= 0: the run was
	// stopped by --exit-on-abort in that thread (of the whole run);
	// Interrupted: the run was stopped (msgStop).
	Aborted     bool `json:"aborted"`
	AbortThread int  `json:"abort_thread"`
	Interrupted bool `json:"interrupted"`
}

type stopMsg struct {
	Reason string `json:"reason"`
}

// conn is one end of a coordinator-worker connection: framed writes from
// any goroutine, reads with a deadline of LostAfter.
type conn struct {
	nc  net.Conn
	r   *bufio.Reader
	wmu sync.Mutex
}

func newConn(nc net.Conn) *conn {
	return &conn{nc: nc, r: bufio.NewReader(nc)}
}

// send writes one frame (within LostAfter).
func (c *conn) send(typ string, body any) error {
	f := frame{Type: typ}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s: %w", typ, err)
		}
		f.Body = b
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode %s: %w", typ, err)
	}
	buf := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	copy(buf[4:], b)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(LostAfter))
	if _, err := c.nc.Write(buf); err != nil {
		return fmt.Errorf("send %s: %w", typ, err)
	}
	return nil
}

// errLost is a peer that sent nothing for LostAfter.
var errLost = fmt.Errorf("no message for %s", LostAfter)

// recv reads one frame, waiting at most wait (LostAfter when 0).
func (c *conn) recv(wait time.Duration) (frame, error) {
	if wait == 0 {
		wait = LostAfter
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(wait))
	var hdr [4]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return frame{}, readError(err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame {
		return frame{}, fmt.Errorf("frame of %d bytes is too large (at most %d)", n, maxFrame)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.r, b); err != nil {
		return frame{}, readError(err)
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return frame{}, fmt.Errorf("bad frame: %w", err)
	}
	return f, nil
}

func readError(err error) error {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return errLost
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("connection closed")
	}
	return err
}

// decode reads a frame's body into v; unknown fields are refused (a peer
// of another build).
func decode(f frame, v any) error {
	dec := json.NewDecoder(bytes.NewReader(f.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad %s message: %w", f.Type, err)
	}
	return nil
}

func (c *conn) close() { _ = c.nc.Close() }

// mac is the token's HMAC-SHA256 of the nonce, in hex.
func mac(token, nonce string) string {
	if token == "" {
		return ""
	}
	h := hmac.New(sha256.New, []byte(token))
	h.Write([]byte(nonce))
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprint identifies what a share runs: the Config's workload (scripts,
// options, seed, share) without the connection settings, which a worker may
// take from its own environment.
func fingerprint(cfg bench.Config) string {
	cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName = "", "", "", "", ""
	cfg.LogPID = 0
	b, _ := json.Marshal(cfg)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
