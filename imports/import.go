package imports

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports/parse"
	"tally/internal/db"
	"tally/models"
)

// Import statuses.
const (
	StatusPending      = "pending"
	StatusImporting    = "importing"
	StatusComplete     = "complete"
	StatusFailed       = "failed"
	StatusReverting    = "reverting"
	StatusRevertFailed = "revert_failed"
)

// Statuses lists every status.
var Statuses = []string{StatusPending, StatusImporting, StatusComplete, StatusFailed, StatusReverting, StatusRevertFailed}

// Signage conventions and amount strategies.
const (
	InflowsPositive = "inflows_positive"
	InflowsNegative = "inflows_negative"
	SignedAmount    = "signed_amount"
	CustomColumn    = "custom_column"
)

// Import is an uploaded file and what became of it.
type Import struct {
	bun.BaseModel `bun:"table:imports,alias:i"`

	ID        uuid.UUID  `bun:"id,pk,type:uuid"`
	FamilyID  uuid.UUID  `bun:"family_id,type:uuid"`
	UserID    *uuid.UUID `bun:"user_id,type:uuid"`
	Type      Type       `bun:"type"`
	Status    string     `bun:"status"`
	AccountID *uuid.UUID `bun:"account_id,type:uuid"`
	Error     *string    `bun:"error"`

	Config

	Content     []byte  `bun:"content"`
	Filename    *string `bun:"filename"`
	ContentType *string `bun:"content_type"`
	Encoding    *string `bun:"encoding"`
	ByteSize    int     `bun:"byte_size"`

	RowsCount          int `bun:"rows_count"`
	ValidRowsCount     int `bun:"valid_rows_count"`
	DuplicateRowsCount int `bun:"duplicate_rows_count"`
	// LikelyDuplicateRowsCount counts the duplicate rows a publish skipped as likely ones;
	// KeepLikelyDuplicates has the publish keep them all.
	LikelyDuplicateRowsCount int    `bun:"likely_duplicate_rows_count"`
	KeepLikelyDuplicates     bool   `bun:"keep_likely_duplicates"`
	JobID                    *int64 `bun:"job_id"`

	// NativeImport: the file's record counts, the readback after publish, what publish did,
	// and the preflight's findings.
	ExpectedRecordCounts map[string]int `bun:"expected_record_counts,type:jsonb"`
	Readback             *Readback      `bun:"readback,type:jsonb"`
	Summary              Summary        `bun:"summary,type:jsonb"`
	Problems             []Finding      `bun:"problems,type:jsonb"`
	Warnings             []Finding      `bun:"warnings,type:jsonb"`
	// ActualImport, YnabImport: what the dry run found.
	MoveIn *MoveIn `bun:"move_in,type:jsonb"`
	// Import sessions: the file arrives in numbered chunks.
	Session         bool    `bun:"session"`
	ClientSessionID *string `bun:"client_session_id"`
	ExpectedChunks  *int    `bun:"expected_chunks"`
	// PdfImport: what the statement says about itself.
	Statement *StatementInfo `bun:"statement,type:jsonb"`
	// OfxImport, CamtImport, Mt940Import: the file's statements and, after publish, how its
	// rows met the family's entries.
	Statements *StatementFile `bun:"statements,type:jsonb"`
	// Headers are a CSV file's headers, and UnmappedColumns those the import reads for
	// nothing, so that no column is left out without a word.
	Headers         []string `bun:"headers,array,nullzero"`
	UnmappedColumns []string `bun:"unmapped_columns,array,nullzero"`
	// SkippedRows counts the rows the file's preset says are not transactions (a balance
	// line, a reverted payment); they are not rows of the import.
	SkippedRows int `bun:"skipped_rows"`

	StatusChangedAt time.Time `bun:"status_changed_at,nullzero,default:now()"`
	CreatedAt       time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt       time.Time `bun:"updated_at,nullzero,default:now()"`
}

// Config is how to read the file. Labels and formats are nil when the caller did not send them.
type Config struct {
	DateColLabel                 *string `bun:"date_col_label"`
	AmountColLabel               *string `bun:"amount_col_label"`
	NameColLabel                 *string `bun:"name_col_label"`
	CategoryColLabel             *string `bun:"category_col_label"`
	TagsColLabel                 *string `bun:"tags_col_label"`
	NotesColLabel                *string `bun:"notes_col_label"`
	AccountColLabel              *string `bun:"account_col_label"`
	EntityTypeColLabel           *string `bun:"entity_type_col_label"`
	CurrencyColLabel             *string `bun:"currency_col_label"`
	QtyColLabel                  *string `bun:"qty_col_label"`
	TickerColLabel               *string `bun:"ticker_col_label"`
	PriceColLabel                *string `bun:"price_col_label"`
	ExchangeOperatingMICColLabel *string `bun:"exchange_operating_mic_col_label"`
	DebitColLabel                *string `bun:"debit_col_label"`
	CreditColLabel               *string `bun:"credit_col_label"`
	FeeColLabel                  *string `bun:"fee_col_label"`
	BalanceColLabel              *string `bun:"balance_col_label"`
	DateFormat                   *string `bun:"date_format"`
	NumberFormat                 string  `bun:"number_format"`
	SignageConvention            string  `bun:"signage_convention"`
	ColSep                       string  `bun:"col_sep"`
	QuoteChar                    string  `bun:"quote_char"`
	AmountTypeStrategy           string  `bun:"amount_type_strategy"`
	AmountTypeInflowValue        *string `bun:"amount_type_inflow_value"`
	RowsToSkip                   int     `bun:"rows_to_skip"`
	// Guessed names the fields above that Tally read off the file because the request did
	// not set them ("name_col_label", "col_sep", "date_format", ...).
	Guessed []string `bun:"guessed,array,nullzero"`
	// DateChoices are the date formats the file's dates fit, when they read as different
	// dates in each and the request named none: the file leaves the choice to a person.
	DateChoices []string `bun:"date_choices,array,nullzero"`
	// Preset is the bank export the file was read as (a BankPreset's ID), "" for none.
	Preset string `bun:"preset,nullzero"`
	// ProfileID is the saved profile the file was read with, if any.
	ProfileID *uuid.UUID `bun:"profile_id"`
}

// defaultConfig is the configuration of a file read with none: the formats a request that
// sends nothing gets, and no labels.
func defaultConfig() Config {
	return Config{NumberFormat: string(parse.NumberUS), SignageConvention: InflowsPositive, ColSep: ",", QuoteChar: `"`,
		AmountTypeStrategy: SignedAmount}
}

// labelField is the field holding logical column col's label.
func (c *Config) labelField(col int) **string {
	return [numCols]**string{
		ColAccount: &c.AccountColLabel, ColDate: &c.DateColLabel, ColQty: &c.QtyColLabel, ColTicker: &c.TickerColLabel,
		ColMIC: &c.ExchangeOperatingMICColLabel, ColPrice: &c.PriceColLabel, ColAmount: &c.AmountColLabel,
		ColCurrency: &c.CurrencyColLabel, ColName: &c.NameColLabel, ColCategory: &c.CategoryColLabel,
		ColTags: &c.TagsColLabel, ColEntityType: &c.EntityTypeColLabel, ColNotes: &c.NotesColLabel,
		ColDebit: &c.DebitColLabel, ColCredit: &c.CreditColLabel, ColFee: &c.FeeColLabel,
		ColBalance: &c.BalanceColLabel,
	}[col]
}

// label returns the configured header label of logical column col, or nil.
func (c *Config) label(col int) *string { return *c.labelField(col) }

// setLabel sets logical column col's label.
func (c *Config) setLabel(col int, v *string) { *c.labelField(col) = v }

// dateFormat is the configured date pattern, or the default.
func (c *Config) dateFormat() string {
	if c.DateFormat != nil && *c.DateFormat != "" {
		return *c.DateFormat
	}
	return DefaultDateFormat
}

// DefaultDateFormat is used when no date_format is sent.
const DefaultDateFormat = "%m/%d/%Y"

// StatusDetail says where an import stands.
type StatusDetail struct {
	Uploaded, Configured, Terminal, Cleaned, Publishable, Revertable bool
}

// Stats counts an import's rows and mappings.
type Stats struct {
	RowsCount, ValidRowsCount, InvalidRowsCount, MappingsCount, UnassignedMappingsCount, DuplicateRowsCount int
	SkippedRowsCount                                                                                        int
	// PendingDuplicateRowsCount counts the valid rows of a pending import already in their
	// account (AlreadyThere); Describe leaves it 0.
	PendingDuplicateRowsCount int
	// LikelyDuplicateRowsCount counts, of DuplicateRowsCount, the likely duplicates.
	LikelyDuplicateRowsCount int
	// PendingLikelyDuplicateRowsCount counts, of PendingDuplicateRowsCount, the likely
	// duplicates; Describe leaves it 0.
	PendingLikelyDuplicateRowsCount int
}

// Detail is an import with what is derived from its rows and mappings.
type Detail struct {
	*Import
	StatusDetail StatusDetail
	Stats        Stats
	// Problems says why an import that is not publishable cannot be published.
	Problems []string
	// Progress is set while a publish or revert runs.
	Progress *Progress
}

// Terminal reports whether the import's status is final until someone acts.
func (i *Import) Terminal() bool {
	return i.Status == StatusComplete || i.Status == StatusFailed || i.Status == StatusRevertFailed
}

// Revertable reports whether the import's data can be reverted.
func (i *Import) Revertable() bool {
	return i.Status == StatusComplete || i.Status == StatusRevertFailed
}

// Unpublished reports whether the import's rows are waiting to be published: it is pending,
// or its publish failed.
func (i *Import) Unpublished() bool { return i.Status == StatusPending || i.Status == StatusFailed }

// Running reports whether a publish or revert is under way.
func (i *Import) Running() bool { return i.Status == StatusImporting || i.Status == StatusReverting }

// Get returns the family's import with id, without its file; another family's is not found.
func Get(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) (*Import, error) {
	im := new(Import)
	err := idb.NewSelect().Model(im).ExcludeColumn("content").Where("id = ? AND family_id = ?", id, familyID).Scan(ctx)
	if db.IsNoRows(err) {
		return nil, importNotFound()
	}
	return im, err
}

// Content returns the uploaded file of the family's import, byte for byte. Get leaves it out:
// it can be 10 MB, and pages and jobs rarely need it.
func Content(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) ([]byte, error) {
	var content []byte
	err := idb.NewRaw("SELECT content FROM imports WHERE id = ? AND family_id = ?", id, familyID).Scan(ctx, &content)
	if db.IsNoRows(err) {
		return nil, importNotFound()
	}
	return content, err
}

// lockForUpdate loads the import with a row lock, so that status changes are serialised. The
// lock is NO KEY UPDATE: progress rows that reference the import can still be written while a
// job holds it.
func lockForUpdate(ctx context.Context, idb bun.IDB, id uuid.UUID) (*Import, error) {
	im := new(Import)
	err := idb.NewSelect().Model(im).ExcludeColumn("content").Where("id = ?", id).For("NO KEY UPDATE").Scan(ctx)
	if db.IsNoRows(err) {
		return nil, importNotFound()
	}
	return im, err
}

// Progress is how far a running publish or revert is.
type Progress struct {
	Done  int `bun:"done"`
	Total int `bun:"total"`
}

// Describe loads the import's derived state: its status detail, stats, problems and, while it
// runs, its progress.
func Describe(ctx context.Context, idb bun.IDB, im *Import) (*Detail, error) {
	var counts struct {
		Mappings   int `bun:"mappings"`
		Unassigned int `bun:"unassigned"`
		Blocking   int `bun:"blocking"`
	}
	err := idb.NewRaw(`
		SELECT count(*) AS mappings,
			count(*) FILTER (WHERE target_id IS NULL AND NOT create_when_empty AND (kind <> 'account_type' OR value IS NULL)) AS unassigned,
			count(*) FILTER (WHERE (kind = 'account' AND target_id IS NULL AND NOT create_when_empty AND ?::uuid IS NULL)
				OR (kind = 'account_type' AND value IS NULL)) AS blocking
		FROM import_mappings WHERE import_id = ?`, im.AccountID, im.ID).Scan(ctx, &counts)
	if err != nil {
		return nil, err
	}
	d := &Detail{Import: im}
	if im.Running() {
		var p Progress
		err := idb.NewRaw("SELECT done, total FROM import_progress WHERE import_id = ?", im.ID).Scan(ctx, &p)
		if err != nil && !db.IsNoRows(err) {
			return nil, err
		}
		d.Progress = &p
	}
	d.Stats = Stats{
		RowsCount: im.RowsCount, ValidRowsCount: im.ValidRowsCount, InvalidRowsCount: im.RowsCount - im.ValidRowsCount,
		MappingsCount: counts.Mappings, UnassignedMappingsCount: counts.Unassigned, DuplicateRowsCount: im.DuplicateRowsCount,
		SkippedRowsCount: im.SkippedRows, LikelyDuplicateRowsCount: im.LikelyDuplicateRowsCount,
	}
	st := &d.StatusDetail
	st.Uploaded = im.ByteSize > 0
	st.Configured = st.Uploaded && im.RowsCount > 0
	st.Terminal = im.Terminal()
	st.Cleaned = st.Configured && d.Stats.InvalidRowsCount == 0
	st.Revertable = im.Revertable()
	switch {
	case !st.Uploaded:
		d.Problems = append(d.Problems, "No file was uploaded.")
	case !st.Configured:
		d.Problems = append(d.Problems, "The file has no data rows.")
	case !st.Cleaned:
		d.Problems = append(d.Problems, plural(d.Stats.InvalidRowsCount, "row has problems", "rows have problems")+": see the rows for each one.")
	}
	if counts.Blocking > 0 {
		d.Problems = append(d.Problems, plural(counts.Blocking, "name in the file is", "names in the file are")+" not mapped to an account or account type.")
	}
	if im.Type == QifImport && im.AccountID == nil {
		d.Problems = append(d.Problems, "A QIF import needs an account: send account_id.")
	}
	if im.Type == PdfImport && im.AccountID == nil {
		d.Problems = append(d.Problems, "A PDF statement import needs an account: send account_id.")
	}
	if why := statementProblem(im.Statement); why != "" {
		d.Problems = append(d.Problems, why)
	}
	st.Publishable = len(d.Problems) == 0
	if im.Type.Native() {
		nativeDetail(d)
	}
	return d, nil
}

// ListFilter selects a page of a family's imports, of those Viewer may see.
type ListFilter struct {
	Viewer  models.Viewer
	Status  string
	Type    string
	Page    int
	PerPage int
}

// List returns one page of the family's imports, newest first, and how many match in all.
func List(ctx context.Context, idb bun.IDB, f ListFilter) ([]Import, int, error) {
	var list []Import
	q := visibleImports(idb.NewSelect().Model(&list), f.Viewer).
		ExcludeColumn("content").
		Where("family_id = ?", f.Viewer.FamilyID).
		OrderExpr("created_at DESC, id DESC").
		Limit(int64(f.PerPage)).Offset(int64((f.Page - 1) * f.PerPage))
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Type != "" {
		q = q.Where("type = ?", f.Type)
	}
	n, err := q.ScanAndCount(ctx)
	return list, int(n), err
}
