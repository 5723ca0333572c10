// Package db opens Tally's PostgreSQL database, runs its migrations and gives domain code
// transactions that bun queries and River job inserts share.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// DB is the application's database: bun for queries and the pgx pool under it for River.
type DB struct {
	*bun.DB
	Pool *pgxpool.Pool
}

// DefaultMaxConns is the pool's size unless the URL sets pool_max_conns. pgx's own default
// (four, or one per CPU) is too small for a process that works jobs: a publish holds one
// connection for its transaction and briefly takes a second for its progress, River holds one
// to listen, and requests take their own, so a few publishes at once could take every
// connection and wait on each other.
const DefaultMaxConns = 25

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = ProcessName
	// No JIT compilation: Tally's queries are short, and the planner's cost estimates of the
	// balance walks (correlated subqueries over entries) are high enough to have PostgreSQL
	// spend a second compiling a query that runs in milliseconds. A URL may still turn it on.
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	sqldb := stdlib.OpenDBFromPool(pool)
	return &DB{DB: bun.NewDB(sqldb, pgdialect.New()), Pool: pool}, nil
}

// Close closes bun's handle and the pool.
func (d *DB) Close() {
	_ = d.DB.Close()
	d.Pool.Close()
}

// Tx is one database transaction, usable from bun (IDB) and from pgx (Pgx), for example to
// insert a River job atomically with the rows it acts on.
type Tx struct {
	bun.IDB
	Pgx pgx.Tx
}

// InTx runs fn in a transaction and commits it when fn returns nil. bun queries on tx and pgx
// statements on tx.Pgx run on the same connection inside the same transaction.
func (d *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx Tx) error) (err error) {
	conn, err := d.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("take connection: %w", err)
	}
	defer conn.Close()

	var ptx pgx.Tx
	if err := conn.Raw(func(driverConn any) error {
		sc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", driverConn)
		}
		ptx, err = sc.Conn().Begin(ctx)
		return err
	}); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = ptx.Rollback(context.WithoutCancel(ctx))
			panic(p)
		}
	}()
	if err := fn(ctx, Tx{IDB: conn, Pgx: ptx}); err != nil {
		if rbErr := ptx.Rollback(context.WithoutCancel(ctx)); rbErr != nil && !errors.Is(rbErr, pgx.ErrTxClosed) {
			return errors.Join(err, fmt.Errorf("rollback: %w", rbErr))
		}
		return err
	}
	if err := ptx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsNoRows reports whether err means a query found nothing.
func IsNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows)
}
