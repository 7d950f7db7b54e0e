package store

import "time"

// KitInterval is how often a keep-in-touch plan recurs.
type KitInterval string

// The intervals of a plan.
const (
	IntervalOnce      KitInterval = "once"
	IntervalDaily     KitInterval = "daily"
	IntervalWeekly    KitInterval = "weekly"
	IntervalMonthly   KitInterval = "monthly"
	IntervalQuarterly KitInterval = "quarterly"
	IntervalYearly    KitInterval = "yearly"
)

// KitIntervals lists the intervals in the order the dropdown shows them.
var KitIntervals = []KitInterval{IntervalOnce, IntervalDaily, IntervalWeekly, IntervalMonthly, IntervalQuarterly, IntervalYearly}

func (i KitInterval) valid() bool {
	for _, k := range KitIntervals {
		if k == i {
			return true
		}
	}
	return false
}

// KitOccurrence is the n-th occurrence (0 the start) of a plan starting at start and
// recurring every interval, computed on the wall clock of loc: each occurrence keeps the
// start's local time of day across daylight-saving changes, and a monthly, quarterly or
// yearly plan started on a day a shorter month lacks (the 31st, 29 February) falls on that
// month's last day, without drifting afterwards (each occurrence is counted from the start,
// never from the previous one). ok is false when there is no n-th occurrence (a one-off plan
// after its first).
func KitOccurrence(start time.Time, interval KitInterval, loc *time.Location, n int) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s := start.In(loc)
	y, m, d := s.Date()
	hh, mm, ss := s.Clock()
	months := 0
	switch interval {
	case IntervalOnce:
		if n > 0 {
			return time.Time{}, false
		}
	case IntervalDaily:
		return time.Date(y, m, d+n, hh, mm, ss, 0, loc), true
	case IntervalWeekly:
		return time.Date(y, m, d+7*n, hh, mm, ss, 0, loc), true
	case IntervalMonthly:
		months = n
	case IntervalQuarterly:
		months = 3 * n
	case IntervalYearly:
		months = 12 * n
	default:
		return time.Time{}, false
	}
	first := time.Date(y, m+time.Month(months), 1, 0, 0, 0, 0, loc)
	ty, tm, _ := first.Date()
	last := time.Date(ty, tm+1, 0, 0, 0, 0, 0, loc).Day()
	return time.Date(ty, tm, min(d, last), hh, mm, ss, 0, loc), true
}

// kitSeqFrom is the index of the plan's first occurrence at or after from (and ok false
// when there is none).
func kitSeqFrom(start time.Time, interval KitInterval, loc *time.Location, from time.Time) (int, time.Time, bool) {
	// Jump close by the interval's rough length, then walk: never more than a few steps.
	n := 0
	if from.After(start) {
		var step time.Duration
		switch interval {
		case IntervalDaily:
			step = 24 * time.Hour
		case IntervalWeekly:
			step = 7 * 24 * time.Hour
		case IntervalMonthly:
			step = 31 * 24 * time.Hour
		case IntervalQuarterly:
			step = 92 * 24 * time.Hour
		case IntervalYearly:
			step = 366 * 24 * time.Hour
		}
		if step > 0 {
			n = max(int(from.Sub(start)/step)-2, 0)
		}
	}
	for ; ; n++ {
		at, ok := KitOccurrence(start, interval, loc, n)
		if !ok {
			return n, time.Time{}, false
		}
		if !at.Before(from) {
			return n, at, true
		}
	}
}

// kitLocation is a plan's time zone (UTC when empty or unknown).
func kitLocation(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// KindEventType is the event type master (Settings): the labels of keep-in-touch plans
// (Email, Call, Meeting to start with; a tenant adds its own, such as "Video call").
const KindEventType MasterKind = "event_type"

func init() {
	MasterKinds = append(MasterKinds, KindEventType)
	defaultMasters = append(defaultMasters,
		defaultMaster{Master{Kind: KindEventType, Name: "Email"}, "kitDefaults.eventEmail"},
		defaultMaster{Master{Kind: KindEventType, Name: "Call"}, "kitDefaults.eventCall"},
		defaultMaster{Master{Kind: KindEventType, Name: "Meeting"}, "kitDefaults.eventMeeting"})
}
