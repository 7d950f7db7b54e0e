# Task runner. `npx just --list` shows every recipe.

set shell := ["bash", "-euo", "pipefail", "-c"]

pg_url := env_var_or_default("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")

# Every go command builds with -trimpath: without it the build cache keys each of the
# project's packages by the folder it is in, so a second checkout on the same machine (a
# clean clone for CI, a worktree) compiled everything again, 2 m 10 s of `go vet` and test
# binaries against 43 s (docs/PERFORMANCE.md, "Fifty-second round"). The binary names no
# folder of the machine that built it, too. A GOFLAGS of the caller's own is kept.
export GOFLAGS := trim(env_var_or_default("GOFLAGS", "") + " -trimpath")

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
# with background work (CSV imports, the reminder worker, the mail sender, and serve, which starts them),
# and SQLite's mutexes, which the connections of those goroutines share (app/store/sqlitemutex).
# modernc.org's packages (SQLite's engine, translated from C) are instrumented too. Leaving
# them out made the SQLite tests four times quicker, but the detector then reported races
# inside encoding/json's encoder cache in cmd/crm's tests, 3 runs in 18, and none in 18 with
# them instrumented: what the uninstrumented code did to memory it could not see
# (docs/PERFORMANCE.md, "Seventeenth round").
# `lint` has run every vet check, so `go test` runs none of its own (-vet=off): its subset
# would only vet the same packages again on a machine whose cache is cold.
# `go test` keeps the test binaries it links (-o DIR/, the packages that have tests: a
# package without has no binary, and two of them share a name with one that has), and the
# fuzz step runs its targets in them instead of linking eleven again (22 s).
# Every test: gofmt, go vet and the TypeScript types; Go; then the browser tests.
test: lint typecheck audit build check-postgres
    #!/usr/bin/env bash
    set -euo pipefail
    bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
    pkgs=$(go list -f '{{{{if or .TestGoFiles .XTestGoFiles}}{{{{.ImportPath}}{{{{end}}' ./...)
    TEST_DATABASE_URL='{{pg_url}}' go test -count=1 -vet=off -o "$bin/" $pkgs
    FUZZ_BINARIES="$bin" {{just_executable()}} fuzz quick
    TEST_DATABASE_URL='{{pg_url}}' go test -race -vet=off -count=1 ./app/importer ./app/jobs ./app/mail ./app/store/sqlitemutex ./cmd/crm
    node --test --test-concurrency=1 --test-timeout=180000 e2e/

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

# Each fuzz target of app/ and cmd/ (every `func Fuzz…` is found; their seed corpora, f.Add and
# testdata/fuzz/, run with every `go test`). A crash is written to the package's
# testdata/fuzz/<target>/ and stays there as a test case. Two ways to run them:
# - `npx just fuzz` (guided, to dig): each package's test binary built once with coverage
#   instrumentation (go test -c -fuzz), each target 3,000 executions; FUZZTIME=100000x to dig
#   longer.
# - `npx just fuzz quick` (part of `test`): the same targets in the test binaries `go test`
#   has just linked (FUZZ_BINARIES, the folder `test` has them in; without it the recipe links
#   them itself), without instrumentation: random mutations of the seeds, 50,000 executions
#   each. Instrumenting compiles every package a binary links a second time, the standard
#   library's included (343 s of a cold CI machine's run, docs/PERFORMANCE.md "Thirteenth
#   round"); the quick run costs a link a package.
fuzz MODE="guided":
    #!/usr/bin/env bash
    # A count of executions, not a duration: Go 1.26's fuzz coordinator can fail a target
    # with "context deadline exceeded" when a duration ends while a worker is busy (a race
    # in the coordinator, go.dev/issue/75804, fixed in Go 1.27).
    set -euo pipefail
    case "{{MODE}}" in
        guided) runs="${FUZZTIME:-3000x}" ;;
        quick) runs="${FUZZTIME:-50000x}" ;;
        *) echo "just fuzz: MODE is guided or quick, not {{MODE}}" >&2; exit 2 ;;
    esac
    cache=$(go env GOCACHE)/fuzz
    dirs=$(grep -l '^func Fuzz' app/*/*_test.go app/*/*/*_test.go cmd/*/*_test.go 2>/dev/null | xargs -n1 dirname | sort -u)
    if [ "{{MODE}}" = quick ] && [ -n "${FUZZ_BINARIES:-}" ]; then
        # `just test`'s go test has just linked them (<package>.test) into this folder.
        bin=$FUZZ_BINARIES
    else
        bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
        if [ "{{MODE}}" = quick ]; then
            # One go command links every binary (<package>.test), as many at once as there
            # are cores, instead of one after the other.
            go test -c -o "$bin/" $(printf './%s ' $dirs)
        fi
    fi
    for dir in $dirs; do
        targets=$(grep -h -o '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | cut -d' ' -f2)
        pkg=$(go list "./$dir")
        exe="$bin/$(basename "$dir").test"
        if [ "{{MODE}}" = guided ]; then
            # -fuzz builds with coverage instrumentation, one package at a time.
            go test -c -fuzz "^$(echo "$targets" | head -n1)\$" -o "$exe" "./$dir"
        fi
        for t in $targets; do
            echo "fuzz ({{MODE}}) $pkg $t"
            # (quick: the binary warns once a target that it has no coverage to guide it)
            (cd "$dir" && "$exe" -test.run '^$' -test.fuzz "^$t\$" -test.fuzztime "$runs" -test.fuzzcachedir "$cache/{{MODE}}/$pkg" 2>&1 | grep -v '^warning: the test binary was not built with coverage')
        done
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

# Screenshots of every admin page and mobile screen at 360 and 1280 px wide, written to
# e2e/screenshots/ while the layout checks run (`just test` runs the checks without them).
screenshots: build
    E2E_SCREENSHOTS=1 node --test --test-concurrency=1 --test-timeout=180000 e2e/layout-phone.test.mjs e2e/layout-laptop.test.mjs

# Browser tests only.
e2e: build
    node --test --test-concurrency=1 --test-timeout=180000 e2e/

# Seeds 1,000,000 leads in each of two tenants on PostgreSQL and 1,000,000 on SQLite
# (reused by later runs; --reseed starts over), runs the real server on 127.0.0.1 and
# measures what issue 13 budgets: sequential cases (list, view, searches, stage + status by
# name, dashboards), the same SQL run directly, fixed-rate and mixed loads with vegeta, the
# highest mixed rate, sizes per million leads, the CSV import; then prints each figure
# against its budget and a Markdown table for docs/PERFORMANCE.md. Extra flags go to
# cmd/crmbench, e.g. `npx just bench --engines sqlite --leads 100000` or
# `npx just bench --cases seq,direct --seq 100` (parts: rates, seq, direct, mixed, maxrate,
# sizes, import). Needs a quiet machine: it warns when the load average is above 1.5, and
# refuses to start while another run holds the machine (cmd/crmbench/runlock.go).
# Lead list at scale and issue 13's budgets: seed, serve, measure, print (docs/PERFORMANCE.md).
bench *FLAGS: build check-postgres
    TEST_DATABASE_URL='{{pg_url}}' go run ./cmd/crmbench --crm bin/crm {{FLAGS}}
