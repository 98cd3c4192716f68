package observe

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// synth builds a series of n samples of 0.25 s from a function of the
// sample's index.
func synth(n int, f func(i int, x *OSSample)) *OSSeries {
	s := &OSSeries{Interval: 250 * time.Millisecond, CPUs: 2, Disks: []string{"vda"}}
	t0 := time.Unix(0, 0)
	var sum OSSample
	for i := 0; i < n; i++ {
		x := OSSample{Time: t0.Add(time.Duration(i+1) * s.Interval), Seconds: 0.25, CPUIdlePct: 100}
		f(i, &x)
		s.Samples = append(s.Samples, x)
		sum.CPUBusyPct += x.CPUBusyPct / float64(n)
		sum.IOWaitPct += x.IOWaitPct / float64(n)
		sum.ReadMBs += x.ReadMBs / float64(n)
	}
	s.Mean = sum
	return s
}

func resources(ns []Note) string {
	var r []string
	for _, n := range ns {
		r = append(r, n.Resource)
	}
	return strings.Join(r, ",")
}

func TestOSNotesDiskReadPlateau(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// A cold scan: two samples of ramp-up, then 23 at 87 MB/s ± 2.
	s := synth(25, func(i int, x *OSSample) {
		switch i {
		case 0:
			x.ReadMBs, x.ReadIOPS, x.DiskUtilPct = 10, 80, 30
		case 1:
			x.ReadMBs, x.ReadIOPS, x.DiskUtilPct = 40, 320, 70
		default:
			x.ReadMBs = 85 + 4*rng.Float64()
			x.ReadIOPS, x.DiskUtilPct = x.ReadMBs*8, 96
		}
		x.CPUBusyPct, x.IOWaitPct, x.CPUIdlePct = 20, 45, 35
	})
	notes := OSNotes(s, "scan")
	if resources(notes) != "iowait,disk_read" {
		t.Fatalf("notes %+v", notes)
	}
	n := notes[1]
	if n.Level < 85 || n.Level > 89 || n.Pct != 92 || n.Unit != "MB/s" {
		t.Errorf("note %+v", n)
	}
	if !strings.HasPrefix(n.Text, "disk read throughput flat at 8") || !strings.HasSuffix(n.Text, " IOPS) for 92 % of the scan") {
		t.Errorf("text %q", n.Text)
	}
	if notes[0].Text != "I/O wait 45 % of CPU time" {
		t.Errorf("iowait note %q", notes[0].Text)
	}
}

func TestOSNotesNone(t *testing.T) {
	cases := map[string]*OSSeries{
		// Rising steadily: never flat at its peak.
		"ramp": synth(40, func(i int, x *OSSample) {
			x.ReadMBs, x.ReadIOPS, x.DiskUtilPct = float64(i)*2.5, float64(i)*20, float64(i)*2.5
		}),
		// Mostly quiet with bursts: the peak is a spike.
		"spiky": synth(40, func(i int, x *OSSample) {
			x.ReadMBs, x.ReadIOPS, x.DiskUtilPct = 3, 20, 20
			if i%4 == 0 {
				x.ReadMBs, x.ReadIOPS, x.DiskUtilPct = 120, 1000, 100
			}
		}),
		// Steady but light: flat, yet the disk is mostly idle.
		"light": synth(40, func(i int, x *OSSample) {
			x.WriteMBs, x.WriteIOPS, x.DiskUtilPct = 2, 200, 4
		}),
		// Flat and saturated, but too few samples or too short.
		"few": synth(4, func(i int, x *OSSample) {
			x.ReadMBs, x.ReadIOPS, x.DiskUtilPct, x.CPUBusyPct, x.CPUIdlePct = 87, 700, 99, 99, 1
		}),
		"short": func() *OSSeries {
			s := synth(10, func(i int, x *OSSample) {
				x.ReadMBs, x.ReadIOPS, x.DiskUtilPct, x.CPUBusyPct, x.CPUIdlePct = 87, 700, 99, 99, 1
			})
			for i := range s.Samples {
				s.Samples[i].Seconds = 0.1
			}
			return s
		}(),
		// Busy CPU, but not saturated most of the time.
		"cpu-half": synth(40, func(i int, x *OSSample) {
			x.CPUBusyPct = 50
			if i%2 == 0 {
				x.CPUBusyPct = 97
			}
		}),
		"nil": nil,
	}
	for name, s := range cases {
		if notes := OSNotes(s, ""); len(notes) != 0 {
			t.Errorf("%s: notes %+v", name, notes)
		}
	}
}

func TestOSNotesCPU(t *testing.T) {
	s := synth(20, func(i int, x *OSSample) {
		x.CPUBusyPct, x.CPUIdlePct = 98, 2
		if i == 19 {
			x.CPUBusyPct, x.CPUIdlePct = 30, 70
		}
	})
	s.Disks = nil
	notes := OSNotes(s, "run")
	if len(notes) != 1 || notes[0].Text != "CPU saturated (98 % busy) for 95 % of the run" {
		t.Errorf("notes %+v", notes)
	}
}

func TestOSNotesIOPSAndBusy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Random reads: operations flat, request sizes (so MB/s) vary.
	s := synth(30, func(i int, x *OSSample) {
		x.ReadIOPS = 3000 + 100*rng.Float64()
		x.ReadMBs = x.ReadIOPS * (4 + 60*rng.Float64()) / 1024
		x.DiskUtilPct = 99
	})
	notes := OSNotes(s, "")
	if resources(notes) != "disk_read" || !strings.HasPrefix(notes[0].Text, "disk read operations flat at 30") || !strings.HasSuffix(notes[0].Text, "of the step") {
		t.Errorf("IOPS: %+v", notes)
	}
	// Busy disk, neither throughput nor operations flat.
	s = synth(30, func(i int, x *OSSample) {
		x.ReadIOPS = 100 + 3000*rng.Float64()
		x.ReadMBs = 1 + 100*rng.Float64()
		x.DiskUtilPct = 93 + 5*rng.Float64()
	})
	notes = OSNotes(s, "load")
	if resources(notes) != "disk_busy" || !strings.HasPrefix(notes[0].Text, "disk busy (util 9") || !strings.HasSuffix(notes[0].Text, "for 100 % of the load") {
		t.Errorf("busy: %+v", notes)
	}
}

func TestWaitNotes(t *testing.T) {
	p := &WaitProfile{Samples: 50, Sessions: 100, Events: []WaitShare{
		{Event: "IO:WALSync", Count: 62, Pct: 62}, {Event: CPUEvent, Count: 38, Pct: 38}}}
	notes := WaitNotes(p)
	if len(notes) != 1 || notes[0].Text != "sessions spent 62 % of their time waiting on IO:WALSync" {
		t.Errorf("notes %+v", notes)
	}
	p.Events = []WaitShare{{Event: CPUEvent, Count: 90, Pct: 90}, {Event: "IO:WALSync", Count: 10, Pct: 10}}
	if notes := WaitNotes(p); len(notes) != 0 {
		t.Errorf("CPU-bound: %+v", notes)
	}
	p = &WaitProfile{Samples: 5, Sessions: 5, Events: []WaitShare{{Event: "Lock:relation", Count: 5, Pct: 100}}}
	if notes := WaitNotes(p); len(notes) != 0 {
		t.Errorf("5 session-samples: %+v", notes)
	}
}
