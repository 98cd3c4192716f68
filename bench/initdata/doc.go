// Package initdata is pgbench's initialization (pgbench -i) as a Go API.
package initdata
