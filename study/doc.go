// Package study is the framework that turns the hand-made PostgreSQL
// experiments of the seed articles into studies that run the same steps on
// every target, read the server's own counters, repeat, and hand every
// figure to the results store. The studies themselves live in
// study/studies; the framework names none of them.
//
// A [Study] is a name, typed parameters with defaults and --quick values,
// and three methods: Setup (once per target), Run (one repetition of one
// case on one target, recording measurements) and Teardown. The [Runner]
// owns everything around them: the targets, repetitions interleaved across
// targets (A B A B …), the settings a study wants (applied for the study
// and restored afterwards, also on error and Ctrl-C), snapshots of the
// server's counters around each measured step, and storage of every
// measurement as soon as it is made, so an interrupted run keeps what it
// measured. A study never formats output.
//
// Studies register themselves with [Register] in an init function; [Get]
// and [Names] look them up (lab imports study/studies for its studies). A
// new study is one file (in study/studies, or any package that imports
// this one): its [Info] says all
// the rest of pglab needs — its parameters, its version (bumped when what
// it records changes), whether it joins --studies all (Info.InAll), and
// its presentation (Info.Presentation: headline metrics, label columns,
// facts, charts, texts). The runner stores the version and presentation
// with every run (results.StudyInfo), and reports show the study from
// there, without its code.
package study
