package store

import (
	"encoding/json"
	"strings"
	"time"

	"crm/app/validate"
)

// A dashboard's period: the presets, custom ranges of days, and the interval its series
// are bucketed by (dashboard.go).

// Period presets, as the `period` query parameter names them.
const (
	PeriodLast7   = "7d"     // today and the 6 days before
	PeriodLast30  = "30d"    // today and the 29 days before
	PeriodLast90  = "90d"    // today and the 89 days before
	PeriodYear    = "year"   // 1 January of this year to today
	PeriodAll     = "all"    // the first day with a lead or client in reach to today
	PeriodCustom  = "custom" // from and to, both days included
	DefaultPeriod = PeriodLast30
)

// PeriodPresets lists the presets in the order a picker offers them.
var PeriodPresets = []string{PeriodLast7, PeriodLast30, PeriodLast90, PeriodYear, PeriodAll, PeriodCustom}

// Intervals of a time series: a point per day for periods of up to 31 days, per week
// (Monday to Sunday) up to 6 months (183 days), per month up to 10 years, per year beyond.
const (
	IntervalDay   = "day"
	IntervalWeek  = "week"
	IntervalMonth = "month"
	IntervalYear  = "year"
)

const (
	// DayLayout is how days are written in parameters, counters and JSON.
	DayLayout = "2006-01-02"
	// MaxPeriodDays bounds a custom period (about 10 years).
	MaxPeriodDays = 3660
	maxDayDays    = 31
	maxWeekDays   = 183
)

// Period is a span of whole UTC days, both ends included.
type Period struct {
	Preset string
	From   time.Time // first day, at 00:00 UTC; zero for PeriodAll until the dashboard resolves it
	To     time.Time // last day, at 00:00 UTC
}

// Days is the number of days in the period.
func (p Period) Days() int { return int(p.To.Sub(p.From).Hours()/24) + 1 }

// Interval is the step of the period's time series.
func (p Period) Interval() string {
	switch d := p.Days(); {
	case d <= maxDayDays:
		return IntervalDay
	case d <= maxWeekDays:
		return IntervalWeek
	case d <= MaxPeriodDays:
		return IntervalMonth
	default:
		return IntervalYear
	}
}

// MarshalJSON writes {"preset": "30d", "from": "2026-10-24", "to": "2026-11-22", "days": 30}.
func (p Period) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Preset string `json:"preset"`
		From   string `json:"from"`
		To     string `json:"to"`
		Days   int    `json:"days"`
	}{p.Preset, p.From.Format(DayLayout), p.To.Format(DayLayout), p.Days()})
}

// Day is the UTC day of t, at 00:00.
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// parseDay reads a day as YYYY-MM-DD (as date inputs send it) or dd/MM/yyyy (the spec's
// display format).
func parseDay(s string) (time.Time, bool) {
	for _, layout := range []string{DayLayout, "02/01/2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ParsePeriod reads a period from a preset or from two days. With no preset, from/to make a
// custom period and nothing at all is DefaultPeriod; a preset other than custom ignores
// from/to. today is the current UTC day. Mistakes come back as validate.Errors on the
// fields period, from and to.
func ParsePeriod(preset, from, to string, today time.Time) (Period, error) {
	preset = strings.ToLower(strings.TrimSpace(preset))
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	if preset == "" {
		preset = DefaultPeriod
		if from != "" || to != "" {
			preset = PeriodCustom
		}
	}
	today = Day(today)
	p := Period{Preset: preset, To: today}
	switch preset {
	case PeriodLast7:
		p.From = today.AddDate(0, 0, -6)
	case PeriodLast30:
		p.From = today.AddDate(0, 0, -29)
	case PeriodLast90:
		p.From = today.AddDate(0, 0, -89)
	case PeriodYear:
		p.From = time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	case PeriodAll:
	case PeriodCustom:
		errs := validate.Errors{}
		for _, f := range []struct {
			field, raw string
			dst        *time.Time
		}{{"from", from, &p.From}, {"to", to, &p.To}} {
			day, ok := parseDay(f.raw)
			switch {
			case f.raw == "":
				errs.Add(f.field, validate.KeyRequired)
			case !ok:
				errs.Add(f.field, validate.KeyInvalidDate)
			}
			*f.dst = day
		}
		if len(errs) == 0 && (p.To.Before(p.From) || p.Days() > MaxPeriodDays) {
			errs.Add("to", validate.KeyInvalid)
		}
		if len(errs) > 0 {
			return Period{Preset: preset}, errs
		}
	default:
		return Period{Preset: DefaultPeriod}, validate.Errors{"period": validate.KeyInvalid}
	}
	return p, nil
}
