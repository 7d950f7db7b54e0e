package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// Team is a named group of users of a tenant; a "team" record scope reaches the records
// owned or created by anyone sharing a team with the user.
type Team struct {
	bun.BaseModel `bun:"table:teams,alias:t"`
	Owned

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	Name      string    `bun:"name,notnull" json:"name"`
	CreatedAt time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	Members   int64     `bun:"members,scanonly" json:"members"`
}

// TeamMember is one user's membership of one team.
type TeamMember struct {
	bun.BaseModel `bun:"table:team_members,alias:tm"`
	Owned

	TeamID int64 `bun:"team_id,pk"`
	UserID int64 `bun:"user_id,pk"`
}

// MemberRef is a member as a team's page lists it.
type MemberRef struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// TeamDetail is a team with its members.
type TeamDetail struct {
	Team
	Users []MemberRef `json:"users"`
}

// teams selects the tenant's teams with their member counts.
func (s Scope) teams(model any) *bun.SelectQuery {
	return s.Select(model).ColumnExpr("t.*").
		ColumnExpr("(SELECT COUNT(*) FROM team_members AS tm WHERE tm.tenant_id = t.tenant_id AND tm.team_id = t.id) AS members")
}

// Teams lists the tenant's teams by name.
func (s Scope) Teams(ctx context.Context) ([]Team, error) {
	out := []Team{}
	err := s.teams(&out).OrderExpr("lower(t.name), t.id").Scan(ctx)
	return out, err
}

// TeamView loads one team of the tenant with its members (ErrNotFound otherwise).
func (s Scope) TeamView(ctx context.Context, id int64) (*TeamDetail, error) {
	d := &TeamDetail{}
	if err := s.teams(&d.Team).Where("t.id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	d.Users = []MemberRef{}
	err := s.Select((*User)(nil)).Column("u.id", "u.name", "u.email").
		Where("EXISTS (SELECT 1 FROM team_members AS tm WHERE tm.tenant_id = u.tenant_id AND tm.team_id = ? AND tm.user_id = u.id)", id).
		OrderExpr("lower(u.name), u.id").Scan(ctx, &d.Users)
	return d, err
}

// teamName checks a team's name and that no other team of the tenant has it.
func (s Scope) teamName(ctx context.Context, id int64, name string) (string, error) {
	name = strings.TrimSpace(name)
	errs := validate.Errors{}
	errs.Check(validate.Required(name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(name), "name", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(name, 100), "name", validate.KeyMaxLength)
	if len(errs) > 0 {
		return "", errs
	}
	taken, err := s.Select((*Team)(nil)).Where("lower(t.name) = lower(?) AND t.id <> ?", name, id).Exists(ctx)
	if err != nil {
		return "", err
	}
	if taken {
		return "", validate.Errors{"name": validate.KeyTaken}
	}
	return name, nil
}

// CreateTeam adds a team.
func (s Scope) CreateTeam(ctx context.Context, name string) (*TeamDetail, error) {
	t := &Team{}
	err := s.Tx(ctx, func(tx Scope) error {
		n, err := tx.teamName(ctx, 0, name)
		if err != nil {
			return err
		}
		t.Name = n
		if _, err := tx.Insert(t).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "team", t.ID, "create", nil, map[string]any{"name": n})
	})
	if err != nil {
		return nil, err
	}
	return s.TeamView(ctx, t.ID)
}

// RenameTeam renames a team.
func (s Scope) RenameTeam(ctx context.Context, id int64, name string) (*TeamDetail, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.TeamView(ctx, id)
		if err != nil {
			return err
		}
		n, err := tx.teamName(ctx, id, name)
		if err != nil {
			return err
		}
		if _, err := tx.Update((*Team)(nil)).Set("name = ?", n).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "team", id, "update", map[string]any{"name": old.Name}, map[string]any{"name": n})
	})
	if err != nil {
		return nil, err
	}
	return s.TeamView(ctx, id)
}

// DeleteTeam deletes a team and its memberships.
func (s Scope) DeleteTeam(ctx context.Context, id int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.TeamView(ctx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Delete((*Team)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "team", id, "delete", map[string]any{"name": old.Name}, nil)
	})
}

// AddTeamMember puts a user of the tenant in a team (already there: nothing changes).
func (s Scope) AddTeamMember(ctx context.Context, teamID, userID int64) (*TeamDetail, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.TeamView(ctx, teamID); err != nil {
			return err
		}
		ok, err := tx.Select((*User)(nil)).Where("u.id = ?", userID).Exists(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return validate.Errors{"user_id": validate.KeyInvalid}
		}
		res, err := tx.Insert(&TeamMember{TeamID: teamID, UserID: userID}).
			On("CONFLICT (tenant_id, team_id, user_id) DO NOTHING").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return tx.Record(ctx, "team", teamID, "member_add", nil, map[string]any{"user_id": userID})
	})
	if err != nil {
		return nil, err
	}
	return s.TeamView(ctx, teamID)
}

// RemoveTeamMember takes a user out of a team (ErrNotFound when not a member).
func (s Scope) RemoveTeamMember(ctx context.Context, teamID, userID int64) (*TeamDetail, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		res, err := tx.Delete((*TeamMember)(nil)).Where("team_id = ? AND user_id = ?", teamID, userID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return tx.Record(ctx, "team", teamID, "member_remove", map[string]any{"user_id": userID}, nil)
	})
	if err != nil {
		return nil, err
	}
	return s.TeamView(ctx, teamID)
}
