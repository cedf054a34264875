package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// SVG draws a plot with gonum/plot's SVG backend.
func (p Plot) SVG() ([]byte, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text, pl.Y.Label.Text = p.X.Label, p.Y.Label
	if p.X.Levels != nil {
		pl.X.Tick.Marker = levelTicks(p.X.Levels)
		pl.X.Min, pl.X.Max = -0.5, float64(len(p.X.Levels))-0.5
	}
	if p.Y.Levels != nil {
		pl.Y.Tick.Marker = levelTicks(p.Y.Levels)
		pl.Y.Min, pl.Y.Max = -0.5, float64(len(p.Y.Levels))-0.5
	}
	pl.Add(plotter.NewGrid())
	pl.Legend.Top = true
	for _, s := range p.Series {
		if err := addSeries(pl, s); err != nil {
			return nil, fmt.Errorf("plot %s: series %s: %w", p.ID, s.Name, err)
		}
	}
	pad(&pl.X, p.X)
	pad(&pl.Y, p.Y)
	legendRoom(pl, p.Y)
	c := vgsvg.New(6*vg.Inch, 4*vg.Inch)
	pl.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plot %s: %w", p.ID, err)
	}
	return b.Bytes(), nil
}

func addSeries(pl *plot.Plot, s Series) error {
	xys := make(plotter.XYs, len(s.Points))
	for i, pt := range s.Points {
		xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
	}
	col, shape := look(s.Style)
	if s.Line {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color, l.Width = col, vg.Points(1.5)
		if s.Style == styleBest {
			l.StepStyle = plotter.PreStep
		}
		pl.Add(l)
		if s.Style == styleBest {
			pl.Legend.Add(s.Name, l)
		}
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: shape}
	pl.Add(sc)
	pl.Legend.Add(s.Name, sc)
	return nil
}

// padFraction is the room left on each side of a numeric axis's data, so
// a point at the edge is drawn whole, not cut by the axis.
const padFraction = 0.05

// pad widens a numeric axis by padFraction of its span on each side (or
// by a unit around a single value); categorical axes already leave half a
// level.
func pad(ax *plot.Axis, a Axis) {
	if a.Levels != nil {
		return
	}
	span := ax.Max - ax.Min
	if span <= 0 {
		span = math.Max(math.Abs(ax.Max), 1) / padFraction / 10
	}
	ax.Min -= padFraction * span
	ax.Max += padFraction * span
}

// legendRoom raises the top of the Y axis so the legend, drawn in the top
// right corner, covers no mark.
func legendRoom(pl *plot.Plot, y Axis) {
	if y.Levels != nil {
		pl.Y.Max += 0.3 * float64(len(y.Levels))
		return
	}
	if span := pl.Y.Max - pl.Y.Min; span > 0 {
		pl.Y.Max += 0.3 * span
	}
}

// look gives each outcome a colour and a shape, so the plots read in
// greyscale too.
func look(style string) (color.Color, draw.GlyphDrawer) {
	switch style {
	case styleFront:
		return color.RGBA{0x1b, 0x9e, 0x47, 0xff}, draw.CircleGlyph{}
	case styleBaseline:
		return color.Black, draw.BoxGlyph{}
	case styleSLO:
		return color.RGBA{0xe6, 0x9f, 0x00, 0xff}, draw.TriangleGlyph{}
	case stylePruned:
		return color.RGBA{0x99, 0x99, 0x99, 0xff}, draw.RingGlyph{}
	case styleOOM:
		return color.RGBA{0xd5, 0x1e, 0x1e, 0xff}, draw.CrossGlyph{}
	case styleFailed:
		return color.RGBA{0x7b, 0x3f, 0x9e, 0xff}, draw.PlusGlyph{}
	case styleBest:
		return color.RGBA{0x1f, 0x5f, 0xbf, 0xff}, draw.CircleGlyph{}
	}
	return color.RGBA{0x4a, 0x7a, 0xb5, 0xff}, draw.RingGlyph{}
}

// levelTicks labels a categorical axis with its levels' names.
func levelTicks(levels []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(levels))
	for i, l := range levels {
		t[i] = plot.Tick{Value: float64(i), Label: l}
	}
	return t
}
