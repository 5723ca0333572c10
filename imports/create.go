package imports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tally/imports/parse"
	"tally/imports/sniff"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// Upload is the file of a request: a multipart file or raw_file_content.
type Upload struct {
	Content     []byte
	Filename    string
	ContentType string
	// FromFile is true for a multipart file, false for raw_file_content.
	FromFile bool
	// Present is false when the request carried neither.
	Present bool
}

// Request asks for an import to be created (or checked, for a preflight). Pointers are nil
// when the caller did not send the field.
type Request struct {
	FamilyID uuid.UUID
	UserID   uuid.UUID
	// Viewer is whose request it is: an account kept from them is none of the family's
	// (models.Viewer). The zero Viewer, for work of the family's own, sees every account.
	Viewer    models.Viewer
	Type      string
	AccountID *string
	Publish   bool
	// KeepLikelyDuplicates has the publish keep the likely duplicates rather than skip them.
	KeepLikelyDuplicates bool

	// Labels are the "<column>_col_label" parameters by column key ("date", "amount", ...).
	Labels                map[string]*string
	DateFormat            *string
	NumberFormat          *string
	SignageConvention     *string
	ColSep                *string
	QuoteChar             *string
	AmountTypeStrategy    *string
	AmountTypeInflowValue *string
	RowsToSkip            *int
	// Extractor is how a PdfImport reads its statement: builtin (default) or llm.
	Extractor string
	// Preset names a bank export (BankPresets) to read a transaction file as, "" for none;
	// ProfileID a saved profile. Left out, the file's account profile or bank is recognised.
	Preset    *string
	ProfileID *string
	// keptProfile is the profile a reconfigured import was first read with.
	keptProfile *uuid.UUID

	Upload Upload
}

// prepared is a request that passed every check, ready to store. Its rows are typed as they
// are read from each, so that a large file is never held as typed rows all at once.
type prepared struct {
	im       *Import
	account  *models.Account
	headers  []string
	required []string
	// each yields every row, built one at a time as it is stored: from the CSV records, the
	// QIF records or a statement file read again, the rule file's lines, or the PDF
	// statement's lines.
	each iter.Seq[*Row]
}

// Create validates the request, reads its file into rows and stores the import, its rows and
// mappings in one transaction. With Publish it then queues the publish; a rejected or failed
// publish keeps the upload and says so with the import's id (see PublishError).
func (s *Service) Create(ctx context.Context, req Request) (*Detail, error) {
	done, err := s.Reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	// A file's name is shown wherever the import is: kept as far as a name goes.
	req.Upload.Filename, _ = models.Clip(req.Upload.Filename, models.MaxName)
	if req.Type == AutoType {
		t, err := detectUpload(req.Upload)
		if err != nil {
			return nil, err
		}
		req.Type = string(t)
	}
	if Type(req.Type) == NativeImport {
		return s.createNative(ctx, req)
	}
	if Type(req.Type).MoveIn() {
		return s.createMoveIn(ctx, req)
	}
	p, err := s.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// The file goes as a bind parameter: bun would inline it into the SQL text.
		content := p.im.Content
		p.im.Content = nil
		if _, err := tx.NewInsert().Model(p.im).Exec(ctx); err != nil {
			return fmt.Errorf("insert import: %w", err)
		}
		p.im.Content = content
		if _, err := tx.Pgx.Exec(ctx, "UPDATE imports SET content = $1 WHERE id = $2", content, p.im.ID); err != nil {
			return fmt.Errorf("store import file: %w", err)
		}
		copied, err := copyRows(ctx, tx, p.im.ID, p.each)
		if err != nil {
			return err
		}
		if copied.total == 0 {
			// Such an import could never be published: refused now, not at publish.
			return noRows(p.im.Type, emptyReason(p.im))
		}
		p.im.RowsCount, p.im.ValidRowsCount = copied.total, copied.valid
		if _, err := tx.NewUpdate().Model(p.im).Column("rows_count", "valid_rows_count").WherePK().Exec(ctx); err != nil {
			return err
		}
		return syncMappings(ctx, tx, p.im, copied.keys)
	})
	if err != nil {
		return nil, err
	}
	if req.Publish {
		if err := s.Publish(ctx, req.FamilyID, p.im.ID); err != nil {
			return nil, &PublishError{ImportID: p.im.ID, Err: err}
		}
	}
	im, err := Get(ctx, s.DB, req.FamilyID, p.im.ID)
	if err != nil {
		return nil, err
	}
	return Describe(ctx, s.DB, im)
}

// detectUpload is the type of an upload sent with type=auto.
func detectUpload(up Upload) (Type, error) {
	if !up.Present || len(bytes.TrimSpace(up.Content)) == 0 {
		return "", apperr.New(apperr.Invalid, "Provide a file or raw_file_content.").WithSlug("missing_content")
	}
	t, ok := DetectType(up.Content)
	if !ok {
		return "", apperr.New(apperr.Invalid, "The file's format was not recognised. Tally reads OFX, QFX and QBO; camt.052, camt.053 and camt.054 "+
			"(or a ZIP of them); MT940 and MT942; PDF statements; QIF; NDJSON exports; and CSV. Send the type if the file is one of these.").
			WithSlug("unrecognized_format")
	}
	return t, nil
}

// statementExtensions name a stored statement file that arrived without a name.
var statementExtensions = map[Type]string{OfxImport: "ofx", CamtImport: "xml", Mt940Import: "sta"}

// PublishError is a publish that failed after the upload was stored: the caller can inspect
// the import or retry with its id.
type PublishError struct {
	ImportID uuid.UUID
	Err      error
}

func (e *PublishError) Error() string { return fmt.Sprintf("import %s: %v", e.ImportID, e.Err) }
func (e *PublishError) Unwrap() error { return e.Err }

// UploadedImportID is the id to report with the error.
func (e *PublishError) UploadedImportID() string { return e.ImportID.String() }

// contentTypesRefused are uploads that are surely not text.
var contentTypesRefused = []string{"application/pdf", "image/", "audio/", "video/", "application/zip", "application/x-zip", "application/vnd.openxmlformats", "application/msword"}

// prepare checks everything about a request that does not need the database to change, and
// reads the file. Every problem with the configuration is reported at once.
func (s *Service) prepare(ctx context.Context, req Request) (*prepared, error) {
	typ := Type(req.Type)
	if req.Type == "" {
		typ = TransactionImport
	}
	if !typ.Valid() {
		return nil, apperr.Errorf(apperr.Invalid, "type must be one of: %s, or auto", TypeNames(Types)).WithSlug("invalid_import_type")
	}
	im := &Import{ID: uuid.Must(uuid.NewV7()), FamilyID: req.FamilyID, Type: typ, Status: StatusPending,
		KeepLikelyDuplicates: req.KeepLikelyDuplicates}
	if req.UserID != uuid.Nil {
		im.UserID = &req.UserID
	}
	var v apperr.Validation
	var m readWith
	if typ == TransactionImport {
		var err error
		if m, err = s.chooseMapping(ctx, &req, &v); err != nil {
			return nil, err
		}
	}
	applyConfig(&im.Config, req, &v)
	appDefaults(typ, &im.Config)
	if m.preset != nil {
		im.Config.Preset = m.preset.ID
	}
	im.Config.ProfileID = m.profile

	var acct *models.Account
	if req.AccountID != nil && strings.TrimSpace(*req.AccountID) != "" {
		var err error
		acct, err = familyRecord(*req.AccountID, func(id uuid.UUID) (*models.Account, error) {
			if !req.Viewer.CanSee(id) {
				return nil, apperr.New(apperr.NotFound, "account not found")
			}
			return models.AccountByID(ctx, s.DB, models.FamilyViewer(req.FamilyID), id)
		})
		if err != nil {
			return nil, err
		}
		if acct == nil {
			v.Add("account_id", "Account must belong to your family")
		} else {
			im.AccountID = &acct.ID
		}
	}
	if err := v.Err(); err != nil {
		e := apperr.As(err)
		e.Message, e.Slug = "Import could not be created", "validation_failed"
		return nil, e
	}

	up := req.Upload
	if typ == PdfImport && up.Present && len(up.Content) <= s.Limits.MaxBytes {
		p := &prepared{im: im, account: acct}
		im.Content, im.ByteSize = up.Content, len(up.Content)
		im.Filename = strPtr(defaultString(up.Filename, "statement.pdf"))
		im.ContentType = strPtr(defaultString(up.ContentType, "application/pdf"))
		im.Encoding = strPtr("binary")
		if err := s.pdfRows(ctx, up, req.Extractor, im, p); err != nil {
			return nil, err
		}
		return p, nil
	}
	if typ.IsStatementFile() && up.Present && len(up.Content) <= s.Limits.MaxBytes && len(bytes.TrimSpace(up.Content)) > 0 {
		p := &prepared{im: im, account: acct}
		im.Content, im.ByteSize = up.Content, len(up.Content)
		im.Filename = strPtr(defaultString(up.Filename, "statement."+statementExtensions[typ]))
		im.ContentType = strPtr(defaultString(up.ContentType, "application/octet-stream"))
		im.Encoding = strPtr("as declared")
		if err := s.statementRows(ctx, up, im, acct, p); err != nil {
			return nil, err
		}
		return p, nil
	}
	if !up.Present || len(bytes.TrimSpace(up.Content)) == 0 {
		return nil, apperr.New(apperr.Invalid, "Provide a file or raw_file_content.").WithSlug("missing_content")
	}
	if len(up.Content) > s.Limits.MaxBytes {
		slug, msg := "content_too_large", "Content is too large. Maximum size is %dMB."
		if up.FromFile {
			slug, msg = "file_too_large", "File is too large. Maximum size is %dMB."
		}
		return nil, apperr.Errorf(apperr.Invalid, msg, s.Limits.MaxBytes/(1024*1024)).WithSlug(slug)
	}
	if !looksLikeText(up) {
		return nil, apperr.New(apperr.Invalid, "Invalid file type. Please upload a CSV or QIF text file.").WithSlug("invalid_file_type")
	}
	text, enc := parse.Text(up.Content)
	im.Content = up.Content
	im.ByteSize = len(up.Content)
	im.Encoding = &enc
	im.Filename = strPtr(defaultString(up.Filename, "import."+map[bool]string{true: "qif", false: "csv"}[typ == QifImport]))
	im.ContentType = strPtr(defaultString(up.ContentType, "text/csv"))

	if typ == TransactionImport {
		guessLayout(text, &im.Config, req)
	}
	rc := &rowContext{cfg: &im.Config, typ: typ, fixedAccount: acct != nil, now: s.now(), req: req}
	p := &prepared{im: im, account: acct}
	if err := readRows(text, rc, p); err != nil {
		return nil, err
	}
	return p, nil
}

// readRows reads the text of the file into rows by the import's type.
func readRows(text string, rc *rowContext, p *prepared) error {
	switch rc.typ {
	case QifImport:
		return qifRows(text, rc, p)
	case CategoryImport, MerchantImport, RuleImport:
		return taxonomyRows(text, rc, p)
	}
	table, err := readCSV(text, rc.cfg, rc.typ)
	if err != nil {
		return err
	}
	p.headers = table.Headers
	if rc.typ == ExternalAppAImport || rc.typ == ExternalAppBImport || rc.typ == ExternalAppCImport {
		return externalRows(table, rc, p)
	}
	preset := BankPresetByID(rc.cfg.Preset)
	if rc.typ == TransactionImport && preset == nil && rc.cfg.ProfileID == nil {
		// A preset or a profile is the whole mapping: what it leaves out is left out.
		guessColumns(table, rc.cfg, rc.req, p.account)
	}
	if preset != nil && preset.Skip != nil {
		p.im.SkippedRows = skipRows(table, preset.Skip)
	}
	cr := newColumnReader(table, rc.cfg, specs[rc.typ].columns)
	p.required = requiredHeaders(rc.cfg, rc.typ)
	if missing := missingHeaders(cr, rc.cfg, rc.typ); len(missing) > 0 {
		return withSkipHint(missingHeadersError(missing, table.Headers), text, rc.cfg, table.Headers)
	}
	p.im.Headers, p.im.UnmappedColumns = table.Headers, unmappedColumns(table, rc.cfg, rc.typ)
	p.each = csvRows(table, rc)
	return nil
}

// missingHeadersError names the required columns the file lacks, and the columns it has, so
// that a file read with the wrong separator or labels says what was found.
func missingHeadersError(missing, headers []string) error {
	found := make([]string, len(headers))
	for i, h := range headers {
		found[i] = strconv.Quote(h)
	}
	return apperr.Errorf(apperr.Invalid, "Missing required columns: %s. The file's columns are: %s.", strings.Join(missing, ", "), strings.Join(found, ", ")).
		WithSlug("missing_required_headers").
		WithDetails(map[string]any{"missing_required_headers": missing, "headers": headers})
}

// withSkipHint adds to err, a file's missing columns, where the file's table seems to start when
// it was read from another line: the header the sniffer finds (sniff.Table) and the "Lines to
// skip" that reads it, also in details as suggested_rows_to_skip. When the sniffer finds no
// other header but the line read looks like a title (a cell or none of text), it points at
// that setting without a count.
func withSkipHint(err error, text string, cfg *Config, headers []string) error {
	e := apperr.As(err)
	if cfg.QuoteChar == "'" {
		text = parse.SwapQuotes(text)
	}
	l, found := sniff.Table(text)
	switch {
	case found && l.Separator == cfg.separator() && l.Skip != cfg.RowsToSkip:
		named := make([]string, 0, 3)
		for _, h := range l.Headers {
			if h != "" && len(named) < cap(named) {
				named = append(named, strconv.Quote(h))
			}
		}
		e.Message += fmt.Sprintf(" Its table seems to start on line %d (%s, …): set “Lines to skip before the header” to %d.",
			l.Skip+1, strings.Join(named, ", "), l.Skip)
		if d, ok := e.Details.(map[string]any); ok {
			d["suggested_rows_to_skip"] = l.Skip
		}
	case len(slices.DeleteFunc(slices.Clone(headers), func(h string) bool { return strings.TrimSpace(h) == "" })) <= 1:
		e.Message += " If the file has lines of text above its table, set “Lines to skip before the header” to their number."
	}
	return e
}

// noRows refuses a file of type typ with nothing to import, and says why.
func noRows(typ Type, why string) error {
	what := "rows"
	if typ.createsEntries() {
		what = "transactions"
	}
	msg := fmt.Sprintf("The file has no %s: %s", what, why)
	return apperr.New(apperr.Invalid, msg).WithSlug("no_data_rows").WithFields(map[string][]string{"content": {msg}})
}

// emptyReason says why a file that gave no rows has none.
func emptyReason(im *Import) string {
	switch {
	case im.Type.IsStatementFile():
		return "its statements list no entries."
	case im.Type == PdfImport:
		return "no line of the statement reads as one."
	case im.Type == QifImport:
		return "it holds no records."
	case im.SkippedRows > 0:
		return "every line under its header is blank, or one its bank marks as no transaction (a balance line)."
	}
	return "every line under its header is blank."
}

// readCSV parses the file as CSV; a file that cannot be parsed is a 422 naming the line, and
// one with no line that holds a value says so.
func readCSV(text string, cfg *Config, typ Type) (*parse.CSVTable, error) {
	opts := parse.CSVOptions{Separator: cfg.separator(), RowsToSkip: cfg.RowsToSkip, Quote: []rune(cfg.QuoteChar + `"`)[0]}
	if p := BankPresetByID(cfg.Preset); p != nil && p.NoHeader {
		opts.Headers = p.Header
	}
	table, err := parse.CSV(text, opts)
	if errors.Is(err, parse.ErrEmpty) {
		return nil, noRows(typ, "it is blank"+strings.TrimPrefix(err.Error(), parse.ErrEmpty.Error())+".")
	}
	if err != nil {
		return nil, &apperr.Error{Code: apperr.Invalid, Slug: "invalid_csv", Message: "CSV content could not be parsed",
			Fields: map[string][]string{"content": {err.Error()}}, Err: err}
	}
	return table, nil
}

// separator is the character the configuration splits a line's columns by.
func (c *Config) separator() rune {
	if r := []rune(c.ColSep); len(r) == 1 {
		return r[0]
	}
	return ','
}

func looksLikeText(up Upload) bool {
	if up.FromFile {
		ct := strings.ToLower(up.ContentType)
		for _, bad := range contentTypesRefused {
			if strings.HasPrefix(ct, bad) {
				return false
			}
		}
	}
	head := up.Content
	if len(head) > 8192 {
		head = head[:8192]
	}
	// UTF-16 text has NUL bytes; it starts with a byte-order mark.
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return true
	}
	return bytes.IndexByte(head, 0) < 0 && !bytes.HasPrefix(head, []byte("%PDF-"))
}

// applyConfig copies the request's configuration onto cfg, recording each invalid value.
func applyConfig(cfg *Config, req Request, v *apperr.Validation) {
	for key, val := range req.Labels {
		col := columnIndex(key)
		if col < 0 || val == nil {
			continue
		}
		// A blank label is no label: the column's usual headers are tried.
		if l := strings.TrimSpace(*val); l != "" {
			cfg.setLabel(col, &l)
		}
	}
	cfg.NumberFormat = string(parse.NumberUS)
	if req.NumberFormat != nil {
		if !parse.NumberFormat(*req.NumberFormat).Valid() {
			v.Add("number_format", fmt.Sprintf("Number format %q is not one of: %s", *req.NumberFormat, parse.NumberFormatNames("; ")))
		}
		cfg.NumberFormat = *req.NumberFormat
	}
	cfg.SignageConvention = InflowsPositive
	if req.SignageConvention != nil {
		if *req.SignageConvention != InflowsPositive && *req.SignageConvention != InflowsNegative {
			v.Add("signage_convention", fmt.Sprintf("Signage convention %q is not one of: inflows_positive, inflows_negative", *req.SignageConvention))
		}
		cfg.SignageConvention = *req.SignageConvention
	}
	cfg.ColSep = ","
	if req.ColSep != nil {
		switch strings.ToLower(*req.ColSep) {
		case ",", "comma":
		case ";", "semicolon":
			cfg.ColSep = ";"
		case "\t", "tab":
			cfg.ColSep = "\t"
		case "|", "pipe":
			cfg.ColSep = "|"
		default:
			v.Add("col_sep", fmt.Sprintf("Column separator %q is not one of: comma, semicolon, tab, pipe", *req.ColSep))
		}
	}
	cfg.QuoteChar = `"`
	if req.QuoteChar != nil {
		switch strings.ToLower(*req.QuoteChar) {
		case `"`, "double":
		case "'", "single":
			cfg.QuoteChar = "'"
		default:
			v.Add("quote_char", fmt.Sprintf("Quote character %q is not one of: double (\"), single (')", *req.QuoteChar))
		}
	}
	cfg.AmountTypeStrategy = SignedAmount
	if req.AmountTypeStrategy != nil {
		if *req.AmountTypeStrategy != SignedAmount && *req.AmountTypeStrategy != CustomColumn {
			v.Add("amount_type_strategy", fmt.Sprintf("Amount type strategy %q is not one of: signed_amount, custom_column", *req.AmountTypeStrategy))
		}
		cfg.AmountTypeStrategy = *req.AmountTypeStrategy
	}
	if req.AmountTypeInflowValue != nil && strings.TrimSpace(*req.AmountTypeInflowValue) != "" {
		cfg.AmountTypeInflowValue = strPtr(strings.TrimSpace(*req.AmountTypeInflowValue))
	}
	if cfg.AmountTypeStrategy == CustomColumn && cfg.AmountTypeInflowValue == nil {
		v.Add("amount_type_inflow_value", "Custom column imports require amount_type_inflow_value: the value of the type column that marks an inflow")
	}
	if req.RowsToSkip != nil {
		if *req.RowsToSkip < 0 {
			v.Add("rows_to_skip", "Rows to skip must be greater than or equal to 0")
		}
		cfg.RowsToSkip = *req.RowsToSkip
	}
	if req.DateFormat != nil && strings.TrimSpace(*req.DateFormat) != "" {
		f := strings.TrimSpace(*req.DateFormat)
		if err := parse.ValidateDateFormat(f); err != nil {
			v.Add("date_format", "Date format: "+err.Error())
		}
		cfg.DateFormat = &f
	}
}

func columnIndex(key string) int {
	for i, k := range columnKeys {
		if k == key {
			return i
		}
	}
	return -1
}

func defaultString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// copied is what copyRows wrote: how many rows, how many of them valid, and the names the rows
// use for each mapping kind.
type copied struct {
	total, valid int
	keys         rowKeys
}

// copyRows writes rows with COPY, the one fast path for large files, and counts them. It
// gathers the names the rows use on the way, so that finding their mappings needs no pass over
// the rows just written.
func copyRows(ctx context.Context, tx db.Tx, importID uuid.UUID, each iter.Seq[*Row]) (copied, error) {
	cols := []string{"import_id", "row_number", "line", "raw", "errors", "record_id", "date", "amount", "currency",
		"name", "notes", "account_key", "category_key", "tags", "entity_type", "ticker", "mic", "qty", "price", "extra"}
	// UUIDs go as pgtype.UUID: uuid.UUID would be sent as text through driver.Valuer.
	id := pgtype.UUID{Bytes: importID, Valid: true}
	out := copied{keys: rowKeys{}}
	next, stop := iter.Pull(each)
	defer stop()
	_, err := tx.Pgx.CopyFrom(ctx, pgx.Identifier{"import_rows"}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		r, ok := next()
		if !ok {
			return nil, nil
		}
		out.total++
		clipRow(r)
		out.keys.add(r)
		errs := r.Errors
		if errs == nil {
			errs = []string{}
			out.valid++
		}
		var date pgtype.Date
		if r.Date != nil {
			date = pgtype.Date{Time: *r.Date, Valid: true}
		}
		var extra any
		if r.Extra != nil {
			extra = r.Extra
		}
		return []any{id, r.Number, r.Line, r.Raw[:], errs, pgtype.UUID{Bytes: r.RecordID, Valid: true}, date, numeric(r.Amount), nullString(r.Currency),
			r.Name, r.Notes, nullString(r.AccountKey), nullString(r.CategoryKey), r.Tags, nullString(r.EntityType),
			nullString(r.Ticker), nullString(r.MIC), numeric(r.Qty), numeric(r.Price), extra}, nil
	}))
	if err != nil {
		return copied{}, fmt.Errorf("copy import rows: %w", err)
	}
	return out, nil
}

// clipRow cuts a row's text to the bounds of what it makes (models.MaxName, MaxNotes): a
// file is not asked again, so its row is kept, cut, and says so (Extra["clipped"], shown with
// the row as RowDiagnostic.Warnings). Its raw cells, which only the rows view shows, are
// bounded too: no file stores megabytes of one cell.
func clipRow(r *Row) {
	var cut []string
	clip := func(field string, s *string, max int) {
		if v, ok := models.Clip(*s, max); ok {
			*s = v
			if !slices.Contains(cut, field) {
				cut = append(cut, field)
			}
		}
	}
	clip("name", &r.Name, models.MaxName)
	clip("notes", &r.Notes, models.MaxNotes)
	clip("account", &r.AccountKey, models.MaxName)
	clip("category", &r.CategoryKey, models.MaxName)
	for i := range r.Tags {
		clip("tags", &r.Tags[i], models.MaxName)
	}
	clip("entity_type", &r.EntityType, models.MaxName)
	clip("ticker", &r.Ticker, models.MaxName)
	clip("mic", &r.MIC, models.MaxName)
	for _, k := range []string{"parent", "website"} {
		if v, ok := r.Extra[k].(string); ok {
			clip(k, &v, models.MaxName)
			r.Extra[k] = v
		}
	}
	for i := range r.Raw {
		r.Raw[i], _ = models.Clip(r.Raw[i], models.MaxNotes)
	}
	if len(cut) > 0 {
		if r.Extra == nil {
			r.Extra = map[string]any{}
		}
		r.Extra["clipped"] = cut
	}
}

func numeric(d *decimal.Decimal) pgtype.Numeric {
	if d == nil {
		return pgtype.Numeric{}
	}
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

func nullString(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }
