package imports

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"tally/imports/parse"
	"tally/internal/apperr"
	"tally/internal/db"
)

// reconfigurable are the types whose file is read by a configuration a person can change.
var reconfigurable = []Type{TransactionImport, TradeImport, AccountImport, ExternalAppAImport, ExternalAppBImport,
	ExternalAppCImport, CategoryImport, MerchantImport, RuleImport}

// Reconfigure reads the stored file of the family's pending (or failed) import again with a
// changed configuration, so that a mapping can be fixed without uploading the file again. The
// fields req sets replace the import's; those it leaves out keep what the import had, except
// what was guessed, which is guessed again from the file as read now. The rows, mappings and
// counts are replaced in one transaction; a configuration that cannot read the file is refused
// and changes nothing.
func (s *Service) Reconfigure(ctx context.Context, familyID, id uuid.UUID, req Request) (*Detail, error) {
	done, err := s.Reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	im, err := Get(ctx, s.DB, familyID, id)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(reconfigurable, im.Type) {
		return nil, apperr.Errorf(apperr.Invalid, "A %s is read as the file says, with nothing to configure.", im.Type).WithSlug("not_configurable")
	}
	if err := configurable(im); err != nil {
		return nil, err
	}
	content, err := Content(ctx, s.DB, familyID, id)
	if err != nil {
		return nil, err
	}
	merged := requestFrom(im, req)
	merged.Upload = Upload{Content: content, Filename: deref(im.Filename), ContentType: deref(im.ContentType), FromFile: true, Present: true}
	p, err := s.prepare(ctx, merged)
	if err != nil {
		return nil, err
	}
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		cur, err := lockForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := configurable(cur); err != nil {
			return err
		}
		for _, q := range []string{"DELETE FROM import_rows WHERE import_id = ?", "DELETE FROM import_mappings WHERE import_id = ?"} {
			if _, err := tx.NewRaw(q, id).Exec(ctx); err != nil {
				return err
			}
		}
		copied, err := copyRows(ctx, tx, id, p.each)
		if err != nil {
			return err
		}
		next := p.im
		next.ID, next.RowsCount, next.ValidRowsCount = id, copied.total, copied.valid
		if _, err := tx.NewUpdate().Model(next).WherePK().
			Column("account_id", "rows_count", "valid_rows_count", "headers", "unmapped_columns", "skipped_rows", "guessed", "date_choices", "encoding").
			Column(configColumns...).
			Set("status = ?", StatusPending).Set("error = NULL").Set("problems = NULL").
			Set("status_changed_at = now()").Set("updated_at = now()").Exec(ctx); err != nil {
			return fmt.Errorf("update import: %w", err)
		}
		return syncMappings(ctx, tx, next, copied.keys)
	})
	if err != nil {
		return nil, err
	}
	im, err = Get(ctx, s.DB, familyID, id)
	if err != nil {
		return nil, err
	}
	return Describe(ctx, s.DB, im)
}

// configurable refuses an import whose rows are published or being worked on.
func configurable(im *Import) error {
	if im.Status != StatusPending && im.Status != StatusFailed {
		return apperr.Errorf(apperr.Conflict, "An import that is %s cannot be configured again: revert it first.", im.Status).WithSlug("not_configurable")
	}
	return nil
}

// configColumns are the imports columns that hold its Config.
var configColumns = []string{"date_col_label", "amount_col_label", "name_col_label", "category_col_label", "tags_col_label",
	"notes_col_label", "account_col_label", "entity_type_col_label", "currency_col_label", "qty_col_label", "ticker_col_label",
	"price_col_label", "exchange_operating_mic_col_label", "debit_col_label", "credit_col_label", "fee_col_label", "balance_col_label", "date_format", "number_format", "signage_convention", "col_sep",
	"amount_type_strategy", "amount_type_inflow_value", "rows_to_skip", "quote_char", "preset", "profile_id"}

// requestFrom is req completed by the import's configuration: each field req leaves out keeps
// the import's value, unless that value was a guess (or a default), which is left to be made
// again. A req that names a preset or a profile keeps nothing but the account.
func requestFrom(im *Import, req Request) Request {
	out := req
	out.Type, out.FamilyID, out.Publish = string(im.Type), im.FamilyID, false
	if im.UserID != nil {
		out.UserID = *im.UserID
	}
	if out.AccountID == nil && im.AccountID != nil {
		out.AccountID = strPtr(im.AccountID.String())
	}
	if req.Preset != nil || req.ProfileID != nil {
		// Another preset or profile: the file is read afresh with it and what req sets.
		return out
	}
	// The preset (or the absence of one) stays: it is not recognised again.
	out.Preset, out.keptProfile = strPtr(im.Preset), im.ProfileID
	kept := func(field string) bool { return !slices.Contains(im.Guessed, field) }
	out.Labels = map[string]*string{}
	for i, key := range columnKeys {
		if l := req.Labels[key]; l != nil {
			out.Labels[key] = l
		} else if l := im.Config.label(i); l != nil && kept(key+"_col_label") {
			out.Labels[key] = l
		}
	}
	if out.DateFormat == nil && im.DateFormat != nil && kept(guessedDateFormat) {
		out.DateFormat = im.DateFormat
	}
	if out.NumberFormat == nil && im.NumberFormat != string(parse.NumberUS) && kept(guessedNumberFormat) {
		out.NumberFormat = strPtr(im.NumberFormat)
	}
	if out.ColSep == nil && im.ColSep != "," && kept(guessedColSep) {
		out.ColSep = strPtr(im.ColSep)
	}
	if out.QuoteChar == nil && im.QuoteChar == "'" && kept(guessedQuote) {
		out.QuoteChar = strPtr(im.QuoteChar)
	}
	if out.RowsToSkip == nil && im.RowsToSkip > 0 && kept(guessedRowsToSkip) {
		out.RowsToSkip = &im.RowsToSkip
	}
	if out.SignageConvention == nil && kept(guessedSignage) {
		out.SignageConvention = strPtr(im.SignageConvention)
	}
	if out.AmountTypeStrategy == nil {
		out.AmountTypeStrategy = strPtr(im.AmountTypeStrategy)
	}
	if out.AmountTypeInflowValue == nil {
		out.AmountTypeInflowValue = im.AmountTypeInflowValue
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
