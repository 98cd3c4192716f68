// Package report renders stored results: per study and case, one row per
// metric and one column per target, then the change against the first
// target with its verdict, as the seed articles' tables do — but with the
// statistics of package compare behind every cell. It never talks to a live
// server; it reads measurements as the results store keeps them.
package report
