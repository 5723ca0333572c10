package main

import (
	"net"
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestComposeFileFitsTheImage reads deploy/compose.yaml as Compose does (anchors and merge
// keys included): its health checks run this image's binary against each process's /readyz,
// its volume is the image's data directory, and it sets only variables the README documents.
func TestComposeFileFitsTheImage(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)`").FindAllStringSubmatch(string(readme), -1) {
		documented[m[1]] = true
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)`, `([A-Z_]+)`, `([A-Z_]+)`").FindAllStringSubmatch(string(readme), -1) {
		documented[m[1]], documented[m[2]], documented[m[3]] = true, true, true
	}

	probes := map[string]string{"web": "LISTEN_ADDR", "worker": "METRICS_ADDR"}
	for _, name := range []string{"migrate", "web", "worker"} {
		svc, ok := compose.Services[name]
		if !ok {
			t.Fatalf("no %s service", name)
		}
		if !strings.HasPrefix(svc.Image, "${TALLY_IMAGE:-tally:latest}") {
			t.Errorf("%s runs image %q, not the one make image names", name, svc.Image)
		}
		if !strings.Contains(strings.Join(svc.Volumes, " "), ":"+dataDir) {
			t.Errorf("%s mounts %v, not the image's data directory %s", name, svc.Volumes, dataDir)
		}
		for k := range svc.Environment {
			if !documented[k] {
				t.Errorf("%s sets %s, which the README's configuration table does not list", name, k)
			}
		}
		if !strings.HasPrefix(svc.Environment["DATABASE_URL"], "postgres://") || svc.Environment["SECRET_KEY_BASE"] == "" {
			t.Errorf("%s lacks the database or the secret: %v", name, svc.Environment)
		}
		addrVar, probed := probes[name]
		if !probed {
			continue
		}
		test := svc.Healthcheck.Test
		if len(test) < 3 || test[0] != "CMD" || test[1] != binaryPath || test[2] != "healthcheck" {
			t.Errorf("%s's health check %v does not run %s healthcheck", name, test, binaryPath)
			continue
		}
		_, port, err := net.SplitHostPort(svc.Environment[addrVar])
		if err != nil {
			t.Errorf("%s: %s %q: %v", name, addrVar, svc.Environment[addrVar], err)
			continue
		}
		// With no URL, tally healthcheck asks /readyz on LISTEN_ADDR.
		want := "http://127.0.0.1:" + port + "/readyz"
		if len(test) == 4 && test[3] != want || len(test) == 3 && addrVar != "LISTEN_ADDR" {
			t.Errorf("%s's health check %v does not ask %s", name, test, want)
		}
	}
	if got := compose.Services["worker"].Command; len(got) != 1 || got[0] != "worker" {
		t.Errorf("the worker service runs %v", got)
	}
}
