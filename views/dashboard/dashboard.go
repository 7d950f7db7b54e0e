// Package dashboard renders the dashboard of the home page: the period picker, the key
// figures, and charts drawn on the server as inline SVG, each with a title, a description
// and its numbers in a visually hidden table.
package dashboard

import (
	"context"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// ResultsID is the id of the region htmx swaps when the period changes.
const ResultsID = "dashboard-results"

// Model is what the dashboard shows.
type Model struct {
	Preset string            // the period's preset as asked
	From   string            // the from field as typed, or the period's first day
	To     string            // the to field as typed, or the period's last day
	Errors map[string]string // field → validator key, when the period is refused
	Data   *store.Dashboard  // nil when the period is refused
}

// shown reports whether there is anything to show: a refused period, or a part the
// caller's role lets them see.
func (m Model) shown() bool { return m.Data == nil || m.Data.Leads != nil || m.Data.Clients != nil }

// labelLen is how much of a name a chart shows (the spec's tooltip truncation); the full
// name is in the bar's tooltip and in the table.
const labelLen = 20

func truncate(s string) string {
	if utf8.RuneCountInString(s) <= labelLen {
		return s
	}
	r := []rune(s)
	return string(r[:labelLen-1]) + "…"
}

func printer(ctx context.Context) *message.Printer {
	tag, err := language.Parse(i18n.Lang(ctx))
	if err != nil {
		tag = language.AmericanEnglish
	}
	return message.NewPrinter(tag)
}

// Num writes a count the way the user's language groups digits.
func Num(ctx context.Context, n int64) string { return printer(ctx).Sprintf("%d", n) }

// Rate writes the conversion rate, or a dash when there is none yet.
func Rate(ctx context.Context, r *float64) string {
	if r == nil {
		return "–"
	}
	return i18n.T(ctx, "dashboard.percent", "Value", printer(ctx).Sprintf("%.1f", *r))
}

var presetLabels = map[string]string{
	store.PeriodLast7: "dashboard.last7", store.PeriodLast30: "dashboard.last30", store.PeriodLast90: "dashboard.last90",
	store.PeriodYear: "dashboard.thisYear", store.PeriodAll: "dashboard.allTime", store.PeriodCustom: "dashboard.custom",
}

func (m Model) presetField(ctx context.Context) components.Field {
	f := components.Field{ID: "dash-preset", Name: "period", Label: i18n.T(ctx, "dashboard.period"), Error: m.Errors["period"]}
	for _, p := range store.PeriodPresets {
		f.Options = append(f.Options, components.Option{Value: p, Label: i18n.T(ctx, presetLabels[p]), Selected: p == m.Preset})
	}
	return f
}

// rangePicker is the custom range: two native date inputs (from, to) without JavaScript,
// the picker island in range mode with it, loaded when the user first points at or
// focuses the field (the home page's first load stays small). Picking a range chooses
// "Custom range" and submits the form (islands/admin.ts, data-autosubmit), so the results
// follow at once; a custom range always has both ends, so the island offers no Clear.
func (m Model) rangePicker(ctx context.Context) components.Picker {
	return components.Picker{ID: "dash-from", Name: "from", IDTo: "dash-to", NameTo: "to", Mode: "range",
		Label: i18n.T(ctx, "dashboard.custom"), FieldLabel: i18n.T(ctx, "dashboard.from"), LabelTo: i18n.T(ctx, "dashboard.to"),
		Value: m.From, ValueTo: m.To, Error: m.Errors["from"], ErrorTo: m.Errors["to"], NoClear: true,
		HintID: "dash-dates-hint", Load: components.PickerOnIntent, TestID: "dash-range",
		Attrs: templ.Attributes{"data-autosubmit": true, "data-autosubmit-set": "dash-preset=" + store.PeriodCustom}}
}

// errorLinks lists the refused fields for the summary, each linked to its control.
func (m Model) errorLinks(ctx context.Context) []components.ErrorLink {
	var out []components.ErrorLink
	for _, f := range []struct{ name, id string }{{"period", "dash-preset"}, {"from", "dash-from"}, {"to", "dash-to"}} {
		if key, ok := m.Errors[f.name]; ok {
			out = append(out, components.ErrorLink{Href: "#" + f.id, Label: i18n.T(ctx, "dashboard."+f.name), Key: key})
		}
	}
	return out
}

// date writes a day in the spec's default format, dd/MM/yyyy.
func date(t time.Time) string { return t.Format("02/01/2006") }

// Chart geometry, in SVG user units; the SVG scales to its box.
const (
	barW      = 360 // horizontal bar chart width: about its size on a wide screen
	barLabelW = 125 // label column, right-aligned
	barMaxW   = 170 // longest bar, leaving room for its count
	barRowH   = 28
	barH      = 18

	colW      = 480 // column chart width
	colH      = 200
	colLeft   = 40 // room for the y axis labels
	colRight  = 8
	colTop    = 12
	colBottom = 28 // room for the x axis labels
	colTicks  = 6  // at most this many x labels
)

// Bar is one row of a horizontal bar chart.
type Bar struct {
	Name  string
	Count int64
	Class string // extra class: "won", "lost"
}

// BarChart is a horizontal bar chart of a breakdown.
type BarChart struct {
	ID      string // element id prefix
	Title   string
	Hint    string // what is counted, shown under the title
	Column  string // table header of the names
	Measure string // table header of the counts
	Bars    []Bar
}

type barGeom struct {
	Bar
	Label               string
	Y, W, TextY, ValueX string
	Value               string
}

func f(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func (c BarChart) height() string { return strconv.Itoa(len(c.Bars)*barRowH + 4) }

func (c BarChart) viewBox() string { return "0 0 " + strconv.Itoa(barW) + " " + c.height() }

func (c BarChart) geom(ctx context.Context) []barGeom {
	var max int64
	for _, b := range c.Bars {
		max = max64(max, b.Count)
	}
	out := make([]barGeom, len(c.Bars))
	for i, b := range c.Bars {
		w := 0.0
		if max > 0 {
			w = float64(b.Count) / float64(max) * barMaxW
		}
		if b.Count > 0 && w < 2 {
			w = 2 // a count, however small, stays visible
		}
		y := float64(i*barRowH) + float64(barRowH-barH)/2
		out[i] = barGeom{Bar: b, Label: truncate(b.Name), Y: f(y), W: f(w), TextY: f(y + barH/2 + 5),
			ValueX: f(barLabelW + 8 + w + 6), Value: Num(ctx, b.Count)}
	}
	return out
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// Point is one interval of a time series.
type Point struct {
	Short string // axis label
	Long  string // table and tooltip label
	Count int64
}

// ColumnChart is a column chart of a time series.
type ColumnChart struct {
	ID      string
	Title   string
	Hint    string
	Column  string
	Measure string
	Points  []Point
}

type colGeom struct {
	Point
	X, Y, W, H, Value string
	LabelX            string
	Labelled          bool
}

func (c ColumnChart) viewBox() string { return "0 0 " + strconv.Itoa(colW) + " " + strconv.Itoa(colH) }

func (c ColumnChart) max() int64 {
	var m int64
	for _, p := range c.Points {
		m = max64(m, p.Count)
	}
	return m
}

// axis gives the y of the top gridline and the base line, and the label of the top.
func (c ColumnChart) axis(ctx context.Context) (top, base, baseLabelY, maxLabel, axisX string) {
	return f(colTop), f(colH - colBottom), f(colH - colBottom + 4), Num(ctx, c.max()), f(colLeft - 6)
}

func (c ColumnChart) geom(ctx context.Context) []colGeom {
	n := len(c.Points)
	if n == 0 {
		return nil
	}
	plotW := float64(colW - colLeft - colRight)
	plotH := float64(colH - colTop - colBottom)
	step := plotW / float64(n)
	gap := step * 0.2
	if gap > 6 {
		gap = 6
	}
	every := (n + colTicks - 1) / colTicks
	max := c.max()
	out := make([]colGeom, n)
	for i, p := range c.Points {
		h := 0.0
		if max > 0 {
			h = float64(p.Count) / float64(max) * plotH
		}
		if p.Count > 0 && h < 1.5 {
			h = 1.5
		}
		x := colLeft + float64(i)*step
		out[i] = colGeom{Point: p, X: f(x + gap/2), W: f(step - gap), Y: f(colTop + plotH - h), H: f(h),
			Value: Num(ctx, p.Count), LabelX: f(x + step/2), Labelled: i%every == 0}
	}
	return out
}

// Points turns a store series into chart points labelled for its interval.
func Points(series []store.Bucket, interval string) []Point {
	out := make([]Point, len(series))
	for i, b := range series {
		p := Point{Count: b.Count}
		switch interval {
		case store.IntervalDay:
			p.Short, p.Long = b.Start.Format("02/01"), date(b.Start)
		case store.IntervalWeek:
			p.Short, p.Long = b.Start.Format("02/01"), date(b.Start)+" – "+date(b.End)
		case store.IntervalMonth:
			p.Short, p.Long = b.Start.Format("01/2006"), b.Start.Format("01/2006")
		default:
			p.Short, p.Long = b.Start.Format("2006"), b.Start.Format("2006")
		}
		out[i] = p
	}
	return out
}

// Bars turns a breakdown into bars; the "none" entry gets its translated name.
func Bars(ctx context.Context, slices []store.Slice) []Bar {
	out := make([]Bar, len(slices))
	for i, s := range slices {
		b := Bar{Name: s.Name, Count: s.Count}
		if s.ID == 0 {
			b.Name = i18n.T(ctx, "dashboard.none")
		}
		switch {
		case s.IsWon:
			b.Class = "won"
		case s.IsLost:
			b.Class = "lost"
		}
		out[i] = b
	}
	return out
}

var intervalHints = map[string]string{store.IntervalDay: "dashboard.perDay", store.IntervalWeek: "dashboard.perWeek",
	store.IntervalMonth: "dashboard.perMonth", store.IntervalYear: "dashboard.perYear"}

func intervalHint(ctx context.Context, interval string) string {
	return i18n.T(ctx, intervalHints[interval])
}
