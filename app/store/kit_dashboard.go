package store

import (
	"context"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
)

// MeetingItem is one call or meeting of the meeting dashboard: an occurrence to come of a
// plan, or one a plan produced (its reminder, not done yet).
type MeetingItem struct {
	KitID      int64     `json:"kit_id"`
	ReminderID int64     `json:"reminder_id,omitempty"`
	Type       KitType   `json:"type"`
	EventType  string    `json:"event_type"`
	At         time.Time `json:"at"`
	OwnerID    int64     `json:"owner_id"`
	OwnerName  string    `json:"owner_name"`
	Entity     string    `json:"entity"`
	RecordID   int64     `json:"record_id"`
	RecordName string    `json:"record_name"`
	Href       string    `json:"href"`
}

// MeetingDashboard is the caller's calls and meetings in three buckets: overdue (produced
// before today and not done), today's and the rest of this week's (Monday to Sunday), on
// the caller's clock. Team says whether they are the caller's team's (the caller and every
// user who shares a team with them) rather than the caller's own.
type MeetingDashboard struct {
	Team     bool          `json:"team"`
	MayTeam  bool          `json:"may_team"`
	Overdue  []MeetingItem `json:"overdue"`
	Today    []MeetingItem `json:"today"`
	ThisWeek []MeetingItem `json:"this_week"`
}

// MayTeamDashboard reports whether the scope's record scope on leads or clients reaches
// beyond its own records (team or all), which lets it see its team's calls and meetings.
func (s Scope) MayTeamDashboard() bool {
	for _, e := range Entities {
		if s.mayOn(e, auth.View) == nil && s.recordScope(e.Feature) != auth.ScopeOwn {
			return true
		}
	}
	return false
}

// MeetingDashboard gathers the calls and meetings of the scope's user (or, with team and
// a scope that allows it, of their team) around now in loc, on records the scope may see.
func (s Scope) MeetingDashboard(ctx context.Context, now time.Time, loc *time.Location, team bool) (*MeetingDashboard, error) {
	d := &MeetingDashboard{MayTeam: s.MayTeamDashboard(), Overdue: []MeetingItem{}, Today: []MeetingItem{}, ThisWeek: []MeetingItem{}}
	d.Team = team && d.MayTeam
	owners := []int64{s.UserID}
	if d.Team {
		ids, err := s.Team(ctx)
		if err != nil {
			return nil, err
		}
		owners = ids
	}
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	tomorrow := today.AddDate(0, 0, 1)
	weekday := (int(today.Weekday()) + 6) % 7 // Monday 0
	weekEnd := today.AddDate(0, 0, 7-weekday)

	// Occurrences to come: active call and meeting plans, expanded up to the week's end.
	var plans []KeepInTouchView
	if err := s.kitViews(&plans).Where("k.kit_type IN (?, ?) AND k.active AND k.next_at IS NOT NULL AND k.next_at < ?", KitCall, KitMeeting, weekEnd.UTC()).
		Where("k.owner_id IN (?)", bun.In(owners)).OrderExpr("k.next_at, k.id").Limit(500).Scan(ctx); err != nil {
		return nil, err
	}
	for _, p := range plans {
		loc := kitLocation(p.TimeZone)
		for n := p.Seq; n < p.Seq+8; n++ {
			at, ok := KitOccurrence(p.StartAt, p.Interval, loc, n)
			if !ok || !at.Before(weekEnd) {
				break
			}
			it := meetingItem(&p)
			it.At = at.UTC()
			if at.Before(today) {
				d.Overdue = append(d.Overdue, it) // not produced yet: the worker is behind
			} else {
				d.bucket(it, tomorrow)
			}
		}
	}
	// Occurrences produced: the plans' reminders not done, due before the week's end.
	type produced struct {
		KeepInTouchView `bun:",extend"`
		ReminderID      int64     `bun:"reminder_id,scanonly"`
		DueAt           time.Time `bun:"due_at,scanonly"`
	}
	var rows []produced
	if err := s.kitViews(&rows).ColumnExpr("rm.id AS reminder_id, rm.due_at AS due_at").
		Join("JOIN reminders AS rm ON rm.tenant_id = k.tenant_id AND rm.kit_id = k.id").
		Where("rm.done_at IS NULL AND rm.due_at < ? AND rm.assignee_id IN (?)", weekEnd.UTC(), bun.In(owners)).
		OrderExpr("rm.due_at, rm.id").Limit(500).Scan(ctx); err != nil {
		return nil, err
	}
	for _, r := range rows {
		it := meetingItem(&r.KeepInTouchView)
		it.ReminderID, it.At = r.ReminderID, r.DueAt.UTC()
		if it.At.Before(today) {
			d.Overdue = append(d.Overdue, it)
		} else {
			d.bucket(it, tomorrow)
		}
	}
	for _, list := range [][]MeetingItem{d.Overdue, d.Today, d.ThisWeek} {
		sort.SliceStable(list, func(i, j int) bool { return list[i].At.Before(list[j].At) })
	}
	return d, nil
}

func (d *MeetingDashboard) bucket(it MeetingItem, tomorrow time.Time) {
	if it.At.Before(tomorrow) {
		d.Today = append(d.Today, it)
	} else {
		d.ThisWeek = append(d.ThisWeek, it)
	}
}

func meetingItem(p *KeepInTouchView) MeetingItem {
	e, rid := p.Entity()
	return MeetingItem{KitID: p.ID, Type: p.Type, EventType: p.EventTypeName, OwnerID: p.OwnerID, OwnerName: p.OwnerName,
		Entity: e.Name, RecordID: rid, RecordName: p.RecordName, Href: e.Href(rid)}
}
