package budgets

import (
	"context"
	"time"

	"tally/models"
	"tally/reports"
)

// MonthWalked is Month, and how many months the carries of the categories walked to compute
// it: what a read costs beyond its queries.
func (s *Service) MonthWalked(ctx context.Context, fam *models.Family, month reports.Month, today time.Time) (*Month, int, error) {
	l, err := s.read(ctx, fam, models.FamilyViewer(fam.ID), month, month, today)
	if err != nil {
		return nil, 0, err
	}
	m, err := s.figures(ctx, fam, l, today)
	return m, l.walked, err
}
