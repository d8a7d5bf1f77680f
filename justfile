# The bake-off's user interface. Every recipe runs the harness on the pinned Node.js 24 that
# `npm ci` installs into node_modules (never the machine's own node).
# Recipe lines `exec` the harness, so that a signal to just (which forwards SIGTERM to its
# recipe) reaches the harness itself rather than a bash in between.
# `npx just --list` shows the recipes; `node_modules/.bin/node harness/cli.ts --help` the same CLI.

set shell := ["bash", "-euo", "pipefail", "-c"]
set positional-arguments

export PATH := justfile_directory() + "/node_modules/.bin:" + env_var("PATH")
harness := "node --disable-warning=ExperimentalWarning harness/cli.ts"

# List contenders, scenarios and profiles.
default: list

# The quick bake-off of every contender, then this run's own report (results/reports/<run-id>/) with an older run beside it as a reference, its overview printed once (README command 1). Takes bench-all's options (--driver, --quiet, --json: the report then goes to stderr).
bake-off *args:
    @exec {{harness}} bench-all --leaderboard "$@"

# Verify and measure one or more contenders: just bench fastify [--scenario json] [--profile quick]
bench +args:
    @exec {{harness}} bench "$@"

# Verify and measure every contender: just bench-all [--profile quick]
bench-all *args:
    @exec {{harness}} bench-all "$@"

# Sustainable requests/s at a p99 objective, open-loop (oha, else k6), for every contender: just capacity --scenario ping [--slo-p99 10]
capacity *args:
    @exec {{harness}} bench-all --profile capacity "$@"

# Every source claim in its source's own load shape, >= 5 rounds per cell, interleaved where the profile has them (about 68 min; prints the plan and expected duration first): just claims [--source NAME] [--claim ID] [--dry-run]
claims *args:
    @exec {{harness}} claims "$@"

# Why a stack is slow: one window per cell under the CPU profiler, CPU per request by package, difference from the baseline: just why express --scenario json [--duration 5]
why +args:
    @exec {{harness}} why "$@"

# Write results/LEADERBOARD.md and results/leaderboard.html (overview first) and print the terminal report (--details: every table); one run: just leaderboard --run ID [--out DIR] (into results/reports/<run-id>/)
leaderboard *args:
    @exec {{harness}} leaderboard "$@"

# The README's picture: the committed results/leaderboard.html rendered in Chromium (playwright-core; $CHROMIUM_PATH or /usr/bin/chromium) at 1366×768 into docs/report-overview.png, with docs/report-overview.json naming the report's runs. Run it after `just leaderboard` re-renders the committed report.
screenshot *args:
    @exec node scripts/checks/screenshot.ts "$@"

# The contract check only, no load: just verify [contender...]
verify *args:
    @exec {{harness}} verify "$@"

# Per cell: improved / regressed / no change between two runs (or --baseline NAME); --format md|json.
compare *args:
    @exec {{harness}} compare "$@"

# Save a run (default: the latest) as a named baseline: just baseline main [run-id]
baseline +args:
    @exec {{harness}} baseline "$@"

# Results as JSON (schema bakeoff-export v2), CSV, Markdown, HTML or terminal text: just export --format csv [--run ID] [--out FILE]; --format md --summary: a paste-able table per scenario
export *args:
    @exec {{harness}} export "$@"

# The harness's own resolution: 10 identical copies of a fixture and copies slowed 10% and 5%, in one run, judged pair by pair (false-difference rate, power; a benchmark, ~35 min). Its newest record is the report's how-sure line.
selftest *args:
    @exec {{harness}} selftest "$@"

# The steady-state reference: each contender alone on the server core with wrk (3 blocks of a fresh process of every contender, warmed 20 s, then 6 × 5 s windows in rotation; --design solo: 3 fresh processes each, 3 × 10 s windows, ABBA) into results/reference/<run-id>.json: just reference node-http fastify --scenario json,users; then: just reference-compare --reference ID --run BAKE-OFF-RUN
reference +args:
    @exec {{harness}} reference "$@"

# A bake-off run's ratios against a reference record: per row the bias and whether its 95% CI covers the reference ratio.
reference-compare +args:
    @exec {{harness}} reference-compare "$@"

# An in-run A/B of two builds of one contender (now vs a git revision), interleaved in one run; exit 1 on a regression: just ab fastify --ref HEAD~1 [--scenario json]
ab +args:
    @exec {{harness}} ab "$@"

# Install or build every optional tool it can (k6 via Go into ~/.cache/node-http-bakeoff/bin; as root apt's wrk and chromium), else print the command.
tools:
    @exec {{harness}} tools

# Each optional tool with its version; for a missing one, which cells are skipped or flagged and how to get it.
doctor:
    @exec {{harness}} doctor

# Start contenders under Docker Compose (needs a Docker engine): just compose-up [service...]
compose-up *services:
    @docker info >/dev/null 2>&1 || { echo "error: no Docker engine answers ('docker info' failed). Start Docker (or Docker Desktop) and retry; this machine may only have the docker client." >&2; exit 2; }
    @test -f compose/.env || { echo "error: compose/.env is missing: copy compose/.env.example to compose/.env and set the secrets." >&2; exit 2; }
    @node compose/gen-compose.ts --check >/dev/null
    @docker compose -f compose/docker-compose.yml --env-file compose/.env up -d --build --wait "$@"

# Stop and remove the compose stack.
compose-down:
    @docker info >/dev/null 2>&1 || { echo "error: no Docker engine answers ('docker info' failed); nothing to stop." >&2; exit 2; }
    @docker compose -f compose/docker-compose.yml --env-file compose/.env down -v

# Contenders, scenarios and profiles.
list:
    @exec {{harness}} list

# Copy contenders/_template to contenders/<name> and add its Docker Compose service (compose/gen-compose.ts).
new name:
    @exec {{harness}} new "$1"

# Type check (tsc, strict), formatter and linter (Biome), layer and cycle check (dependency-cruiser), no two harness/ files with one base name, no harness/ function over 100 lines, no tracker references or run ids in harness/, no harness/ comment naming a missing file or name, and no harness/ file over 500 lines outside its exception list.
check:
    tsc -p tsconfig.json
    tsc -p harness/report/exporters/html/tsconfig.json
    biome check
    depcruise harness compose test --config .dependency-cruiser.cjs
    node scripts/checks/check-layout.ts
    node scripts/checks/check-function-length.ts
    node scripts/checks/check-comments.ts

# The test tiers are folders: test/unit/ and test/integration/ (test/unit/tiers.test.ts checks
# that every test file is in one of them; a new file joins its tier by where it is written).
# Unit: analysis, report, store, the scheduler with fakes, the CLI's parsing and help, the docs'
# commands, the checks: no contender server, no load driver, no browser, no database.
# Integration: real servers on real sockets, the load drivers (wrk, autocannon, k6, oha),
# PostgreSQL, Chromium, copies of the repository, the fault cases.
# Shared helpers and fixtures stay in test/ (helpers.ts, fixtures.ts, fixtures/).

# The checks, then the optional tools (just tools), then the tests on real servers, PostgreSQL, autocannon, wrk, k6 (README command 2, and CI's; a test whose tool is missing is skipped with the reason).
test *args: check
    @{{harness}} tools || echo "tools: some optional tools are missing; the tests that need them are skipped with the reason"
    node --disable-warning=ExperimentalWarning --test --test-concurrency=1 --test-timeout=300000 "${@:-test/**/*.test.ts}"

# The unit tier only (139 s of CPU here, about 2.5 min on an idle machine; no checks, no tools, no servers): the tests to run while changing analysis, report, store, scheduler or CLI code. Before a commit: just check and just test.
test-unit *args:
    node --disable-warning=ExperimentalWarning --test --test-concurrency=1 --test-timeout=300000 'test/unit/**/*.test.ts' "$@"
