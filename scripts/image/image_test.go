package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/x509"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/validate"

	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// staticBinary builds pglab with scripts/build, as make build does (go's
// build cache makes every call after the first a link).
func staticBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pglab")
	if err := buildBinary(bin, "amd64"); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestStaticBuild: scripts/build (make build's) gives a binary with no ELF
// interpreter and no shared libraries; a dynamically linked program is
// refused with a line that says how to build a static one.
func TestStaticBuild(t *testing.T) {
	if arch, err := CheckStatic(staticBinary(t)); err != nil || arch != "amd64" {
		t.Fatalf("scripts/build's binary: %q, %v", arch, err)
	}
	ls, err := exec.LookPath("ls")
	if err != nil {
		t.Fatal(err)
	}
	_, err = CheckStatic(ls)
	if err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("%s (dynamically linked) accepted: %v", ls, err)
	}
	if _, err := CheckStatic("image.go"); err == nil || !strings.Contains(err.Error(), "not an ELF executable") {
		t.Errorf("a Go source file accepted: %v", err)
	}
}

// TestImage builds the image, writes both formats and reads them back: a
// valid image (every digest and size checked), the same config in both,
// a non-root numeric user, pglab as entrypoint and on PATH, and a
// filesystem whose binary runs as that user in a chroot of the image's
// files; the same binary gives the same image digest.
func TestImage(t *testing.T) {
	img, err := Build(staticBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const tag = "registry.example/pglab:test"
	if err := WriteLayout(filepath.Join(dir, "oci"), img, tag); err != nil {
		t.Fatal(err)
	}
	if err := WriteTarball(filepath.Join(dir, "pglab.tar"), img, tag); err != nil {
		t.Fatal(err)
	}
	fromLayout := readLayout(t, filepath.Join(dir, "oci"), tag)
	ref, _ := name.NewTag(tag)
	fromTar, err := tarball.ImageFromPath(filepath.Join(dir, "pglab.tar"), &ref)
	if err != nil {
		t.Fatal(err)
	}
	for what, im := range map[string]v1.Image{"OCI layout": fromLayout, "docker archive": fromTar} {
		if err := validate.Image(im); err != nil {
			t.Errorf("%s: invalid image: %v", what, err)
		}
	}
	c1, _ := fromLayout.ConfigName()
	c2, _ := fromTar.ConfigName()
	if c1 != c2 {
		t.Errorf("configs differ: layout %s, tarball %s", c1, c2)
	}
	cf, err := fromLayout.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	checkConfig(t, cf)
	root := extract(t, fromLayout)
	checkFiles(t, root)
	out := runIn(t, root, cf.Config, nil, "version")
	if !strings.Contains(out, buildinfo.Version) {
		t.Errorf("pglab version in the image printed %q, want %s", out, buildinfo.Version)
	}
	again, err := Build(filepath.Join(root, binPath))
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("the same binary gave two image digests: %s and %s", d1, d2)
	}
}

// readLayout reads the one image of an OCI layout and checks its name.
func readLayout(t *testing.T, dir, tag string) v1.Image {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != tag ||
		im.Manifests[0].Platform == nil || im.Manifests[0].Platform.OS != "linux" {
		t.Fatalf("index.json: %+v", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func checkConfig(t *testing.T, cf *v1.ConfigFile) {
	t.Helper()
	c := cf.Config
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	if c.User != "65532:65532" {
		t.Errorf("user %q, want the numeric non-root 65532:65532", c.User)
	}
	if strings.Join(c.Entrypoint, " ") != binPath || c.WorkingDir != homeDir {
		t.Errorf("entrypoint %q, working dir %q", c.Entrypoint, c.WorkingDir)
	}
	if !strings.Contains(strings.Join(c.Env, " "), "PATH=/usr/local/bin:") {
		t.Errorf("env %q: /usr/local/bin not on PATH", c.Env)
	}
	if c.Labels["org.opencontainers.image.licenses"] != "PostgreSQL" || c.Labels["org.opencontainers.image.version"] != buildinfo.Version {
		t.Errorf("labels %v", c.Labels)
	}
}

// extract writes the image's flattened filesystem into a new directory,
// checking each entry's mode and owner on the way.
func extract(t *testing.T, img v1.Image) string {
	t.Helper()
	root := t.TempDir()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	modes := map[string]os.FileMode{}
	owners := map[string]int{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.Clean("/"+h.Name))
		modes["/"+strings.TrimSuffix(h.Name, "/")], owners["/"+strings.TrimSuffix(h.Name, "/")] = h.FileInfo().Mode(), h.Uid
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, h.FileInfo().Mode().Perm()|h.FileInfo().Mode()&os.ModeSticky)
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, h.FileInfo().Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if m := modes[binPath]; m.Perm() != 0o755 || !m.IsRegular() {
		t.Errorf("%s mode %v", binPath, m)
	}
	if m := modes["/tmp"]; m&os.ModeSticky == 0 || m.Perm() != 0o777 {
		t.Errorf("/tmp mode %v, want a sticky 1777", m)
	}
	if owners[homeDir] != userID || owners[binPath] != 0 {
		t.Errorf("owners: home %d, binary %d", owners[homeDir], owners[binPath])
	}
	return root
}

// checkFiles checks the extracted filesystem: the static binary, the user
// in /etc/passwd and /etc/group, the CA bundle and the licence.
func checkFiles(t *testing.T, root string) {
	t.Helper()
	if _, err := CheckStatic(filepath.Join(root, binPath)); err != nil {
		t.Errorf("the image's binary: %v", err)
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !regexp.MustCompile(`(?m)^pglab:x:65532:65532:[^:]*:/home/pglab:`).Match(passwd) {
		t.Errorf("/etc/passwd lacks the user:\n%s", passwd)
	}
	group, _ := os.ReadFile(filepath.Join(root, "etc/group"))
	if !bytes.Contains(group, []byte("pglab:x:65532:")) {
		t.Errorf("/etc/group lacks the group:\n%s", group)
	}
	pool := x509.NewCertPool()
	ca, _ := os.ReadFile(filepath.Join(root, caBundle))
	if !pool.AppendCertsFromPEM(ca) || bytes.Count(ca, []byte("BEGIN CERTIFICATE")) < 100 {
		t.Errorf("%s holds %d certificates", caBundle, bytes.Count(ca, []byte("BEGIN CERTIFICATE")))
	}
	licence, _ := os.ReadFile(filepath.Join(root, "usr/share/doc/pglab/LICENSE"))
	if !bytes.Contains(licence, []byte("PostgreSQL License")) {
		t.Error("the licence is missing")
	}
}

// command is pglab in the image as a container runtime starts it: a
// chroot of root, the config's user (a user namespace maps it to ours),
// environment and working directory, "pglab" found on the config's PATH
// in the image's files.
func command(t *testing.T, root string, c v1.Config, env []string, args ...string) *exec.Cmd {
	t.Helper()
	bin := ""
	for _, e := range c.Env {
		if dirs, ok := strings.CutPrefix(e, "PATH="); ok {
			for _, d := range filepath.SplitList(dirs) {
				if st, err := os.Stat(filepath.Join(root, d, "pglab")); err == nil && st.Mode()&0o111 != 0 {
					bin = filepath.Join(d, "pglab")
					break
				}
			}
		}
	}
	if bin == "" {
		t.Fatalf("pglab is not on the image's PATH (%q)", c.Env)
	}
	cmd := &exec.Cmd{Path: bin, Args: append([]string{"pglab"}, args...), Dir: c.WorkingDir, Env: append(append([]string{}, c.Env...), env...)}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Chroot:                     root,
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: userID, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: userID, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
	return cmd
}

// runIn runs pglab in the image (see command) and returns its output.
func runIn(t *testing.T, root string, c v1.Config, env []string, args ...string) string {
	t.Helper()
	out, err := command(t, root, c, env, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("pglab %s in the image: %v\n%s\n(the test runs the image's files in a chroot inside a user namespace: "+
			"it needs unprivileged user namespaces, e.g. sysctl kernel.unprivileged_userns_clone=1, or root)", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestImageRunsTheK8sJob runs the two containers of 'pglab bench
// --k8s-job' from the image's files (as in TestImage) with the
// manifests' commands: a coordinator 'pglab bench --listen
// --expect-workers 2' and two 'pglab worker --join' with PGPASSWORD, against a
// real server: 2 × 3 clients × 5 transactions reach the database, and the
// coordinator keeps the run in a store in the user's home.
func TestImageRunsTheK8sJob(t *testing.T) {
	img, err := Build(staticBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	root := extract(t, img)
	dsn := pgtest.CreateDB(t, pgtest.Shared(t, pgtest.DefaultVersion()))
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(context.Background(), "create table ids (client_id int)"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tmp/ids.sql"), []byte("insert into ids values (:client_id);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	u.User = url.User(u.User.Username())
	var coStderr, coStdout lockedBuffer
	co := command(t, root, cf.Config, nil, "bench", "--listen=127.0.0.1:0", "--expect-workers=2", "--store="+homeDir+"/results.db",
		"-n", "-f", "/tmp/ids.sql", "-c", "6", "-j", "2", "-t", "5", u.String())
	co.Stdout, co.Stderr = &coStdout, &coStderr
	if err := co.Start(); err != nil {
		t.Fatal(err)
	}
	defer co.Process.Kill()
	addr := waitFor(t, &coStderr, regexp.MustCompile(`pglab worker --join (\S+)`))
	var workers []*exec.Cmd
	for range 2 {
		w := command(t, root, cf.Config, []string{"PGPASSWORD=" + pw}, "worker", "--join="+addr, "--join-timeout=30s")
		w.Stdout, w.Stderr = io.Discard, io.Discard
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Process.Kill()
		workers = append(workers, w)
	}
	if err := co.Wait(); err != nil {
		t.Fatalf("coordinator: %v\n%s\n%s", err, coStdout.String(), coStderr.String())
	}
	for i, w := range workers {
		if err := w.Wait(); err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	if !strings.Contains(coStdout.String(), "number of transactions actually processed: 30/30") {
		t.Errorf("coordinator's summary:\n%s", coStdout.String())
	}
	if got := pgtest.QueryString(t, conn, "select count(distinct client_id)::text || '/' || count(*) from ids"); got != "6/30" {
		t.Errorf("clients/rows in the database: %s, want 6/30", got)
	}
	if _, err := os.Stat(filepath.Join(root, homeDir, "results.db")); err != nil || !strings.Contains(coStderr.String(), "stored in /home/pglab/results.db") {
		t.Errorf("no results store in the image's home (%v):\n%s", err, coStderr.String())
	}
}

// waitFor waits up to 30 s for re to match b and returns its first group.
func waitFor(t *testing.T, b *lockedBuffer, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := re.FindStringSubmatch(b.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no %s in:\n%s", re, b.String())
	return ""
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDockerfileAgrees: the Dockerfile beside the Go image builds with
// scripts/build (static) and puts the binary, the entrypoint and the user
// where this image does.
func TestDockerfileAgrees(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"RUN scripts/build /pglab\n",
		"FROM gcr.io/distroless/static-debian12:nonroot\n",
		"COPY --from=build /pglab " + binPath + "\n",
		"USER 65532:65532\n",
		`ENTRYPOINT ["` + binPath + `"]` + "\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
