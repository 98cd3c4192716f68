package blockdev

import (
	"os"
	"reflect"
	"testing"
)

func readMountInfo(t *testing.T) []Mount {
	t.Helper()
	data, err := os.ReadFile("testdata/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return ParseMountInfo(data)
}

func TestParseMountInfo(t *testing.T) {
	mounts := readMountInfo(t)
	var points []string
	for _, m := range mounts {
		points = append(points, m.Point)
	}
	// The garbage line, the bad device number and the line without a
	// source are skipped.
	want := []string{"/proc", "/", "/data", "/data2", "/data/with space", "/data2", "/mnt/old"}
	if !reflect.DeepEqual(points, want) {
		t.Fatalf("mount points %q, want %q", points, want)
	}
	got := mounts[2] // optional fields before the separator
	if w := (Mount{Dev: Dev{259, 2}, Root: "/", Point: "/data", Options: "rw", FSType: "xfs", Source: "/dev/nvme0n1p2", SuperOptions: "rw,attr2"}); got != w {
		t.Errorf("line with optional fields: %+v, want %+v", got, w)
	}
	got = mounts[4] // escapes
	if w := (Mount{Dev: Dev{0, 41}, Root: "/vol a", Point: "/data/with space", Options: "rw", FSType: "btrfs", Source: "/dev/sdb1", SuperOptions: `rw,subvol=/vol\040a`}); got != w {
		t.Errorf("line with escapes: %+v, want %+v", got, w)
	}
	if got := ParseMountInfo(nil); len(got) != 0 {
		t.Errorf("empty text: %+v", got)
	}
}

func TestMountOf(t *testing.T) {
	mounts := readMountInfo(t)
	type want struct{ point, fstype, source string }
	for _, c := range []struct {
		path string
		dev  Dev
		want want
	}{
		{"/", Dev{}, want{"/", "ext4", "/dev/vda"}},
		{"/home/u", Dev{}, want{"/", "ext4", "/dev/vda"}},
		{"/data", Dev{}, want{"/data", "xfs", "/dev/nvme0n1p2"}},
		{"/data/pg/17", Dev{259, 2}, want{"/data", "xfs", "/dev/nvme0n1p2"}},
		{"/database", Dev{}, want{"/", "ext4", "/dev/vda"}},
		{"/data/with space/x", Dev{}, want{"/data/with space", "btrfs", "/dev/sdb1"}},
		{"/proc/1", Dev{0, 21}, want{"/proc", "proc", "proc"}},
		// Two mounts on /data2: the one on top (the last), unless the
		// device number says it is the other.
		{"/data2/x", Dev{}, want{"/data2", "overlay", "overlay"}},
		{"/data2/x", Dev{0, 42}, want{"/data2", "overlay", "overlay"}},
		{"/data2/x", Dev{0, 40}, want{"/data2", "tmpfs", "tmpfs"}},
		{"/data2/x", Dev{0, 99}, want{"/data2", "overlay", "overlay"}},
	} {
		m, ok := MountOf(mounts, c.path, c.dev)
		if got := (want{m.Point, m.FSType, m.Source}); !ok || got != c.want {
			t.Errorf("MountOf(%q, %v) = %+v, %v; want %+v", c.path, c.dev, got, ok, c.want)
		}
	}
	if m, ok := MountOf(mounts[2:3], "/srv", Dev{}); ok {
		t.Errorf("MountOf outside every mount point: %+v", m)
	}
	if m, ok := MountOf(nil, "/", Dev{}); ok {
		t.Errorf("MountOf without mounts: %+v", m)
	}
}

func TestBacking(t *testing.T) {
	mounts := readMountInfo(t)
	for i, want := range map[int][]string{
		0: nil,                // proc
		1: {"/dev/vda"},       // ext4 on a device
		5: {"/var/upper dir"}, // overlay: its upper directory, unescaped
		4: {"/dev/sdb1"},      // btrfs
		3: nil,                // tmpfs
		6: {"/dev/sdb1"},      // a second mount of a device
	} {
		if got := mounts[i].Backing(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s on %s: Backing() = %q, want %q", mounts[i].FSType, mounts[i].Point, got, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`:           "/a b",
		`/plain`:            "/plain",
		`/x\04`:             `/x\04`, // too short to be an escape
		`\134`:              `\`,
		`/a\040b\134c\011`:  "/a b\\c\t",
		`/bad\999`:          `/bad\999`, // not octal
		`/a\012b\040\040c/`: "/a\nb  c/",
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDevString(t *testing.T) {
	d := Dev{259, 65538}
	back, ok := parseDev(d.String())
	if d.String() != "259:65538" || !ok || back != d {
		t.Errorf("%v: %q, parsed back %v %v", d, d.String(), back, ok)
	}
	for _, bad := range []string{"", "8", "8:", ":1", "x:1", "-1:0", "4294967296:0"} {
		if _, ok := parseDev(bad); ok {
			t.Errorf("parseDev(%q) accepted", bad)
		}
	}
}
