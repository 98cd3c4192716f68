package bench

import (
	"net"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

func TestAssignLinks(t *testing.T) {
	cases := []struct {
		name               string
		threadCPU, linkCPU []int
		want               []int
	}{
		{"already placed", []int{0, 0, 1, 1}, []int{0, 0, 1, 1}, []int{0, 1, 2, 3}},
		{"one swap", []int{0, 0, 1, 1}, []int{0, 1, 0, 1}, []int{0, 2, 1, 3}},
		{"all crossed", []int{0, 0, 1, 1}, []int{1, 1, 0, 0}, []int{2, 3, 0, 1}},
		{"unknown stay", []int{0, 0, 1, 1}, []int{-1, -1, -1, -1}, []int{0, 1, 2, 3}},
		// five backends on CPU 0: thread 1 gets one of them
		// three backends on CPU 0: thread 1 keeps one of them
		{"unbalanced", []int{0, 0, 1, 1}, []int{0, 0, 0, 1}, []int{0, 1, 2, 3}},
		{"unbalanced crossed", []int{0, 0, 1, 1}, []int{1, 0, 0, 0}, []int{2, 1, 0, 3}},
		{"cpu of no thread", []int{0, 0, 1, 1}, []int{3, 1, 0, 1}, []int{2, 0, 1, 3}},
	}
	for _, tc := range cases {
		got := assignLinks(tc.threadCPU, tc.linkCPU)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		seen := make([]bool, len(got))
		for _, j := range got {
			if j < 0 || j >= len(got) || seen[j] {
				t.Fatalf("%s: %v is not a permutation", tc.name, got)
			}
			seen[j] = true
		}
	}
}

func TestPinPlan(t *testing.T) {
	if pinPlan(1, false) != nil {
		t.Error("one thread pinned")
	}
	if pinPlan(2, true) != nil {
		t.Error("pinned despite NoPin")
	}
	t.Setenv(EnvNoPin, "1")
	if pinPlan(2, false) != nil {
		t.Errorf("pinned despite $%s=1", EnvNoPin)
	}
	t.Setenv(EnvNoPin, "")
	if n := runtime.NumCPU(); n >= 2 {
		cpus := pinPlan(n, false)
		if len(cpus) != n {
			t.Fatalf("plan for %d threads on %d CPUs: %v", n, n, cpus)
		}
		for i := 1; i < n; i++ {
			if cpus[i] <= cpus[i-1] {
				t.Errorf("CPUs not distinct: %v", cpus)
			}
		}
	}
	if pinPlan(runtime.NumCPU()+1, false) != nil {
		t.Error("more threads than CPUs pinned")
	}
}

// TestIncomingCPU checks the kernel interface placeLinks relies on: after
// data arrives on a loopback TCP socket, SO_INCOMING_CPU names a CPU.
func TestIncomingCPU(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Write([]byte("x"))
		buf := make([]byte, 1)
		_, _ = c.Read(buf)
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil {
		t.Fatal(err)
	}
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	cpu := -2
	if err := raw.Control(func(fd uintptr) { cpu = incomingCPU(int(fd)) }); err != nil {
		t.Fatal(err)
	}
	if cpu < 0 || cpu >= runtime.NumCPU() {
		t.Errorf("SO_INCOMING_CPU after a read: %d, want a CPU in [0,%d)", cpu, runtime.NumCPU())
	}
}
