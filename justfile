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

# Contenders, scenarios and profiles.
list:
    {{harness}} list

# Copy contenders/_template to contenders/<name>.
new name:
    {{harness}} new "$1"

# The test suite (README command 2): real servers, real sockets, real autocannon.
test *args:
    node --disable-warning=ExperimentalWarning --test --test-concurrency=1 --test-timeout=300000 "${@:-test/**/*.test.ts}"
