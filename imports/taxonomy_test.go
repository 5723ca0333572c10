package imports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tally/imports"
)

// A rule file is read a line at a time as its rows are stored: its rows keep the numbers of
// their lines, counted at each line feed (a CRLF is one break), past blank lines before and
// after the header.
func TestRuleRowsNameTheirLines(t *testing.T) {
	im := newImporter(t)
	rule := func(name string) string {
		return name + `,transaction,true,,[{"condition_type":"transaction_name","operator":"like","value":"x"}],[{"action_type":"set_transaction_category","value":"Food"}]`
	}
	file := "\r\nname,resource_type,active,effective_date,conditions,actions\r\n" + rule("First") + "\r\n\r\n" +
		"Second,transaction,true,2024-13-01,[],[]\r\n" + rule("Third")
	d, err := im.s.Create(context.Background(), imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.RuleImport),
		Upload: imports.Upload{Content: []byte(file), Present: true}})
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := imports.Rows(context.Background(), im.d, imports.RowFilter{ImportID: d.Import.ID, Page: 1, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d line %d: %s %s", r.RowNumber, r.Line, r.Name, strings.Join(r.Errors, "; ")))
	}
	want := []string{"1 line 3: First ", `2 line 5: Second Effective date "2024-13-01" must be written YYYY-MM-DD; Rule must have at least one action`,
		"3 line 6: Third "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
