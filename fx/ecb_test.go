package fx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func loadFeed(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// parseAll reads a document's days in order.
func parseAll(b []byte) ([]Day, error) {
	var days []Day
	err := ParseECB(bytes.NewReader(b), func(d Day) error { days = append(days, d); return nil })
	return days, err
}

func TestParseECBDailyFeed(t *testing.T) {
	days, err := parseAll(loadFeed(t, "eurofxref-daily.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || !days[0].Date.Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)) || len(days[0].Rates) != 30 {
		t.Fatalf("days %+v", days)
	}
	for code, want := range map[string]string{"USD": "1.0823", "JPY": "162.41", "GBP": "0.8412", "IDR": "17524.69"} {
		if got := days[0].Rates[code]; got.String() != want {
			t.Errorf("%s = %s, want %s", code, got, want)
		}
	}
}

func TestParseECBHistoryNewestFirst(t *testing.T) {
	days, err := parseAll(loadFeed(t, "eurofxref-hist.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range days {
		got = append(got, fmt.Sprintf("%s:%d", d.Date.Format(time.DateOnly), len(d.Rates)))
	}
	if strings.Join(got, " ") != "2026-03-02:4 2026-02-27:4 2026-02-26:4 1999-01-04:5" {
		t.Fatalf("days %v", got)
	}
	if r := days[3].Rates["CYP"]; r.String() != "0.58231" {
		t.Errorf("a currency the ECB no longer publishes: %s", r)
	}
}

// ecbDoc is a document of the ECB's shape with cubes as its days.
func ecbDoc(cubes string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<Cube>
` + cubes + `
	</Cube>
</gesmes:Envelope>`
}

// badDocs are documents ParseECB refuses, with the line, element and words its error has.
var badDocs = []struct {
	name, doc string
	line      int
	element   string
	want      string
}{
	{"a DTD", `<?xml version="1.0"?>
<!DOCTYPE gesmes:Envelope [<!ENTITY usd "1.0823">]>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"><Cube><Cube time="2026-03-02"><Cube currency="USD" rate="&usd;"/></Cube></Cube></gesmes:Envelope>`,
		2, "", "declares a DTD"},
	{"an external entity's DTD", `<!DOCTYPE x SYSTEM "file:///etc/passwd"><x/>`, 1, "", "declares a DTD"},
	{"another declaration", "<gesmes:Envelope>\n<!ELEMENT Cube ANY>\n</gesmes:Envelope>", 2, "", "<!ELEMENT> declaration"},
	{"an entity never declared", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="&usd;"/></Cube>`), 5, "",
		"only XML's own entities"},
	{"not well formed", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="1.08"></Cube>`), 7, "", "not well formed"},
	{"cut short", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="1.08"/></Cube>`)[:200], 3, "", "unexpected EOF"},
	{"another document", "<html>\n<body>Service unavailable</body></html>", 1, "html", "not the ECB's reference rates"},
	{"empty", "", 1, "", "no day of rates"},
	{"no days", ecbDoc(""), 7, "", "no day of rates"},
	{"a date that is not one", ecbDoc(`<Cube time="2026-02-30"><Cube currency="USD" rate="1.08"/></Cube>`), 5, "Cube", `time "2026-02-30"`},
	{"a date before the euro", ecbDoc(`<Cube time="1998-12-31"><Cube currency="USD" rate="1.08"/></Cube>`), 5, "Cube", "from 1999"},
	{"a day twice", ecbDoc("<Cube time=\"2026-03-02\"/>\n<Cube time=\"2026-03-02\"/>"), 6, "Cube", "2026-03-02 is listed twice"},
	{"a day inside a day", ecbDoc(`<Cube time="2026-03-02"><Cube time="2026-03-01"/></Cube>`), 5, "Cube", "inside another day's"},
	{"a rate outside a day", ecbDoc(`<Cube currency="USD" rate="1.08"/>`), 5, "Cube", "outside a day"},
	{"a rate too deep", ecbDoc(`<Cube time="2026-03-02"><Cube><Cube currency="USD" rate="1.08"/></Cube></Cube>`), 5, "Cube",
		"must name a currency"},
	{"a code in lower case", ecbDoc(`<Cube time="2026-03-02"><Cube currency="usd" rate="1.08"/></Cube>`), 5, "Cube", `currency "usd"`},
	{"the euro against itself", ecbDoc(`<Cube time="2026-03-02"><Cube currency="EUR" rate="1"/></Cube>`), 5, "Cube", `currency "EUR"`},
	{"a currency twice", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="1.08"/><Cube currency="USD" rate="1.09"/></Cube>`), 5,
		"Cube", "USD is listed twice on 2026-03-02"},
	{"a rate that is not a number", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="N/A"/></Cube>`), 5, "Cube",
		`rate "N/A" of USD must be a number`},
	{"a negative rate", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="-1.08"/></Cube>`), 5, "Cube", "must be a number"},
	{"a zero rate", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="0.0000"/></Cube>`), 5, "Cube", "greater than zero"},
	{"a rate of 13 decimals", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD" rate="1.0823000000001"/></Cube>`), 5, "Cube",
		"more than 12 decimals"},
	{"a rate without its value", ecbDoc(`<Cube time="2026-03-02"><Cube currency="USD"/></Cube>`), 5, "Cube", `rate "" of USD`},
	{"something else in a cube", ecbDoc(`<Cube time="2026-03-02"><Rate currency="USD" rate="1.08"/></Cube>`), 5, "Rate",
		"only <Cube> elements"},
	{"nested too deep", "<gesmes:Envelope>" + strings.Repeat("<a>", 20) + strings.Repeat("</a>", 20) + "</gesmes:Envelope>", 1, "a",
		"nested more than 16 deep"},
}

func TestParseECBRefusesWhatIsNotTheECBsRates(t *testing.T) {
	for _, tc := range badDocs {
		t.Run(tc.name, func(t *testing.T) {
			days, err := parseAll([]byte(tc.doc))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (days %v), want a *ParseError", err, days)
			}
			if pe.Line != tc.line || pe.Element != tc.element || !strings.Contains(pe.Msg, tc.want) {
				t.Errorf("error at line %d in <%s>: %q; want line %d in <%s> saying %q", pe.Line, pe.Element, pe.Msg, tc.line, tc.element, tc.want)
			}
			if tc.element != "" && !strings.Contains(err.Error(), fmt.Sprintf("line %d, <%s>", tc.line, tc.element)) {
				t.Errorf("the message %q does not name the line and element", err)
			}
		})
	}
}

func TestParseECBStopsAtTheCallersError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ParseECB(bytes.NewReader(loadFeed(t, "eurofxref-hist.xml")), func(Day) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("error %v after %d days", err, n)
	}
}

func TestParseECBWrapsTheReadersError(t *testing.T) {
	broken := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`<gesmes:Envelope><Cube><Cube time="2026-03-02">`), &failingReader{broken})
	if err := ParseECB(r, func(Day) error { return nil }); !errors.Is(err, broken) {
		t.Fatalf("error %v, want the reader's", err)
	}
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

// TestParseECBStreamsTheHistory parses 30 years of 32 currencies as they are written: the
// first day arrives while nearly all of the document is still to come, so the parser holds a
// day, not the document.
func TestParseECBStreamsTheHistory(t *testing.T) {
	const days, currencies = 7800, 32
	pr, pw := io.Pipe()
	var written atomic.Int64
	go func() {
		io.WriteString(pw, `<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"><Cube>`)
		start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		for i := range days {
			var b strings.Builder
			fmt.Fprintf(&b, "<Cube time='%s'>", start.AddDate(0, 0, -i).Format(time.DateOnly))
			for c := range currencies {
				fmt.Fprintf(&b, "<Cube currency='%c%cX' rate='%d.%04d'/>", 'A'+c/26, 'A'+c%26, 1+i%500, c)
			}
			b.WriteString("</Cube>\n")
			n, _ := io.WriteString(pw, b.String())
			written.Add(int64(n))
		}
		io.WriteString(pw, "</Cube></gesmes:Envelope>")
		pw.Close()
	}()
	n, rates := 0, 0
	var writtenAtFirst int64
	err := ParseECB(pr, func(d Day) error {
		if n == 0 {
			writtenAtFirst = written.Load()
		}
		n, rates = n+1, rates+len(d.Rates)
		return nil
	})
	if err != nil || n != days || rates != days*currencies {
		t.Fatalf("%d days, %d rates, error %v", n, rates, err)
	}
	if total := written.Load(); writtenAtFirst > total/100 {
		t.Errorf("the first day came after %d of %d bytes were written: the document was read whole", writtenAtFirst, total)
	}
}
