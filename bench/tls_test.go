package bench_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/bench/script"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// tlsScript aborts the client (division by zero) when its connection is not
// encrypted, so a transaction counts only if it ran over TLS.
const tlsScript = `SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid() \gset
\if :ssl
SELECT 1;
\else
SELECT 1/0;
\endif
`

// TestRunTLS runs the engine against a server that has TLS on, with
// sslmode=require: clients connect over TLS (the goroutine-per-client
// path), with and without -C, in every query mode, and run the builtin
// select-only script as well as a script that fails on a plain connection.
func TestRunTLS(t *testing.T) {
	dir := pgtest.TempDir(t)
	cert, key := writeSelfSigned(t, dir)
	inst := pgtest.New(t, pgtest.Options{Settings: []pgserver.Setting{
		{Name: "ssl", Value: "on"},
		{Name: "ssl_cert_file", Value: cert},
		{Name: "ssl_key_file", Value: key},
	}})
	u, err := url.Parse(inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("sslmode", "require")
	u.RawQuery = q.Encode()
	dsn := u.String()

	cc, err := bench.ConnConfig(dsn, "", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if cc.TLSConfig == nil {
		t.Fatal("sslmode=require gave no TLS configuration")
	}
	var initOut bytes.Buffer
	if _, err := initdata.Run(context.Background(), cc, initdata.Options{Scale: 1}, &initOut); err != nil {
		t.Fatalf("init over TLS: %v\n%s", err, initOut.String())
	}

	for _, connect := range []bool{false, true} {
		for _, mode := range []bench.QueryMode{bench.QuerySimple, bench.QueryExtended, bench.QueryPrepared} {
			cfg := bench.DefaultConfig()
			cfg.ConnString = dsn
			cfg.Scripts = []bench.ScriptSpec{
				{Desc: "tls.sql", Text: tlsScript, Weight: 1},
				bench.BuiltinSpec(script.Builtins()[2], 1),
			}
			cfg.Clients, cfg.Threads, cfg.Transactions = 4, 2, 25
			cfg.Mode = mode
			cfg.Connect = connect
			var stderr bytes.Buffer
			cfg.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			res, err := bench.Run(ctx, cfg)
			cancel()
			if err != nil {
				t.Fatalf("-C %v %v: %v\n%s", connect, mode, err, stderr.String())
			}
			if res.Aborted || res.Transactions != 100 || res.Failed != 0 {
				t.Errorf("-C %v %v: aborted %v transactions %d failed %d; stderr:\n%s",
					connect, mode, res.Aborted, res.Transactions, res.Failed, stderr.String())
			}
			if strings.Contains(stderr.String(), "division by zero") {
				t.Errorf("-C %v %v: a client ran without TLS:\n%s", connect, mode, stderr.String())
			}
		}
	}

	// The same script on a plain connection aborts: the check above can fail.
	plain := bench.DefaultConfig()
	plain.ConnString = inst.DSN()
	plain.Scripts = []bench.ScriptSpec{{Desc: "tls.sql", Text: tlsScript, Weight: 1}}
	plain.Clients, plain.Transactions = 1, 1
	plain.NoVacuum = true
	var stderr bytes.Buffer
	plain.Stderr = &stderr
	res, err := bench.Run(context.Background(), plain)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Aborted || !strings.Contains(stderr.String(), "division by zero") {
		t.Errorf("plain connection: aborted %v, stderr %q", res.Aborted, stderr.String())
	}
}

// writeSelfSigned writes a self-signed certificate for 127.0.0.1 and its
// key (0600, owned by the server user, as PostgreSQL requires) to dir.
func writeSelfSigned(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	su, err := pgserver.LookupServerUser()
	if err != nil {
		t.Fatal(err)
	}
	if !su.Self {
		if err := os.Chown(keyPath, su.UID, su.GID); err != nil {
			t.Fatal(err)
		}
	}
	return certPath, keyPath
}
