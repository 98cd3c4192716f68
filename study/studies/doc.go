// Package studies holds pglab's studies, one file each (replay, the
// largest, in four): the seeds' experiments (tps, vacuum, copy-out,
// copy-errors, seqscan, commit), PGTune's recommendations (tune) and the
// replay of a captured workload. Each registers itself with
// study.Register in an init function; importing the package (lab does)
// makes them known. They use the framework of package study — targets,
// sessions, datasets, measured steps — and nothing of each other but the
// helpers of this package (the load runs sized by precision in
// loadrun.go, the statements of a dataset in helpers.go).
package studies
