package store

import (
	"cmp"
	"context"
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
// rules that change data: a batch of rows applied in one transaction through CreateLead,
// UpdateLead, CreateClient and UpdateClient (the form's rules, not a second set), with
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
// UpdateLead and UpdateClient for a row that updates), with its journey entry; each row's
// outcome recorded; the import's counts and position moved to nextRow. Rows are applied
// in file order, so a row sees what earlier rows (of this batch or an earlier one) did.
//
// New records are inserted together, one statement per batch (and one for their journey
// entries), which is what lets 100,000 rows import in well under a minute; a row that
// matches a record still waiting in the batch has the batch's creates written first.
func (s Scope) ApplyImportBatch(ctx context.Context, im *Import, items []ImportItem, nextRow int) (BatchCounts, error) {
	var counts BatchCounts
	err := s.Tx(ctx, func(tx Scope) error {
		counts = BatchCounts{}
		if err := tx.holdImport(ctx, im, ImportRunning); err != nil {
			return err
		}
		a := &batchApplier{tx: tx, im: im, match: map[string][]int64{}, leads: map[int64]*Lead{}, clients: map[int64]*Client{},
			pendingKeys: map[string]bool{}, rows: make([]importRow, 0, len(items))}
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

// prepare reads what the batch's creates check against, unless the import only updates.
func (a *batchApplier) prepare(ctx context.Context) error {
	if a.im.Mode == ModeUpdate {
		return nil
	}
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

// refSet is what the create rules check a new record against: the tenant's masters (and
// each kind's default), and its users.
type refSet struct {
	masters  map[MasterKind]map[int64]bool
	defaults map[MasterKind]*int64
	users    map[int64]bool
}

// loadRefs reads the tenant's masters and users once, for a batch of creates.
func (s Scope) loadRefs(ctx context.Context) (*refSet, error) {
	var ms []Master
	if err := s.Select(&ms).OrderExpr("m.kind, m.is_default DESC, m.sort_order, m.id").Scan(ctx); err != nil {
		return nil, err
	}
	r := &refSet{masters: map[MasterKind]map[int64]bool{}, defaults: map[MasterKind]*int64{}, users: map[int64]bool{}}
	for _, m := range ms {
		if r.masters[m.Kind] == nil {
			r.masters[m.Kind] = map[int64]bool{}
			id := m.ID // the first in defaultMaster's order
			r.defaults[m.Kind] = &id
		}
		r.masters[m.Kind][m.ID] = true
	}
	var users []User
	if err := s.Select(&users).Column("id").Scan(ctx); err != nil {
		return nil, err
	}
	for _, u := range users {
		r.users[u.ID] = true
	}
	return r, nil
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
		before, err := json.Marshal(old)
		if err != nil {
			return row, err
		}
		c, err := a.tx.UpdateClient(ctx, id, next)
		if errors.Is(err, ErrNotFound) {
			row.Outcome, row.Reason, row.EntityID = OutcomeSkipped, &RowReason{Code: ReasonNotFound}, nil
			return row, nil
		}
		if err != nil {
			return refused(row, err)
		}
		cl := c.Client
		a.clients[id] = &cl
		b := string(before)
		row.Outcome, row.Before = OutcomeUpdated, &b
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
	v, err := a.tx.UpdateLead(ctx, id, next)
	if errors.Is(err, ErrNotFound) {
		row.Outcome, row.Reason, row.EntityID = OutcomeSkipped, &RowReason{Code: ReasonNotFound}, nil
		return row, nil
	}
	if err != nil {
		return refused(row, err)
	}
	if v.UpdatedAt.Equal(old.UpdatedAt) { // nothing to write after all (the same master by another spelling)
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonUnchanged, ID: id}
		return row, nil
	}
	l := v.Lead
	a.leads[id] = &l
	b := string(before)
	row.Outcome, row.Before = OutcomeUpdated, &b
	return row, nil
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
// record it updated gets its before-values back, each with its journey entries (the
// delete or update, and an "import_undo" entry naming the import). A record deleted since
// is passed over. It reports whether changes remain.
func (s Scope) UndoImportBatch(ctx context.Context, im *Import, limit int) (bool, error) {
	limit = min(max(limit, 1), MaxBulk)
	more := false
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.holdImport(ctx, im, ImportUndoing); err != nil {
			return err
		}
		var rows []importRow
		if err := tx.Select(&rows).Where("ir.import_id = ? AND ir.outcome IN (?) AND NOT ir.undone", im.ID,
			bun.In([]string{OutcomeCreated, OutcomeUpdated})).OrderExpr("ir.row_no DESC").Limit(int64(limit)).Scan(ctx); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		more = len(rows) == limit
		masters := map[int64]bool{}
		if im.Entity == EntityLead {
			var ms []Master
			if err := tx.Select(&ms).Column("id").Scan(ctx); err != nil {
				return err
			}
			for _, m := range ms {
				masters[m.ID] = true
			}
		}
		// Rows go latest first: updates are restored one by one; the leads the batch's rows
		// created are then deleted together through DeleteLeads (a record created by an
		// earlier row than one that updated it is always deleted after that restore).
		rowNos := make([]int, 0, len(rows))
		var entries []AuditEntry
		undone := func(r importRow) {
			after, _ := jsonOrNil(map[string]any{"import_id": im.ID, "row": r.RowNo, "outcome": r.Outcome})
			entries = append(entries, AuditEntry{ActorUserID: tx.actor(), Entity: im.Entity, EntityID: *r.EntityID,
				Action: "import_undo", After: after})
		}
		var createdLeads []int64
		createdRow := map[int64]importRow{}
		for _, r := range rows {
			rowNos = append(rowNos, r.RowNo)
			if r.EntityID == nil {
				continue
			}
			if r.Outcome == OutcomeCreated && im.Entity == EntityLead {
				createdLeads = append(createdLeads, *r.EntityID)
				createdRow[*r.EntityID] = r
				continue
			}
			done, err := tx.undoRow(ctx, im, r, masters)
			if err != nil {
				return err
			}
			if done {
				undone(r)
			}
		}
		if len(createdLeads) > 0 {
			deleted, err := tx.DeleteLeads(ctx, createdLeads)
			if err != nil && !errors.Is(err, ErrNotFound) { // ErrNotFound: every one was gone already
				return err
			}
			for _, id := range deleted {
				undone(createdRow[id])
			}
		}
		if len(entries) > 0 {
			if _, err := tx.Insert(&entries).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.Update((*importRow)(nil)).Set("undone = ?", true).
			Where("ir.import_id = ? AND ir.row_no IN (?)", im.ID, bun.In(rowNos)).Exec(ctx); err != nil {
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
	return more, err
}

// undoRow reverts one row's change; false when the record is gone already.
func (s Scope) undoRow(ctx context.Context, im *Import, r importRow, masters map[int64]bool) (bool, error) {
	id := *r.EntityID
	gone := func(err error) (bool, error) {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	if r.Outcome == OutcomeCreated {
		if im.Entity == EntityClient {
			return gone(s.DeleteClient(ctx, id))
		}
		return gone(s.DeleteLead(ctx, id))
	}
	if r.Before == nil {
		return false, nil
	}
	if im.Entity == EntityClient {
		var before Client
		if err := json.Unmarshal([]byte(*r.Before), &before); err != nil {
			return false, err
		}
		cur := &Client{}
		if err := s.clients(cur).Where("c.id = ?", id).Scan(ctx); err != nil {
			return gone(notFound(err))
		}
		next := *cur
		restoreCommon(clientRecordFields(&next), clientRecordFields(&before))
		next.CompanyTypeID, next.OwnerID = before.CompanyTypeID, before.OwnerID
		if next.CompanyTypeID != nil {
			if _, err := s.Master(ctx, KindBusinessType, *next.CompanyTypeID); errors.Is(err, ErrNotFound) {
				next.CompanyTypeID = nil
			} else if err != nil {
				return false, err
			}
		}
		next.SearchText = clientSearchText(&next)
		next.UpdatedAt = time.Now().UTC()
		if _, err := s.Update(&next).WherePK().Exec(ctx); err != nil {
			return false, err
		}
		return true, s.Record(ctx, "client", id, "update", cur, &next)
	}
	var before Lead
	if err := json.Unmarshal([]byte(*r.Before), &before); err != nil {
		return false, err
	}
	cur, err := s.leadForUpdate(ctx, id)
	if err != nil {
		return gone(err)
	}
	next := *cur
	restoreCommon(leadRecordFields(&next), leadRecordFields(&before))
	keep := func(p *int64) *int64 { // a master deleted since cannot come back
		if p != nil && !masters[*p] {
			return nil
		}
		return p
	}
	next.CompanyTypeID, next.LeadTypeID = keep(before.CompanyTypeID), keep(before.LeadTypeID)
	next.LeadSourceID, next.LeadStatusID, next.LeadStageID = keep(before.LeadSourceID), keep(before.LeadStatusID), keep(before.LeadStageID)
	next.OwnerID = before.OwnerID
	return true, s.saveLeadChange(ctx, cur, &next, nil)
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
