package imports

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports/parse"
	"tally/imports/sniff"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// Profile is a mapping a person saved for one account: the next file into that account whose
// header is the same is read with it, with no questions.
type Profile struct {
	bun.BaseModel `bun:"table:import_profiles"`

	ID        uuid.UUID       `bun:"id,pk"`
	FamilyID  uuid.UUID       `bun:"family_id"`
	AccountID uuid.UUID       `bun:"account_id"`
	Name      string          `bun:"name"`
	Headers   []string        `bun:"headers,array"` // the file's header, as parse.HeaderKeys gives it
	Settings  ProfileSettings `bun:"settings,type:jsonb"`
	CreatedAt time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time       `bun:"updated_at,nullzero,default:now()"`
	LastUsed  *time.Time      `bun:"last_used_at"`
}

// ProfileSettings are the configuration a profile stands for, as the API names its fields.
type ProfileSettings struct {
	Labels                map[string]string `json:"labels"`
	DateFormat            string            `json:"date_format,omitempty"`
	NumberFormat          string            `json:"number_format,omitempty"`
	SignageConvention     string            `json:"signage_convention,omitempty"`
	ColSep                string            `json:"col_sep,omitempty"`
	QuoteChar             string            `json:"quote_char,omitempty"`
	RowsToSkip            int               `json:"rows_to_skip,omitempty"`
	AmountTypeStrategy    string            `json:"amount_type_strategy,omitempty"`
	AmountTypeInflowValue string            `json:"amount_type_inflow_value,omitempty"`
	Preset                string            `json:"preset,omitempty"`
}

// request is the configuration the profile stands for, as a request would send it.
func (p *Profile) request() Request {
	st := p.Settings
	req := Request{Labels: map[string]*string{}, RowsToSkip: &st.RowsToSkip}
	for k, v := range st.Labels {
		req.Labels[k] = strPtr(v)
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return strPtr(s)
	}
	req.DateFormat, req.NumberFormat, req.SignageConvention = opt(st.DateFormat), opt(st.NumberFormat), opt(st.SignageConvention)
	req.ColSep, req.AmountTypeStrategy, req.AmountTypeInflowValue = opt(st.ColSep), opt(st.AmountTypeStrategy), opt(st.AmountTypeInflowValue)
	req.QuoteChar = opt(st.QuoteChar)
	return req
}

// SaveProfile keeps the configuration of the family's transaction import as a profile for its
// account, named name, replacing the account's profile for the same header if there is one.
func (s *Service) SaveProfile(ctx context.Context, familyID, importID uuid.UUID, name string) (*Profile, error) {
	im, err := Get(ctx, s.DB, familyID, importID)
	if err != nil {
		return nil, err
	}
	switch {
	case im.Type != TransactionImport:
		return nil, apperr.New(apperr.Invalid, "Only a transaction CSV's mapping can be saved as a profile.").WithSlug("not_profilable")
	case im.AccountID == nil:
		return nil, apperr.New(apperr.Invalid, "A profile belongs to an account: this import has none, its rows name their accounts.").WithSlug("not_profilable")
	case len(im.Headers) == 0:
		return nil, apperr.New(apperr.Invalid, "This import has no header to recognise its file by.").WithSlug("not_profilable")
	}
	name = strings.TrimSpace(name)
	var v apperr.Validation
	if name == "" {
		v.Add("name", "Name can't be blank")
	}
	models.CheckText(&v, "name", "Name", name, models.MaxName)
	if v.Err() != nil {
		return nil, apperr.New(apperr.Invalid, "Profile could not be saved").WithSlug("validation_failed").WithFields(apperr.As(v.Err()).Fields)
	}
	c := im.Config
	st := ProfileSettings{Labels: map[string]string{}, NumberFormat: c.NumberFormat, SignageConvention: c.SignageConvention,
		ColSep: c.ColSep, QuoteChar: c.QuoteChar, RowsToSkip: c.RowsToSkip, AmountTypeStrategy: c.AmountTypeStrategy, Preset: c.Preset}
	for col, key := range columnKeys {
		if l := c.label(col); l != nil && *l != "" {
			st.Labels[key] = *l
		}
	}
	if c.DateFormat != nil {
		st.DateFormat = *c.DateFormat
	}
	if c.AmountTypeInflowValue != nil {
		st.AmountTypeInflowValue = *c.AmountTypeInflowValue
	}
	p := &Profile{ID: uuid.Must(uuid.NewV7()), FamilyID: familyID, AccountID: *im.AccountID, Name: name,
		Headers: parse.HeaderKeys(im.Headers), Settings: st}
	_, err = s.DB.NewInsert().Model(p).
		On("CONFLICT (account_id, headers) DO UPDATE").
		Set("name = EXCLUDED.name, settings = EXCLUDED.settings, updated_at = now()").
		Returning("*").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("save profile: %w", err)
	}
	return p, nil
}

// Profiles lists the family's profiles, of one account when accountID is set, by name.
func Profiles(ctx context.Context, idb bun.IDB, familyID uuid.UUID, accountID *uuid.UUID) ([]Profile, error) {
	var out []Profile
	q := idb.NewSelect().Model(&out).Where("family_id = ?", familyID).Order("name", "id")
	if accountID != nil {
		q.Where("account_id = ?", *accountID)
	}
	return out, q.Scan(ctx)
}

// ProfileByID is the family's profile with id; another family's is not found.
func ProfileByID(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) (*Profile, error) {
	p := new(Profile)
	err := idb.NewSelect().Model(p).Where("id = ? AND family_id = ?", id, familyID).Scan(ctx)
	if db.IsNoRows(err) {
		return nil, apperr.New(apperr.NotFound, "Import profile not found").WithSlug("not_found")
	}
	return p, err
}

// DeleteProfile removes the family's profile; imports read with it keep their configuration.
func (s *Service) DeleteProfile(ctx context.Context, familyID, id uuid.UUID) error {
	res, err := s.DB.NewDelete().Model((*Profile)(nil)).Where("id = ? AND family_id = ?", id, familyID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, "Import profile not found").WithSlug("not_found")
	}
	return nil
}

// readWith is how a transaction file is read before anything is guessed: a saved profile of
// its account, a bank's known export, or neither.
type readWith struct {
	preset  *BankPreset
	profile *uuid.UUID
}

// headerCandidate is a record near the top of a file that may be its header.
type headerCandidate struct {
	sep    rune
	line   int // 1-based
	fields []string
}

// headLimit is how much of a file is looked at for its header.
const headLimit = 64 << 10

// headText is the top of content, as text, that its header is looked for in.
func headText(content []byte) string {
	head := content
	if len(head) > headLimit {
		// Cut at a line end, so that no character is cut in half (which would make the
		// head look like another encoding).
		head = head[:bytes.LastIndexByte(head[:headLimit], '\n')+1]
	}
	text, _ := parse.Text(head)
	return strings.TrimPrefix(text, "\ufeff")
}

// fileHead is the records of the top of a file's text (headText) that may be its header, read
// with each separator.
func fileHead(text string) []headerCandidate {
	var out []headerCandidate
	for _, sep := range sniff.Separators {
		recs, lines := sniff.Records(text, sep, 40)
		for i, r := range recs {
			if len(r) > 1 {
				out = append(out, headerCandidate{sep: sep, line: lines[i], fields: r})
			}
		}
	}
	return out
}

// chooseMapping decides how req's transaction file is read: the profile it names, or the
// preset it names ("" for none); failing both, the account's profile for the file's header,
// else the bank export the header is. The choice fills what req leaves unset; what req sets
// wins. Problems with the names sent go to v.
func (s *Service) chooseMapping(ctx context.Context, req *Request, v *apperr.Validation) (readWith, error) {
	var m readWith
	var profile *Profile
	if req.ProfileID != nil && strings.TrimSpace(*req.ProfileID) != "" {
		var err error
		profile, err = familyRecord(*req.ProfileID, func(id uuid.UUID) (*Profile, error) { return ProfileByID(ctx, s.DB, req.FamilyID, id) })
		if err != nil {
			return m, err
		}
		if profile == nil {
			v.Add("profile_id", "Profile must be one of your family's saved import profiles")
		}
	}
	named := req.Preset != nil && strings.TrimSpace(*req.Preset) != ""
	if named {
		id := strings.TrimSpace(*req.Preset)
		if m.preset = BankPresetByID(id); m.preset == nil {
			v.Add("preset", fmt.Sprintf("Preset %q is not one of: %s", id, presetIDs()))
		}
	}
	if req.ProfileID == nil && req.Preset == nil && req.Upload.Present {
		heads := fileHead(headText(req.Upload.Content))
		var head *headerCandidate
		profile, head = s.accountProfile(ctx, req, heads)
		if profile == nil {
			m.preset, head = recognise(heads)
		}
		if head != nil {
			// The header is where the profile or preset found it.
			if req.ColSep == nil {
				req.ColSep = strPtr(string(head.sep))
			}
			if req.RowsToSkip == nil {
				skip := head.line - 1
				req.RowsToSkip = &skip
			}
		}
	}
	if profile != nil {
		m.profile = &profile.ID
		fill(req, profile.request())
		if m.preset == nil && profile.Settings.Preset != "" {
			m.preset = BankPresetByID(profile.Settings.Preset)
		}
		if _, err := s.DB.NewUpdate().Model(profile).Set("last_used_at = now()").WherePK().Exec(ctx); err != nil {
			return m, err
		}
	}
	if req.keptProfile != nil && m.profile == nil {
		m.profile = req.keptProfile
	}
	if m.preset != nil {
		fill(req, m.preset.request())
	}
	return m, nil
}

// accountProfile is the profile of req's account whose header is one of heads, and that
// header.
func (s *Service) accountProfile(ctx context.Context, req *Request, heads []headerCandidate) (*Profile, *headerCandidate) {
	if req.AccountID == nil {
		return nil, nil
	}
	acct, err := uuid.Parse(strings.TrimSpace(*req.AccountID))
	if err != nil {
		return nil, nil
	}
	profiles, err := Profiles(ctx, s.DB, req.FamilyID, &acct)
	if err != nil || len(profiles) == 0 {
		return nil, nil
	}
	for i := range heads {
		keys := parse.HeaderKeys(heads[i].fields)
		for j := range profiles {
			if slices.Equal(profiles[j].Headers, keys) {
				return &profiles[j], &heads[i]
			}
		}
	}
	return nil, nil
}

// recognise is the bank export whose header is one of heads (the longest header if several
// fit), and that header; a file with no header row is told by its first record, and has no
// header to give.
func recognise(heads []headerCandidate) (*BankPreset, *headerCandidate) {
	var best *BankPreset
	var at *headerCandidate
	for i := range heads {
		p := recognisePreset(heads[i].fields, nil)
		if p != nil && (best == nil || len(p.Header) > len(best.Header)) {
			best, at = p, &heads[i]
		}
	}
	if best == nil && len(heads) > 0 && heads[0].sep == ',' {
		return recognisePreset(nil, heads[0].fields), nil
	}
	return best, at
}

// familyRecord is the family's record that a client's id names, found with find, or nil: a
// malformed id and another family's record get the same answer.
func familyRecord[T any](raw string, find func(uuid.UUID) (*T, error)) (*T, error) {
	id, err := uuid.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, nil
	}
	r, err := find(id)
	if apperr.Is(err, apperr.NotFound) {
		return nil, nil
	}
	return r, err
}

// fill sets each field of req that is unset (or a blank label) to src's.
func fill(req *Request, src Request) {
	if req.Labels == nil {
		req.Labels = map[string]*string{}
	}
	for k, v := range src.Labels {
		// A blank label is no label (the upload form sends every field).
		if l := req.Labels[k]; l == nil || strings.TrimSpace(*l) == "" {
			req.Labels[k] = v
		}
	}
	for _, f := range []struct{ dst, src **string }{
		{&req.DateFormat, &src.DateFormat}, {&req.NumberFormat, &src.NumberFormat},
		{&req.SignageConvention, &src.SignageConvention}, {&req.ColSep, &src.ColSep}, {&req.QuoteChar, &src.QuoteChar},
		{&req.AmountTypeStrategy, &src.AmountTypeStrategy}, {&req.AmountTypeInflowValue, &src.AmountTypeInflowValue},
	} {
		if *f.dst == nil {
			*f.dst = *f.src
		}
	}
	if req.RowsToSkip == nil {
		req.RowsToSkip = src.RowsToSkip
	}
}
