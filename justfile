# The bake-off's user interface. Every recipe runs the harness on the pinned Node.js 24 that
# `npm ci` installs into node_modules (never the machine's own node).
# `npx just --list` shows the recipes; `node_modules/.bin/node harness/cli.ts --help` the same CLI.

set shell := ["bash", "-euo", "pipefail", "-c"]
set positional-arguments

export PATH := justfile_directory() + "/node_modules/.bin:" + env_var("PATH")
harness := "node --disable-warning=ExperimentalWarning harness/cli.ts"

# List contenders, scenarios and profiles.
default: list

# The quick bake-off of every contender, then the leaderboard (README command 1).
bake-off *args:
    {{harness}} bench-all "$@"
    {{harness}} leaderboard

# Verify and measure one or more contenders: just bench fastify [--scenario json] [--profile quick]
bench +args:
    {{harness}} bench "$@"

# Verify and measure every contender: just bench-all [--profile quick]
bench-all *args:
    {{harness}} bench-all "$@"

# Render results/LEADERBOARD.md and a terminal table from the latest result of every cell.
leaderboard:
    {{harness}} leaderboard

# The contract check only, no load: just verify [contender...]
verify *args:
    {{harness}} verify "$@"

# Per cell: improved / regressed / no change between two runs (or --baseline NAME).
compare *args:
    {{harness}} compare "$@"

# Save a run (default: the latest) as a named baseline: just baseline main [run-id]
baseline +args:
    {{harness}} baseline "$@"

# The latest results as JSON (schema bakeoff-export v1), CSV or Markdown: just export --format csv
export *args:
    {{harness}} export "$@"

# Build the pinned k6 from its Go module into .tools/bin (when no k6 >= the pinned one is on PATH).
tools:
    {{harness}} tools

# Start contenders under Docker Compose (needs a Docker engine): just compose-up [service...]
compose-up *services:
    @docker info >/dev/null 2>&1 || { echo "error: no Docker engine answers ('docker info' failed). Start Docker (or Docker Desktop) and retry; this machine may only have the docker client." >&2; exit 2; }
    @test -f compose/.env || { echo "error: compose/.env is missing: copy compose/.env.example to compose/.env and set the secrets." >&2; exit 2; }
    docker compose -f compose/docker-compose.yml --env-file compose/.env up -d --build --wait "$@"

# Stop and remove the compose stack.
compose-down:
    @docker info >/dev/null 2>&1 || { echo "error: no Docker engine answers ('docker info' failed); nothing to stop." >&2; exit 2; }
    docker compose -f compose/docker-compose.yml --env-file compose/.env down -v

# Contenders, scenarios and profiles.
list:
    {{harness}} list

# Copy contenders/_template to contenders/<name>.
new name:
    {{harness}} new "$1"

# Type check (tsc, strict), formatter and linter (Biome), layer and cycle check (dependency-cruiser).
check:
    tsc -p tsconfig.json
    biome check
    depcruise harness compose test --config .dependency-cruiser.cjs

# The test suite (README command 2): the checks, then real servers, sockets, PostgreSQL, autocannon and k6 (built first if Go is there).
test *args: check
    {{harness}} tools || echo "k6 unavailable: the k6 tests will be skipped"
    node --disable-warning=ExperimentalWarning --test --test-concurrency=1 --test-timeout=300000 "${@:-test/**/*.test.ts}"
