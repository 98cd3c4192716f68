package report

import (
	"bufio"
	"html/template"
	"io"
	"strings"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// WriteHTML writes the report as one self-contained HTML page: the
// Markdown report's sections and tables, plus charts drawn as inline SVG
// for the studies present (throughput by clients with confidence
// intervals, latency percentiles, VACUUM time and WAL by case, COPY time
// by row size, scan throughput against the disk's read ceiling, commit
// time by case). It needs nothing else: no script, no font, no style sheet
// or image is fetched, so it works offline and can be mailed as it is.
// Tables scroll sideways on a narrow screen and charts scale to its
// width.
func WriteHTML(w io.Writer, d *runs.Dataset) error {
	v, err := view.Build(d, view.Options{})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if err := pageTemplate.Execute(bw, v); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteHTMLFragment writes what WriteHTML puts inside the page's <main>
// element — the same title, sections, tables and charts — without the
// page around it, for a page that embeds the report (pglab serve's run
// and comparison pages) and styles it with HTMLStyle.
func WriteHTMLFragment(w io.Writer, d *runs.Dataset) error {
	v, err := view.Build(d, view.Options{})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if err := pageTemplate.ExecuteTemplate(bw, "content", v); err != nil {
		return err
	}
	return bw.Flush()
}

// HTMLStyle returns the style sheet of WriteHTML's page, for pages that
// embed WriteHTMLFragment.
func HTMLStyle() string { return pageCSS }

// htmlChart is a chart ready for the page.
type htmlChart struct {
	Title string
	SVG   template.HTML
}

// chartsHTML returns a study's charts as SVG.
func chartsHTML(sv *view.Study) []htmlChart {
	var out []htmlChart
	for _, cd := range sv.ChartsOf() {
		// The SVG is made by this package, every text in it escaped.
		out = append(out, htmlChart{Title: cd.Title, SVG: template.HTML(cd.SVG())})
	}
	return out
}

// anchor is the id of a study's section.
func anchor(sv *view.Study) string { return "study-" + anchorName(sv.Name) }

func anchorName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"css":    func() template.CSS { return template.CSS(pageCSS) },
	"charts": chartsHTML,
	"svg":    func(s string) template.HTML { return template.HTML(s) },
	"anchor": anchor,
	"marks":  func(m []int) string { return view.MarksText(m) },
	"sup":    view.Superscript,
	"inc":    func(i int) int { return i + 1 },
	"notFirst": func(names []string) []string {
		if len(names) == 0 {
			return nil
		}
		return names[1:]
	},
	"first": func(names []string) string {
		if len(names) == 0 {
			return ""
		}
		return names[0]
	},
	"last": func(names []string) string {
		if len(names) == 0 {
			return ""
		}
		return names[len(names)-1]
	},
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pglab">
<title>{{.Title}}</title>
<style>
{{css}}</style>
</head>
<body>
<main>
{{template "content" .}}</main>
</body>
</html>
{{define "content"}}<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
{{if gt (len .Studies) 1}}<nav aria-label="Studies"><ul>{{range .Studies}}<li><a href="#{{anchor .}}">{{.Name}}</a></li>{{end}}</ul></nav>{{end}}

{{if .Headlines}}<section id="summary">
<h2>Summary</h2>
{{range .Headlines}}<div class="scroll"><table>
<thead><tr><th>study</th><th>measure</th><th>case</th>{{range .Targets}}<th>{{.}}</th>{{end}}{{$t := .Targets}}{{range notFirst .Targets}}<th>{{.}} vs {{first $t}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td>{{.Study}}</td><td>{{.What}}</td><td>{{.Case}}</td>{{range .Values}}<td class="num">{{.}}</td>{{end}}{{range .Changes}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{if .Metrics}}<p class="about">Per measure: the cases whose change was called (and in which direction), the same (within the floor) and the unresolved; the values are those of {{last .Targets}}'s largest called change, if any.</p>{{end}}
{{end}}{{range .FamilyLines}}<p class="about">{{.}}</p>
{{end}}</section>{{end}}

<section id="setup">
<h2>Setup</h2>
{{if .Targets}}<div class="scroll"><table>
<thead><tr><th></th>{{range .Targets}}<th>{{.Name}}</th>{{end}}</tr></thead>
<tbody>{{range .TargetRows}}<tr>{{range $i, $c := .}}{{if eq $i 0}}<th scope="row">{{$c}}</th>{{else}}<td>{{$c}}</td>{{end}}{{end}}</tr>
{{end}}</tbody></table></div>
{{if .Settings}}<p>Server settings that differ from PostgreSQL's defaults when the run began (≠ marks those that differ between targets; each study's own settings are listed with the study):</p>
<div class="scroll"><table>
<thead><tr><th>setting</th>{{range .Targets}}<th>{{.Name}}</th>{{end}}</tr></thead>
<tbody>{{range .Settings}}<tr><td class="label">{{.Name}}{{if .Differs}} ≠{{end}}</td>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{else}}<p>No server setting differs from PostgreSQL's defaults (apart from where each server listens and keeps its files).</p>{{end}}{{end}}
<dl class="facts">
{{range .EnvNotes}}<dt>Environment</dt><dd>{{.}}</dd>
{{end}}{{range .Hosts}}<dt>Host</dt><dd>{{.}}</dd>
{{end}}{{if eq (len .Runs) 1}}{{with index .Runs 0}}<dt>Run</dt><dd>{{.Describe}}</dd>
{{if .Version}}<dt>pglab</dt><dd>{{.Version}}</dd>{{end}}
{{if .Command}}<dt>Command</dt><dd><code>{{.Command}}</code></dd>{{end}}
{{if .Error}}<dt>Error</dt><dd>{{.Error}}</dd>{{end}}{{end}}{{end}}
{{range .TimeLines}}<dt>Time</dt><dd>{{.}}</dd>
{{end}}<dt>Statistics</dt><dd>{{.StatisticsLine}}</dd>
{{with .Reps}}{{if .Rule}}<dt>Repetitions</dt><dd>{{.Rule}}</dd>
{{range .Lines}}<dt>Repetitions per case</dt><dd>{{.}}</dd>
{{end}}{{if .Budget}}<dt>Budget</dt><dd>{{.Budget}}</dd>
{{end}}{{end}}{{end}}</dl>
{{with .Reps.Rows}}<details><summary>Repetitions of each case ({{len .}} cases)</summary>
<div class="scroll"><table>
<thead><tr><th>study</th><th>case</th><th>repetitions</th><th>stopped because</th></tr></thead>
<tbody>{{range .}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div></details>
{{end}}{{if gt (len .Runs) 1}}<div class="scroll"><table>
<thead><tr><th>run</th><th>kind</th><th>status</th><th>started</th><th>took</th><th>pglab</th><th>command</th></tr></thead>
<tbody>{{range .Runs}}<tr><td class="label">{{.ID}}</td><td>{{.Kind}}</td><td>{{.Status}}</td><td class="label">{{.Started}}</td><td class="label">{{.Duration}}</td><td>{{.Version}}</td><td><code>{{.Command}}</code>{{if .Error}}<br>error: {{.Error}}{{end}}</td></tr>
{{end}}</tbody></table></div>{{end}}{{if .Times}}
<p>{{.TimeIntro}}</p>
<div class="scroll"><table class="times">
<thead><tr>{{range .TimeHead}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .TimeCells}}<tr>{{range .}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}{{if .DataLines}}
<p>Data (how each study's data came to the servers, and what a load cost; a reset gives a repetition fresh data):</p>
<ul class="data">{{range .DataLines}}<li>{{.}}</li>
{{end}}</ul>{{end}}
</section>

{{range .Studies}}{{$sv := .}}<section class="study" id="{{anchor .}}" data-study="{{.Name}}">
<h2>{{.Heading}}</h2>
{{with .About}}<p class="about">{{.}}</p>{{end}}
{{with .LoadLine}}<p class="about">{{.}}</p>
{{end}}{{range .Noise}}<p class="about noise">{{.Text}}</p>
{{end}}{{with charts .}}<div class="charts">{{range .}}<figure class="chart"><figcaption>{{.Title}}</figcaption>{{.SVG}}</figure>{{end}}</div>{{end}}
{{if .Matrix}}<div class="scroll"><table class="matrix">
<thead><tr><th>case</th>{{range .Targets}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Matrix}}<tr><td>{{.Case.Name}}</td>{{range .Cells}}<td class="outcome {{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{if gt (len .Targets) 1}}<p class="about">Highlighted: an outcome unlike {{first .Targets}}'s.</p>{{end}}{{end}}
{{range .Tables}}<h3>{{.Head}}</h3>
<div class="scroll"><table>
<thead><tr>{{range $sv.TableHead false}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .Case.Values}}<td class="label">{{.}}</td>{{end}}{{range .Values}}<td class="num">{{.Text}}{{with .Marks}} <sup>{{marks .}}</sup>{{end}}</td>{{end}}{{range .Changes}}<td class="num {{.Class}}">{{.Text}}{{with .Marks}} <sup>{{marks .}}</sup>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{if .Cards}}<h3>Why: the causes of each called change</h3>
{{range .Cards}}<div class="card"><p><b>{{.Title}}</b></p>{{if .Causes}}<ol>{{range .Causes}}<li>{{.}}</li>{{end}}</ol>{{end}}<p class="about">{{.Explained}}</p>{{with .Settings}}<p class="about">{{.}}</p>{{end}}{{range .Missing}}<p class="about">Not measured: {{.}}</p>{{end}}{{with .Flame}}<details open><summary>CPU by stack</summary><div class="scroll">{{svg .}}</div></details>{{end}}</div>
{{end}}{{end}}{{with .Others}}{{if $sv.Tables}}<details><summary>{{.Head}} ({{len .Rows}} rows)</summary>{{end}}
<div class="scroll"><table>
<thead><tr>{{range $sv.TableHead true}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .Case.Values}}<td class="label">{{.}}</td>{{end}}<td class="label">{{.MetricHead}}</td>{{range .Values}}<td class="num">{{.Text}}{{with .Marks}} <sup>{{marks .}}</sup>{{end}}</td>{{end}}{{range .Changes}}<td class="num {{.Class}}">{{.Text}}{{with .Marks}} <sup>{{marks .}}</sup>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{if $sv.Tables}}</details>{{end}}{{end}}{{range .Texts}}{{$open := .Open}}
<h3>{{.Head}}</h3>{{range .Cases}}
<details class="output" data-output="{{.Case.Name}}"{{if $open}} open{{end}}><summary>{{.Case.Name}}</summary>
{{range .Entries}}<p class="who">{{.Who}}</p>
<pre>{{.Body}}</pre>
{{end}}</details>{{end}}{{end}}
{{if or .General .Foot}}<ul class="foot">{{range .General}}<li>Every figure of this study: {{.}}</li>{{end}}{{range $i, $f := .Foot}}<li><span class="mark">{{sup (inc $i)}}</span> {{$f}}</li>{{end}}</ul>{{end}}
{{with .Notes}}<h3>Notes</h3><ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>
{{end}}
{{with .Notes}}<section id="notes"><h2>Other notes</h2><ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul></section>{{end}}
<section id="how-to-read">
<h2>How to read this</h2>
<ul>{{range .HowToRead}}<li>{{.}}</li>{{end}}</ul>
</section>
{{end}}`

// pageCSS is the style sheet of the report's page.
const pageCSS = `:root { --fg: #1b1b1b; --muted: #5b5b5b; --line: #d9d9d9; --head: #f3f4f6; --better: #0b6b2e; --worse: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 68rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; padding-top: .5rem; border-top: 2px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .4rem; }
p, li { max-width: 48rem; }
.sub, .about { color: var(--muted); }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; padding: 0; margin: .25rem 0; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .25rem 0 .75rem; border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; font-size: .9rem; min-width: 100%; }
th, td { padding: .35rem .6rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; white-space: nowrap; }
td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.label { white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
td.better { color: var(--better); font-weight: 600; }
td.worse { color: var(--worse); font-weight: 600; }
td.changed { font-weight: 600; }
td.ns, td.same { color: var(--muted); }
td.differs { background: #fff4e5; font-weight: 600; }
td.outcome { min-width: 12rem; }
sup, .mark { font-size: .75em; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 24rem), 1fr)); gap: 1rem; margin: .5rem 0 1rem; }
figure.chart { margin: 0; padding: .5rem; border: 1px solid var(--line); border-radius: 4px; }
figure.chart figcaption { font-weight: 600; margin-bottom: .25rem; }
figure.chart svg { display: block; width: 100%; max-width: 32rem; height: auto; }
.foot, .notes { font-size: .9rem; }
.foot { list-style: none; padding-left: 0; }
code { font-size: .9em; overflow-wrap: anywhere; }
details > summary { cursor: pointer; font-weight: 600; margin: 1rem 0 .4rem; }
details.output > summary { font-weight: 500; margin: .4rem 0; }
p.who { margin: .4rem 0 .1rem; color: var(--muted); font-size: .9rem; }
pre { overflow-x: auto; margin: 0 0 .5rem; padding: .5rem .6rem; background: var(--head); border: 1px solid var(--line); border-radius: 4px; font-size: .85rem; line-height: 1.35; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  body { font-size: 15px; }
  main { padding: .6rem; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .4rem; }
}
@media print { .scroll { overflow: visible; border: 0; } details { display: block; } }
`
