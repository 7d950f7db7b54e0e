# Task runner. `npx just --list` shows every recipe.

set shell := ["bash", "-euo", "pipefail", "-c"]

pg_url := env_var_or_default("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")

# Generate templ views and bundle the front end.
build-assets:
    go tool templ generate -log-level error
    node islands/build.mjs

# Build the release binary (embeds static files, locales and migrations).
build: build-assets
    go build -o bin/crm ./cmd/crm

# Start the app on SQLite with the demo tenant (CRM_ADDR / DATABASE_URL override).
run: build
    ./bin/crm serve --demo

# Go runs on SQLite and PostgreSQL, then again under the race detector for the packages
# with background work (CSV imports, the reminder worker, and serve, which starts them).
# Every test: gofmt, go vet and the TypeScript types; Go; then the browser tests.
test: lint typecheck audit build check-postgres
    TEST_DATABASE_URL='{{pg_url}}' go test -count=1 ./...
    {{just_executable()}} fuzz
    TEST_DATABASE_URL='{{pg_url}}' go test -race -count=1 ./app/importer ./app/jobs ./cmd/crm
    node --test --test-concurrency=1 e2e/

# Generates the templ files first (vet compiles them; they come out gofmt-clean, so they
# are checked too). The API contract is linted too (lint-openapi).
# Fail listing the Go files gofmt would change, then go vet.
lint: build-assets lint-openapi
    @files=$(find . \( -path ./node_modules -o -path ./.git \) -prune -o -name '*.go' -print | xargs gofmt -l); if [ -n "$files" ]; then echo "gofmt would change these files (run gofmt -w on them):" >&2; echo "$files" >&2; exit 1; fi
    go vet ./...

# Lint docs/openapi.yaml with Redocly CLI's recommended rules (redocly.yaml); an error fails.
lint-openapi:
    npx redocly lint --format=stylish docs/openapi.yaml

# Runtime dependencies only: build tools are not shipped. Part of `test`.
# Fail on a known high or critical vulnerability in the JavaScript shipped to browsers.
audit:
    npm audit --omit=dev --audit-level=high

# For operators and releases: its database (vuln.go.dev) is not reachable from every
# build machine, so it is not part of `test` (docs/SECURITY.md).
# Known vulnerabilities in the Go code and modules it calls (govulncheck).
vulncheck:
    go run golang.org/x/vuln/cmd/govulncheck@latest ./...

# Each fuzz target for a few seconds (go test -fuzz; their seed corpora, f.Add and
# testdata/fuzz/, run with every `go test`). A crash is written to the package's
# testdata/fuzz/<target>/ and stays there as a test case. FUZZTIME=10s to dig longer.
fuzz:
    #!/usr/bin/env bash
    set -euo pipefail
    for target in \
        app/web:FuzzReadJSON app/web:FuzzReadForm app/web:FuzzListQuery \
        app/leads:FuzzLeadPayloads app/leads:FuzzLeadQuery app/clients:FuzzClientPayloads app/clients:FuzzClientQuery \
        app/reminders:FuzzReminderPayload app/documents:FuzzDocumentPayload app/settings:FuzzSettingsPayloads \
        app/imports:FuzzRunPayload app/session:FuzzLoginRequest app/contact:FuzzContactForm \
        app/validate:FuzzValidators app/importer:FuzzCSV; do
        go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime "${FUZZTIME:-4s}" "./${target%%:*}"
    done

# Type-check the front end (islands/, per tsconfig.json).
typecheck:
    npx tsc --noEmit -p tsconfig.json

# Go tests only, SQLite only (fast loop).
test-go: build-assets
    go test ./...

# Fail loudly when PostgreSQL is not reachable: the suite must run on both databases.
check-postgres:
    @go run ./cmd/pgcheck '{{pg_url}}' || (echo "PostgreSQL is not reachable at {{pg_url}}: start it (pg_ctlcluster 15 main start) or set TEST_DATABASE_URL" >&2; exit 1)

# Lighthouse (mobile, simulated Slow 4G) on the sign-in, home, lead and client lists, a lead
# page and the mobile list: 3 runs each (LH_RUNS), the median score and LCP. Not in `test`.
lighthouse: build
    node e2e/lighthouse.mjs

# Browser tests only.
e2e: build
    node --test --test-concurrency=1 e2e/

# Seeds 1,000,000 leads in each of two tenants on PostgreSQL and 1,000,000 on SQLite
# (reused by later runs; --reseed starts over), runs the real server on 127.0.0.1 and
# measures it with vegeta. Extra flags go to cmd/crmbench, e.g.
# `npx just bench --engines sqlite --leads 100000`.
# Lead list at scale: seed, serve, load, print the figures (docs/PERFORMANCE.md).
bench *FLAGS: build check-postgres
    TEST_DATABASE_URL='{{pg_url}}' go run ./cmd/crmbench --crm bin/crm {{FLAGS}}
