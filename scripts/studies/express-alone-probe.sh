#!/bin/bash
# Study (docs/measurements.md, "A fourth machine"): how fast one contender runs alone, with no baseline beside it.
# express json as the harness starts it (cwd = the contender's folder), one fresh process at a time on CPU 1,
# wrk on CPU 0: 8 s warm-up, 5 s measured. Modes interleaved per round:
#   prod: NODE_ENV=production; dev: no NODE_ENV; prod-mixed: NODE_ENV=production and 2 s of wrk (10 connections) on
#   each of /users, /echo, /ping, then 200 POST /data, before the json warm-up (the other routes' shapes first).
cd "$(dirname "$0")/../../contenders/express"
export PATH="$PWD/../../node_modules/.bin:$PATH"
node --version
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null' EXIT  # Ctrl-C leaves no server behind
mix() {
  for p in /users '/echo?name=x' /ping; do taskset -c 0 wrk -t1 -c10 -d2s "http://127.0.0.1:3999$p" > /dev/null; done
  for i in $(seq 200); do curl -s -o /dev/null -H 'content-type: application/json' -d '{"a":1}' http://127.0.0.1:3999/data; done
}
run() { # $1 label, $2 NODE_ENV ('' = unset), $3 mix?
  if [ -n "$2" ]; then export NODE_ENV=$2; else unset NODE_ENV; fi
  PORT=3999 taskset -c 1 node server.js & pid=$!
  for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:3999/json && break; sleep 0.1; done
  [ "$3" = mix ] && mix
  taskset -c 0 wrk -t1 -c100 -d8s http://127.0.0.1:3999/json > /dev/null
  local r=$(taskset -c 0 wrk -t1 -c100 -d5s http://127.0.0.1:3999/json | awk '/Requests\/sec/{print $2}')
  echo "$1 $r"
  kill $pid; wait $pid 2>/dev/null
}
for round in $(seq 6); do
  run prod production
  run dev ''
  run prod-mixed production mix
done
