package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// CSV imports of leads and clients. The import machinery (reading the file, mapping its
// columns, running in the background) lives in app/importer; here are its records and the
// rules that change data: a batch of rows applied in one transaction by the rules of
// CreateLead, UpdateLead, CreateClient and UpdateClient (the form's rules and journey
// entries, checked against the batch's masters and users instead of a query per row), with
// what each row did recorded beside it, and the undo of a whole import.

// Import statuses, in the order an import goes through them.
const (
	ImportUploaded   = "uploaded"    // file read, columns suggested; waiting for the mapping
	ImportQueued     = "queued"      // mapping chosen; waiting for a runner
	ImportRunning    = "running"     // rows being applied, batch by batch
	ImportDone       = "done"        // every row processed
	ImportFailed     = "failed"      // stopped by an error; the batches before it stay applied and recorded
	ImportUndoQueued = "undo_queued" // undo asked; waiting for a runner
	ImportUndoing    = "undoing"     // created records being deleted, updated ones restored
	ImportUndone     = "undone"      // every change of the import reverted
)

// Import modes.
const (
	ModeCreate = "create" // create new records; a row matching an existing one is skipped as a duplicate
	ModeUpdate = "update" // update the matching record; a row matching none is skipped
	ModeUpsert = "upsert" // update the matching record, or create one
)

// Match keys: the field that says a row is a record that exists already.
const (
	MatchEmail = "email"
	MatchPhone = "phone"
)

// Row outcomes.
const (
	OutcomeCreated = "created"
	OutcomeUpdated = "updated"
	OutcomeSkipped = "skipped"
	OutcomeFailed  = "failed"
)

// Reason codes of a skipped or failed row.
const (
	ReasonInvalid        = "invalid"        // the store's validation refused it (Errors: field → key)
	ReasonUnknown        = "unknown"        // a stage, status, source, type or owner name that does not exist (Field, Value)
	ReasonAmbiguousValue = "ambiguousValue" // an owner name that several users have (Field, Value)
	ReasonMalformed      = "malformed"      // the line is not valid CSV
	ReasonDuplicate      = "duplicate"      // create mode: a record with the key exists (ID)
	ReasonNotFound       = "notFound"       // update mode: no record has the key
	ReasonNoKey          = "noKey"          // update mode: the row's key is empty
	ReasonAmbiguous      = "ambiguous"      // several records have the key (Count)
	ReasonUnchanged      = "unchanged"      // the matching record has these values already (ID)
)

// ImportStaleAfter is how long a running import may go without a committed batch before
// another runner may take it over (its runner is taken to have stopped).
const ImportStaleAfter = 2 * time.Minute

// ErrImportClaimLost: another runner took the import over; the batch was rolled back.
var ErrImportClaimLost = errors.New("store: import claimed by another runner")

// Import is one CSV import of leads or clients by a user.
type Import struct {
	bun.BaseModel `bun:"table:imports,alias:im"`
	Owned

	ID          int64      `bun:"id,pk,autoincrement" json:"id"`
	UserID      int64      `bun:"user_id,notnull" json:"user_id"`
	Entity      string     `bun:"entity,notnull" json:"entity"`
	FileName    string     `bun:"file_name,notnull" json:"file_name"`
	FileSize    int64      `bun:"file_size,notnull" json:"file_size"`
	Delimiter   string     `bun:"delimiter,notnull" json:"delimiter"`
	Encoding    string     `bun:"encoding,notnull" json:"encoding"`
	Header      []string   `bun:"header,notnull" json:"header"`
	Preview     [][]string `bun:"preview,notnull" json:"preview"`
	TotalRows   int        `bun:"total_rows,notnull" json:"total_rows"`
	Mapping     []string   `bun:"mapping,notnull" json:"mapping"`
	Mode        string     `bun:"mode,notnull" json:"mode"`
	MatchKey    string     `bun:"match_key,notnull" json:"match_key"`
	Status      string     `bun:"status,notnull" json:"status"`
	NextRow     int        `bun:"next_row,notnull" json:"processed_rows"`
	Created     int        `bun:"created_count,notnull" json:"created"`
	Updated     int        `bun:"updated_count,notnull" json:"updated"`
	Skipped     int        `bun:"skipped_count,notnull" json:"skipped"`
	Failed      int        `bun:"failed_count,notnull" json:"failed"`
	UndoTotal   int        `bun:"undo_total,notnull" json:"undo_total"`
	Undone      int        `bun:"undone_count,notnull" json:"undone"`
	Error       string     `bun:"error,notnull" json:"error"`
	Claim       string     `bun:"claim,notnull" json:"-"`
	HeartbeatAt *time.Time `bun:"heartbeat_at" json:"-"`
	StartedAt   *time.Time `bun:"started_at" json:"started_at"`
	FinishedAt  *time.Time `bun:"finished_at" json:"finished_at"`
	UndoneAt    *time.Time `bun:"undone_at" json:"undone_at"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`

	// undoBelow is where the next undo batch's rows end (that row number excluded), as this
	// runner knows it: every changed row from it on is undone, as batches go latest row
	// first. 0: not known yet.
	undoBelow int
}

// Active reports whether a runner has the import, or will take it.
func (im *Import) Active() bool {
	switch im.Status {
	case ImportQueued, ImportRunning, ImportUndoQueued, ImportUndoing:
		return true
	}
	return false
}

// Undoable reports whether the import changed anything that an undo could revert.
func (im *Import) Undoable() bool {
	return (im.Status == ImportDone || im.Status == ImportFailed) && im.Created+im.Updated > 0
}

type importFile struct {
	bun.BaseModel `bun:"table:import_files,alias:imf"`
	Owned

	ImportID int64  `bun:"import_id,pk"`
	Content  []byte `bun:"content,notnull"`
}

// RowReason says why a row was skipped or failed.
type RowReason struct {
	Code   string          `json:"code"`
	Field  string          `json:"field,omitempty"`
	Value  string          `json:"value,omitempty"`
	ID     int64           `json:"id,omitempty"`
	Count  int             `json:"count,omitempty"`
	Errors validate.Errors `json:"errors,omitempty"`
}

// importRow records what an import did with one data row of its file.
type importRow struct {
	bun.BaseModel `bun:"table:import_rows,alias:ir"`
	Owned

	ImportID int64      `bun:"import_id,pk"`
	RowNo    int        `bun:"row_no,pk"`
	Outcome  string     `bun:"outcome,notnull"`
	EntityID *int64     `bun:"entity_id"`
	Before   *string    `bun:"before"` // the record before an update, as JSON
	Reason   *RowReason `bun:"reason"`
	Undone   bool       `bun:"undone,notnull"`
}

// ImportRow is a processed row as the report shows it.
type ImportRow struct {
	RowNo    int        `json:"row"`
	Outcome  string     `json:"outcome"`
	EntityID *int64     `json:"record_id"`
	Reason   *RowReason `json:"reason"`
	Undone   bool       `json:"undone"`
}

// NewImport is an uploaded file, read and ready for its mapping.
type NewImport struct {
	Entity    string
	FileName  string
	Content   []byte
	Delimiter string
	Encoding  string
	Header    []string
	Preview   [][]string
	TotalRows int
	Mapping   []string // suggested: one field name (or "") per column
}

// CreateImport keeps an uploaded file as an import of the scope's user, waiting for its mapping.
func (s Scope) CreateImport(ctx context.Context, n NewImport) (*Import, error) {
	if n.Entity != EntityLead && n.Entity != EntityClient {
		return nil, validate.Errors{"entity": validate.KeyInvalid}
	}
	im := &Import{UserID: s.UserID, Entity: n.Entity, FileName: n.FileName, FileSize: int64(len(n.Content)),
		Delimiter: n.Delimiter, Encoding: n.Encoding, Header: n.Header, Preview: n.Preview, TotalRows: n.TotalRows,
		Mapping: n.Mapping, Status: ImportUploaded}
	if im.Preview == nil {
		im.Preview = [][]string{}
	}
	if im.Mapping == nil {
		im.Mapping = make([]string, len(n.Header))
	}
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.Insert(im).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.Insert(&importFile{ImportID: im.ID, Content: n.Content}).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "import", im.ID, "create", nil,
			map[string]any{"entity": im.Entity, "file_name": im.FileName, "rows": im.TotalRows})
	})
	if err != nil {
		return nil, err
	}
	return im, nil
}

// Import loads one of the scope's user's imports; another user's or tenant's is not found.
func (s Scope) Import(ctx context.Context, id int64) (*Import, error) {
	im := &Import{}
	err := s.Select(im).Where("im.id = ? AND im.user_id = ?", id, s.UserID).Scan(ctx)
	return im, notFound(err)
}

// Imports lists the scope's user's imports, newest first.
func (s Scope) Imports(ctx context.Context, limit int) ([]Import, error) {
	if limit < 1 || limit > 100 {
		limit = 50
	}
	out := []Import{}
	err := s.Select(&out).Where("im.user_id = ?", s.UserID).
		OrderExpr("im.id DESC").Limit(int64(limit)).Scan(ctx)
	return out, err
}

// ImportContent returns the uploaded file of one of the scope's imports.
func (s Scope) ImportContent(ctx context.Context, id int64) ([]byte, error) {
	f := &importFile{}
	if err := s.Select(f).Where("imf.import_id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	return f.Content, nil
}

// QueueImport sets an uploaded import's mapping, mode and match key and queues it for a
// runner. The caller has checked the mapping against the file; an import past its upload
// is a conflict.
func (s Scope) QueueImport(ctx context.Context, id int64, mapping []string, mode, matchKey string) (*Import, error) {
	im, err := s.Import(ctx, id)
	if err != nil {
		return nil, err
	}
	if im.Status != ImportUploaded {
		return nil, ErrConflict
	}
	err = s.Tx(ctx, func(tx Scope) error {
		res, err := tx.Update((*Import)(nil)).Set("mapping = ?", jsonText(mapping)).Set("mode = ?", mode).
			Set("match_key = ?", matchKey).Set("status = ?", ImportQueued).Set("updated_at = ?", s.now()).
			Where("id = ? AND status = ?", id, ImportUploaded).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrConflict
		}
		return tx.Record(ctx, "import", id, "run", nil, map[string]any{"mode": mode, "match_key": matchKey, "mapping": mapping})
	})
	if err != nil {
		return nil, err
	}
	return s.Import(ctx, id)
}

// QueueUndo asks for a finished import to be undone as a whole.
func (s Scope) QueueUndo(ctx context.Context, id int64) (*Import, error) {
	im, err := s.Import(ctx, id)
	if err != nil {
		return nil, err
	}
	if !im.Undoable() {
		return nil, ErrConflict
	}
	err = s.Tx(ctx, func(tx Scope) error {
		n, err := tx.Select((*importRow)(nil)).Where("ir.import_id = ? AND ir.outcome IN (?) AND NOT ir.undone", id,
			bun.In([]string{OutcomeCreated, OutcomeUpdated})).Count(ctx)
		if err != nil {
			return err
		}
		res, err := tx.Update((*Import)(nil)).Set("status = ?", ImportUndoQueued).Set("undo_total = ?", n).
			Set("undone_count = 0").Set("updated_at = ?", s.now()).
			Where("id = ? AND status IN (?)", id, bun.In([]string{ImportDone, ImportFailed})).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrConflict
		}
		return tx.Record(ctx, "import", id, "undo", nil, map[string]any{"rows": n})
	})
	if err != nil {
		return nil, err
	}
	return s.Import(ctx, id)
}

// ImportRows lists the processed rows of one of the scope's imports in file order, after
// row afterRow, optionally only those with the given outcomes.
func (s Scope) ImportRows(ctx context.Context, importID int64, afterRow, limit int, outcomes ...string) ([]ImportRow, error) {
	var rows []importRow
	q := s.Select(&rows).Where("ir.import_id = ? AND ir.row_no > ?", importID, afterRow)
	if len(outcomes) > 0 {
		q = q.Where("ir.outcome IN (?)", bun.In(outcomes))
	}
	if err := q.OrderExpr("ir.row_no").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]ImportRow, len(rows))
	for i, r := range rows {
		out[i] = ImportRow{RowNo: r.RowNo, Outcome: r.Outcome, EntityID: r.EntityID, Reason: r.Reason, Undone: r.Undone}
	}
	return out, nil
}

// ImportRef names an import across tenants, for a runner.
type ImportRef struct {
	TenantID int64 `bun:"tenant_id"`
	ID       int64 `bun:"id"`
}

// ImportsToRun lists imports waiting for a runner: queued ones, and running ones whose
// runner has committed nothing since staleBefore.
func (db *DB) ImportsToRun(ctx context.Context, staleBefore time.Time, limit int) ([]ImportRef, error) {
	var out []ImportRef
	err := db.bun.NewSelect().Table("imports").Column("tenant_id", "id").
		Where("status IN (?) OR (status IN (?) AND (heartbeat_at IS NULL OR heartbeat_at < ?))",
			bun.In([]string{ImportQueued, ImportUndoQueued}), bun.In([]string{ImportRunning, ImportUndoing}),
			timeBound(db.Dialect, staleBefore)).
		OrderExpr("id").Limit(int64(limit)).Scan(ctx, &out)
	return out, err
}

// ClaimImport makes claim the runner of a queued (or stale) import and moves it to running
// or undoing. It returns nil when another runner has it.
func (db *DB) ClaimImport(ctx context.Context, ref ImportRef, claim string, staleBefore time.Time) (*Import, error) {
	s := db.Tenant(ref.TenantID, 0)
	now := s.now()
	res, err := s.Update((*Import)(nil)).
		Set("status = CASE WHEN status IN (?) THEN ? ELSE ? END", bun.In([]string{ImportQueued, ImportRunning}), ImportRunning, ImportUndoing).
		Set("claim = ?", claim).Set("heartbeat_at = ?", now).Set("updated_at = ?", now).
		Set("started_at = COALESCE(started_at, ?)", now).
		Where("id = ?", ref.ID).
		Where("(status IN (?) OR (status IN (?) AND (heartbeat_at IS NULL OR heartbeat_at < ?)))",
			bun.In([]string{ImportQueued, ImportUndoQueued}), bun.In([]string{ImportRunning, ImportUndoing}),
			timeBound(db.Dialect, staleBefore)).
		Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil, nil
	}
	im := &Import{}
	if err := s.Select(im).Where("im.id = ?", ref.ID).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	if im.Claim != claim {
		return nil, nil
	}
	return im, nil
}

// actor is the scope's user for a journey entry (nil for the system).
func (s Scope) actor() *int64 {
	if s.UserID == 0 {
		return nil
	}
	uid := s.UserID
	return &uid
}

// now is the current time as the dialect stores it for comparisons (see timeBound).
func (s Scope) now() any { return timeBound(s.Dialect(), time.Now()) }

// FinishImport ends a claimed import with a status (done, failed or undone) and, for a
// failure, the message id of what went wrong.
func (s Scope) FinishImport(ctx context.Context, im *Import, status, errMsgID string) error {
	return s.Tx(ctx, func(tx Scope) error {
		q := tx.Update((*Import)(nil)).Set("status = ?", status).Set("claim = ''").Set("error = ?", errMsgID).
			Set("updated_at = ?", s.now()).Where("id = ? AND claim = ?", im.ID, im.Claim)
		if status == ImportUndone {
			q = q.Set("undone_at = ?", s.now())
		} else {
			q = q.Set("finished_at = ?", s.now())
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrImportClaimLost
		}
		im.Status, im.Error = status, errMsgID
		cur := &Import{}
		if err := tx.Select(cur).Where("im.id = ?", im.ID).Scan(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "import", im.ID, status, nil, map[string]any{"created": cur.Created, "updated": cur.Updated,
			"skipped": cur.Skipped, "failed": cur.Failed, "undone": cur.Undone, "error": errMsgID})
	})
}

// holdImport checks, first thing in a batch's transaction, that the runner still has the
// import (and, on PostgreSQL, locks its row until the batch commits, so two runners never
// apply batches side by side).
func (s Scope) holdImport(ctx context.Context, im *Import, status string) error {
	res, err := s.Update((*Import)(nil)).Set("heartbeat_at = ?", s.now()).
		Where("id = ? AND claim = ? AND status = ?", im.ID, im.Claim, status).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrImportClaimLost
	}
	return nil
}

// ImportItem is one data row of an import, read and mapped by the importer.
type ImportItem struct {
	Row    int             // the row's number in the file, the header being row 1
	Key    string          // the match key's value, normalised (lowercased email, phone digits); "" if none
	Lead   LeadInput       // for a lead import: the fields the row gives
	Client ClientInput     // for a client import
	Set    map[string]bool // the fields the row gives a value for, by their validation names (ImportFields)
	Reason *RowReason      // set when the importer already refused the row
}

// LeadImportFields are the lead fields an import can fill, by the names the validation
// errors and the JSON API use. Masters and the owner come as names in the file.
var LeadImportFields = []string{"customer_title", "customer_name", "company_name", "company_email", "company_dial_code",
	"company_phone_number", "company_type_id", "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id",
	"owner_id", "notes", "created_at",
	"billing_address.flatNo", "billing_address.street", "billing_address.city", "billing_address.state",
	"billing_address.zip", "billing_address.country",
	"shipping_address.flatNo", "shipping_address.street", "shipping_address.city", "shipping_address.state",
	"shipping_address.zip", "shipping_address.country"}

// ClientImportFields are the client fields an import can fill.
var ClientImportFields = func() []string {
	var out []string
	for _, f := range LeadImportFields {
		switch f {
		case "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id", "created_at":
		default:
			out = append(out, f)
		}
	}
	return out
}()

// BatchCounts are the outcomes of one batch.
type BatchCounts struct{ Created, Updated, Skipped, Failed int }

func (c *BatchCounts) add(outcome string) {
	switch outcome {
	case OutcomeCreated:
		c.Created++
	case OutcomeUpdated:
		c.Updated++
	case OutcomeSkipped:
		c.Skipped++
	case OutcomeFailed:
		c.Failed++
	}
}

// ApplyImportBatch applies a batch of rows of a claimed, running import in one
// transaction, all or nothing: each row validated by the store's rules (LeadInput and
// ClientInput validation, and the create rules of CreateLead and CreateClient, or
// UpdateLead and UpdateClient for a row that updates), with its journey entries; each
// row's outcome recorded; the import's counts and position moved to nextRow. Rows are
// applied in file order, so a row sees what earlier rows (of this batch or an earlier one)
// did.
//
// The batch is written set by set, which is what lets 100,000 rows import in well under a
// minute: new records in one multi-row INSERT (a row that matches a record still waiting
// in the batch has the batch's creates written first); updated records, once every row is
// applied, with one UPDATE per group of records that change the same columns, writing only
// the columns that change (see updateByID); the journey entries of either in one INSERT.
func (s Scope) ApplyImportBatch(ctx context.Context, im *Import, items []ImportItem, nextRow int) (BatchCounts, error) {
	var counts BatchCounts
	err := s.Tx(ctx, func(tx Scope) error {
		counts = BatchCounts{}
		if err := tx.holdImport(ctx, im, ImportRunning); err != nil {
			return err
		}
		a := &batchApplier{tx: tx, im: im, match: map[string][]int64{}, leads: map[int64]*Lead{}, clients: map[int64]*Client{},
			pendingKeys: map[string]bool{}, rows: make([]importRow, 0, len(items)),
			updatedLeads: map[int64]*Lead{}, updatedClients: map[int64]*Client{}}
		if err := a.lookup(ctx, items); err != nil {
			return err
		}
		if err := a.prepare(ctx); err != nil {
			return err
		}
		for i := range items {
			if k := items[i].Key; k != "" && a.pendingKeys[k] {
				if err := a.flush(ctx); err != nil {
					return err
				}
			}
			r, err := a.apply(ctx, &items[i])
			if err != nil {
				return err
			}
			a.rows = append(a.rows, r)
		}
		if err := a.flush(ctx); err != nil {
			return err
		}
		if err := a.writeUpdates(ctx); err != nil {
			return err
		}
		for _, r := range a.rows {
			counts.add(r.Outcome)
		}
		if len(a.rows) > 0 {
			if _, err := tx.Insert(&a.rows).Exec(ctx); err != nil {
				return err
			}
		}
		res, err := tx.Update((*Import)(nil)).Set("next_row = ?", nextRow).
			Set("created_count = created_count + ?", counts.Created).Set("updated_count = updated_count + ?", counts.Updated).
			Set("skipped_count = skipped_count + ?", counts.Skipped).Set("failed_count = failed_count + ?", counts.Failed).
			Set("heartbeat_at = ?", s.now()).Set("updated_at = ?", s.now()).
			Where("id = ? AND claim = ? AND status = ?", im.ID, im.Claim, ImportRunning).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrImportClaimLost
		}
		return nil
	})
	if err != nil {
		return BatchCounts{}, err
	}
	im.NextRow = nextRow
	im.Created += counts.Created
	im.Updated += counts.Updated
	im.Skipped += counts.Skipped
	im.Failed += counts.Failed
	return counts, nil
}

// batchApplier applies the rows of one batch inside its transaction.
type batchApplier struct {
	tx      Scope
	im      *Import
	match   map[string][]int64 // key → ids of the reachable records that have it
	leads   map[int64]*Lead    // the matched (and created) leads as they are now
	clients map[int64]*Client
	rows    []importRow
	refs    *refSet // the tenant's masters and users, read once per batch

	// Creates waiting for the batch's insert: the records, their rows' indexes in rows
	// and their keys.
	pendingLeads   []*Lead
	pendingClients []*Client
	pendingRows    []int
	pendingKeys    map[string]bool

	// Updates waiting for the batch's end: each updated record as it was before the
	// batch's first change of it (its state now is in leads or clients), in the order
	// first changed, and the journey entries of the changes.
	updatedLeads   map[int64]*Lead
	updatedClients map[int64]*Client
	updatedIDs     []int64
	entries        []AuditEntry
}

// keyColumn is the column the import's match key compares with.
func (a *batchApplier) keyColumn() string {
	if a.im.MatchKey == MatchPhone {
		return "company_phone_number"
	}
	return "company_email"
}

// lookup loads the reachable records whose key a row of the batch has.
func (a *batchApplier) lookup(ctx context.Context, items []ImportItem) error {
	seen := map[string]bool{}
	var keys []string
	for _, it := range items {
		if it.Reason == nil && it.Key != "" && !seen[it.Key] {
			seen[it.Key] = true
			keys = append(keys, it.Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	if a.im.Entity == EntityClient {
		var rows []Client
		// No ORDER BY: SQLite would walk the tenant's every row by id to avoid a sort,
		// instead of looking the keys up in their index.
		if err := a.tx.clients(&rows).Where("c."+a.keyColumn()+" IN (?)", bun.In(keys)).Scan(ctx); err != nil {
			return err
		}
		slices.SortFunc(rows, func(x, y Client) int { return cmp.Compare(x.ID, y.ID) })
		for i := range rows {
			c := &rows[i]
			k := c.CompanyEmail
			if a.im.MatchKey == MatchPhone {
				k = c.CompanyPhoneNumber
			}
			a.match[k] = append(a.match[k], c.ID)
			a.clients[c.ID] = c
		}
		return nil
	}
	var rows []Lead
	if err := a.tx.leads(&rows).Where("l."+a.keyColumn()+" IN (?)", bun.In(keys)).Scan(ctx); err != nil {
		return err
	}
	slices.SortFunc(rows, func(x, y Lead) int { return cmp.Compare(x.ID, y.ID) })
	for i := range rows {
		l := &rows[i]
		k := l.CompanyEmail
		if a.im.MatchKey == MatchPhone {
			k = l.CompanyPhoneNumber
		}
		a.match[k] = append(a.match[k], l.ID)
		a.leads[l.ID] = l
	}
	return nil
}

// prepare reads what the batch's creates and updates check against.
func (a *batchApplier) prepare(ctx context.Context) error {
	var err error
	a.refs, err = a.tx.loadRefs(ctx)
	return err
}

// apply does one row and says what happened; an error other than the row's own refusal
// fails the batch.
func (a *batchApplier) apply(ctx context.Context, it *ImportItem) (importRow, error) {
	row := importRow{ImportID: a.im.ID, RowNo: it.Row}
	if it.Reason != nil {
		row.Outcome, row.Reason = OutcomeFailed, it.Reason
		return row, nil
	}
	var ids []int64
	if it.Key != "" {
		ids = a.match[it.Key]
	}
	switch {
	case len(ids) > 1 && a.im.Mode != ModeCreate:
		row.Outcome, row.Reason = OutcomeFailed, &RowReason{Code: ReasonAmbiguous, Count: len(ids)}
		return row, nil
	case a.im.Mode == ModeCreate && len(ids) > 0:
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonDuplicate, ID: ids[0]}
		return row, nil
	case a.im.Mode == ModeUpdate && it.Key == "":
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonNoKey}
		return row, nil
	case a.im.Mode == ModeUpdate && len(ids) == 0:
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonNotFound}
		return row, nil
	case len(ids) == 1:
		return a.update(ctx, it, ids[0], row)
	}
	return a.create(it, row)
}

// refused turns a validation error into the row's failure; other errors fail the batch.
func refused(row importRow, err error) (importRow, error) {
	var ve validate.Errors
	if errors.As(err, &ve) {
		row.Outcome, row.Reason = OutcomeFailed, &RowReason{Code: ReasonInvalid, Errors: ve}
		return row, nil
	}
	return row, err
}

// create checks a new record by the create rules and queues it for the batch's insert.
func (a *batchApplier) create(it *ImportItem, row importRow) (importRow, error) {
	if a.im.Entity == EntityClient {
		c, err := a.tx.importClient(a.refs, it.Client)
		if err != nil {
			return refused(row, err)
		}
		a.pendingClients = append(a.pendingClients, c)
	} else {
		l, err := a.tx.importLead(a.refs, it.Lead)
		if err != nil {
			return refused(row, err)
		}
		a.pendingLeads = append(a.pendingLeads, l)
	}
	a.pendingRows = append(a.pendingRows, len(a.rows))
	if it.Key != "" {
		a.pendingKeys[it.Key] = true
	}
	row.Outcome = OutcomeCreated
	return row, nil
}

// flush inserts the waiting creates in one statement, and their journey entries in
// another, as CreateLead and CreateClient record them.
func (a *batchApplier) flush(ctx context.Context) error {
	n := len(a.pendingRows)
	if n == 0 {
		return nil
	}
	var models any
	ids := make([]int64, n)
	var entries []AuditEntry
	var actor *int64
	if a.tx.UserID != 0 {
		uid := a.tx.UserID
		actor = &uid
	}
	stamp := func(i int, id int64, created, updated *time.Time, ret insertReturn) {
		ids[i] = id
		if created.IsZero() {
			*created = ret.CreatedAt
		}
		*updated = ret.UpdatedAt
	}
	var ret []insertReturn
	if a.im.Entity == EntityClient {
		models = &a.pendingClients
	} else {
		models = &a.pendingLeads
	}
	if err := a.tx.Insert(models).Returning("id, created_at, updated_at").Scan(ctx, &ret); err != nil {
		return err
	}
	if len(ret) != n {
		return errors.New("store: import insert returned a different number of rows")
	}
	// Ids are given in insert order on both engines; the order of returned rows is not promised.
	slices.SortFunc(ret, func(x, y insertReturn) int { return cmp.Compare(x.ID, y.ID) })
	for i := range n {
		var after any
		if a.im.Entity == EntityClient {
			c := a.pendingClients[i]
			c.ID = ret[i].ID
			stamp(i, c.ID, &c.CreatedAt, &c.UpdatedAt, ret[i])
			a.clients[c.ID], after = c, c
		} else {
			l := a.pendingLeads[i]
			l.ID = ret[i].ID
			stamp(i, l.ID, &l.CreatedAt, &l.UpdatedAt, ret[i])
			a.leads[l.ID], after = l, l
		}
		js, err := jsonOrNil(after)
		if err != nil {
			return err
		}
		entries = append(entries, AuditEntry{ActorUserID: actor, Entity: a.im.Entity, EntityID: ids[i], Action: "create", After: js})
	}
	if _, err := a.tx.Insert(&entries).Exec(ctx); err != nil {
		return err
	}
	for i, at := range a.pendingRows {
		id := ids[i]
		a.rows[at].EntityID = &id
		k := ""
		if a.im.Entity == EntityClient {
			k = a.pendingClients[i].CompanyEmail
			if a.im.MatchKey == MatchPhone {
				k = a.pendingClients[i].CompanyPhoneNumber
			}
		} else {
			k = a.pendingLeads[i].CompanyEmail
			if a.im.MatchKey == MatchPhone {
				k = a.pendingLeads[i].CompanyPhoneNumber
			}
		}
		if k != "" {
			a.match[k] = append(a.match[k], id)
		}
	}
	a.pendingLeads, a.pendingClients, a.pendingRows = a.pendingLeads[:0], a.pendingClients[:0], a.pendingRows[:0]
	clear(a.pendingKeys)
	return nil
}

// insertReturn is what an insert gives back of each new record.
type insertReturn struct {
	ID        int64     `bun:"id"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// refSet is what the create and update rules check a record against: the tenant's
// masters (and each kind's default), and its users; with their names, for the journey.
type refSet struct {
	masters     map[MasterKind]map[int64]bool
	defaults    map[MasterKind]*int64
	users       map[int64]bool
	masterNames map[int64]string
	userNames   map[int64]string
}

// loadRefs reads the tenant's masters and users once, for a batch.
func (s Scope) loadRefs(ctx context.Context) (*refSet, error) {
	var ms []Master
	if err := s.Select(&ms).OrderExpr("m.kind, m.is_default DESC, m.sort_order, m.id").Scan(ctx); err != nil {
		return nil, err
	}
	r := &refSet{masters: map[MasterKind]map[int64]bool{}, defaults: map[MasterKind]*int64{}, users: map[int64]bool{},
		masterNames: map[int64]string{}, userNames: map[int64]string{}}
	for _, m := range ms {
		if r.masters[m.Kind] == nil {
			r.masters[m.Kind] = map[int64]bool{}
			id := m.ID // the first in defaultMaster's order
			r.defaults[m.Kind] = &id
		}
		r.masters[m.Kind][m.ID] = true
		r.masterNames[m.ID] = m.Name
	}
	var users []User
	if err := s.Select(&users).Column("id", "name").Scan(ctx); err != nil {
		return nil, err
	}
	for _, u := range users {
		r.users[u.ID] = true
		r.userNames[u.ID] = u.Name
	}
	return r, nil
}

// name is the journey's name of a master or a user (masterName and userName), from the
// batch's; one it does not know is asked of the database, as those would.
func (s Scope) name(ctx context.Context, r *refSet, id *int64, user bool) (string, error) {
	if id == nil {
		return "", nil
	}
	names := r.masterNames
	if user {
		names = r.userNames
	}
	if n, ok := names[*id]; ok {
		return n, nil
	}
	if user {
		return s.userName(ctx, id)
	}
	return s.masterName(ctx, id)
}

// resolve is resolveMaster over the batch's masters: the id if it is one of the kind,
// else the kind's default when fallback is set, else none.
func (r *refSet) resolve(kind MasterKind, id *int64, fallback bool) *int64 {
	if id != nil && *id > 0 && r.masters[kind][*id] {
		return id
	}
	if !fallback {
		return nil
	}
	return r.defaults[kind]
}

// importLead is CreateLead's validation and newLead's rules for a row of an import, with
// the masters and users of the batch instead of a query per row: the same checks in the
// same order, the same defaults (TestImportLeadMatchesNewLead holds them together).
func (s Scope) importLead(r *refSet, in LeadInput) (*Lead, error) {
	in.Mobile, in.ClientID, in.Logo = false, "", nil
	if errs := in.validate(); len(errs) > 0 {
		return nil, errs
	}
	l := &Lead{CustomerTitle: in.CustomerTitle, CustomerName: in.CustomerName, CompanyName: in.CompanyName,
		CompanyEmail: in.CompanyEmail, CompanyDialCode: in.CompanyDialCode, CompanyPhoneNumber: in.CompanyPhoneNumber,
		BillingAddress: in.BillingAddress, ShippingAddress: in.ShippingAddress, Notes: in.Notes}
	l.LeadStageID = r.resolve(KindStage, in.LeadStageID, true)
	l.LeadStatusID = r.resolve(KindStatus, in.LeadStatusID, true)
	l.LeadSourceID = r.resolve(KindSource, in.LeadSourceID, true)
	l.LeadTypeID = r.resolve(KindType, in.LeadTypeID, false)
	l.CompanyTypeID = r.resolve(KindBusinessType, in.CompanyTypeID, false)
	if s.UserID != 0 {
		uid := s.UserID
		l.CreatedBy = &uid
		l.OwnerID = &uid
	}
	if in.OwnerID != nil && !s.ownLeadsOnly() {
		if !r.users[*in.OwnerID] {
			return nil, validate.Errors{"owner_id": validate.KeyInvalid}
		}
		l.OwnerID = in.OwnerID
	}
	if in.CreatedAt != nil && !in.CreatedAt.IsZero() && in.CreatedAt.Before(time.Now().Add(time.Minute)) {
		l.CreatedAt = in.CreatedAt.UTC()
	}
	l.SearchText = searchText(l)
	return l, nil
}

// importClient is CreateClient's checks for a row of an import, over the batch's masters
// and users, and its newClient.
func (s Scope) importClient(r *refSet, in ClientInput) (*Client, error) {
	errs := in.validate()
	if id := in.CompanyTypeID; id != nil && *id != 0 && !r.masters[KindBusinessType][*id] {
		errs.Add("company_type_id", validate.KeyInvalid)
	}
	if o := in.OwnerID; o != nil {
		if s.ownOnly(auth.FeatureClients) && *o != s.UserID || !r.users[*o] { // as checkOwner has it
			errs.Add("owner_id", validate.KeyInvalid)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s.newClient(in), nil
}

// update applies a row to the record it matches, in memory: the record as UpdateLead or
// UpdateClient would make it, refused as they would refuse it, with the journey entries
// they would record. The record is written with the batch's other updates (writeUpdates).
func (a *batchApplier) update(ctx context.Context, it *ImportItem, id int64, row importRow) (importRow, error) {
	row.EntityID = &id
	if a.im.Entity == EntityClient {
		old := a.clients[id]
		base := clientInputOf(old)
		next := overlayClient(base, it)
		if sameClientInput(base, next) {
			row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonUnchanged, ID: id}
			return row, nil
		}
		if !it.Set["owner_id"] {
			next.OwnerID = nil // kept by UpdateClient
		}
		before, err := jsonOrNil(old)
		if err != nil {
			return row, err
		}
		c, err := a.tx.importClientUpdate(a.refs, old, next)
		if err != nil {
			return refused(row, err)
		}
		after, err := jsonOrNil(c)
		if err != nil {
			return row, err
		}
		// As UpdateClient records it: the whole record before and after.
		a.entries = append(a.entries, AuditEntry{ActorUserID: a.tx.actor(), Entity: EntityClient, EntityID: id, Action: "update",
			Before: before, After: after})
		if _, ok := a.updatedClients[id]; !ok {
			a.updatedClients[id] = old
			a.updatedIDs = append(a.updatedIDs, id)
		}
		a.clients[id] = c
		row.Outcome, row.Before = OutcomeUpdated, before
		return row, nil
	}
	old := a.leads[id]
	base := leadInputOf(old)
	next := overlayLead(base, it)
	if sameLeadInput(base, next) {
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonUnchanged, ID: id}
		return row, nil
	}
	// UpdateLead keeps stage, status, source and owner when they are not given.
	for f, p := range map[string]**int64{"lead_stage_id": &next.LeadStageID, "lead_status_id": &next.LeadStatusID,
		"lead_source_id": &next.LeadSourceID, "owner_id": &next.OwnerID} {
		if !it.Set[f] {
			*p = nil
		}
	}
	before, err := json.Marshal(old)
	if err != nil {
		return row, err
	}
	l, err := a.tx.importLeadUpdate(a.refs, old, next)
	if err != nil {
		return refused(row, err)
	}
	changes, special, err := leadDiff(old, l, func(id *int64, user bool) (string, error) {
		return a.tx.name(ctx, a.refs, id, user)
	})
	if errors.Is(err, ErrNotFound) { // as UpdateLead's ErrNotFound
		row.Outcome, row.Reason, row.EntityID = OutcomeSkipped, &RowReason{Code: ReasonNotFound}, nil
		return row, nil
	}
	if err != nil {
		return row, err
	}
	if len(changes) == 0 { // nothing to write after all (the same master by another spelling)
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonUnchanged, ID: id}
		return row, nil
	}
	entries, err := leadChangeEntries(a.tx.actor(), id, changes, special)
	if err != nil {
		return row, err
	}
	a.entries = append(a.entries, entries...)
	if _, ok := a.updatedLeads[id]; !ok {
		a.updatedLeads[id] = old
		a.updatedIDs = append(a.updatedIDs, id)
	}
	a.leads[id] = l
	b := string(before)
	row.Outcome, row.Before = OutcomeUpdated, &b
	return row, nil
}

// importLeadUpdate is UpdateLead's validation and change for a row of an import, over the
// batch's masters and users instead of a query each: the same checks in the same order, the
// same record (TestImportLeadUpdateMatchesUpdateLead holds them together). old is not changed.
func (s Scope) importLeadUpdate(r *refSet, old *Lead, in LeadInput) (*Lead, error) {
	in.Mobile, in.ClientID, in.Logo = false, "", nil
	errs := in.validate()
	for _, c := range []struct {
		kind  MasterKind
		id    *int64
		field string
	}{{KindStage, in.LeadStageID, "lead_stage_id"}, {KindStatus, in.LeadStatusID, "lead_status_id"},
		{KindSource, in.LeadSourceID, "lead_source_id"}, {KindType, in.LeadTypeID, "lead_type_id"},
		{KindBusinessType, in.CompanyTypeID, "company_type_id"}} {
		if c.id != nil && *c.id != 0 && !r.masters[c.kind][*c.id] { // strictMaster
			errs.Add(c.field, validate.KeyInvalid)
		}
	}
	if o := in.OwnerID; o != nil { // checkOwner
		if s.ownLeadsOnly() && *o != s.UserID || !r.users[*o] {
			errs.Add("owner_id", validate.KeyInvalid)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	next := in.applyTo(old)
	next.SearchText = searchText(&next) // as saveLeadChange
	next.UpdatedAt = time.Now().UTC()
	return &next, nil
}

// importClientUpdate is UpdateClient's checks and change for a row of an import, over the
// batch's masters and users. old is not changed.
func (s Scope) importClientUpdate(r *refSet, old *Client, in ClientInput) (*Client, error) {
	errs := in.validate()
	if id := in.CompanyTypeID; id != nil && *id != 0 && !r.masters[KindBusinessType][*id] {
		errs.Add("company_type_id", validate.KeyInvalid)
	}
	if o := in.OwnerID; o != nil {
		if s.ownOnly(auth.FeatureClients) && *o != s.UserID || !r.users[*o] { // as checkOwner has it
			errs.Add("owner_id", validate.KeyInvalid)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	next := s.newClient(in)
	next.Owned, next.ID, next.LeadID, next.CreatedBy, next.CreatedAt = old.Owned, old.ID, old.LeadID, old.CreatedBy, old.CreatedAt
	if in.OwnerID == nil || *in.OwnerID == 0 {
		next.OwnerID = old.OwnerID
	}
	next.UpdatedAt = time.Now().UTC()
	return next, nil
}

// writeUpdates writes the batch's updated records, each as it is now over what it was
// before the batch, and the journey entries of every update.
func (a *batchApplier) writeUpdates(ctx context.Context) error {
	if len(a.updatedIDs) == 0 {
		return nil
	}
	recs := make([]changedColumns, 0, len(a.updatedIDs))
	for _, id := range a.updatedIDs {
		if a.im.Entity == EntityClient {
			recs = append(recs, changedColumns{id, clientColumns(a.updatedClients[id], a.clients[id])})
		} else {
			recs = append(recs, changedColumns{id, leadColumns(a.updatedLeads[id], a.leads[id])})
		}
	}
	if err := a.tx.updateByID(ctx, a.im.Entity, recs); err != nil {
		return err
	}
	if _, err := a.tx.Insert(&a.entries).Exec(ctx); err != nil {
		return err
	}
	clear(a.updatedLeads)
	clear(a.updatedClients)
	a.updatedIDs, a.entries = a.updatedIDs[:0], a.entries[:0]
	return nil
}

// columnValue is a column to set and its new value.
type columnValue struct {
	column string
	value  any
}

// changedColumns are the columns of one record that change, by its id.
type changedColumns struct {
	id      int64
	columns []columnValue
}

// columnTypes are the PostgreSQL types of the columns updateByID writes, for its VALUES.
var columnTypes = map[string]string{
	"customer_title": "text", "customer_name": "text", "company_name": "text", "company_email": "text",
	"company_dial_code": "text", "company_phone_number": "text", "notes": "text", "search_text": "text",
	"company_type_id": "bigint", "lead_type_id": "bigint", "lead_source_id": "bigint", "lead_status_id": "bigint",
	"lead_stage_id": "bigint", "owner_id": "bigint", "billing_address": "jsonb", "shipping_address": "jsonb",
	"updated_at": "timestamptz",
}

// commonColumns are the columns leads and clients share that differ between a and b, with
// b's values: the fields a form edits (and the references given in aIDs and bIDs), and the
// search text.
func commonColumns(a, b recordFields, aText, bText string, aIDs, bIDs map[string]*int64) []columnValue {
	var out []columnValue
	for _, c := range []struct {
		column string
		a, b   string
	}{{"customer_title", *a.title, *b.title}, {"customer_name", *a.name, *b.name}, {"company_name", *a.company, *b.company},
		{"company_email", *a.email, *b.email}, {"company_dial_code", *a.dial, *b.dial},
		{"company_phone_number", *a.phone, *b.phone}, {"notes", *a.notes, *b.notes}, {"search_text", aText, bText}} {
		if c.a != c.b {
			out = append(out, columnValue{c.column, c.b})
		}
	}
	for _, c := range []struct {
		column string
		a, b   *Address
	}{{"billing_address", *a.billing, *b.billing}, {"shipping_address", *a.shipping, *b.shipping}} {
		if !reflect.DeepEqual(c.a, c.b) {
			var v *string
			if c.b != nil {
				js := jsonText(c.b) // as bun writes an address
				v = &js
			}
			out = append(out, columnValue{c.column, v})
		}
	}
	cols := make([]string, 0, len(bIDs))
	for col := range bIDs {
		cols = append(cols, col)
	}
	slices.Sort(cols)
	for _, col := range cols {
		x, y := aIDs[col], bIDs[col]
		if (x == nil) != (y == nil) || x != nil && *x != *y {
			out = append(out, columnValue{col, y})
		}
	}
	return out
}

// leadColumns are the columns of a lead that differ from a to b, with b's values, and its
// time of change.
func leadColumns(a, b *Lead) []columnValue {
	ids := func(l *Lead) map[string]*int64 {
		return map[string]*int64{"company_type_id": l.CompanyTypeID, "lead_type_id": l.LeadTypeID, "lead_source_id": l.LeadSourceID,
			"lead_status_id": l.LeadStatusID, "lead_stage_id": l.LeadStageID, "owner_id": l.OwnerID}
	}
	out := commonColumns(leadRecordFields(a), leadRecordFields(b), a.SearchText, b.SearchText, ids(a), ids(b))
	return append(out, columnValue{"updated_at", b.UpdatedAt})
}

// clientColumns are leadColumns for a client.
func clientColumns(a, b *Client) []columnValue {
	ids := func(c *Client) map[string]*int64 {
		return map[string]*int64{"company_type_id": c.CompanyTypeID, "owner_id": c.OwnerID}
	}
	out := commonColumns(clientRecordFields(a), clientRecordFields(b), a.SearchText, b.SearchText, ids(a), ids(b))
	return append(out, columnValue{"updated_at", b.UpdatedAt})
}

// updateByID writes the changed columns of leads or clients the scope may reach, by id:
// one UPDATE ... FROM (VALUES ...) per group of records that change the same columns (a
// batch's rows mostly change the same ones, so a batch is a statement or a few, not one
// per record), at most MaxBulk records a statement, in id order. A column that does not
// change is not written: its indexes, its search entry and the counter triggers that
// watch it are left alone.
//
// Here and in the undo, a list of ids also comes with its range (id BETWEEN first AND
// last): PostgreSQL then reads the primary key for them even when its statistics are
// behind the table (a tenant's first large import), instead of every row of the tenant.
func (s Scope) updateByID(ctx context.Context, entity string, recs []changedColumns) error {
	table, alias, own := "leads", "l", s.ownLeadsOnly()
	if entity == EntityClient {
		table, alias, own = "clients", "c", s.ownOnly(auth.FeatureClients)
	}
	pg := s.Dialect() == Postgres
	groups := map[string][]changedColumns{}
	var keys []string
	for _, r := range recs {
		names := make([]string, len(r.columns))
		for i, c := range r.columns {
			names[i] = c.column
		}
		k := strings.Join(names, ",")
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range keys {
		group := groups[k]
		slices.SortFunc(group, func(x, y changedColumns) int { return cmp.Compare(x.id, y.id) })
		cols := strings.Split(k, ",")
		for len(group) > 0 {
			chunk := group[:min(len(group), MaxBulk)]
			group = group[len(chunk):]
			var q strings.Builder
			args := make([]any, 0, len(chunk)*(len(cols)+1)+3)
			q.WriteString("WITH v (id, " + k + ") AS (VALUES ")
			for i, r := range chunk {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(")
				cell := func(typ string, v any) {
					if pg {
						q.WriteString("CAST(? AS " + typ + ")")
					} else {
						q.WriteString("?")
					}
					args = append(args, v)
				}
				cell("bigint", r.id)
				for _, c := range r.columns {
					q.WriteString(", ")
					cell(columnTypes[c.column], c.value)
				}
				q.WriteString(")")
			}
			q.WriteString(") UPDATE " + table + " AS " + alias + " SET ")
			for i, c := range cols {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString(c + " = v." + c)
			}
			q.WriteString(" FROM v WHERE " + alias + ".tenant_id = ? AND " + alias + ".id = v.id")
			args = append(args, s.TenantID)
			if pg { // (SQLite would read an index for the range before the row by its id)
				q.WriteString(" AND " + alias + ".id BETWEEN ? AND ?")
				args = append(args, chunk[0].id, chunk[len(chunk)-1].id)
			}
			if own {
				q.WriteString(" AND (" + alias + ".owner_id = ? OR " + alias + ".created_by = ?)")
				args = append(args, s.UserID, s.UserID)
			}
			if _, err := s.idb.NewRaw(q.String(), args...).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func copyAddress(a *Address) *Address {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

func leadInputOf(l *Lead) LeadInput {
	return LeadInput{CustomerTitle: l.CustomerTitle, CustomerName: l.CustomerName, CompanyName: l.CompanyName,
		CompanyEmail: l.CompanyEmail, CompanyDialCode: l.CompanyDialCode, CompanyPhoneNumber: l.CompanyPhoneNumber,
		CompanyTypeID: l.CompanyTypeID, LeadTypeID: l.LeadTypeID, LeadSourceID: l.LeadSourceID, LeadStatusID: l.LeadStatusID,
		LeadStageID: l.LeadStageID, OwnerID: l.OwnerID, BillingAddress: copyAddress(l.BillingAddress),
		ShippingAddress: copyAddress(l.ShippingAddress), Notes: l.Notes}
}

func clientInputOf(c *Client) ClientInput {
	return ClientInput{CustomerTitle: c.CustomerTitle, CustomerName: c.CustomerName, CompanyName: c.CompanyName,
		CompanyEmail: c.CompanyEmail, CompanyDialCode: c.CompanyDialCode, CompanyPhoneNumber: c.CompanyPhoneNumber,
		CompanyTypeID: c.CompanyTypeID, OwnerID: c.OwnerID, BillingAddress: copyAddress(c.BillingAddress),
		ShippingAddress: copyAddress(c.ShippingAddress), Notes: c.Notes}
}

// commonFields points at the fields leads and clients share, for overlaying a row.
type commonFields struct {
	title, name, company, email, dial, phone, notes *string
	companyType, owner                              **int64
	billing, shipping                               **Address
}

func leadFields(in *LeadInput) commonFields {
	return commonFields{&in.CustomerTitle, &in.CustomerName, &in.CompanyName, &in.CompanyEmail, &in.CompanyDialCode,
		&in.CompanyPhoneNumber, &in.Notes, &in.CompanyTypeID, &in.OwnerID, &in.BillingAddress, &in.ShippingAddress}
}

func clientFields(in *ClientInput) commonFields {
	return commonFields{&in.CustomerTitle, &in.CustomerName, &in.CompanyName, &in.CompanyEmail, &in.CompanyDialCode,
		&in.CompanyPhoneNumber, &in.Notes, &in.CompanyTypeID, &in.OwnerID, &in.BillingAddress, &in.ShippingAddress}
}

// overlay copies the fields the row sets from src onto dst; the others keep dst's value.
func overlay(dst, src commonFields, set map[string]bool) {
	for f := range set {
		switch f {
		case "customer_title":
			*dst.title = *src.title
		case "customer_name":
			*dst.name = *src.name
		case "company_name":
			*dst.company = *src.company
		case "company_email":
			*dst.email = *src.email
		case "company_dial_code":
			*dst.dial = *src.dial
		case "company_phone_number":
			*dst.phone = *src.phone
		case "notes":
			*dst.notes = *src.notes
		case "company_type_id":
			*dst.companyType = *src.companyType
		case "owner_id":
			*dst.owner = *src.owner
		default:
			prefix, part, ok := strings.Cut(f, ".")
			if !ok {
				continue
			}
			d, s := dst.billing, src.billing
			if prefix == "shipping_address" {
				d, s = dst.shipping, src.shipping
			}
			if *s == nil {
				continue
			}
			if *d == nil {
				*d = &Address{}
			}
			setAddressPart(*d, part, addressPart(*s, part))
		}
	}
}

func addressPart(a *Address, part string) string {
	switch part {
	case "flatNo":
		return a.FlatNo
	case "street":
		return a.Street
	case "city":
		return a.City
	case "state":
		return a.State
	case "zip":
		return a.Zip
	case "country":
		return a.Country
	}
	return ""
}

func setAddressPart(a *Address, part, v string) {
	switch part {
	case "flatNo":
		a.FlatNo = v
	case "street":
		a.Street = v
	case "city":
		a.City = v
	case "state":
		a.State = v
	case "zip":
		a.Zip = v
	case "country":
		a.Country = v
	}
}

func overlayLead(base LeadInput, it *ImportItem) LeadInput {
	next := base
	next.BillingAddress, next.ShippingAddress = copyAddress(base.BillingAddress), copyAddress(base.ShippingAddress)
	src := it.Lead
	overlay(leadFields(&next), leadFields(&src), it.Set)
	for f, p := range map[string]struct{ dst, src **int64 }{"lead_type_id": {&next.LeadTypeID, &src.LeadTypeID},
		"lead_source_id": {&next.LeadSourceID, &src.LeadSourceID}, "lead_status_id": {&next.LeadStatusID, &src.LeadStatusID},
		"lead_stage_id": {&next.LeadStageID, &src.LeadStageID}} {
		if it.Set[f] {
			*p.dst = *p.src
		}
	}
	return next
}

func overlayClient(base ClientInput, it *ImportItem) ClientInput {
	next := base
	next.BillingAddress, next.ShippingAddress = copyAddress(base.BillingAddress), copyAddress(base.ShippingAddress)
	src := it.Client
	overlay(clientFields(&next), clientFields(&src), it.Set)
	return next
}

// sameLeadInput compares two inputs as the store would save them (trimmed, email lowercased).
func sameLeadInput(a, b LeadInput) bool {
	a.BillingAddress, a.ShippingAddress = copyAddress(a.BillingAddress), copyAddress(a.ShippingAddress)
	b.BillingAddress, b.ShippingAddress = copyAddress(b.BillingAddress), copyAddress(b.ShippingAddress)
	a.validate()
	b.validate()
	return reflect.DeepEqual(a, b)
}

func sameClientInput(a, b ClientInput) bool {
	a.BillingAddress, a.ShippingAddress = copyAddress(a.BillingAddress), copyAddress(a.ShippingAddress)
	b.BillingAddress, b.ShippingAddress = copyAddress(b.BillingAddress), copyAddress(b.ShippingAddress)
	a.validate()
	b.validate()
	return reflect.DeepEqual(a, b)
}

// UndoImportBatch reverts up to limit of the changes of a claimed import that is being
// undone, latest row first, in one transaction: a record the import created is deleted, a
// record it updated gets its before-values back, each with the journey entries DeleteLead,
// DeleteClient and the edits record (the delete or update, and an "import_undo" entry
// naming the import). A record deleted since is passed over. It reports whether changes
// remain.
//
// The batch is worked out in memory, row by row as the edits would do it, then written set
// by set: the restored records with updateByID (only the columns that change), the
// created ones with one DELETE per batch, the journey entries with one INSERT.
//
// A batch takes the rows of a window of limit row numbers, the one below the rows undone
// already (found once per runner), so that each batch reads its own rows only, whatever
// the planner believes of an import too new for its statistics; a window may hold fewer
// changes than limit, or none.
func (s Scope) UndoImportBatch(ctx context.Context, im *Import, limit int) (bool, error) {
	limit = min(max(limit, 1), MaxBulk)
	more, below := false, 0
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.holdImport(ctx, im, ImportUndoing); err != nil {
			return err
		}
		changed := func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("ir.import_id = ? AND ir.outcome IN (?) AND NOT ir.undone", im.ID,
				bun.In([]string{OutcomeCreated, OutcomeUpdated}))
		}
		hi := im.undoBelow
		if hi == 0 {
			var top sql.NullInt64
			if err := changed(tx.Select((*importRow)(nil)).ColumnExpr("MAX(ir.row_no)")).Scan(ctx, &top); err != nil {
				return err
			}
			if !top.Valid {
				return nil // nothing left to undo
			}
			hi = int(top.Int64) + 1
		}
		lo := max(hi-limit, 0)
		more, below = lo > 0, lo
		var rows []importRow
		if err := changed(tx.Select(&rows)).Where("ir.row_no >= ? AND ir.row_no < ?", lo, hi).
			OrderExpr("ir.row_no DESC").Scan(ctx); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		u, err := tx.newBatchUndo(ctx, im, rows)
		if err != nil {
			return err
		}
		rowNos := make([]int, 0, len(rows))
		for _, r := range rows {
			rowNos = append(rowNos, r.RowNo)
			if r.EntityID == nil {
				continue
			}
			if err := u.row(ctx, r); err != nil {
				return err
			}
		}
		if err := u.write(ctx); err != nil {
			return err
		}
		if _, err := tx.Update((*importRow)(nil)).Set("undone = ?", true).
			Where("ir.import_id = ? AND ir.row_no >= ? AND ir.row_no < ? AND ir.row_no IN (?)", im.ID, lo, hi, bun.In(rowNos)).
			Exec(ctx); err != nil {
			return err
		}
		res, err := tx.Update((*Import)(nil)).Set("undone_count = undone_count + ?", len(rows)).
			Set("heartbeat_at = ?", s.now()).Set("updated_at = ?", s.now()).
			Where("id = ? AND claim = ? AND status = ?", im.ID, im.Claim, ImportUndoing).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrImportClaimLost
		}
		im.Undone += len(rows)
		return nil
	})
	if err == nil {
		im.undoBelow = below
	}
	return more, err
}

// batchUndo reverts the rows of one undo batch inside its transaction.
type batchUndo struct {
	tx   Scope
	im   *Import
	refs *refSet

	// The reachable records the batch's rows name, as the rows so far have left them, and,
	// for those restored, as they were before the batch, in the order first restored.
	leads        map[int64]*Lead
	clients      map[int64]*Client
	origLeads    map[int64]*Lead
	origClients  map[int64]*Client
	restoredIDs  []int64
	deletes      []importRow // created rows, latest first
	restores     []AuditEntry
	undoneRows   []AuditEntry // "import_undo" of each row reverted, latest first
	deleteRecord map[int64]bool
}

// newBatchUndo reads what the batch's rows check and change: the tenant's masters and users,
// and the records the rows name that the scope may reach.
func (s Scope) newBatchUndo(ctx context.Context, im *Import, rows []importRow) (*batchUndo, error) {
	refs, err := s.loadRefs(ctx)
	if err != nil {
		return nil, err
	}
	u := &batchUndo{tx: s, im: im, refs: refs, leads: map[int64]*Lead{}, clients: map[int64]*Client{},
		origLeads: map[int64]*Lead{}, origClients: map[int64]*Client{}, deleteRecord: map[int64]bool{}}
	var ids []int64
	seen := map[int64]bool{}
	for _, r := range rows {
		if r.EntityID != nil && !seen[*r.EntityID] {
			seen[*r.EntityID] = true
			ids = append(ids, *r.EntityID)
		}
	}
	if len(ids) == 0 {
		return u, nil
	}
	if im.Entity == EntityClient {
		var cs []Client
		if err := s.clients(&cs).Where("c.id BETWEEN ? AND ? AND c.id IN (?)", slices.Min(ids), slices.Max(ids), bun.In(ids)).Scan(ctx); err != nil {
			return nil, err
		}
		for i := range cs {
			u.clients[cs[i].ID] = &cs[i]
		}
		return u, nil
	}
	var ls []Lead
	if err := s.leads(&ls).Where("l.id BETWEEN ? AND ? AND l.id IN (?)", slices.Min(ids), slices.Max(ids), bun.In(ids)).Scan(ctx); err != nil {
		return nil, err
	}
	for i := range ls {
		u.leads[ls[i].ID] = &ls[i]
	}
	return u, nil
}

// reachable reports whether the scope may still reach a record as the batch has left it
// (Scope.leads and Scope.clients, in memory).
func (u *batchUndo) reachable(owner, creator *int64) bool {
	f := auth.FeatureLeads
	if u.im.Entity == EntityClient {
		f = auth.FeatureClients
	}
	me := u.tx.UserID
	return !u.tx.ownOnly(f) || owner != nil && *owner == me || creator != nil && *creator == me
}

// undone notes a row's "import_undo" journey entry.
func (u *batchUndo) undone(r importRow) error {
	after, err := jsonOrNil(map[string]any{"import_id": u.im.ID, "row": r.RowNo, "outcome": r.Outcome})
	if err != nil {
		return err
	}
	u.undoneRows = append(u.undoneRows, AuditEntry{ActorUserID: u.tx.actor(), Entity: u.im.Entity, EntityID: *r.EntityID,
		Action: "import_undo", After: after})
	return nil
}

// row reverts one row in memory: an update's record gets its before-values (as an edit of
// it would record them); a created record waits for the batch's delete, which comes after
// every restore, as a created record's updates come from later rows than its creation.
func (u *batchUndo) row(ctx context.Context, r importRow) error {
	id := *r.EntityID
	if r.Outcome == OutcomeCreated {
		u.deletes = append(u.deletes, r)
		return nil
	}
	if r.Before == nil {
		return nil
	}
	if u.im.Entity == EntityClient {
		var before Client
		if err := json.Unmarshal([]byte(*r.Before), &before); err != nil {
			return err
		}
		cur := u.clients[id]
		if cur == nil || !u.reachable(cur.OwnerID, cur.CreatedBy) {
			return nil // gone
		}
		next := *cur
		restoreCommon(clientRecordFields(&next), clientRecordFields(&before))
		next.CompanyTypeID, next.OwnerID = before.CompanyTypeID, before.OwnerID
		if next.CompanyTypeID != nil && !u.refs.masters[KindBusinessType][*next.CompanyTypeID] {
			next.CompanyTypeID = nil // a business type deleted since cannot come back
		}
		next.SearchText = clientSearchText(&next)
		next.UpdatedAt = time.Now().UTC()
		e := AuditEntry{ActorUserID: u.tx.actor(), Entity: EntityClient, EntityID: id, Action: "update"}
		var err error
		if e.Before, err = jsonOrNil(cur); err != nil {
			return err
		}
		if e.After, err = jsonOrNil(&next); err != nil {
			return err
		}
		u.restores = append(u.restores, e)
		if _, ok := u.origClients[id]; !ok {
			u.origClients[id] = cur
			u.restoredIDs = append(u.restoredIDs, id)
		}
		u.clients[id] = &next
		return u.undone(r)
	}
	var before Lead
	if err := json.Unmarshal([]byte(*r.Before), &before); err != nil {
		return err
	}
	cur := u.leads[id]
	if cur == nil || !u.reachable(cur.OwnerID, cur.CreatedBy) {
		return nil // gone
	}
	next := *cur
	restoreCommon(leadRecordFields(&next), leadRecordFields(&before))
	keep := func(p *int64) *int64 { // a master deleted since cannot come back
		if p != nil {
			if _, ok := u.refs.masterNames[*p]; !ok {
				return nil
			}
		}
		return p
	}
	next.CompanyTypeID, next.LeadTypeID = keep(before.CompanyTypeID), keep(before.LeadTypeID)
	next.LeadSourceID, next.LeadStatusID, next.LeadStageID = keep(before.LeadSourceID), keep(before.LeadStatusID), keep(before.LeadStageID)
	next.OwnerID = before.OwnerID
	next.SearchText = searchText(&next) // as saveLeadChange
	next.UpdatedAt = time.Now().UTC()
	changes, special, err := leadDiff(cur, &next, func(id *int64, user bool) (string, error) {
		return u.tx.name(ctx, u.refs, id, user)
	})
	if err != nil {
		return err
	}
	if len(changes) > 0 { // saveLeadChange writes and records nothing otherwise
		entries, err := leadChangeEntries(u.tx.actor(), id, changes, special)
		if err != nil {
			return err
		}
		u.restores = append(u.restores, entries...)
		if _, ok := u.origLeads[id]; !ok {
			u.origLeads[id] = cur
			u.restoredIDs = append(u.restoredIDs, id)
		}
		u.leads[id] = &next
	}
	return u.undone(r)
}

// write deletes the batch's created records the scope may still reach (as DeleteLead and
// DeleteClient do: documents with them, a client converted from a lead unlinked), writes
// the restored ones that remain, and inserts the journey entries: the restores', the
// deletes', then each reverted row's "import_undo".
func (u *batchUndo) write(ctx context.Context) error {
	tx := u.tx
	var deleted []int64
	var deletes []AuditEntry
	for _, r := range u.deletes {
		id := *r.EntityID
		var rec any
		if u.im.Entity == EntityClient {
			c := u.clients[id]
			if c == nil || u.deleteRecord[id] || !u.reachable(c.OwnerID, c.CreatedBy) {
				continue // gone
			}
			rec = c
		} else {
			l := u.leads[id]
			if l == nil || u.deleteRecord[id] || !u.reachable(l.OwnerID, l.CreatedBy) {
				continue
			}
			rec = l
		}
		before, err := jsonOrNil(rec)
		if err != nil {
			return err
		}
		u.deleteRecord[id] = true
		deleted = append(deleted, id)
		deletes = append(deletes, AuditEntry{ActorUserID: tx.actor(), Entity: u.im.Entity, EntityID: id, Action: "delete", Before: before})
		if err := u.undone(r); err != nil {
			return err
		}
	}
	var recs []changedColumns
	for _, id := range u.restoredIDs {
		if u.deleteRecord[id] {
			continue // restored, then deleted: only the delete is written
		}
		if u.im.Entity == EntityClient {
			recs = append(recs, changedColumns{id, clientColumns(u.origClients[id], u.clients[id])})
		} else {
			recs = append(recs, changedColumns{id, leadColumns(u.origLeads[id], u.leads[id])})
		}
	}
	if err := tx.updateByID(ctx, u.im.Entity, recs); err != nil {
		return err
	}
	if len(deleted) > 0 {
		slices.Sort(deleted)
		if u.im.Entity == EntityClient {
			if _, err := tx.Delete((*Client)(nil)).Where("id BETWEEN ? AND ? AND id IN (?)", deleted[0], deleted[len(deleted)-1],
				bun.In(deleted)).Exec(ctx); err != nil {
				return err
			}
		} else {
			if _, err := tx.Update((*Client)(nil)).Set("lead_id = NULL").Where("lead_id IN (?)", bun.In(deleted)).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.Delete((*Document)(nil)).Where("entity = ? AND entity_id IN (?)", u.im.Entity, bun.In(deleted)).Exec(ctx); err != nil {
			return err
		}
		if u.im.Entity == EntityLead {
			if _, err := tx.Delete((*Lead)(nil)).Where("id BETWEEN ? AND ? AND id IN (?)", deleted[0], deleted[len(deleted)-1],
				bun.In(deleted)).Exec(ctx); err != nil {
				return err
			}
		}
	}
	entries := slices.Concat(u.restores, deletes, u.undoneRows)
	if len(entries) > 0 {
		if _, err := tx.Insert(&entries).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

type recordFields struct {
	title, name, company, email, dial, phone, notes *string
	billing, shipping                               **Address
}

func leadRecordFields(l *Lead) recordFields {
	return recordFields{&l.CustomerTitle, &l.CustomerName, &l.CompanyName, &l.CompanyEmail, &l.CompanyDialCode,
		&l.CompanyPhoneNumber, &l.Notes, &l.BillingAddress, &l.ShippingAddress}
}

func clientRecordFields(c *Client) recordFields {
	return recordFields{&c.CustomerTitle, &c.CustomerName, &c.CompanyName, &c.CompanyEmail, &c.CompanyDialCode,
		&c.CompanyPhoneNumber, &c.Notes, &c.BillingAddress, &c.ShippingAddress}
}

func restoreCommon(dst, src recordFields) {
	*dst.title, *dst.name, *dst.company = *src.title, *src.name, *src.company
	*dst.email, *dst.dial, *dst.phone, *dst.notes = *src.email, *src.dial, *src.phone, *src.notes
	*dst.billing, *dst.shipping = copyAddress(*src.billing), copyAddress(*src.shipping)
}

// jsonText is a value as the JSON text a column keeps.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
