package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/imports"
	"tally/internal/apperr"
	"tally/internal/jsonstr"
	"tally/models"
)

// apiTime renders a time as the API does: ISO 8601, UTC, with milliseconds.
type apiTime time.Time

func (t apiTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

// ImportJSON is ImportDetail.
type ImportJSON struct {
	ID            string            `json:"id"`
	Type          string            `json:"type"`
	Status        string            `json:"status"`
	CreatedAt     apiTime           `json:"created_at"`
	UpdatedAt     apiTime           `json:"updated_at"`
	AccountID     *string           `json:"account_id"`
	Error         *string           `json:"error,omitempty"`
	StatusDetail  StatusDetailJSON  `json:"status_detail"`
	Configuration ConfigurationJSON `json:"configuration"`
	Stats         StatsJSON         `json:"stats"`
	// KeepLikelyDuplicates has the publish keep the likely duplicates rather than skip them.
	KeepLikelyDuplicates bool          `json:"keep_likely_duplicates"`
	Content              *ContentJSON  `json:"content,omitempty"`
	Progress             *ProgressJSON `json:"progress,omitempty"`
	Problems             []string      `json:"problems,omitempty"`
	// UnmappedColumns are the file's columns the import reads for nothing.
	UnmappedColumns []string `json:"unmapped_columns"`
	// Notice says what the rows come to beside what is already in the account, on a single
	// import's responses.
	Notice *string `json:"notice,omitempty"`
	// NativeImport only.
	Verification *VerificationJSON `json:"verification,omitempty"`
	Summary      imports.Summary   `json:"summary,omitempty"`
	// PdfImport only.
	Statement *imports.StatementInfo `json:"statement,omitempty"`
	// OfxImport, CamtImport and Mt940Import only.
	Statements *imports.StatementFile `json:"statements,omitempty"`
	// MoveIn is an ActualImport's or YnabImport's dry run: counts per kind and every notice.
	MoveIn *imports.MoveIn `json:"move_in,omitempty"`
}

// VerificationJSON is ImportVerification.
type VerificationJSON struct {
	ExpectedRecordCounts map[string]int    `json:"expected_record_counts"`
	Readback             *imports.Readback `json:"readback"`
}

// StatusDetailJSON is ImportStatusDetail.
type StatusDetailJSON struct {
	Uploaded    bool `json:"uploaded"`
	Configured  bool `json:"configured"`
	Terminal    bool `json:"terminal"`
	Cleaned     bool `json:"cleaned"`
	Publishable bool `json:"publishable"`
	Revertable  bool `json:"revertable"`
}

// ConfigurationJSON is ImportConfiguration.
type ConfigurationJSON struct {
	DateColLabel      *string `json:"date_col_label"`
	AmountColLabel    *string `json:"amount_col_label"`
	NameColLabel      *string `json:"name_col_label"`
	CategoryColLabel  *string `json:"category_col_label"`
	TagsColLabel      *string `json:"tags_col_label"`
	NotesColLabel     *string `json:"notes_col_label"`
	AccountColLabel   *string `json:"account_col_label"`
	DebitColLabel     *string `json:"debit_col_label"`
	CreditColLabel    *string `json:"credit_col_label"`
	FeeColLabel       *string `json:"fee_col_label"`
	BalanceColLabel   *string `json:"balance_col_label"`
	DateFormat        *string `json:"date_format"`
	NumberFormat      *string `json:"number_format"`
	SignageConvention *string `json:"signage_convention"`
	ColSep            string  `json:"col_sep"`
	QuoteChar         string  `json:"quote_char"`
	RowsToSkip        int     `json:"rows_to_skip"`
	// Guessed names the fields above that were read off the file, not sent.
	Guessed []string `json:"guessed"`
	// DateFormatChoices are the formats the file's dates fit, read differently by each.
	DateFormatChoices []string `json:"date_format_choices"`
	// Preset and ProfileID say what the file was read as, when not a mapping of its own.
	Preset    *string `json:"preset"`
	ProfileID *string `json:"profile_id"`
}

// StatsJSON is ImportStats, with the duplicate count Tally adds.
type StatsJSON struct {
	RowsCount               int `json:"rows_count"`
	ValidRowsCount          int `json:"valid_rows_count"`
	InvalidRowsCount        int `json:"invalid_rows_count"`
	MappingsCount           int `json:"mappings_count"`
	UnassignedMappingsCount int `json:"unassigned_mappings_count"`
	DuplicateRowsCount      int `json:"duplicate_rows_count"`
	SkippedRowsCount        int `json:"skipped_rows_count"`
	// PendingDuplicateRowsCount is sent on a single import's responses, not in lists.
	PendingDuplicateRowsCount int `json:"pending_duplicate_rows_count"`
	LikelyDuplicateRowsCount  int `json:"likely_duplicate_rows_count"`
	// PendingLikelyDuplicateRowsCount is sent on a single import's responses, not in lists.
	PendingLikelyDuplicateRowsCount int `json:"pending_likely_duplicate_rows_count"`
}

// ContentJSON describes the uploaded file.
type ContentJSON struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	ByteSize    int    `json:"byte_size"`
	Encoding    string `json:"encoding"`
}

// ProgressJSON is how far a running publish or revert is.
type ProgressJSON struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

func importJSON(d *imports.Detail) ImportJSON {
	im := d.Import
	out := ImportJSON{
		ID: im.ID.String(), Type: string(im.Type), Status: im.Status,
		CreatedAt: apiTime(im.CreatedAt), UpdatedAt: apiTime(im.UpdatedAt), Error: im.Error,
		StatusDetail: StatusDetailJSON(d.StatusDetail),
		Configuration: ConfigurationJSON{
			DateColLabel: im.DateColLabel, AmountColLabel: im.AmountColLabel, NameColLabel: im.NameColLabel,
			CategoryColLabel: im.CategoryColLabel, TagsColLabel: im.TagsColLabel, NotesColLabel: im.NotesColLabel,
			AccountColLabel: im.AccountColLabel, DebitColLabel: im.DebitColLabel, CreditColLabel: im.CreditColLabel, DateFormat: im.DateFormat,
			NumberFormat: &im.NumberFormat, SignageConvention: &im.SignageConvention,
			ColSep: colSepName(im.ColSep), QuoteChar: quoteName(im), RowsToSkip: im.RowsToSkip, Guessed: nonNil(im.Guessed),
			FeeColLabel: im.FeeColLabel, BalanceColLabel: im.BalanceColLabel, Preset: optional(im.Preset), ProfileID: uuidString(im.ProfileID),
			DateFormatChoices: nonNil(im.DateChoices),
		},
		UnmappedColumns: nonNil(im.UnmappedColumns),
		Stats:           StatsJSON(d.Stats), KeepLikelyDuplicates: im.KeepLikelyDuplicates,
	}
	if im.AccountID != nil {
		s := im.AccountID.String()
		out.AccountID = &s
	}
	if d.StatusDetail.Uploaded {
		out.Content = &ContentJSON{Filename: deref(im.Filename), ContentType: deref(im.ContentType), ByteSize: im.ByteSize, Encoding: deref(im.Encoding)}
	}
	if d.Progress != nil {
		out.Progress = &ProgressJSON{Done: d.Progress.Done, Total: d.Progress.Total}
	}
	if !d.StatusDetail.Publishable && !im.Terminal() && !im.Running() {
		out.Problems = d.Problems
	}
	out.MoveIn = im.MoveIn
	if im.Type.Native() {
		rb := im.Readback
		if rb == nil {
			rb = &imports.Readback{Status: imports.ReadbackNotVerified}
		}
		out.Verification = &VerificationJSON{ExpectedRecordCounts: imports.AllCounts(im.ExpectedRecordCounts), Readback: rb}
		if len(im.Summary) > 0 {
			out.Summary = im.Summary
		}
	}
	out.Statement, out.Statements = im.Statement, im.Statements
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// requestBody is a JSON or multipart request: its fields, and the uploaded "file" part.
type requestBody struct {
	fields map[string]bodyField
	upload imports.Upload
}

// bodyField is a field of a request body. A JSON string is decoded straight into text, once:
// raw_file_content may be a file of the import size limit, which a Go string and then a []byte
// of it would each have copied whole.
type bodyField struct {
	// text is the field's value: a form value, a JSON string decoded, or a JSON number or
	// boolean as written.
	text []byte
	// null is a JSON null, and nested a JSON object or array, which no field takes.
	null, nested bool
}

// UnmarshalJSON keeps the value of the field data, which the decoder has checked.
func (f *bodyField) UnmarshalJSON(data []byte) error {
	switch data[0] {
	case '"':
		// Escapes only shorten the text, but for invalid UTF-8: the literal's length is room
		// enough. A text much shorter (escaped non-ASCII) is cut to size.
		text, ok := jsonstr.Unquote(make([]byte, 0, len(data)), data)
		if !ok {
			return fmt.Errorf("invalid JSON string %.20q", data)
		}
		if cap(text) > 2*len(text)+4096 {
			text = bytes.Clone(text)
		}
		f.text = text
	case 'n':
		f.null = true
	case '{', '[':
		f.nested = true
	default:
		f.text = bytes.Clone(data)
	}
	return nil
}

// readBody reads a JSON object or a multipart form whose "file" part is kept as the upload.
// The body may hold a file of the import size limit, with room for JSON's escapes. A JSON body
// is read into one buffer of the size it declares, then decoded, its raw_file_content once:
// a decoder reading the body would grow a buffer of its own by doubling, each a copy.
func (a *app) readBody(c echo.Context) (requestBody, error) {
	var out requestBody
	// A move-in's export may be larger than other files (Limits.MaxMoveInBytes); each type
	// checks its own limit once the file is read.
	maxBytes := a.Imports.UploadBytes()
	limit := int64(max(3*a.Imports.Limits.MaxBytes, maxBytes) + 1<<20)
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	switch mediaType {
	case echo.MIMEApplicationJSON:
		size := r.ContentLength
		if size < 0 || size > limit {
			size = 0 // unknown, or refused as too large before it is read
		}
		body := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
		if _, err := body.ReadFrom(r.Body); err != nil {
			return out, a.bodyError(err, "The request body could not be read")
		}
		var notObject *json.UnmarshalTypeError
		if err := json.Unmarshal(body.Bytes(), &out.fields); errors.As(err, &notObject) {
			return out, apperr.New(apperr.BadRequest, "The request body must be a JSON object")
		} else if err != nil {
			return out, a.bodyError(err, "The request body must be a JSON object")
		}
	case echo.MIMEMultipartForm, echo.MIMEApplicationForm:
		if err := parseForm(r); err != nil {
			return out, a.bodyError(err, "The multipart form could not be read")
		}
		out.fields = map[string]bodyField{}
		for k, v := range r.Form {
			if len(v) > 0 {
				out.fields[k] = bodyField{text: []byte(v[0])}
			}
		}
		if fh, err := c.FormFile("file"); err == nil {
			f, err := fh.Open()
			if err != nil {
				return out, a.bodyError(err, "The uploaded file could not be read")
			}
			defer f.Close()
			// One buffer of the part's size (a byte past the limit, which the type refuses),
			// read once: io.ReadAll would grow its own by doubling, each a copy.
			content := make([]byte, min(fh.Size, int64(maxBytes)+1))
			if _, err := io.ReadFull(f, content); err != nil {
				return out, a.bodyError(err, "The uploaded file could not be read")
			}
			out.upload = imports.Upload{Content: content, Filename: fh.Filename, ContentType: fh.Header.Get("Content-Type"), FromFile: true, Present: true}
		}
	default:
		return out, apperr.New(apperr.BadRequest, "Send the request as application/json or multipart/form-data")
	}
	if out.fields == nil {
		out.fields = map[string]bodyField{}
	}
	return out, nil
}

// text returns a field's text (numbers and booleans as written), nil when absent or null; an
// object or array is recorded in v.
func (b requestBody) text(v *apperr.Validation, key string) []byte {
	f, ok := b.fields[key]
	switch {
	case !ok || f.null:
		return nil
	case f.nested:
		v.Add(key, key+" must be a string")
		return nil
	}
	if f.text == nil {
		return []byte{}
	}
	return f.text
}

// str returns a field as a string, as text does.
func (b requestBody) str(v *apperr.Validation, key string) *string {
	t := b.text(v, key)
	if t == nil {
		return nil
	}
	s := string(t)
	return &s
}

// content is the upload: the file part, else raw_file_content, which is kept as decoded.
func (b requestBody) content(v *apperr.Validation) imports.Upload {
	if b.upload.Present {
		return b.upload
	}
	if raw := b.text(v, "raw_file_content"); raw != nil {
		return imports.Upload{Content: raw, Present: true}
	}
	return imports.Upload{}
}

// importRequest reads a create or preflight request: JSON, or a multipart form whose "file"
// part wins over raw_file_content.
func (a *app) importRequest(c echo.Context) (imports.Request, error) {
	u := currentUser(c)
	req := imports.Request{FamilyID: u.FamilyID, UserID: u.ID, Labels: map[string]*string{}}
	var err error
	if req.Viewer, err = a.viewer(c); err != nil {
		return req, err
	}
	body, err := a.readBody(c)
	if err != nil {
		return req, err
	}
	var v apperr.Validation
	str := func(key string) *string { return body.str(&v, key) }
	if t := str("type"); t != nil {
		req.Type = strings.TrimSpace(*t)
	}
	req.Upload = body.content(&v)
	if req.Type == imports.AutoType && req.Upload.Present {
		// Resolved here so that every later step, the NativeImport preflight among them,
		// sees the type the content is.
		if t, ok := imports.DetectType(req.Upload.Content); ok {
			req.Type = string(t)
		}
	}
	req.AccountID = str("account_id")
	flag := func(key string) bool {
		p := str(key)
		if p == nil {
			return false
		}
		switch strings.ToLower(strings.TrimSpace(*p)) {
		case "true":
			return true
		case "false", "":
		default:
			v.Add(key, key+" must be true or false")
		}
		return false
	}
	req.Publish, req.KeepLikelyDuplicates = flag("publish"), flag("keep_likely_duplicates")
	for _, key := range []string{"date", "amount", "name", "category", "tags", "notes", "account", "entity_type", "currency", "qty", "ticker", "price", "exchange_operating_mic", "debit", "credit", "fee", "balance"} {
		if l := str(key + "_col_label"); l != nil {
			req.Labels[key] = l
		}
	}
	req.DateFormat, req.NumberFormat = str("date_format"), str("number_format")
	req.Preset, req.ProfileID = str("preset"), str("profile_id")
	if x := str("extractor"); x != nil {
		req.Extractor = strings.TrimSpace(*x)
	}
	req.SignageConvention, req.ColSep, req.QuoteChar = str("signage_convention"), str("col_sep"), str("quote_char")
	req.AmountTypeStrategy, req.AmountTypeInflowValue = str("amount_type_strategy"), str("amount_type_inflow_value")
	if s := str("rows_to_skip"); s != nil && strings.TrimSpace(*s) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(*s))
		if err != nil {
			v.Add("rows_to_skip", "rows_to_skip must be a whole number")
		}
		req.RowsToSkip = &n
	}
	if err := v.Err(); err != nil {
		e := apperr.As(err)
		e.Message, e.Slug = "Import could not be created", "validation_failed"
		return req, e
	}
	return req, nil
}

// bodyError turns a body that cannot be read into a client error; one over the size limit
// says so, naming the limits.
func (a *app) bodyError(err error, msg string) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return apperr.Errorf(apperr.Invalid, "Content is too large. Maximum size is %dMB for a move-in's export (ActualImport, YnabImport), %dMB for other files.",
			a.Imports.UploadBytes()>>20, a.Imports.Limits.MaxBytes>>20).WithSlug("content_too_large")
	}
	return apperr.Wrap(apperr.BadRequest, err, msg+": "+err.Error())
}

// formMemory is what a form's parts may hold in memory: a file part larger than it is spooled
// to a temporary file (removed when the request ends), so that an upload is in memory once,
// when readBody reads it, however large the file.
const formMemory = 1 << 20

// parseForm parses the request's form, a multipart one with at most formMemory in memory.
// Whatever reads a form calls it first: Echo's FormValue would parse it with 32 MB in memory,
// and a file read from there is then held twice.
func parseForm(r *http.Request) error {
	if err := r.ParseMultipartForm(formMemory); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return err
	}
	return nil
}

// handover gives *req to its reader and keeps none of its file, so that the file can be let go
// as soon as it is read (a move-in's export is then no longer held beside its budget).
func handover(req *imports.Request) imports.Request {
	r := *req
	req.Upload.Content = nil
	return r
}

// apiImportCreate is POST /api/v1/imports.
func (a *app) apiImportCreate(c echo.Context) error {
	req, err := a.importRequest(c)
	if err != nil {
		return err
	}
	return a.idempotent(c, req, func() (int, any, error) {
		d, err := a.Imports.Create(c.Request().Context(), handover(&req))
		if err != nil {
			return 0, nil, err
		}
		out, err := a.oneImportJSON(c.Request().Context(), d)
		return http.StatusCreated, map[string]any{"data": out}, err
	})
}

// apiImportPreflight is POST /api/v1/imports/preflight: the same checks as create, nothing
// stored.
func (a *app) apiImportPreflight(c echo.Context) error {
	req, err := a.importRequest(c)
	if err != nil {
		return err
	}
	if req.Type == string(imports.NativeImport) {
		return a.nativePreflight(c, req)
	}
	res, err := a.Imports.Preflight(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{
		"type": res.Type, "valid": res.Valid,
		"content": map[string]any{"filename": res.Filename, "content_type": res.ContentType, "byte_size": res.ByteSize, "encoding": res.Encoding},
		"stats":   map[string]any{"rows_count": res.RowsCount, "valid_rows_count": res.ValidRowsCount, "invalid_rows_count": res.RowsCount - res.ValidRowsCount},
		"headers": res.Headers, "required_headers": res.RequiredHeaders, "missing_required_headers": res.MissingHeaders,
		"errors": res.Errors, "warnings": res.Warnings,
	}})
}

// pageParams reads page (from 1) and per_page (1 to 100, default 25).
func pageParams(c echo.Context) (int, int) {
	page := pageNumber(c)
	per, err := strconv.Atoi(c.QueryParam("per_page"))
	if err != nil || per < 1 || per > 100 {
		per = 25
	}
	return page, per
}

// pageMeta is the "meta" of a paged list.
func pageMeta(page, per, total int) map[string]any {
	pages := max(1, (total+per-1)/per)
	meta := map[string]any{"current_page": page, "per_page": per, "total_count": total, "total_pages": pages, "next_page": nil, "prev_page": nil}
	if page < pages {
		meta["next_page"] = page + 1
	}
	if page > 1 {
		meta["prev_page"] = page - 1
	}
	return meta
}

// apiImportsIndex is GET /api/v1/imports: newest first, filtered by status and type.
func (a *app) apiImportsIndex(c echo.Context) error {
	status, typ := c.QueryParam("status"), c.QueryParam("type")
	var v apperr.Validation
	if status != "" && !contains(imports.Statuses, status) {
		v.Add("status", fmt.Sprintf("status must be one of: %s", strings.Join(imports.Statuses, ", ")))
	}
	if typ != "" && !imports.Type(typ).Valid() {
		v.Add("type", "type must be one of: "+imports.TypeNames(imports.Types))
	}
	if err := v.Err(); err != nil {
		return err
	}
	page, per := pageParams(c)
	ctx := c.Request().Context()
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	list, total, err := imports.List(ctx, a.DB, imports.ListFilter{Viewer: viewer, Status: status, Type: typ, Page: page, PerPage: per})
	if err != nil {
		return err
	}
	data := make([]ImportJSON, 0, len(list))
	for i := range list {
		d, err := imports.Describe(ctx, a.DB, &list[i])
		if err != nil {
			return err
		}
		data = append(data, importJSON(d))
	}
	return c.JSON(http.StatusOK, map[string]any{"data": data, "meta": pageMeta(page, per, total)})
}

// familyImport loads the import named by :id in the caller's family, if the caller may see
// it (imports.GetFor).
func (a *app) familyImport(c echo.Context) (*imports.Import, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return nil, apperr.New(apperr.NotFound, "Import not found").WithSlug("not_found")
	}
	return a.visibleImport(c, id)
}

// visibleImport loads the family's import id, if the caller may see it.
func (a *app) visibleImport(c echo.Context, id uuid.UUID) (*imports.Import, error) {
	v, err := a.viewer(c)
	if err != nil {
		return nil, err
	}
	return imports.GetFor(c.Request().Context(), a.DB, v, id)
}

func (a *app) importDetail(c echo.Context, status int, id uuid.UUID) error {
	im, err := a.visibleImport(c, id)
	if err != nil {
		return err
	}
	d, err := imports.Describe(c.Request().Context(), a.DB, im)
	if err != nil {
		return err
	}
	out, err := a.oneImportJSON(c.Request().Context(), d)
	if err != nil {
		return err
	}
	return c.JSON(status, map[string]any{"data": out})
}

// apiImportShow is GET /api/v1/imports/:id.
func (a *app) apiImportShow(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	return a.importDetail(c, http.StatusOK, im.ID)
}

// apiImportRows is GET /api/v1/imports/:id/rows: each row's cells, problems and mappings.
func (a *app) apiImportRows(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	only := c.QueryParam("only")
	if only != "" && only != "invalid" && only != "duplicate" {
		return apperr.New(apperr.Invalid, "only must be invalid or duplicate")
	}
	page, per := pageParams(c)
	ctx := c.Request().Context()
	rows, total, err := imports.Rows(ctx, a.DB, imports.RowFilter{ImportID: im.ID, Only: only, Page: page, PerPage: per})
	if err != nil {
		return err
	}
	d, err := imports.Describe(ctx, a.DB, im)
	if err != nil {
		return err
	}
	if _, err := imports.AlreadyThere(ctx, a.DB, d, rows); err != nil {
		return err
	}
	data := make([]map[string]any, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		errs := r.Errors
		if errs == nil {
			errs = []string{}
		}
		row := map[string]any{
			"row_number": r.RowNumber, "line": r.Line, "valid": r.Valid, "duplicate": r.Duplicate,
			"errors": errs, "fields": r.Fields(im.Type),
		}
		if r.MatchedBy != "" {
			row["matched_by"] = r.MatchedBy
		}
		if w := r.Warnings(); len(w) > 0 {
			row["warnings"] = w
		}
		if len(r.Details) > 0 {
			row["details"] = r.Details
		}
		data = append(data, row)
	}
	ms, err := imports.Mappings(ctx, a.DB, im.ID)
	if err != nil {
		return err
	}
	if ms == nil {
		ms = []imports.Mapping{}
	}
	return c.JSON(http.StatusOK, map[string]any{"data": data, "mappings": ms, "meta": pageMeta(page, per, total)})
}

// apiImportMapping is PATCH /api/v1/imports/:id/mappings: points an account the file names
// at one of the family's accounts ({"key", "account_id"}) or at a new account of a type
// ({"key", "account_type"}).
func (a *app) apiImportMapping(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	var v apperr.Validation
	key, choice := body.str(&v, "key"), imports.AccountChoice{}
	if key == nil || strings.TrimSpace(*key) == "" {
		v.Add("key", "key is required: the account key of the mapping, as the rows endpoint lists it")
	}
	if id := body.str(&v, "account_id"); id != nil && strings.TrimSpace(*id) != "" {
		parsed, err := uuid.Parse(strings.TrimSpace(*id))
		if err != nil {
			v.Add("account_id", "Account must belong to your family")
		}
		choice.AccountID = &parsed
	} else if t := body.str(&v, "account_type"); t != nil {
		choice.NewType = strings.TrimSpace(*t)
	} else {
		v.Add("account_id", "Send account_id (an existing account) or account_type (a new account of that type)")
	}
	if err := v.Err(); err != nil {
		e := apperr.As(err)
		e.Message, e.Slug = "Mapping could not be changed", "validation_failed"
		return e
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	if err := a.Imports.SetAccountMapping(c.Request().Context(), viewer, im.ID, strings.TrimSpace(*key), choice); err != nil {
		return err
	}
	return a.importDetail(c, http.StatusOK, im.ID)
}

// apiImportPublish is POST /api/v1/imports/:id/publish: 202 once queued. An optional body
// says which likely duplicates to keep, which is recorded on the import first.
func (a *app) apiImportPublish(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	var req struct {
		KeepLikelyDuplicates *bool `json:"keep_likely_duplicates"`
		KeepRows             []int `json:"keep_rows"`
	}
	if body, err := io.ReadAll(c.Request().Body); err != nil {
		return a.bodyError(err, "The request body could not be read")
	} else if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return apperr.Wrap(apperr.BadRequest, err, "The request body must be a JSON object: "+err.Error())
		}
	}
	ctx := c.Request().Context()
	if req.KeepLikelyDuplicates != nil || len(req.KeepRows) > 0 {
		k := imports.KeepChoice{All: req.KeepLikelyDuplicates, Rows: map[int]bool{}}
		for _, n := range req.KeepRows {
			k.Rows[n] = true
		}
		if err := a.Imports.Keep(ctx, im.FamilyID, im.ID, k); err != nil {
			return err
		}
	}
	if err := a.Imports.Publish(ctx, im.FamilyID, im.ID); err != nil {
		return err
	}
	return a.importDetail(c, http.StatusAccepted, im.ID)
}

// apiImportRevert is POST /api/v1/imports/:id/revert: 202 once queued.
func (a *app) apiImportRevert(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	if err := a.Imports.Revert(c.Request().Context(), im.FamilyID, im.ID); err != nil {
		return err
	}
	return a.importDetail(c, http.StatusAccepted, im.ID)
}

// apiImportDelete is DELETE /api/v1/imports/:id.
func (a *app) apiImportDelete(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	if err := a.Imports.Delete(c.Request().Context(), im.FamilyID, im.ID); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiImportConfigure is PATCH /api/v1/imports/{id}: the stored file read again with the
// configuration fields of the body (those of create); the file itself cannot change.
func (a *app) apiImportConfigure(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	req, err := a.importRequest(c)
	if err != nil {
		if e := apperr.As(err); e != nil && e.Slug == "validation_failed" {
			e.Message = "Import could not be configured"
		}
		return err
	}
	if req.Upload.Present || req.Type != "" || req.Publish {
		return apperr.New(apperr.Invalid, "Only the configuration can change: create a new import for another file or type, and publish with POST .../publish.").
			WithSlug("not_configurable")
	}
	d, err := a.Imports.Reconfigure(c.Request().Context(), im.FamilyID, im.ID, req)
	if err != nil {
		return err
	}
	out, err := a.oneImportJSON(c.Request().Context(), d)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// importFile sends the import's original file, byte for byte.
func (a *app) importFile(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	if im.ByteSize == 0 {
		return apperr.New(apperr.NotFound, "This import has no file").WithSlug("not_found")
	}
	content, err := imports.Content(c.Request().Context(), a.DB, im.FamilyID, im.ID)
	if err != nil {
		return err
	}
	name := strings.NewReplacer(`"`, "", "\r", "", "\n", "").Replace(deref(im.Filename))
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	return c.Blob(http.StatusOK, "application/octet-stream", content)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nativePreflight answers a NativeImport preflight: the file's record counts, and every
// finding with its line, record type and field.
func (a *app) nativePreflight(c echo.Context, req imports.Request) error {
	res, err := a.Imports.PreflightNative(c.Request().Context(), req)
	if err != nil {
		return err
	}
	f := res.File
	errs, warnings := f.Problems, f.Warnings
	if errs == nil {
		errs = []imports.Finding{}
	}
	if warnings == nil {
		warnings = []imports.Finding{}
	}
	return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{
		"type": imports.NativeImport, "valid": f.Valid(),
		"content": map[string]any{"filename": res.Filename, "content_type": res.ContentType, "byte_size": res.ByteSize, "encoding": "UTF-8"},
		"stats": map[string]any{"rows_count": f.RowsCount, "valid_rows_count": f.ValidRowsCount, "invalid_rows_count": f.InvalidRowsCount(),
			"entity_counts": imports.AllCounts(f.Counts), "record_type_counts": f.RecordTypeCounts},
		"errors": errs, "warnings": warnings,
	}})
}

// colSepName is the name the API gives a column separator ("" for imports that have none).
func colSepName(sep string) string {
	return map[string]string{",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}[sep]
}

// quoteName is the API's name of the import's quote character: "" for files that are not CSV.
func quoteName(im *imports.Import) string {
	if colSepName(im.ColSep) == "" {
		return ""
	}
	if im.QuoteChar == "'" {
		return "single"
	}
	return "double"
}

// nonNil is s, or an empty list for nil, so that JSON says [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// oneImportJSON is importJSON with what a single import's responses add: how many of a
// pending import's rows are already in their account, and the notice that says it.
func (a *app) oneImportJSON(ctx context.Context, d *imports.Detail) (ImportJSON, error) {
	out := importJSON(d)
	m, err := imports.AlreadyThere(ctx, a.DB, d, nil)
	if err != nil {
		return out, err
	}
	out.Stats.PendingDuplicateRowsCount, out.Stats.PendingLikelyDuplicateRowsCount = m.Duplicates, m.Likely
	where := ""
	if d.AccountID != nil {
		acct, err := models.AccountByID(ctx, a.DB, models.FamilyViewer(d.FamilyID), *d.AccountID)
		if err != nil {
			return out, err
		}
		where = acct.Name
	}
	out.Notice = optional(imports.DuplicatesNotice(d, m, where))
	return out, nil
}

// optional is s, or nil for "", so that JSON says null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// uuidString is id as a string, or nil.
func uuidString(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	s := id.String()
	return &s
}
