package password

import "testing"

func TestHashRoundTrip(t *testing.T) {
	h, err := Hash("s3cret password")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := Check(h, "s3cret password"); !ok || err != nil {
		t.Fatalf("right password refused: %v", err)
	}
	if ok, _ := Check(h, "s3cret passworD"); ok {
		t.Fatal("wrong password accepted")
	}
	if h2, _ := Hash("s3cret password"); h2 == h {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if _, err := Check("$2a$10$bcrypt", "x"); err == nil {
		t.Fatal("a foreign hash format was not reported")
	}
}

func TestValidate(t *testing.T) {
	for pw, bad := range map[string]bool{"": true, "1234567": true, "12345678": false, string(make([]byte, 1025)): true} {
		if got := Validate(pw) != ""; got != bad {
			t.Errorf("Validate(%d chars) refused=%v, want %v", len(pw), got, bad)
		}
	}
}
