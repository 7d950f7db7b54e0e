// Command pgcheck exits non-zero unless the PostgreSQL server at the given URL answers;
// the test recipe uses it to fail loudly instead of silently skipping PostgreSQL.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pgcheck URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", os.Args[1])
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcheck:", err)
		os.Exit(1)
	}
}
