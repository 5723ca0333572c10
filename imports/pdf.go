package imports

import (
	"time"

	"github.com/shopspring/decimal"
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
