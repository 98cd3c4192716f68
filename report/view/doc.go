// Package view analyses a [runs.Dataset] for reading: [Build] makes the
// [Report] that every format of package report renders, so that they agree
// figure for figure.
//
// A Report holds the setup (runs, targets, settings, hosts, environments,
// where the time went, how the repetitions were chosen), the headline
// changes, and per study a [Study]: its cases, one [Table] per headline
// metric and one of further metrics (a [Row] per case and metric, a
// [Cell] per target, the change against the baseline with its outcome),
// the outcome matrix of a behaviour probe, the noise statements, the
// impact of each change, text artefacts, charts, and warnings and notes
// numbered as footnotes. Its methods give the sentences and header rows
// the formats share (Subtitle, TargetRows, Heading, TableHead, HowToRead).
//
// What a study looks like (headline metrics, label columns, charts) comes
// from the presentation its run stored; the view never names a study.
package view
