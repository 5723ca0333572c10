package imports

import "fmt"

// plural returns "1 row has problems" or "3 rows have problems".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func strPtr(s string) *string { return &s }
