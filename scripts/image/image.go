package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"

	"github.com/pglab/pglab/internal/buildinfo"
)

// The image's user: a fixed non-root UID and GID (distroless's "nonroot"
// uses the same numbers), numeric in the config so that Kubernetes'
// runAsNonRoot can check it.
const (
	userName = "pglab"
	userID   = 65532
	homeDir  = "/home/pglab"
	binPath  = "/usr/local/bin/pglab"
	caBundle = "/etc/ssl/certs/ca-certificates.crt" // where Go's crypto/x509 looks first on Linux
)

// epoch is every file's and the config's time: the same binary gives the
// same image digest.
var epoch = time.Unix(0, 0).UTC()

// repoRoot is the repository's root, from this file's place in it (go
// run and go test both compile it from the checkout).
func repoRoot() string {
	_, src, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(src), "..", "..")
}

// buildBinary builds a static pglab for linux/arch into out with
// scripts/build.
func buildBinary(out, arch string) error {
	script := filepath.Join(repoRoot(), "scripts", "build")
	cmd := exec.Command(script, out)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/build: %v\n%s", err, msg)
	}
	return nil
}

// CheckStatic returns the GOARCH of a Linux ELF executable, or an error if
// it is not one or is linked dynamically (an interpreter or shared
// libraries): such a binary cannot run in an image without a libc.
func CheckStatic(path string) (arch string, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: not an ELF executable: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "", fmt.Errorf("%s is linked dynamically (it names an interpreter): build it with CGO_ENABLED=0 (scripts/build)", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		return "", fmt.Errorf("%s needs shared libraries %v: build it with CGO_ENABLED=0 (scripts/build)", path, libs)
	}
	if f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
		return "", fmt.Errorf("%s is not a Linux executable (%v)", path, f.OSABI)
	}
	switch f.Machine {
	case elf.EM_X86_64:
		return "amd64", nil
	case elf.EM_AARCH64:
		return "arm64", nil
	}
	return "", fmt.Errorf("%s is built for %v; the image supports amd64 and arm64", path, f.Machine)
}

// Build returns the image of the static binary at path: a base layer (user, home, /tmp, CA bundle, licence) and a layer
// with the binary.
func Build(path string) (v1.Image, error) {
	arch, err := CheckStatic(path)
	if err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	base, err := baseLayer()
	if err != nil {
		return nil, err
	}
	binLayer, err := layerOf([]entry{dir("usr/", 0), dir("usr/local/", 0), dir("usr/local/bin/", 0),
		file(binPath[1:], 0o755, bin)})
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1),
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "pglab scripts/image: user " + userName + ", " + homeDir + ", /tmp, CA bundle"}},
		mutate.Addendum{Layer: binLayer, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "pglab scripts/image: " + binPath}})
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, v1.Time{Time: epoch}
	cf.Config = v1.Config{
		User:       strconv.Itoa(userID) + ":" + strconv.Itoa(userID),
		Entrypoint: []string{binPath},
		Cmd:        []string{"--help"},
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + homeDir},
		WorkingDir: homeDir,
		Labels: map[string]string{
			"org.opencontainers.image.title":    "pglab",
			"org.opencontainers.image.version":  buildinfo.Version,
			"org.opencontainers.image.licenses": "PostgreSQL",
			"org.opencontainers.image.source":   "https://github.com/pglab/pglab",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// baseLayer holds what the binary needs around it: /etc/passwd and
// /etc/group naming the user, its home, /tmp, a CA bundle for
// sslmode=verify-full and the licence.
func baseLayer() (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, userID, userID, userName, homeDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, userID)
	ca, err := caPEM()
	if err != nil {
		return nil, err
	}
	licence, err := os.ReadFile(filepath.Join(repoRoot(), "LICENSE"))
	if err != nil {
		return nil, fmt.Errorf("the licence: %w", err)
	}
	home := dir(homeDir[1:]+"/", 0o755)
	home.uid = userID
	return layerOf([]entry{
		dir("etc/", 0), file("etc/passwd", 0o644, []byte(passwd)), file("etc/group", 0o644, []byte(group)),
		dir("etc/ssl/", 0), dir("etc/ssl/certs/", 0), file(caBundle[1:], 0o644, ca),
		dir("home/", 0), home, dir("tmp/", 0o1777),
		dir("usr/", 0), dir("usr/share/", 0), dir("usr/share/doc/", 0), dir("usr/share/doc/pglab/", 0),
		file("usr/share/doc/pglab/LICENSE", 0o644, licence),
	})
}

// caPEM is the Mozilla NSS root store that golang.org/x/crypto ships, as
// a PEM bundle; roots with constraints a PEM file cannot carry (distrust
// after a date) are left out.
func caPEM() ([]byte, error) {
	var b bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		if err := pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate}); err != nil {
			return nil, err
		}
	}
	if b.Len() == 0 {
		return nil, fmt.Errorf("no CA certificates in golang.org/x/crypto/x509roots/fallback/bundle")
	}
	return b.Bytes(), nil
}

// entry is one file or directory of a layer.
type entry struct {
	name string
	mode int64
	uid  int
	data []byte
	dir  bool
}

func dir(name string, mode int64) entry {
	if mode == 0 {
		mode = 0o755
	}
	return entry{name: name, mode: mode, dir: true}
}

func file(name string, mode int64, data []byte) entry {
	return entry{name: name, mode: mode, data: data}
}

// layerOf makes a gzip-compressed layer of entries, in their order, owned
// by root unless an entry says otherwise, all dated epoch.
func layerOf(entries []entry) (v1.Layer, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: epoch, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := b.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// WriteLayout writes img as an OCI image layout in dir (created, or added
// to), its manifest annotated with tag's name.
func WriteLayout(dir string, img v1.Image, tag string) error {
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, empty.Index); err != nil {
			return fmt.Errorf("OCI layout %s: %w", dir, err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	err = p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag}),
		layout.WithPlatform(v1.Platform{OS: cf.OS, Architecture: cf.Architecture}))
	if err != nil {
		return fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	return nil
}

// WriteTarball writes img as a docker-archive tarball (docker save's
// format) tagged tag.
func WriteTarball(path string, img v1.Image, tag string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("--tag %q: %w", tag, err)
	}
	if err := tarball.WriteToFile(path, ref, img); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
