package mail

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"testing"
)

// smtpServer is a minimal SMTP server on loopback that records one conversation.
type smtpServer struct {
	ln       net.Listener
	auth     chan string
	envelope chan []string
	data     chan string
}

func startSMTP(t *testing.T) *smtpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{ln: ln, auth: make(chan string, 1), envelope: make(chan []string, 1), data: make(chan string, 1)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		say := func(line string) { io.WriteString(conn, line+"\r\n") }
		say("220 test ESMTP")
		var env []string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			cmd := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
			switch cmd {
			case "EHLO":
				say("250-test")
				say("250 AUTH PLAIN")
			case "AUTH":
				b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(line, "AUTH PLAIN "))
				s.auth <- string(b)
				say("235 ok")
			case "MAIL", "RCPT":
				env = append(env, line)
				say("250 ok")
			case "DATA":
				say("354 go on")
				var body strings.Builder
				for {
					l, err := r.ReadString('\n')
					if err != nil || l == ".\r\n" {
						break
					}
					body.WriteString(l)
				}
				s.envelope <- env
				s.data <- body.String()
				say("250 queued")
			case "QUIT":
				say("221 bye")
				return
			default:
				say("502 unknown")
			}
		}
	}()
	return s
}

func TestSMTPMailerDeliversOverSMTP(t *testing.T) {
	srv := startSMTP(t)
	u, _ := url.Parse("smtp://mailer:s3cret@" + srv.ln.Addr().String())
	m := &SMTPMailer{URL: u, From: "Tally <no-reply@tally.test>"}
	err := m.Send(context.Background(), Message{To: "ada@example.com", Subject: "Reset your Tally password", Body: "Open this link:\nhttps://x/y\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-srv.auth; got != "\x00mailer\x00s3cret" {
		t.Fatalf("AUTH PLAIN sent %q", got)
	}
	env := <-srv.envelope
	if len(env) != 2 || env[0] != "MAIL FROM:<no-reply@tally.test>" || env[1] != "RCPT TO:<ada@example.com>" {
		t.Fatalf("envelope %q", env)
	}
	data := <-srv.data
	for _, want := range []string{"Subject: Reset your Tally password\r\n", "To: ada@example.com\r\n", "Open this link:\r\nhttps://x/y\r\n"} {
		if !strings.Contains(data, want) {
			t.Fatalf("message lacks %q:\n%s", want, data)
		}
	}
}

func TestLogMailerWritesTheLink(t *testing.T) {
	var b strings.Builder
	m, err := New("", "Tally <no-reply@localhost>", slog.New(slog.NewTextHandler(&b, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), Message{To: "ada@example.com", Subject: "s", Link: "http://x/reset?token=abc"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "http://x/reset?token=abc") || !strings.Contains(b.String(), "ada@example.com") {
		t.Fatalf("log: %s", b.String())
	}
}
