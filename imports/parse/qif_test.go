package parse

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sureCCard is the credit card file of Sure's QIF tests.
const sureCCard = `!Type:CCard
D6/ 4'20
T-99.00
PMerchant A
LFees & Charges
^
D1/1'20
T500.00
POpening Balance
^
`

// parsedQIF is a QIF file read whole: what ReadQIF returns, and the records it handed over.
type parsedQIF struct {
	*QIF
	Records []QIFRecord
	Dropped []QIFDrop
}

func parseQIF(text string) (*parsedQIF, error) {
	out := &parsedQIF{}
	q, err := ReadQIF(text, func(r QIFRecord) bool { out.Records = append(out.Records, r); return true },
		func(d QIFDrop) bool { out.Dropped = append(out.Dropped, d); return true })
	out.QIF = q
	return out, err
}

func TestParseQIFCreditCard(t *testing.T) {
	q, err := parseQIF(sureCCard)
	if err != nil {
		t.Fatal(err)
	}
	want := &parsedQIF{
		QIF: &QIF{AccountType: "CCard", Opening: &QIFRecord{Line: 7, Date: "1/1/2020", Amount: "500.00", Payee: "Opening Balance"},
			Dates: []string{"6/4/2020"}},
		Records: []QIFRecord{{Line: 2, Date: "6/4/2020", Amount: "-99.00", Payee: "Merchant A", Category: "Fees & Charges"}},
	}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("parseQIF =\n%+v\nwant\n%+v", q, want)
	}
	if got := QIFDateFormat([]string{q.Records[0].Date, q.Opening.Date}, "%m/%d/%Y"); got != "%m/%d/%Y" {
		t.Fatalf("QIFDateFormat = %q, want %%m/%%d/%%Y", got)
	}
}

func TestParseQIFFullFile(t *testing.T) {
	text := strings.ReplaceAll(`!Option:AutoSwitch
!Account
NChecking
TBank
^
NVisa
TCCard
^
!Clear:AutoSwitch
!Type:Tag
NEUROPE2025
^
NNYC2023
DVoyage NYC 2023
^
!Type:Cat
NFood & Dining
DFood and dining expenses
E
^
NSalary
DSalary Income
I
^
NBonus
I
E
^
DNo name
^
!type:bank
D03/29'21
U-28,500.00
T-28,500.00
PVirement
L[TD - Minimum chequing]
C*
N1042
^
D10/ 1'20
U500.00
PPayment received
LFood & Dining/TRIP2025
MThanks
CX
^
D10/ 2'20
T-40.00
PGroceries
L--split--
SFood
EWeekly
$-30.00
SHousehold
$-10.00
^
D10/ 3'20
T-5.00
LCat/Tag1: Tag2
^
D10/ 4'20
T-6.00
LParent:Child
^
T-7.00
PNo date
^
D10/ 5'20
PNo amount
^
D10/ 6'20
Tabc
^
D10/ 7'20
T1.2.3
^
D10/ 8'20
T+5.00
^
D1/1'20
T100.00
Popening balance
^
D1/2'20
T100.00
POPENING BALANCE
^
!Type:Prices
"ACME",66.10,"10/ 1'20"
^
!Type:Bank
D10/ 9'20
T-1.00
PSecond account
^
!Type:Security
NACME Corp
SACME
TStock
^
NNo Ticker Fund
TMutual Fund
^
D10/10'20
T-2.00
PAfter the last header, without a caret
`, "\n", "\r\n")
	q, err := parseQIF(text)
	if err != nil {
		t.Fatal(err)
	}
	if q.AccountType != "Bank" {
		t.Errorf("AccountType = %q, want Bank (the first account section, in any case)", q.AccountType)
	}
	wantRecords := []QIFRecord{
		{Line: 32, Date: "03/29/2021", Amount: "-28500.00", Payee: "Virement", Transfer: "TD - Minimum chequing", Cleared: "*", Number: "1042"},
		{Line: 40, Date: "10/1/2020", Amount: "500.00", Payee: "Payment received", Category: "Food & Dining", Tags: []string{"TRIP2025"}, Memo: "Thanks", Cleared: "X"},
		{Line: 47, Date: "10/2/2020", Amount: "-40.00", Payee: "Groceries", Split: true},
		{Line: 57, Date: "10/3/2020", Amount: "-5.00", Category: "Cat", Tags: []string{"Tag1", "Tag2"}},
		{Line: 61, Date: "10/4/2020", Amount: "-6.00", Category: "Parent:Child"},
	}
	if !reflect.DeepEqual(q.Records, wantRecords) {
		t.Errorf("Records =\n%+v\nwant\n%+v", q.Records, wantRecords)
	}
	wantOpening := &QIFRecord{Line: 80, Date: "1/1/2020", Amount: "100.00", Payee: "opening balance"}
	if !reflect.DeepEqual(q.Opening, wantOpening) {
		t.Errorf("Opening = %+v, want %+v", q.Opening, wantOpening)
	}
	wantDropped := []string{
		"line 65: no date (D)",
		"line 68: no amount (T or U)",
		`line 71: amount "abc" is not a number`,
		`line 74: amount "1.2.3" is not a number`,
		`line 77: amount "+5.00" is not a number`,
		"line 84: a second opening balance (the first is on line 80)",
	}
	var dropped []string
	for _, d := range q.Dropped {
		dropped = append(dropped, d.String())
	}
	if !reflect.DeepEqual(dropped, wantDropped) {
		t.Errorf("Dropped =\n%s\nwant\n%s", strings.Join(dropped, "\n"), strings.Join(wantDropped, "\n"))
	}
	wantCategories := []QIFCategory{
		{Name: "Food & Dining", Description: "Food and dining expenses"},
		{Name: "Salary", Description: "Salary Income", Income: true},
		{Name: "Bonus"},
	}
	if !reflect.DeepEqual(q.Categories, wantCategories) {
		t.Errorf("Categories = %+v, want %+v", q.Categories, wantCategories)
	}
	if want := []string{"EUROPE2025", "NYC2023"}; !reflect.DeepEqual(q.Tags, want) {
		t.Errorf("Tags = %q, want %q", q.Tags, want)
	}
	if want := map[string]string{"ACME Corp": "ACME"}; !maps.Equal(q.Securities, want) {
		t.Errorf("Securities = %v, want %v", q.Securities, want)
	}
}

func TestParseQIFInvestments(t *testing.T) {
	q, err := parseQIF(`!Type:Security
NACME
SACME
^
!Type:Invst
D1/15'24
NBuy
YACME
I66.10
Q2.0
T132.20
O0.00
MFirst lot
^
D2/1'24
NDiv
YACME
T190.75
L[Brokerage Cash]
$190.75
^
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []QIFRecord{
		{Line: 6, Date: "1/15/2024", Action: "Buy", Security: "ACME", Price: "66.10", Quantity: "2.0", Amount: "132.20", Memo: "First lot"},
		{Line: 15, Date: "2/1/2024", Action: "Div", Security: "ACME", Amount: "190.75", Transfer: "Brokerage Cash"},
	}
	if q.AccountType != "Invst" || !reflect.DeepEqual(q.Records, want) {
		t.Fatalf("parseQIF = %q %+v, want Invst %+v", q.AccountType, q.Records, want)
	}
	if q.Securities["ACME"] != "ACME" {
		t.Errorf("Securities = %v", q.Securities)
	}
}

func TestParseQIFEdges(t *testing.T) {
	t.Run("no !Type header is not a QIF file", func(t *testing.T) {
		for _, text := range []string{"", "date,amount\n1,2\n", "D1/1/2020\nT5\n^\n", "!Account\nNx\n^\n"} {
			if _, err := parseQIF(text); err == nil || err.Error() != "not a QIF file: no !Type: header" {
				t.Errorf("parseQIF(%q) error = %v", text, err)
			}
		}
	})
	t.Run("only lists, no account section", func(t *testing.T) {
		q, err := parseQIF("!Type:Cat\nNRent\nE\n^\n")
		if err != nil || q.AccountType != "" || len(q.Records) != 0 || len(q.Categories) != 1 {
			t.Fatalf("parseQIF = %+v, %v", q, err)
		}
	})
	t.Run("old Mac line endings and a byte order mark", func(t *testing.T) {
		q, err := parseQIF("\ufeff!Type:Cash\rD1/2/2024\rT-3.50\rPBus\r^\r")
		want := []QIFRecord{{Line: 2, Date: "1/2/2024", Amount: "-3.50", Payee: "Bus"}}
		if err != nil || q.AccountType != "Cash" || !reflect.DeepEqual(q.Records, want) {
			t.Fatalf("parseQIF = %+v, %v", q, err)
		}
	})
	t.Run("header types in any case and spacing", func(t *testing.T) {
		for text, want := range map[string]string{
			"!TYPE:CCARD\n":     "CCard",
			"!Type:Oth  L\n":    "Oth L",
			"!type: oth a \n":   "Oth A",
			"!Type:INVST\n":     "Invst",
			"!Type:Memorized\n": "",
		} {
			q, err := parseQIF(text)
			if err != nil || q.AccountType != want {
				t.Errorf("parseQIF(%q).AccountType = %q, %v; want %q", text, q.AccountType, err, want)
			}
		}
	})
	t.Run("records before any header are ignored", func(t *testing.T) {
		q, err := parseQIF("D1/1/2020\nT5\n^\n!Type:Bank\nD1/2/2020\nT6\n^\n")
		if err != nil || len(q.Records) != 1 || q.Records[0].Amount != "6" {
			t.Fatalf("parseQIF = %+v, %v", q, err)
		}
	})
	t.Run("an opening balance without a date is dropped", func(t *testing.T) {
		q, err := parseQIF("!Type:Bank\nT5\nPOpening Balance\n^\n")
		if err != nil || q.Opening != nil || len(q.Dropped) != 1 || q.Dropped[0].Reason != "no date (D)" {
			t.Fatalf("parseQIF = %+v, %v", q, err)
		}
	})
}

// A reader of a large file stops it when it has what it needs: ReadQIF hands over nothing
// after a callback says no, and the dates it samples are the first distinct ones.
func TestReadQIFStopsWhenToldAndSamplesTheFirstDates(t *testing.T) {
	var b strings.Builder
	b.WriteString("!Type:Bank\n")
	for i := range 120 {
		fmt.Fprintf(&b, "D1/%d/2024\nT-1\n^\nD1/%d/2024\n^\n", i%60+1, i%60+1)
	}
	text := b.String()
	var records, drops int
	q, err := ReadQIF(text, func(QIFRecord) bool { records++; return records < 3 }, func(QIFDrop) bool { drops++; return true })
	if err != nil || records != 3 || drops != 2 {
		t.Fatalf("stopped at the third record: %d records, %d left out, %v; want 3 and 2", records, drops, err)
	}
	drops = 0
	if _, err := ReadQIF(text, nil, func(QIFDrop) bool { drops++; return drops < 5 }); err != nil || drops != 5 {
		t.Fatalf("stopped at the fifth record left out: %d, %v", drops, err)
	}
	q, err = ReadQIF(text, nil, nil)
	if err != nil || len(q.Dates) != qifDateSamples || q.Dates[0] != "1/1/2024" || q.Dates[qifDateSamples-1] != "1/50/2024" {
		t.Fatalf("dates %q, %v: want the first %d distinct", q.Dates, err, qifDateSamples)
	}
}

func TestSplitQIFCategory(t *testing.T) {
	tests := []struct {
		name, l            string
		category, transfer string
		tags               []string
	}{
		{"plain category", "Fees & Charges", "Fees & Charges", "", nil},
		{"transfer", "[Savings Account]", "", "Savings Account", nil},
		{"transfer with a slash in its name and a tag", "[Visa/MC]/Trip", "", "Visa/MC", []string{"Trip"}},
		{"split placeholder", "--Split--", "", "", nil},
		{"split placeholder in lower case", "--split--", "", "", nil},
		{"category and tag", "Food & Dining/TRIP2025", "Food & Dining", "", []string{"TRIP2025"}},
		{"category and tags", "Cat/Tag1:Tag2", "Cat", "", []string{"Tag1", "Tag2"}},
		{"sub-category stays whole", "Parent:Child", "Parent:Child", "", nil},
		{"tags only", "/Tag", "", "", []string{"Tag"}},
		{"blank tags dropped", "Cat/:a: :", "Cat", "", []string{"a"}},
		{"unclosed bracket is a category", "[Savings", "[Savings", "", nil},
		{"empty", "", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr, tags := splitQIFCategory(tt.l)
			if c != tt.category || tr != tt.transfer || !reflect.DeepEqual(tags, tt.tags) {
				t.Fatalf("splitQIFCategory(%q) = %q, %q, %q; want %q, %q, %q", tt.l, c, tr, tags, tt.category, tt.transfer, tt.tags)
			}
		})
	}
}

func TestNormalizeQIFDate(t *testing.T) {
	const thisYear = 2026
	tests := []struct{ name, in, want string }{
		{"apostrophe and padded day", "6/ 4'20", "6/4/2020"},
		{"apostrophe", "1/1'20", "1/1/2020"},
		{"apostrophe before a four-digit year", "6/ 4'2020", "6/4/2020"},
		{"apostrophe with dots", "04.06'20", "04.06.2020"},
		{"apostrophe with dashes", "04-06'20", "04-06-2020"},
		{"four-digit year unchanged", "04.06.2020", "04.06.2020"},
		{"ISO date unchanged", "2020-06-04", "2020-06-04"},
		{"eight digits unchanged", "20200604", "20200604"},
		{"spaces removed from numeric dates", " 6 / 4 / 2020 ", "6/4/2020"},
		{"two-digit year this year", "1/1/26", "1/1/2026"},
		{"two-digit year in the future is last century", "12/31/99", "12/31/1999"},
		{"two-digit year next year is last century", "1/1/27", "1/1/1927"},
		{"month name with a two-digit year", "26 Jan 20", "26 Jan 2020"},
		{"month name with collapsed spaces", "26   Jan  2026", "26 Jan 2026"},
		{"month name with an apostrophe", "26 Jan'20", "26 Jan 2020"},
		{"single trailing digit left alone", "1/1/5", "1/1/5"},
		{"two digits alone left alone", "20", "20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalizeQIFDate(tt.in, thisYear); got != tt.want {
				t.Fatalf("normalizeQIFDate(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestQIFDateFormat(t *testing.T) {
	tests := []struct {
		name     string
		dates    []string
		fallback string
		want     string
	}{
		{"US dates from Sure's test", []string{"6/4/2020", "1/1/2020"}, "%m/%d/%Y", "%m/%d/%Y"},
		{"ambiguous dates keep the fallback", []string{"6/4/2020", "1/1/2020"}, "%d/%m/%Y", "%d/%m/%Y"},
		{"a day over 12 settles day first", []string{"6/4/2020", "25/4/2020"}, "%m/%d/%Y", "%d/%m/%Y"},
		{"a day over 12 settles month first", []string{"6/4/2020", "4/25/2020"}, "%d/%m/%Y", "%m/%d/%Y"},
		{"dotted day-first dates", []string{"04.06.2020", "30.12.2019"}, "%m/%d/%Y", "%d.%m.%Y"},
		{"month names", []string{"26 Jan 2026", "3 Feb 2026"}, "%m/%d/%Y", "%d %b %Y"},
		{"ISO dates", []string{"2020-06-04"}, "%m/%d/%Y", "%Y-%m-%d"},
		{"nothing parses", []string{"yesterday", "soon"}, "%m/%d/%Y", "%m/%d/%Y"},
		{"no dates", nil, "%d.%m.%Y", "%d.%m.%Y"},
		{"most parsed wins over fallback", []string{"2020-06-04", "2020-06-05", "6/4/2020"}, "%m/%d/%Y", "%Y-%m-%d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QIFDateFormat(tt.dates, tt.fallback); got != tt.want {
				t.Fatalf("QIFDateFormat(%q, %q) = %q, want %q", tt.dates, tt.fallback, got, tt.want)
			}
		})
	}
}

func TestQIFDateFormatPrefersPlausibleDates(t *testing.T) {
	// Find a date near today+5y that is in range read day first and out of range read month
	// first, or the other way round.
	latest := time.Now().UTC().AddDate(5, 0, 0)
	inRange := func(y, m, d int) bool { return !time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).After(latest) }
	y := latest.Year()
	for m := 1; m <= 12; m++ {
		for d := 1; d <= 12; d++ {
			monthFirst, dayFirst := inRange(y, m, d), inRange(y, d, m)
			if monthFirst == dayFirst {
				continue
			}
			want := "%m/%d/%Y"
			if dayFirst {
				want = "%d/%m/%Y"
			}
			sample := fmt.Sprintf("%02d/%02d/%d", m, d, y)
			for _, fallback := range []string{"%m/%d/%Y", "%d/%m/%Y"} {
				if got := QIFDateFormat([]string{sample}, fallback); got != want {
					t.Fatalf("QIFDateFormat(%q, %q) = %q, want %q (latest plausible date %s)", sample, fallback, got, want, latest.Format(time.DateOnly))
				}
			}
			return
		}
	}
	t.Skipf("no date with one plausible reading near %s", latest.Format(time.DateOnly))
}

func TestQIFDateFormatSamplesAtMostFifty(t *testing.T) {
	var dates []string
	for i := range 50 {
		dates = append(dates, fmt.Sprintf("2020-01-%02d", i%28+1), fmt.Sprintf("2020-02-%02d", i%28+1))
	}
	// Past the first 50 distinct dates, day-first dates would outnumber the ISO ones.
	for i := range 200 {
		dates = append(dates, fmt.Sprintf("%d.01.2020", i%28+1))
	}
	if got := QIFDateFormat(dates, "%d.%m.%Y"); got != "%Y-%m-%d" {
		t.Fatalf("QIFDateFormat = %q, want %%Y-%%m-%%d from the first 50 distinct dates", got)
	}
}
