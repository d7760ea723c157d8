package bench

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/skillrun/skillrun/internal/termsafe"
)

// The writers below print names that come from files strangers wrote
// (set names, task ids, skill names): each goes through termsafe.String,
// so an escape sequence or a bidi override shows as text, and a tab or a
// newline cannot split a TSV field or a table cell.

// WriteTable writes the comparison as aligned text for a terminal: the
// sets' totals, then each treatment against the baseline.
func (c *Comparison) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SET\tTRIALS\tRESOLVED\tUNRESOLVED\tERRORED\tACCURACY\tEXCL. ERRORS\tPASS@K\tMEAN TIME\tMAX TIME\tTOKENS IN\tTOKENS OUT\tCOST")
	for _, s := range c.Sets {
		t := s.Totals
		name := termsafe.String(s.Name)
		if s.Name == c.Baseline {
			name += " (baseline)"
		}
		var ks []string
		for _, k := range passAtKeys(t.PassAtK) {
			ks = append(ks, fmt.Sprintf("@%s %s", k, pct(t.PassAtK[k])))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", name, t.NTrials, t.NResolved, t.NUnresolved,
			t.NErrored, pct(t.Accuracy), pctOrNA(t.AccuracyNoErrors), orDash(strings.Join(ks, " ")), duration(t.MeanRuntimeMS),
			duration(float64(t.MaxRuntimeMS)), t.InputTokens, t.OutputTokens, cost(s))
	}
	if len(c.Paired) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintf(tw, "VS %s\tTASKS\tDIFFERENCE\t%d%% CI\tMCNEMAR B/C\tP\tSKILLS ACTIVATED\tNEVER USED\n",
			termsafe.String(c.Baseline), int(c.Level*100+0.5))
		for _, p := range c.Paired {
			s := c.set(p.Treatment)
			diff, ci := "-", "-"
			if p.Difference != nil {
				diff = signed(p.Difference.Estimate)
				ci = "[" + signed(p.Difference.Low) + ", " + signed(p.Difference.High) + "]"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", termsafe.String(p.Treatment), p.NTasks, diff, ci,
				p.McNemar.B, p.McNemar.C, pvalue(p.McNemar.P), activation(s), orDash(safeJoin(s.Skills.NeverUsed)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range c.Paired {
		if len(p.OnlyBaseline) > 0 {
			fmt.Fprintf(w, "%s: tasks only in %s, left out: %s\n", termsafe.String(p.Treatment), termsafe.String(p.Baseline), safeJoin(p.OnlyBaseline))
		}
		if len(p.OnlyTreatment) > 0 {
			fmt.Fprintf(w, "%s: tasks not in %s, left out: %s\n", termsafe.String(p.Treatment), termsafe.String(p.Baseline), safeJoin(p.OnlyTreatment))
		}
	}
	_, err := fmt.Fprintf(w, "difference: mean over tasks of the success rate minus the baseline's; CI: bootstrap over tasks, %d resamples, seed %d\n",
		c.Resamples, c.Seed)
	return err
}

// WriteTSV writes the comparison as tab-separated values for a
// spreadsheet: a header and a line per set, a blank line, then a header
// and a line per treatment against the baseline. Numbers are plain
// (rates as fractions, times in milliseconds); a missing value is empty.
func (c *Comparison) WriteTSV(w io.Writer) error {
	ks := c.passAtKeys()
	head := []string{"set", "run_id", "model_name", "baseline", "n_trials", "n_resolved", "n_unresolved", "n_errored",
		"accuracy", "accuracy_excluding_errors"}
	for _, k := range ks {
		head = append(head, "pass_at_"+k)
	}
	head = append(head, "mean_runtime_ms", "max_runtime_ms", "input_tokens", "output_tokens", "cache_tokens", "cost_usd", "n_unpriced")
	var b strings.Builder
	tsvLine(&b, head)
	for _, s := range c.Sets {
		t := s.Totals
		row := []string{s.Name, s.RunID, s.Model, strconv.FormatBool(s.Name == c.Baseline), itoa(t.NTrials), itoa(t.NResolved),
			itoa(t.NUnresolved), itoa(t.NErrored), ftoa(t.Accuracy), "",
		}
		if t.AccuracyNoErrors != nil {
			row[len(row)-1] = ftoa(*t.AccuracyNoErrors)
		}
		for _, k := range ks {
			v, ok := t.PassAtK[k]
			if !ok {
				row = append(row, "")
				continue
			}
			row = append(row, ftoa(v))
		}
		row = append(row, ftoa(t.MeanRuntimeMS), strconv.FormatInt(t.MaxRuntimeMS, 10), strconv.FormatInt(t.InputTokens, 10),
			strconv.FormatInt(t.OutputTokens, 10), strconv.FormatInt(t.CacheTokens, 10), ftoa(t.CostUSD), itoa(s.NUnpriced))
		tsvLine(&b, row)
	}
	b.WriteString("\n")
	tsvLine(&b, []string{"treatment", "baseline", "n_tasks", "difference", "ci_low", "ci_high", "n_pairs", "mcnemar_b",
		"mcnemar_c", "p_value", "skills_activated", "skills_fraction", "skills_never_used", "only_in_baseline", "only_in_treatment"})
	for _, p := range c.Paired {
		s := c.set(p.Treatment)
		row := []string{p.Treatment, p.Baseline, itoa(p.NTasks), "", "", ""}
		if d := p.Difference; d != nil {
			row[3], row[4], row[5] = ftoa(d.Estimate), ftoa(d.Low), ftoa(d.High)
		}
		row = append(row, itoa(p.McNemar.NPairs), itoa(p.McNemar.B), itoa(p.McNemar.C), ftoa(p.McNemar.P),
			strconv.FormatBool(s.Skills.Activated), ftoa(s.Skills.Fraction), strings.Join(s.Skills.NeverUsed, ","),
			strings.Join(p.OnlyBaseline, ","), strings.Join(p.OnlyTreatment, ","))
		tsvLine(&b, row)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func tsvLine(b *strings.Builder, fields []string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(termsafe.String(f))
	}
	b.WriteByte('\n')
}

// WriteHTML writes the comparison as one self-contained HTML page: a bar
// chart per metric and the per-task grid, drawn as inline SVG and
// tables with inline CSS. It references nothing outside itself (no
// script, font, image or link) and says so in its Content-Security-
// Policy, so it opens the same offline, from an archive or a mail, and a
// name crafted to run script in it finds none allowed.
func (c *Comparison) WriteHTML(w io.Writer) error {
	return pageTemplate.Execute(w, c.page())
}

// Chart geometry, in SVG user units.
const (
	chartLabelW = 190
	chartBarW   = 380
	chartValueW = 90
	chartRowH   = 24
	chartBarH   = 16
	chartPad    = 8
	chartMaxRun = 28 // runes of a set name shown beside a bar
)

type htmlPage struct {
	Baseline  string
	Seed      uint64
	Resamples int
	Level     int
	Sets      []htmlSet
	Paired    []htmlPaired
	Charts    []htmlChart
	Forest    *htmlForest
	GridSets  []string
	Grid      []htmlGridRow
}

type htmlSet struct {
	Name, Run, Model                                     string
	Baseline                                             bool
	Trials, Resolved, Unresolved, Errored                int
	Accuracy, AccNoErr, PassAtK, Mean, Max, Tokens, Cost string
}

type htmlPaired struct {
	Name, Diff, CI, P, Activated, NeverUsed, Only string
	Tasks, B, C                                   int
}

type htmlChart struct {
	Title         string
	Width, Height int
	Bars          []htmlBar
}

type htmlBar struct {
	Label, Value, Class       string
	Y, TextY, X, W, H, ValueX int
}

// htmlForest is the differences against the baseline with their
// intervals, on a −1…+1 axis.
type htmlForest struct {
	Width, Height, AxisY, X0, Left, Right int
	Rows                                  []htmlForestRow
}

type htmlForestRow struct {
	Label, Value            string
	Y, TextY, Lo, Hi, Point int
}

type htmlGridRow struct {
	Task  string
	Cells []htmlCell
}

type htmlCell struct {
	Text, Class string
}

func (c *Comparison) page() *htmlPage {
	p := &htmlPage{Baseline: termsafe.String(c.Baseline), Seed: c.Seed, Resamples: c.Resamples, Level: int(c.Level*100 + 0.5)}
	for _, s := range c.Sets {
		t := s.Totals
		var ks []string
		for _, k := range passAtKeys(t.PassAtK) {
			ks = append(ks, fmt.Sprintf("@%s %s", k, pct(t.PassAtK[k])))
		}
		p.Sets = append(p.Sets, htmlSet{Name: termsafe.String(s.Name), Run: termsafe.String(s.RunID), Model: termsafe.String(s.Model),
			Baseline: s.Name == c.Baseline, Trials: t.NTrials, Resolved: t.NResolved, Unresolved: t.NUnresolved, Errored: t.NErrored,
			Accuracy: pct(t.Accuracy), AccNoErr: pctOrNA(t.AccuracyNoErrors), PassAtK: orDash(strings.Join(ks, " ")),
			Mean: duration(t.MeanRuntimeMS), Max: duration(float64(t.MaxRuntimeMS)),
			Tokens: fmt.Sprintf("%d in / %d out", t.InputTokens, t.OutputTokens), Cost: cost(s)})
		p.GridSets = append(p.GridSets, termsafe.String(s.Name))
	}
	for _, pr := range c.Paired {
		s := c.set(pr.Treatment)
		h := htmlPaired{Name: termsafe.String(pr.Treatment), Diff: "-", CI: "-", P: pvalue(pr.McNemar.P), Tasks: pr.NTasks,
			B: pr.McNemar.B, C: pr.McNemar.C, Activated: activation(s), NeverUsed: orDash(safeJoin(s.Skills.NeverUsed))}
		if d := pr.Difference; d != nil {
			h.Diff, h.CI = signed(d.Estimate), "["+signed(d.Low)+", "+signed(d.High)+"]"
		}
		var only []string
		if len(pr.OnlyBaseline) > 0 {
			only = append(only, "only in baseline: "+safeJoin(pr.OnlyBaseline))
		}
		if len(pr.OnlyTreatment) > 0 {
			only = append(only, "not in baseline: "+safeJoin(pr.OnlyTreatment))
		}
		h.Only = strings.Join(only, "; ")
		p.Paired = append(p.Paired, h)
	}
	p.Charts = c.charts()
	p.Forest = c.forest()
	for _, id := range c.Tasks {
		row := htmlGridRow{Task: termsafe.String(id)}
		for _, s := range c.Sets {
			row.Cells = append(row.Cells, gridCell(s.Tasks, id))
		}
		p.Grid = append(p.Grid, row)
	}
	return p
}

func gridCell(tasks map[string]TaskCell, id string) htmlCell {
	cell, ok := tasks[id]
	if !ok {
		return htmlCell{Text: "–", Class: "missing"}
	}
	h := htmlCell{Text: fmt.Sprintf("%d/%d", cell.Resolved, cell.Attempts)}
	if cell.Errored > 0 {
		h.Text += fmt.Sprintf(" (%d err)", cell.Errored)
	}
	switch {
	case cell.Resolved == cell.Attempts:
		h.Class = "all"
	case cell.Resolved == 0:
		h.Class = "none"
	default:
		h.Class = "some"
	}
	return h
}

// A metric is one chart: a value per set (nil: not defined for it).
type metric struct {
	title string
	rate  bool // a fraction, drawn on a 0…1 axis
	value func(*SetStats) *float64
	text  func(float64) string
}

func (c *Comparison) metrics() []metric {
	f := func(v float64) *float64 { return &v }
	ms := []metric{
		{"Accuracy", true, func(s *SetStats) *float64 { return f(s.Totals.Accuracy) }, pct},
		{"Accuracy excluding errored trials", true, func(s *SetStats) *float64 { return s.Totals.AccuracyNoErrors }, pct},
	}
	for _, k := range c.passAtKeys() {
		ms = append(ms, metric{"pass@" + k, true, func(s *SetStats) *float64 {
			if v, ok := s.Totals.PassAtK[k]; ok {
				return f(v)
			}
			return nil
		}, pct})
	}
	return append(ms,
		metric{"Mean runtime", false, func(s *SetStats) *float64 { return f(s.Totals.MeanRuntimeMS) }, duration},
		metric{"Tokens (input + output)", false, func(s *SetStats) *float64 {
			return f(float64(s.Totals.InputTokens + s.Totals.OutputTokens))
		}, func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }},
		metric{"Cost (USD)", false, func(s *SetStats) *float64 {
			if s.NUnpriced == s.Totals.NTrials && s.Totals.NTrials > 0 {
				return nil
			}
			return f(s.Totals.CostUSD)
		}, func(v float64) string { return fmt.Sprintf("$%.4f", v) }},
	)
}

// charts draws a horizontal bar chart per metric, one bar per set (a set
// without the value gets a bar of width 0 and "n/a").
func (c *Comparison) charts() []htmlChart {
	var out []htmlChart
	for _, m := range c.metrics() {
		top := 1.0
		if !m.rate {
			top = 0
			for _, s := range c.Sets {
				if v := m.value(s); v != nil {
					top = max(top, *v)
				}
			}
		}
		ch := htmlChart{Title: m.title, Width: chartLabelW + chartBarW + chartValueW,
			Height: 2*chartPad + len(c.Sets)*chartRowH}
		for i, s := range c.Sets {
			y := chartPad + i*chartRowH
			b := htmlBar{Label: shortName(s.Name), Value: "n/a", Class: "bar", X: chartLabelW, Y: y + (chartRowH-chartBarH)/2, H: chartBarH,
				TextY: y + chartRowH/2 + 5}
			if s.Name == c.Baseline {
				b.Class = "bar base"
			}
			if v := m.value(s); v != nil {
				b.Value = m.text(*v)
				if top > 0 && *v > 0 {
					b.W = int(float64(chartBarW)**v/top + 0.5)
				}
			}
			b.ValueX = chartLabelW + b.W + 6
			ch.Bars = append(ch.Bars, b)
		}
		out = append(out, ch)
	}
	return out
}

// forest draws each treatment's difference and interval on a −1…+1
// axis; nil when no treatment has one.
func (c *Comparison) forest() *htmlForest {
	const half = chartBarW / 2
	f := &htmlForest{Width: chartLabelW + chartBarW + 2*chartValueW, X0: chartLabelW + half, Left: chartLabelW,
		Right: chartLabelW + chartBarW}
	x := func(v float64) int { return f.X0 + int(math.Round(max(-1, min(1, v))*half)) }
	for _, p := range c.Paired {
		if p.Difference == nil {
			continue
		}
		y := chartPad + len(f.Rows)*chartRowH
		d := p.Difference
		f.Rows = append(f.Rows, htmlForestRow{Label: shortName(p.Treatment), Y: y + chartRowH/2, TextY: y + chartRowH/2 + 5,
			Lo: x(d.Low), Hi: x(d.High), Point: x(d.Estimate),
			Value: signed(d.Estimate) + " [" + signed(d.Low) + ", " + signed(d.High) + "]"})
	}
	if len(f.Rows) == 0 {
		return nil
	}
	f.AxisY = 2*chartPad + len(f.Rows)*chartRowH
	f.Height = f.AxisY + chartRowH
	return f
}

func shortName(s string) string {
	s = termsafe.String(s)
	if r := []rune(s); len(r) > chartMaxRun {
		return string(r[:chartMaxRun-1]) + "…"
	}
	return s
}

func (c *Comparison) set(name string) *SetStats {
	for _, s := range c.Sets {
		if s.Name == name {
			return s
		}
	}
	return &SetStats{Name: name}
}

// passAtKeys are the ks any set has, in numeric order.
func (c *Comparison) passAtKeys() []string {
	all := map[string]float64{}
	for _, s := range c.Sets {
		maps.Copy(all, s.Totals.PassAtK)
	}
	return passAtKeys(all)
}

func passAtKeys(m map[string]float64) []string {
	ks := slices.Collect(maps.Keys(m))
	slices.SortFunc(ks, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	return ks
}

// activation says whether a set's skills were activated, and in how
// many of its trials.
func activation(s *SetStats) string {
	u := s.Skills
	switch {
	case len(u.Declared) == 0:
		return "no skills"
	case !u.Activated:
		return "never"
	}
	return fmt.Sprintf("%d/%d trials (%s)", u.NTrialsUsing, s.Totals.NTrials, pct(u.Fraction))
}

func safeJoin(l []string) string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = termsafe.String(s)
	}
	return strings.Join(out, ", ")
}

func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

func pctOrNA(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return pct(*v)
}

func signed(v float64) string { return fmt.Sprintf("%+.2f", v) }

func pvalue(p float64) string {
	if p < 0.0001 {
		return fmt.Sprintf("%.1e", p)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

func duration(ms float64) string {
	if ms < 1000 {
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	}
	return strconv.FormatFloat(ms/1000, 'f', 1, 64) + "s"
}

func cost(s *SetStats) string {
	if s.Totals.NTrials > 0 && s.NUnpriced == s.Totals.NTrials {
		return "n/a"
	}
	out := fmt.Sprintf("$%.4f", s.Totals.CostUSD)
	if s.NUnpriced > 0 {
		out += fmt.Sprintf(" (%d unpriced)", s.NUnpriced)
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// pageTemplate is the HTML report. Every value reaches the page through
// html/template's contextual escaping; the only markup is the
// template's own.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>skillrun bench compare: against {{.Baseline}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1d2330; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #d0d4dc; padding: 3px 8px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, .l { text-align: left; }
th { background: #f0f2f6; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: .3em; }
svg text { font: 12px system-ui, sans-serif; fill: #1d2330; }
svg .bar { fill: #3b6fd8; } svg .base { fill: #8c93a3; }
svg .axis { stroke: #8c93a3; stroke-width: 1; } svg .ci { stroke: #3b6fd8; stroke-width: 3; }
svg .point { fill: #1d2330; }
td.all { background: #c9ecd1; } td.some { background: #fbe7b5; } td.none { background: #f6c6c6; }
td.missing { background: #eceef2; color: #8c93a3; }
.note { color: #5a6275; }
</style>
</head>
<body>
<h1>Plugin sets against {{.Baseline}}</h1>

<h2>Sets</h2>
<table>
<tr><th>set</th><th class="l">run</th><th class="l">model</th><th>trials</th><th>resolved</th><th>unresolved</th><th>errored</th><th>accuracy</th><th>excl. errors</th><th>pass@k</th><th>mean time</th><th>max time</th><th>tokens</th><th>cost</th></tr>
{{range .Sets}}<tr><td>{{.Name}}{{if .Baseline}} (baseline){{end}}</td><td class="l">{{.Run}}</td><td class="l">{{.Model}}</td><td>{{.Trials}}</td><td>{{.Resolved}}</td><td>{{.Unresolved}}</td><td>{{.Errored}}</td><td>{{.Accuracy}}</td><td>{{.AccNoErr}}</td><td>{{.PassAtK}}</td><td>{{.Mean}}</td><td>{{.Max}}</td><td>{{.Tokens}}</td><td>{{.Cost}}</td></tr>
{{end}}</table>
{{if .Paired}}
<h2>Against {{.Baseline}}</h2>
<table>
<tr><th>set</th><th>tasks</th><th>difference</th><th>{{.Level}}% CI</th><th>McNemar b/c</th><th>p</th><th>skills activated</th><th class="l">never used</th><th class="l">left out</th></tr>
{{range .Paired}}<tr><td>{{.Name}}</td><td>{{.Tasks}}</td><td>{{.Diff}}</td><td>{{.CI}}</td><td>{{.B}}/{{.C}}</td><td>{{.P}}</td><td>{{.Activated}}</td><td class="l">{{.NeverUsed}}</td><td class="l">{{.Only}}</td></tr>
{{end}}</table>
<p class="note">Difference: the mean over tasks of a set's success rate (resolved attempts / attempts; errored trials count as unresolved) minus the baseline's. CI: percentile bootstrap over tasks, {{.Resamples}} resamples, seed {{.Seed}}. McNemar: exact two-sided test on task × attempt pairs that one set resolved and the other did not (b: only the baseline, c: only the set).</p>
{{end}}
{{with .Forest}}<figure>
<figcaption>Difference against the baseline</figcaption>
<svg class="forest" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img">
<line class="axis" x1="{{.X0}}" y1="0" x2="{{.X0}}" y2="{{.AxisY}}"></line>
<line class="axis" x1="{{.Left}}" y1="{{.AxisY}}" x2="{{.Right}}" y2="{{.AxisY}}"></line>
<text x="{{.Left}}" y="{{.AxisY}}" dy="16" text-anchor="middle">−1</text>
<text x="{{.X0}}" y="{{.AxisY}}" dy="16" text-anchor="middle">0</text>
<text x="{{.Right}}" y="{{.AxisY}}" dy="16" text-anchor="middle">+1</text>
{{range .Rows}}<text x="{{$.Forest.Left}}" dx="-8" y="{{.TextY}}" text-anchor="end">{{.Label}}</text>
<line class="ci" x1="{{.Lo}}" y1="{{.Y}}" x2="{{.Hi}}" y2="{{.Y}}"></line>
<circle class="point" cx="{{.Point}}" cy="{{.Y}}" r="4"></circle>
<text x="{{$.Forest.Right}}" dx="8" y="{{.TextY}}">{{.Value}}</text>
{{end}}</svg>
</figure>{{end}}

<h2>Metrics</h2>
<div class="charts">
{{range .Charts}}<figure>
<figcaption>{{.Title}}</figcaption>
<svg class="metric" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img">
{{range .Bars}}<text x="{{.X}}" dx="-8" y="{{.TextY}}" text-anchor="end">{{.Label}}</text>
<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"></rect>
<text x="{{.ValueX}}" y="{{.TextY}}">{{.Value}}</text>
{{end}}</svg>
</figure>
{{end}}</div>

<h2>Tasks</h2>
<table class="grid">
<tr><th>task</th>{{range .GridSets}}<th>{{.}}</th>{{end}}</tr>
{{range .Grid}}<tr><td>{{.Task}}</td>{{range .Cells}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>
<p class="note">Cells: resolved / attempts.</p>
</body>
</html>
`))
