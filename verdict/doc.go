// Package verdict is the model of a comparison's verdicts, below the lab
// that runs the comparison and the report that renders it: measurements
// grouped by study, case and metric (Group), the family of cells a
// report analyses (Cells, Cell: which metrics can be called, their twins,
// the floors of parts, the rounds other processes disturbed, left out),
// and the keys that name cells and measures. The lab's --reps auto decides
// on the very cells the report will test; the statistics themselves are
// package compare's.
package verdict
