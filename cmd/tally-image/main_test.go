package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// TestImage builds the image as `make image` does and reads the archive with archive/tar
// alone, so that the format is checked apart from the library that wrote it; then it runs
// the binary taken out of the image's layer.
func TestImage(t *testing.T) {
	binary := buildStatic(t)
	img, err := build(binary, options{Created: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "out", "tally-image.tar")
	if err := writeArchive(img, archive, "tally:latest"); err != nil {
		t.Fatal(err)
	}
	files := readTar(t, mustRead(t, archive))

	work := t.TempDir() // outlives the subtests, unlike theirs
	var extracted string
	t.Run("format", func(t *testing.T) {
		for n, body := range files {
			if hexSum, ok := strings.CutPrefix(n, "blobs/sha256/"); ok && !strings.HasSuffix(n, "/") {
				if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != hexSum {
					t.Errorf("blob %s has sha256 %x", n, sum)
				}
			}
		}
		if !strings.Contains(string(files["oci-layout"]), `"imageLayoutVersion"`) {
			t.Errorf("oci-layout: %q", files["oci-layout"])
		}

		var index struct {
			Manifests []struct {
				MediaType   string
				Digest      string
				Annotations map[string]string
				Platform    struct{ OS, Architecture string }
			}
		}
		unmarshal(t, files, "index.json", &index)
		if len(index.Manifests) != 1 {
			t.Fatalf("index.json lists %d manifests, want 1", len(index.Manifests))
		}
		desc := index.Manifests[0]
		if desc.Annotations["org.opencontainers.image.ref.name"] != "latest" || desc.Annotations["io.containerd.image.name"] != "docker.io/library/tally:latest" {
			t.Errorf("index.json annotations: %v", desc.Annotations)
		}
		if desc.Platform.OS != "linux" || desc.Platform.Architecture != runtime.GOARCH {
			t.Errorf("index.json platform: %+v", desc.Platform)
		}

		type descriptor struct{ MediaType, Digest string }
		var manifest struct {
			MediaType   string
			Config      descriptor
			Layers      []descriptor
			Annotations map[string]string
		}
		unmarshal(t, files, blobPath(desc.Digest), &manifest)
		if manifest.MediaType != "application/vnd.oci.image.manifest.v1+json" || manifest.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
			t.Errorf("manifest media types: %s, config %s", manifest.MediaType, manifest.Config.MediaType)
		}
		if manifest.Annotations["org.opencontainers.image.title"] != "Tally" {
			t.Errorf("manifest annotations: %v", manifest.Annotations)
		}
		if len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("manifest layers: %+v", manifest.Layers)
		}

		var config struct {
			Architecture, OS, Created string
			Config                    struct {
				User, WorkingDir string
				Entrypoint, Cmd  []string
				Env              []string
				ExposedPorts     map[string]struct{}
				Labels           map[string]string
			}
			RootFS struct {
				DiffIDs []string `json:"diff_ids"`
			}
		}
		unmarshal(t, files, blobPath(manifest.Config.Digest), &config)
		c := config.Config
		if c.User != "65532:65532" || !slices.Equal(c.Cmd, []string{"serve"}) || !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/tally"}) || c.WorkingDir != "/var/lib/tally" {
			t.Errorf("config: user %q, entrypoint %q, cmd %q, working dir %q", c.User, c.Entrypoint, c.Cmd, c.WorkingDir)
		}
		if !slices.Contains(c.Env, "LISTEN_ADDR=0.0.0.0:3000") || !slices.Contains(c.Env, "TALLY_DATA_DIR=/var/lib/tally") {
			t.Errorf("config env: %q", c.Env)
		}
		if _, ok := c.ExposedPorts["3000/tcp"]; !ok || c.Labels["org.opencontainers.image.title"] != "Tally" {
			t.Errorf("config: exposed ports %v, labels %v", c.ExposedPorts, c.Labels)
		}
		if config.OS != "linux" || config.Architecture != runtime.GOARCH || config.Created != "1970-01-01T00:00:00Z" {
			t.Errorf("config: os %q, architecture %q, created %q", config.OS, config.Architecture, config.Created)
		}

		// The Docker manifest.json names the same blobs.
		var docker []struct {
			Config   string
			RepoTags []string
			Layers   []string
		}
		unmarshal(t, files, "manifest.json", &docker)
		if len(docker) != 1 || docker[0].Config != blobPath(manifest.Config.Digest) || !slices.Equal(docker[0].RepoTags, []string{"tally:latest"}) ||
			!slices.Equal(docker[0].Layers, []string{blobPath(manifest.Layers[0].Digest)}) {
			t.Errorf("manifest.json: %+v", docker)
		}

		// The layer: the binary, passwd and group, /tmp and the data directory.
		compressed := files[blobPath(manifest.Layers[0].Digest)]
		zr, err := gzip.NewReader(bytes.NewReader(compressed))
		if err != nil {
			t.Fatal(err)
		}
		layerTar, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(layerTar); len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("diff ids %v, the layer's is %x", config.RootFS.DiffIDs, sum)
		}
		headers := map[string]*tar.Header{}
		layer := readTarHeaders(t, layerTar, headers)
		for name, want := range map[string]struct {
			mode     int64
			uid, gid int
		}{
			"usr/local/bin/tally": {0o755, 0, 0}, "etc/passwd": {0o644, 0, 0}, "etc/group": {0o644, 0, 0},
			"tmp/": {0o1777, 0, 0}, "var/lib/tally/": {0o750, 65532, 65532},
		} {
			h := headers[name]
			if h == nil {
				t.Errorf("the layer has no %s", name)
				continue
			}
			if h.Mode != want.mode || h.Uid != want.uid || h.Gid != want.gid || !h.ModTime.Equal(time.Unix(0, 0)) {
				t.Errorf("%s: mode %o, owner %d:%d, mtime %s", name, h.Mode, h.Uid, h.Gid, h.ModTime)
			}
		}
		if !strings.Contains(string(layer["etc/passwd"]), "tally:x:65532:65532::/var/lib/tally:/sbin/nologin\n") ||
			!strings.Contains(string(layer["etc/group"]), "tally:x:65532:\n") {
			t.Errorf("passwd %q, group %q", layer["etc/passwd"], layer["etc/group"])
		}

		extracted = filepath.Join(work, "tally")
		if err := os.WriteFile(extracted, layer["usr/local/bin/tally"], 0o755); err != nil {
			t.Fatal(err)
		}
	})
	if extracted == "" {
		t.FailNow()
	}

	t.Run("static", func(t *testing.T) {
		f, err := elf.Open(extracted)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the binary has a PT_INTERP program header: it needs a dynamic loader")
			}
		}
		if f.Section(".interp") != nil {
			t.Error("the binary has an .interp section")
		}
		if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
			t.Errorf("the binary needs shared libraries %v (%v)", libs, err)
		}
		// The image has no /usr/share/zoneinfo or /etc/ssl: the binary must carry both.
		content := mustRead(t, extracted)
		for _, s := range []string{"America/New_York", "x509roots/fallback"} {
			if !bytes.Contains(content, []byte(s)) {
				t.Errorf("the binary does not contain %q", s)
			}
		}
	})

	t.Run("runs", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("the image's binary runs on linux only")
		}
		// Only what the container would have: no PATH, no system roots or zoneinfo.
		env := []string{"SSL_CERT_FILE=/nonexistent", "SSL_CERT_DIR=/nonexistent", "ZONEINFO=/nonexistent"}
		help := exec.Command(extracted, "help")
		help.Env = env
		if out, err := help.CombinedOutput(); err != nil || !strings.Contains(string(out), "Usage: tally") {
			t.Fatalf("tally help: %v\n%s", err, out)
		}

		serve := exec.Command(extracted, "serve")
		serve.Env = append(env, "DATABASE_URL="+testkit.DatabaseURL(t), "SECRET_KEY_BASE="+strings.Repeat("s", 64), "LISTEN_ADDR=127.0.0.1:0")
		var stderr lockedBuffer
		serve.Stderr = &stderr
		stdout, err := serve.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := serve.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		urls := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			re := regexp.MustCompile(`listening on (http://(?:127\.0\.0\.1|localhost):\d+)`)
			for sc.Scan() {
				if m := re.FindStringSubmatch(sc.Text()); m != nil {
					select {
					case urls <- m[1]:
					default:
					}
				}
			}
			io.Copy(io.Discard, stdout)
			exited <- serve.Wait()
		}()
		t.Cleanup(func() {
			_ = serve.Process.Kill()
			<-exited
		})
		var url string
		select {
		case url = <-urls:
		case err := <-exited:
			exited <- err
			t.Fatalf("tally serve exited: %v\n%s", err, stderr.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("tally serve printed no address in 60s\n%s", stderr.String())
		}

		// Readiness includes the job worker, which may take a moment after the listener.
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := http.Get(url + "/readyz")
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
				err = errors.New(resp.Status + ": " + string(body))
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET /readyz: %v\n%s", err, stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
		}

		if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			if err != nil {
				t.Fatalf("tally serve after SIGTERM: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("tally serve still running 30s after SIGTERM\n%s", stderr.String())
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		again, err := build(binary, options{Created: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		second := filepath.Join(t.TempDir(), "tally-image.tar")
		if err := writeArchive(again, second, "tally:latest"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustRead(t, archive), mustRead(t, second)) {
			t.Error("two builds of the same binary gave different archives")
		}
	})

	t.Run("refuses a dynamic binary", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("needs a dynamically linked linux executable")
		}
		// The system's shell: the test binary itself is static, as make builds everything.
		sh, err := exec.LookPath("sh")
		if err != nil {
			t.Skip("no sh to try")
		}
		f, err := elf.Open(sh)
		if err != nil {
			t.Fatal(err)
		}
		interp := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
		f.Close()
		if !interp {
			t.Fatalf("%s is statically linked: the test needs a dynamic executable", sh)
		}
		if _, err := build(mustRead(t, sh), options{}); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
			t.Errorf("build of a dynamic binary: %v", err)
		}
	})
}

// buildStatic builds tally as `make image` does: static, for linux on this machine's
// architecture, without paths of this machine or symbols.
func buildStatic(t *testing.T) []byte {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tally-linux")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "tally/cmd/tally")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return mustRead(t, bin)
}

// readTar returns the regular files of a tar by name, failing on a duplicate.
func readTar(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	return readTarHeaders(t, b, map[string]*tar.Header{})
}

// readTarHeaders is readTar that also fills headers with every entry's header.
func readTarHeaders(t *testing.T, b []byte, headers map[string]*tar.Header) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if headers[h.Name] != nil {
			t.Fatalf("the tar has %s twice", h.Name)
		}
		headers[h.Name] = h
		if h.Typeflag == tar.TypeReg {
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = body
		}
	}
}

// blobPath is where an OCI layout keeps the blob of digest ("sha256:...").
func blobPath(digest string) string { return "blobs/" + strings.Replace(digest, ":", "/", 1) }

func unmarshal(t *testing.T, files map[string][]byte, name string, v any) {
	t.Helper()
	body, ok := files[name]
	if !ok {
		t.Fatalf("the archive has no %s", name)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lockedBuffer collects a process's stderr while the test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
