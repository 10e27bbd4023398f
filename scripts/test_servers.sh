#!/usr/bin/env bash
# Start PostgreSQL, a Chroma server and redis on 127.0.0.1 for the server-backed integration tests, then
# print the `export` lines that point the tests at them. Idempotent: a second run reuses the running servers.
#   eval "$(scripts/test_servers.sh)"
# Needs the Debian postgresql and redis-server packages and `make install` (for .venv/bin/chroma).
# State lives in $ADVISOR_TEST_SERVERS_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${ADVISOR_TEST_SERVERS_DIR:-/tmp/advisor-test-servers}"
PG_PORT="${ADVISOR_TEST_PG_PORT:-55432}"
CHROMA_PORT="${ADVISOR_TEST_CHROMA_PORT:-58000}"
REDIS_PORT="${ADVISOR_TEST_REDIS_PORT:-56379}"
mkdir -p "$DIR"

PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -n "$PG_BIN" ] || { echo "PostgreSQL is not installed (apt-get install -y postgresql)" >&2; exit 1; }
# PostgreSQL refuses to run as root: run it as the postgres user when we are root.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PGDATA="$DIR/pgdata"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$DIR" "$PGDATA"
  as_pg "$PG_BIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 >"$DIR/initdb.log" 2>&1
fi
# In the cluster's own config, so a bare `pg_ctl start` (the readiness tests stop and start it) comes back the same.
if ! grep -q "^# advisor-test-servers" "$PGDATA/postgresql.conf"; then
  printf "# advisor-test-servers\nlisten_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\n" "$PG_PORT" "$DIR" \
    | as_pg tee -a "$PGDATA/postgresql.conf" >/dev/null
fi
if ! as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$DIR/postgres.log" -w -t 60 start >&2
fi
psql_pg() { as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -tAc "$1"; }
[ "$(psql_pg "SELECT 1 FROM pg_roles WHERE rolname='advisor'")" = "1" ] || psql_pg "CREATE ROLE advisor LOGIN PASSWORD 'advisor-test'" >&2
[ "$(psql_pg "SELECT 1 FROM pg_database WHERE datname='advisor_test'")" = "1" ] || psql_pg "CREATE DATABASE advisor_test OWNER advisor" >&2

CHROMA_URL="http://127.0.0.1:$CHROMA_PORT"
if ! curl -fsS "$CHROMA_URL/api/v2/heartbeat" >/dev/null 2>&1; then
  ANONYMIZED_TELEMETRY=False nohup .venv/bin/chroma run --path "$DIR/chroma" --host 127.0.0.1 --port "$CHROMA_PORT" \
    >"$DIR/chroma.log" 2>&1 &
  echo $! >"$DIR/chroma.pid"
  for _ in $(seq 1 60); do curl -fsS "$CHROMA_URL/api/v2/heartbeat" >/dev/null 2>&1 && break; sleep 0.5; done
  curl -fsS "$CHROMA_URL/api/v2/heartbeat" >/dev/null || { echo "the Chroma server did not start (see $DIR/chroma.log)" >&2; exit 1; }
fi

# redis for the shared rate-limit storage (tests/api/test_ratelimit_shared.py): no persistence, loopback only.
command -v redis-server >/dev/null || { echo "redis is not installed (apt-get install -y redis-server)" >&2; exit 1; }
if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" --dir "$DIR" >&2
  for _ in $(seq 1 40); do redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.25; done
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null || { echo "redis did not start (see $DIR/redis.log)" >&2; exit 1; }
fi

echo "export ADVISOR_TEST_DATABASE_URL=postgresql://advisor:advisor-test@127.0.0.1:$PG_PORT/advisor_test"
echo "export ADVISOR_TEST_CHROMA_URL=$CHROMA_URL"
echo "export ADVISOR_TEST_PG_BIN=$PG_BIN ADVISOR_TEST_PGDATA=$PGDATA ADVISOR_TEST_PG_PORT=$PG_PORT"
echo "export ADVISOR_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
