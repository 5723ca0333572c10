// Package mail sends Tally's mail: over SMTP when SMTP_URL is set, else to the log, so that a
// self-hoster without a mail server can still reset a password.
package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Message is a plain-text mail.
type Message struct {
	To      string
	Subject string
	Body    string
	// Link is the message's one call to action, logged by LogMailer.
	Link string
}

// Mailer sends messages.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// New returns an SMTP mailer for smtpURL, or a LogMailer when it is empty.
func New(smtpURL, from string, log *slog.Logger) (Mailer, error) {
	if smtpURL == "" {
		return LogMailer{Log: log}, nil
	}
	u, err := url.Parse(smtpURL)
	if err != nil {
		return nil, fmt.Errorf("SMTP_URL: %w", err)
	}
	return &SMTPMailer{URL: u, From: from}, nil
}

// LogMailer writes each message's recipient, subject and link to the log.
type LogMailer struct{ Log *slog.Logger }

// Send logs m.
func (l LogMailer) Send(ctx context.Context, m Message) error {
	l.Log.InfoContext(ctx, "mail not sent: no SMTP_URL configured", "to", m.To, "subject", m.Subject, "link", m.Link)
	return nil
}

// SMTPMailer sends through an SMTP server: smtp:// with STARTTLS when offered, smtps:// with
// implicit TLS.
type SMTPMailer struct {
	URL  *url.URL
	From string
}

// Send delivers m.
func (s *SMTPMailer) Send(ctx context.Context, m Message) error {
	host := s.URL.Hostname()
	port := s.URL.Port()
	if port == "" {
		port = map[string]string{"smtp": "587", "smtps": "465"}[s.URL.Scheme]
	}
	addr := net.JoinHostPort(host, port)
	d := net.Dialer{Timeout: 10 * time.Second}
	var conn net.Conn
	var err error
	if s.URL.Scheme == "smtps" {
		conn, err = tls.DialWithDialer(&d, "tcp", addr, &tls.Config{ServerName: host})
	} else {
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return fmt.Errorf("connect to mail server %s: %w", addr, err)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("mail server %s: %w", addr, err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && s.URL.Scheme == "smtp" {
		if err := c.StartTLS(&tls.Config{ServerName: host}); err != nil {
			return fmt.Errorf("starttls: %w", err)
		}
	}
	if s.URL.User != nil {
		pw, _ := s.URL.User.Password()
		if err := c.Auth(smtp.PlainAuth("", s.URL.User.Username(), pw, host)); err != nil {
			return fmt.Errorf("mail server authentication: %w", err)
		}
	}
	from, err := mail.ParseAddress(s.From)
	if err != nil {
		return fmt.Errorf("MAIL_FROM %q: %w", s.From, err)
	}
	if err := c.Mail(from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	msg := "From: " + s.From + "\r\nTo: " + m.To + "\r\nSubject: " + m.Subject +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " + time.Now().UTC().Format(time.RFC1123Z) +
		"\r\n\r\n" + strings.ReplaceAll(m.Body, "\n", "\r\n")
	if _, err := w.Write([]byte(msg)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}
