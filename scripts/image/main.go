// Command image builds pglab's container image without a container
// engine: an OCI image of the static binary (scripts/build) with a
// non-root user, a writable home, /tmp and a CA bundle, written as an OCI
// image layout (--out DIR) and/or a docker-archive tarball (--tar FILE).
// The image serves both roles of the Kubernetes Job that 'pglab bench
// --k8s-job' prints: pglab is on its PATH, as its entrypoint.
//
//	go run ./scripts/image --tar pglab.tar            # docker/podman load -i pglab.tar
//	go run ./scripts/image --out pglab-oci            # skopeo copy oci:pglab-oci docker://REGISTRY/pglab:TAG
//	go run ./scripts/image --binary ./pglab --tar pglab.tar --tag registry.example/pglab:1.0
//
// Without --binary it builds one with scripts/build for --arch (default
// the host's). A dynamically linked binary is refused: the image has no
// libc. The Dockerfile at the repository's root makes the same image with
// docker.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pglab/pglab/internal/buildinfo"
)

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "", "a static pglab binary to package (default: build one with scripts/build)")
	flag.StringVar(&o.out, "out", "", "write the image as an OCI image layout into `DIR`")
	flag.StringVar(&o.tar, "tar", "", "write the image as a docker-archive tarball `FILE` (docker load, podman load, kind load image-archive)")
	flag.StringVar(&o.tag, "tag", "pglab:"+buildinfo.Version, "the image's name and tag")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "the image's architecture (GOARCH) when the binary is built here")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	binary, out, tar, tag, arch string
}

func run(o options) error {
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags only; -h lists them)", flag.Arg(0))
	}
	if o.out == "" && o.tar == "" {
		return fmt.Errorf("give --out DIR (an OCI image layout) or --tar FILE (a docker-archive tarball), or both")
	}
	if o.binary == "" {
		tmp, err := os.MkdirTemp("", "pglab-image-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		o.binary = filepath.Join(tmp, "pglab")
		if err := buildBinary(o.binary, o.arch); err != nil {
			return err
		}
	}
	img, err := Build(o.binary)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := WriteLayout(o.out, img, o.tag); err != nil {
			return err
		}
		fmt.Printf("image %s written to %s (OCI image layout)\n", o.tag, o.out)
	}
	if o.tar != "" {
		if err := WriteTarball(o.tar, img, o.tag); err != nil {
			return err
		}
		fmt.Printf("image %s written to %s (docker-archive)\n", o.tag, o.tar)
	}
	return nil
}
