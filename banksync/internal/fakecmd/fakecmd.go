// Package fakecmd holds what the commands that run the bank fakes by hand share: main's
// signal handling, flag parsing and serving until the context ends.
package fakecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Main runs run with the process's arguments and output until an interrupt or SIGTERM, and
// exits 1 with the error, prefixed by name, if it fails.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		stop()
		os.Exit(1)
	}
}

// Parse parses args into flags, which print their errors and usage to stderr. done says the
// command ends here, with err: nil after -h (the usage is printed), else the bad flag.
func Parse(flags *flag.FlagSet, args []string, stderr io.Writer) (done bool, err error) {
	flags.SetOutput(stderr)
	if err := flags.Parse(args); errors.Is(err, flag.ErrHelp) {
		return true, nil
	} else if err != nil {
		return true, err
	}
	return false, nil
}

// Serve serves srv on ln until ctx ends, then calls stopping (when not nil) and shuts srv
// down, giving open requests 5 seconds. It returns nil after a clean shutdown.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, stopping func()) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if stopping != nil {
		stopping()
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
