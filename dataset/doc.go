// Package dataset keeps studies' data built once, as stopped, cleanly
// shut down data directories in pglab's cache, and clones them.
package dataset
