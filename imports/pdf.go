package imports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/imports/statement"
	"tally/internal/apperr"
)

// StatementInfo is what a PdfImport's statement says about itself, and whether its lines add
// up to it.
type StatementInfo struct {
	Extractor   string           `json:"extractor"` // pdftotext, go or llm
	Kind        string           `json:"kind"`      // bank or credit_card
	Opening     *decimal.Decimal `json:"opening_balance"`
	Closing     *decimal.Decimal `json:"closing_balance"`
	PeriodStart *time.Time       `json:"period_start,omitempty"`
	PeriodEnd   *time.Time       `json:"period_end,omitempty"`
	Currency    string           `json:"currency,omitempty"`
	Reconciled  bool             `json:"reconciled"`
	Problems    []string         `json:"problems,omitempty"`
}

// Extractors of a PdfImport.
const (
	ExtractorBuiltin = "builtin" // pdftotext -layout, else the pure-Go reader, then the statement parser
	ExtractorLLM     = "llm"     // an OpenAI-compatible model, when one is configured
)

// llmTimeout bounds a statement's extraction by a model.
const llmTimeout = 2 * time.Minute

// pdfRows reads a bank or credit-card statement into rows: one per transaction line, in the
// ledger's sign (money out is positive). Lines whose running balance does not follow carry
// the reason as a row error; whether the whole statement reconciles is kept on the import.
// The statement is read whole (its lines are checked against each other and its balances),
// and each row is built from its line as it is stored.
func (s *Service) pdfRows(ctx context.Context, up Upload, extractor string, im *Import, p *prepared) error {
	if !up.FromFile {
		return apperr.New(apperr.Invalid, "A PdfImport needs the statement as a multipart file upload (field file), not raw_file_content.").
			WithSlug("missing_content").WithFields(map[string][]string{"file": {"file is required: upload the statement PDF"}})
	}
	if !bytes.HasPrefix(up.Content, []byte("%PDF-")) {
		return apperr.New(apperr.Invalid, "Invalid file type. Please upload a PDF statement.").WithSlug("invalid_file_type")
	}
	pages, method, err := statement.ExtractText(ctx, up.Content)
	if err != nil {
		return extractionError("The PDF could not be read", err)
	}
	var st *statement.Statement
	switch extractor {
	case "", ExtractorBuiltin:
		st = statement.Parse(pages, statement.Options{})
	case ExtractorLLM:
		if s.LLM == nil {
			return apperr.New(apperr.Invalid, "No LLM extractor is configured on this server: set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL, or use extractor=builtin.").
				WithSlug("validation_failed").WithFields(map[string][]string{"extractor": {"extractor llm is not configured on this server"}})
		}
		ctx, cancel := context.WithTimeout(ctx, llmTimeout)
		defer cancel()
		if st, err = s.LLM.Extract(ctx, pages); err != nil {
			return extractionError("The LLM extractor could not read the statement", err)
		}
		method = ExtractorLLM
	default:
		return apperr.Errorf(apperr.Invalid, "extractor must be %s or %s", ExtractorBuiltin, ExtractorLLM).WithSlug("validation_failed").
			WithFields(map[string][]string{"extractor": {fmt.Sprintf("extractor must be %s or %s", ExtractorBuiltin, ExtractorLLM)}})
	}
	im.Statement = &StatementInfo{Extractor: method, Kind: st.Kind, Opening: st.Opening, Closing: st.Closing,
		PeriodStart: st.PeriodStart, PeriodEnd: st.PeriodEnd, Currency: st.Currency, Reconciled: st.Reconciled, Problems: st.Problems}
	im.Config.DateFormat = strPtr("%Y-%m-%d")
	p.each = func(yield func(*Row) bool) {
		for i, l := range st.Lines {
			if !yield(statementLineRow(i+1, l, st.Currency)) {
				return
			}
		}
	}
	return nil
}

// statementLineRow is line l of a statement in currency as row n.
func statementLineRow(n int, l statement.Line, currency string) *Row {
	r := &Row{Number: n, Line: l.LineNo, RecordID: uuid.Must(uuid.NewV7()),
		Extra: map[string]any{"page": l.Page, "text": l.Raw}}
	date := l.Date
	amount := l.Amount.Neg()
	r.Date, r.Amount = &date, &amount
	r.Name = firstNonBlank(strings.TrimSpace(l.Description), "Imported item")
	r.Currency = currency
	r.Raw[ColDate], r.Raw[ColName], r.Raw[ColAmount] = date.Format(time.DateOnly), l.Description, l.Amount.StringFixed(2)
	if l.Balance != nil {
		r.Extra["balance"] = l.Balance.StringFixed(2)
	}
	for _, prob := range l.Problems {
		r.fail(fmt.Sprintf("Page %d line %d: %s", l.Page, l.LineNo, prob))
	}
	return r
}

// statementProblem says why a statement's rows cannot be published, or "" when they can.
func statementProblem(st *StatementInfo) string {
	if st == nil || st.Reconciled {
		return ""
	}
	why := "its opening and closing balances were not both found"
	if len(st.Problems) > 0 {
		why = st.Problems[0]
	}
	return "The statement does not reconcile, so its rows cannot be trusted: " + why
}

// NewLLM returns the LLM extractor for an OpenAI-compatible endpoint, or nil when none is
// configured.
func NewLLM(baseURL, apiKey, model string) *statement.LLM {
	if baseURL == "" || model == "" {
		return nil
	}
	return &statement.LLM{BaseURL: baseURL, APIKey: apiKey, Model: model, HTTP: &http.Client{Timeout: llmTimeout}}
}

// extractionError turns a statement package error into the answer: the file's own problems
// are the client's (422, with the package's safe message), an unavailable model is 503, and
// anything else is an internal error whose detail is only logged.
func extractionError(what string, err error) error {
	var xe *statement.ExtractError
	if !errors.As(err, &xe) {
		return apperr.Wrap(apperr.Internal, err, what)
	}
	msg := what + ": " + xe.Public
	switch xe.Kind {
	case statement.ErrKindUpstream:
		return apperr.Wrap(apperr.Unavailable, errors.New(xe.Detail()), msg+". Try again later, or use extractor=builtin.").WithSlug("extractor_unavailable")
	case statement.ErrKindInternal:
		return apperr.Wrap(apperr.Internal, errors.New(xe.Detail()), what)
	}
	return apperr.Wrap(apperr.Invalid, errors.New(xe.Detail()), msg).WithSlug("invalid_pdf")
}
