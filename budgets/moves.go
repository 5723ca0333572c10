package budgets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/models"
	"tally/reports"
)

// maxReason bounds why a move was made.
const maxReason = 500

// Move is money moved from one category's budget to another's within a month.
type Move struct {
	ID       uuid.UUID       `bun:"id"`
	Month    time.Time       `bun:"month"`
	From     uuid.UUID       `bun:"from_category_id"`
	To       uuid.UUID       `bun:"to_category_id"`
	FromName string          `bun:"from_name,scanonly"`
	ToName   string          `bun:"to_name,scanonly"`
	Amount   decimal.Decimal `bun:"amount"`
	Currency string          `bun:"currency"`
	Reason   string          `bun:"reason"`
	// CreatedBy is the user who moved it (nil once that user is deleted), ByName their name.
	CreatedBy *uuid.UUID `bun:"created_by"`
	ByName    string     `bun:"by_name,scanonly"`
	CreatedAt time.Time  `bun:"created_at"`
	UndoneAt  *time.Time `bun:"undone_at"`
}

// MoveInput is a move to make.
type MoveInput struct {
	From, To uuid.UUID
	Amount   decimal.Decimal
	Reason   string
}

// Move moves in.Amount of the month's budget from one category to another, both the family's,
// recording who did it, when and why: the from category's line goes down and the to
// category's up. A move is at most what the from category has budgeted, so no line goes
// below zero. Problems are on from_category_id, to_category_id, amount and reason.
func (s *Service) Move(ctx context.Context, fam *models.Family, userID uuid.UUID, month reports.Month, in MoveInput) (*Move, error) {
	cats, err := s.categories(ctx, s.DB, fam.ID)
	if err != nil {
		return nil, err
	}
	var v apperr.Validation
	if cats[in.From] == nil {
		v.Add("from_category_id", "from_category_id is not one of your categories")
	}
	if cats[in.To] == nil {
		v.Add("to_category_id", "to_category_id is not one of your categories")
	} else if in.To == in.From {
		v.Add("to_category_id", "to_category_id must be another category than from_category_id")
	}
	if !in.Amount.IsPositive() {
		v.Add("amount", "amount must be more than zero")
	} else {
		validAmount(&v, "amount", in.Amount, fam.Currency)
	}
	if in.Reason = strings.TrimSpace(in.Reason); len([]rune(in.Reason)) > maxReason {
		v.Add("reason", fmt.Sprintf("reason is longer than %d characters", maxReason))
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	m := &Move{ID: uuid.Must(uuid.NewV7()), Month: month.First(), From: in.From, To: in.To, Amount: in.Amount,
		Currency: fam.Currency, Reason: in.Reason, CreatedBy: &userID}
	err = s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		id, err := ensureBudget(ctx, tx, fam, month)
		if err != nil {
			return err
		}
		have, err := lockedLine(ctx, tx, id, in.From)
		if err != nil {
			return err
		}
		if have.LessThan(in.Amount) {
			var v apperr.Validation
			v.Add("amount", fmt.Sprintf("%s has only %s budgeted in %s", cats[in.From].Name, have.StringFixed(int32(models.CurrencyDecimals(fam.Currency))), month))
			return v.Err()
		}
		to, err := lockedLine(ctx, tx, id, in.To)
		if err != nil {
			return err
		}
		if err := setLine(ctx, tx, fam, id, in.From, have.Sub(in.Amount)); err != nil {
			return err
		}
		if err := setLine(ctx, tx, fam, id, in.To, to.Add(in.Amount)); err != nil {
			return err
		}
		if err := tx.NewRaw(`
			INSERT INTO budget_moves (id, family_id, month, from_category_id, to_category_id, amount, currency, reason, created_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING created_at`,
			m.ID, fam.ID, m.Month, m.From, m.To, m.Amount, m.Currency, m.Reason, userID).Scan(ctx, &m.CreatedAt); err != nil {
			return fmt.Errorf("record move: %w", err)
		}
		return syncTotal(ctx, tx, id)
	})
	if err != nil {
		return nil, err
	}
	m.FromName, m.ToName = cats[in.From].Name, cats[in.To].Name
	return m, nil
}

// UndoMove moves the money of the family's move back, recording who undid it and when. A move
// undone already, or whose to category's line has since gone below the amount, is a conflict;
// another family's move, or one of another month, is not found.
func (s *Service) UndoMove(ctx context.Context, fam *models.Family, userID uuid.UUID, month reports.Month, moveID uuid.UUID) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var m Move
		err := tx.NewRaw(`SELECT id, month, from_category_id, to_category_id, amount, currency, reason, created_by, created_at, undone_at
			FROM budget_moves WHERE id = ? AND family_id = ? AND month = ? FOR UPDATE`, moveID, fam.ID, month.First()).Scan(ctx, &m)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "move not found")
		}
		if err != nil {
			return fmt.Errorf("move: %w", err)
		}
		if m.UndoneAt != nil {
			return apperr.New(apperr.Conflict, "This move was undone already.")
		}
		id, err := ensureBudget(ctx, tx, fam, month)
		if err != nil {
			return err
		}
		to, err := lockedLine(ctx, tx, id, m.To)
		if err != nil {
			return err
		}
		if to.LessThan(m.Amount) {
			return apperr.New(apperr.Conflict, "The category the money went to has less budgeted now than was moved: change its amount instead.")
		}
		from, err := lockedLine(ctx, tx, id, m.From)
		if err != nil {
			return err
		}
		if err := setLine(ctx, tx, fam, id, m.To, to.Sub(m.Amount)); err != nil {
			return err
		}
		if err := setLine(ctx, tx, fam, id, m.From, from.Add(m.Amount)); err != nil {
			return err
		}
		if _, err := tx.NewRaw(`UPDATE budget_moves SET undone_at = now(), undone_by = ? WHERE id = ?`, userID, m.ID).Exec(ctx); err != nil {
			return fmt.Errorf("undo move: %w", err)
		}
		return syncTotal(ctx, tx, id)
	})
}

// Moves returns the family's moves in month, the latest first.
func (s *Service) Moves(ctx context.Context, familyID uuid.UUID, month reports.Month) ([]Move, error) {
	var list []Move
	err := s.DB.NewRaw(`
		SELECT m.id, m.month, m.from_category_id, m.to_category_id, f.name AS from_name, t.name AS to_name, m.amount, m.currency,
			m.reason, m.created_by, coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email, '') AS by_name, m.created_at, m.undone_at
		FROM budget_moves m
		JOIN categories f ON f.id = m.from_category_id JOIN categories t ON t.id = m.to_category_id
		LEFT JOIN users u ON u.id = m.created_by
		WHERE m.family_id = ? AND m.month = ? ORDER BY m.created_at DESC, m.id DESC LIMIT 50`, familyID, month.First()).Scan(ctx, &list)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("moves of %s: %w", month, err)
	}
	return list, nil
}

// lockedLine returns the category's amount in the budget (zero without a line), the line
// locked until the transaction ends.
func lockedLine(ctx context.Context, tx bun.Tx, budgetID, categoryID uuid.UUID) (decimal.Decimal, error) {
	var amount decimal.Decimal
	err := tx.NewRaw(`SELECT budgeted_spending FROM budget_categories WHERE budget_id = ? AND category_id = ? FOR UPDATE`,
		budgetID, categoryID).Scan(ctx, &amount)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return decimal.Zero, fmt.Errorf("budget line: %w", err)
	}
	return amount, nil
}
