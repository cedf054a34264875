package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

//go:embed report.html.tmpl
var htmlSource string

// figure is a plot ready for a page: its data and its drawing.
type figure struct {
	Plot
	SVG template.HTML
}

// HTML writes the report as one self-contained page: CSS and SVG inline,
// no script, nothing fetched when it is viewed.
func (f Full) HTML(w io.Writer) error {
	var figs []figure
	for _, p := range f.Plots() {
		svg, err := p.SVG()
		if err != nil {
			return err
		}
		// The SVG is gonum's own output, inlined as markup; the XML
		// prolog has no place inside HTML.
		figs = append(figs, figure{p, template.HTML(inlineSVG(svg))})
	}
	t, err := template.New("report").Funcs(funcs()).Parse(htmlSource)
	if err != nil {
		return fmt.Errorf("report template: %w", err)
	}
	return t.Execute(w, struct {
		Full
		Figures []figure
	}{f, figs})
}

func inlineSVG(svg []byte) string {
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		svg = svg[i:]
	}
	return string(svg)
}

func funcs() template.FuncMap {
	return template.FuncMap{
		"num":             fmtNum,
		"pct":             func(x float64) string { return strconv.FormatFloat(x*100, 'f', 0, 64) },
		"signed":          func(x float64) string { return fmt.Sprintf("%+.1f%%", x) },
		"date":            func(t time.Time) string { return fmtDate(t) },
		"hours":           func(h float64) string { return strconv.FormatFloat(h, 'f', 2, 64) },
		"objs":            func(vs []float64) string { return joinNums(vs) },
		"version":         func(v string) string { return orDash(v, "not pinned") },
		"flags":           studies.FlagLines,
		"absPct":          func(x float64) string { return orDash(strings.TrimPrefix(pctNum(x), "+"), "–") },
		"runner":          runnerText,
		"deref":           func(p *float64) float64 { return *p },
		"better":          func(m studies.MetricChange) bool { return (*m.VsBaseline > 0) == m.Higher },
		"metric":          func(o studies.ObjectiveInfo) string { return o.Metric },
		"pctNum":          pctNum,
		"sameSimulator":   func() string { return sameSimulator },
		"join":            func(xs []string) string { return strings.Join(xs, ", ") },
		"neighbour":       neighbourKnown,
		"value":           space.FormatValue,
		"neighboursIntro": func() string { return neighboursIntro },
	}
}

// SimTag is " (simulated)" after a heading when the values are.
func (f Full) SimTag() string {
	if f.Env.Simulated {
		return " (simulated)"
	}
	return ""
}

// SimWord prefixes a measured value's label: "simulated " or "".
func (f Full) SimWord() string {
	if f.Env.Simulated {
		return "simulated "
	}
	return "measured "
}

func runnerText(r string) string {
	switch r {
	case "sim":
		return "servetune's simulator: every value is simulated, not measured"
	case "process":
		return "real engines, launched as processes"
	case "mixed":
		return "partly the simulator (simulated values) and partly real engines"
	}
	return "unknown"
}

func pctNum(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", x)
}

func fmtNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case math.Abs(x) >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func fmtDate(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func joinNums(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmtNum(v)
	}
	return strings.Join(parts, " / ")
}

func orDash(s, dash string) string {
	if s == "" {
		return dash
	}
	return s
}
