// Package runs holds what a report is made from, and reads it: a [Dataset]
// is one run's targets, measurements, notes, outcomes, texts and timings
// (as the results store keeps them, or as a study just produced them), or
// several runs side by side, their targets becoming the report's columns.
// [Load] reads runs from the store by their ids or prefixes.
//
// Below the view, it answers what the data says before anyone shows it:
// the groups of repetitions of each metric (Groups, through package
// verdict), the statistics of the whole report as one family of tests
// (AnalyzeAll), the report's significance level and practical floor, the
// presentation each study stored (or the frozen one of the studies of
// older runs), the settings of each target and those that differ, how the
// repetitions were chosen, and how load runs were sized.
package runs
