// Package report renders stored results for people and for tools. It never
// talks to a live server: it renders a runs.Dataset, read from the results
// store by runs.Load or built by a caller from what a study just measured,
// through the model package view builds of it (view.Build).
//
// The work stands on three floors, one package each: report/runs (the data
// and its analysis), report/view (the analysed model) and this package (the
// formats, a file each: markdown.go, html.go, json.go, csv.go, text.go, and
// studyjson.go for 'pglab study --json'; format.go picks one by name).
//
// Every format is made from the same analysis, so that they agree figure
// for figure: per study, case and metric, the median of the repetitions on
// each target with its 95 % confidence interval, and each target compared
// with the first (the baseline) by package compare: round by round within
// a run (the paired t test of the rounds' ratios, each primary measure
// tested over its cases before them, compare.Options.Paired), by the
// Mann-Whitney U test across runs; the change as a factor or percentage,
// the level of a call, the verdict, benchstat's warnings.
//
//   - WriteMarkdown mirrors the seed articles' tables: a summary of the
//     headline changes, the setup (servers, data checksums, settings that
//     differ from the defaults or between targets, host, run), then per
//     study one table per headline metric — a row per case, a column per
//     target, then "pg17 vs pg16" with the change, its verdict and
//     "(p=… n=…)" — a table of further metrics, the outcome matrix of a
//     behaviour probe, warnings and notes as footnotes, and a closing
//     "How to read this".
//   - WriteHTML is the same as one self-contained page with inline SVG
//     charts (no script, font or style sheet fetched), readable on a phone.
//   - WriteJSON carries every value, summary, comparison and geometric
//     mean; figures without a value are null.
//   - WriteCSV writes one RFC 4180 row per measurement.
//   - WriteText prints the terminal tables of pglab study.
//
// Which metrics are the headline ones, how a study's case labels are
// headed and which charts it gets is the study's presentation, which the
// run stored with it (results.StudyInfo.Presentation, from the study's
// Info); a run stored before studies carried one is shown through a frozen
// table of the studies of then, and a study without one with every metric
// in one table. What a study stored about itself (the "study-info"
// artefact: title, parameters, case names, version, presentation) and its
// "note" and "outcome" artefacts are read back by Load, so that a report
// of a stored run needs no study code.
package report
