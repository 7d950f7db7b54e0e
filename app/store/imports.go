package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// CSV imports of leads and clients. The import machinery (reading the file, mapping its
// columns, running in the background) lives in app/importer; here are its records and the
// rules that change data, a file a job:
//   - imports.go: the import and its rows, upload, queue, claim and finish;
//   - imports_apply.go: a batch of rows applied in one transaction by the rules of
//     CreateLead, UpdateLead, CreateClient and UpdateClient (the same rule functions,
//     checked against the batch's masters and users instead of a query per row), with what
//     each row did recorded beside it, new records inserted set by set;
//   - imports_update.go: the batch's updated records written set by set;
//   - imports_undo.go: the undo of a whole import, batch by batch;
//   - imports_entities.go: what the machinery asks of an importable entity (its adapter),
//     with the adapters of leads (imports_leads.go) and clients (imports_clients.go);
//   - imports_tx.go: a batch's transaction, set for bulk writes on each engine;
//   - imports_timing.go: time per kind of statement, for measurements of imports.

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

	ID        int64      `bun:"id,pk,autoincrement" json:"id"`
	UserID    int64      `bun:"user_id,notnull" json:"user_id"`
	Entity    string     `bun:"entity,notnull" json:"entity"`
	FileName  string     `bun:"file_name,notnull" json:"file_name"`
	FileSize  int64      `bun:"file_size,notnull" json:"file_size"`
	Delimiter string     `bun:"delimiter,notnull" json:"delimiter"`
	Encoding  string     `bun:"encoding,notnull" json:"encoding"`
	Header    []string   `bun:"header,notnull" json:"header"`
	Preview   [][]string `bun:"preview,notnull" json:"preview"`
	TotalRows int        `bun:"total_rows,notnull" json:"total_rows"`
	Mapping   []string   `bun:"mapping,notnull" json:"mapping"`
	Mode      string     `bun:"mode,notnull" json:"mode"`
	MatchKey  string     `bun:"match_key,notnull" json:"match_key"`
	Status    string     `bun:"status,notnull" json:"status"`
	// NextRow is where the import resumes: every row before it is done (and some after it,
	// a window being done in its records' order, not the file's; see ImportedRows).
	NextRow     int        `bun:"next_row,notnull" json:"-"`
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

// MayImport reports whether the scope's user may import records of entity in mode: import
// on the entity's feature, and update too unless the import only creates; or, with undo,
// undo such an import (import and delete). The records an import matches and changes are
// those its import scope reaches (importer.Runner runs it For(auth.Import)).
func (s Scope) MayImport(entity, mode string, undo bool) bool {
	if s.system {
		return true
	}
	e := EntityNamed(entity)
	switch {
	case e == nil:
		return false
	case undo:
		return s.perms.Allows(e.Feature, auth.Import) && s.perms.Allows(e.Feature, auth.Delete)
	}
	return s.perms.Allows(e.Feature, auth.Import) && (mode == ModeCreate || s.perms.Allows(e.Feature, auth.Update))
}

// CreateImport keeps an uploaded file as an import of the scope's user, waiting for its
// mapping; a user who may not create records of its entity is refused (ErrForbidden).
func (s Scope) CreateImport(ctx context.Context, n NewImport) (*Import, error) {
	if _, ok := importKinds[n.Entity]; !ok {
		return nil, validate.Errors{"entity": validate.KeyInvalid}
	}
	if !s.MayImport(n.Entity, ModeCreate, false) {
		return nil, ErrForbidden
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
	if err := s.Select(f).Where("imf.import_id = ?", id).Scan(withBinaryResults(ctx)); err != nil {
		return nil, notFound(err)
	}
	return f.Content, nil
}

// QueueImport sets an uploaded import's mapping, mode and match key and queues it for a
// runner. The caller has checked the mapping against the file; an import past its upload
// is a conflict, and one the user may not run in that mode is refused (ErrForbidden).
func (s Scope) QueueImport(ctx context.Context, id int64, mapping []string, mode, matchKey string) (*Import, error) {
	im, err := s.Import(ctx, id)
	if err != nil {
		return nil, err
	}
	if im.Status != ImportUploaded {
		return nil, ErrConflict
	}
	if !s.MayImport(im.Entity, mode, false) {
		return nil, ErrForbidden
	}
	err = s.Tx(ctx, func(tx Scope) error {
		res, err := tx.Update((*Import)(nil)).Set("mapping = ?", jsonText(mapping)).Set("mode = ?", mode).
			Set("match_key = ?", matchKey).Set("status = ?", ImportQueued).Set("updated_at = ?", s.now()).
			Where("id = ? AND status = ?", id, ImportUploaded).Exec(ctx)
		if err := oneRow(res, err, ErrConflict); err != nil {
			return err
		}
		return tx.Record(ctx, "import", id, "run", nil, map[string]any{"mode": mode, "match_key": matchKey, "mapping": mapping})
	})
	if err != nil {
		return nil, err
	}
	return s.Import(ctx, id)
}

// QueueUndo asks for a finished import to be undone as a whole; a user who may not delete
// records of its entity is refused (ErrForbidden).
func (s Scope) QueueUndo(ctx context.Context, id int64) (*Import, error) {
	im, err := s.Import(ctx, id)
	if err != nil {
		return nil, err
	}
	if !s.MayImport(im.Entity, im.Mode, true) {
		return nil, ErrForbidden
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
		if err := oneRow(res, err, ErrConflict); err != nil {
			return err
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
// On PostgreSQL it looks one tenant at a time, as the reminder sweep does (row-level security).
func (db *DB) ImportsToRun(ctx context.Context, staleBefore time.Time, limit int) ([]ImportRef, error) {
	find := func(idb bun.IDB, limit int, out *[]ImportRef) error {
		return idb.NewSelect().Table("imports").Column("tenant_id", "id").
			Where("status IN (?) OR (status IN (?) AND (heartbeat_at IS NULL OR heartbeat_at < ?))",
				bun.In([]string{ImportQueued, ImportUndoQueued}), bun.In([]string{ImportRunning, ImportUndoing}),
				timeBound(db.Dialect, staleBefore)).
			OrderExpr("id").Limit(int64(limit)).Scan(ctx, out)
	}
	var out []ImportRef
	if db.Dialect != Postgres {
		err := find(db.bun, limit, &out)
		return out, err
	}
	tenants, err := db.tenantIDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range tenants {
		if len(out) >= limit {
			break
		}
		var refs []ImportRef
		if err := find(db.System(id, 0).idb, limit-len(out), &refs); err != nil {
			return out, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// ClaimImport makes claim the runner of a queued (or stale) import and moves it to running
// or undoing. It returns nil when another runner has it.
func (db *DB) ClaimImport(ctx context.Context, ref ImportRef, claim string, staleBefore time.Time) (*Import, error) {
	s := db.System(ref.TenantID, 0)
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
		if err := oneRow(res, err, ErrImportClaimLost); err != nil {
			return err
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
	return oneRow(res, err, ErrImportClaimLost)
}

// oneRow is the outcome of a statement that changes one row of an import, or none when
// it is no longer in the state the statement expects: the statement's error, else none's
// when no row changed (ErrConflict for a user's request, ErrImportClaimLost for a runner).
func oneRow(res sql.Result, err, none error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return none
	}
	return nil
}

// jsonText is a value as the JSON text a column keeps.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
