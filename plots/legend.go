package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendBox is a legend drawn outside the plots' data areas (see panel):
// entries in a grid of columns, filled column by column, each a
// thumbnail (its thumbnails drawn over each other: a line and a marker
// show as both) and a text, then lines of notes under the grid. An entry
// without thumbnails is a heading: its text starts at the thumbnails'
// place.
type legendBox struct {
	items []legendItem
	notes []string
	cols  int
	style text.Style
	// thumb is the width of the thumbnails (wide enough to show a dash
	// pattern).
	thumb vg.Length
}

type legendItem struct {
	text   string
	thumbs []plot.Thumbnailer
}

// newLegend returns an empty legend of cols columns.
func newLegend(cols int) *legendBox {
	return &legendBox{
		cols:  max(cols, 1),
		style: text.Style{Font: font.From(plot.DefaultFont, 11), Handler: plot.DefaultTextHandler, YAlign: text.YCenter},
		thumb: vg.Points(32),
	}
}

// add adds an entry.
func (b *legendBox) add(s string, thumbs ...plot.Thumbnailer) {
	b.items = append(b.items, legendItem{text: s, thumbs: thumbs})
}

// note adds a line of text under the entries.
func (b *legendBox) note(s string) { b.notes = append(b.notes, s) }

func (b *legendBox) rows() int { return (len(b.items) + b.cols - 1) / b.cols }

func (b *legendBox) rowHeight() vg.Length { return b.style.Font.Size * 1.5 }

func (b *legendBox) em() vg.Length { return b.style.Width("m") }

// colWidths are the widths of the grid's columns.
func (b *legendBox) colWidths() []vg.Length {
	rows := b.rows()
	ws := make([]vg.Length, b.cols)
	for i, it := range b.items {
		w := b.style.Width(it.text)
		if len(it.thumbs) > 0 {
			w += b.thumb + b.em()/2
		}
		ws[i/max(rows, 1)] = max(ws[i/max(rows, 1)], w)
	}
	return ws
}

// size is the legend's width and height.
func (b *legendBox) size() (w, h vg.Length) {
	for i, cw := range b.colWidths() {
		if i > 0 && cw > 0 {
			w += 1.5 * b.em()
		}
		w += cw
	}
	for _, n := range b.notes {
		w = max(w, b.style.Width(n))
	}
	h = vg.Length(b.rows()+len(b.notes)) * b.rowHeight()
	if len(b.notes) > 0 && len(b.items) > 0 {
		h += b.rowHeight() / 4
	}
	return w, h
}

// draw draws the legend with its top left corner at top.
func (b *legendBox) draw(c draw.Canvas, top vg.Point) {
	rows, rh := b.rows(), b.rowHeight()
	x := top.X
	for col, cw := range b.colWidths() {
		for r := range rows {
			i := col*rows + r
			if i >= len(b.items) {
				break
			}
			it := b.items[i]
			y0 := top.Y - vg.Length(r+1)*rh
			tx := x
			if len(it.thumbs) > 0 {
				icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
					Min: vg.Point{X: x, Y: y0}, Max: vg.Point{X: x + b.thumb, Y: y0 + rh}}}
				for _, t := range it.thumbs {
					t.Thumbnail(&icon)
				}
				tx += b.thumb + b.em()/2
			}
			c.FillText(b.style, vg.Point{X: tx, Y: y0 + rh/2}, it.text)
		}
		x += cw + 1.5*b.em()
	}
	y := top.Y - vg.Length(rows)*rh
	if len(b.items) > 0 && len(b.notes) > 0 {
		y -= rh / 4
	}
	for _, n := range b.notes {
		y -= rh
		c.FillText(b.style, vg.Point{X: top.X, Y: y + rh/2}, n)
	}
}
