package observe

import (
	"context"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestServer(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			inst := pgtest.New(t, pgtest.Options{Version: v, Checksums: v == "17", Settings: []pgserver.Setting{
				{Name: "shared_buffers", Value: "64MB"},
				{Name: "work_mem", Value: "8MB"},
			}})
			conn := pgtest.Connect(t, inst.DSN())
			info, err := Server(context.Background(), conn)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(info.Version, "PostgreSQL "+v+".") {
				t.Errorf("version %q, want PostgreSQL %s.x", info.Version, v)
			}
			if info.Major() != inst.Version().Major || info.VersionNum < info.Major()*10000 {
				t.Errorf("version num %d, major %d; server is %v", info.VersionNum, info.Major(), inst.Version())
			}
			if info.DataChecksums != (v == "17") {
				t.Errorf("data checksums %v, want %v", info.DataChecksums, v == "17")
			}
			if info.BlockSize != 8192 {
				t.Errorf("block size %d", info.BlockSize)
			}
			changed := map[string]Setting{}
			for _, s := range info.Changed() {
				changed[s.Name] = s
			}
			if s := changed["shared_buffers"]; s.Setting != "8192" || s.Unit != "8kB" || s.BootVal == "" || s.BootVal == s.Setting || s.Context != "postmaster" || s.Source != "configuration file" {
				t.Errorf("shared_buffers: %+v", s)
			}
			if s := changed["work_mem"]; s.Setting != "8192" || s.Unit != "kB" || s.Context != "user" {
				t.Errorf("work_mem: %+v", s)
			}
			all := map[string]Setting{}
			for _, s := range info.Settings {
				all[s.Name] = s
			}
			// initdb's locale lines are recorded but marked.
			if s, ok := all["lc_messages"]; !ok || !s.Boilerplate {
				t.Errorf("lc_messages: %+v (present %v), want boilerplate", s, ok)
			}
			for _, name := range []string{"lc_messages", "TimeZone", "max_wal_size", "wal_buffers"} {
				if s, ok := changed[name]; ok {
					t.Errorf("%s counted as changed: %+v", name, s)
				}
			}
		})
	}
}
