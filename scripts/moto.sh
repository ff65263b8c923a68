#!/usr/bin/env bash
# A local moto server: the DynamoDB, S3, SQS and EventBridge APIs the AWS adapters' tests run
# against (lib/aws/tests).
#
#   bash scripts/moto.sh start   # installs moto[server] into a venv on first use, starts it on a
#                                # free port of 127.0.0.1, waits until it answers, prints its URL
#   bash scripts/moto.sh stop    # stops the server this script started
#   bash scripts/moto.sh url     # prints the URL of the running server
#
# Then:  LORE_TEST_MOTO_URL=$(cat "${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}/moto.url") \
#          cargo nextest run -p lore-aws
# or simply `eval "$(bash scripts/moto.sh env)"` (exports LORE_TEST_MOTO_URL).
#
# Everything lives under $LORE_TOOLS_DIR (default ~/.cache/lore/tools): the venv, moto.pid,
# moto.url and moto.log. The moto version is pinned so that CI runs are reproducible.
set -euo pipefail

MOTO_VERSION="${LORE_MOTO_VERSION:-5.2.5}"
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
VENV="$TOOLS_DIR/venv"
PID_FILE="$TOOLS_DIR/moto.pid"
URL_FILE="$TOOLS_DIR/moto.url"
LOG_FILE="$TOOLS_DIR/moto.log"

install() {
  mkdir -p "$TOOLS_DIR"
  if [ -x "$VENV/bin/moto_server" ] \
     && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("moto"))' 2>/dev/null)" = "$MOTO_VERSION" ]; then
    return
  fi
  echo "installing moto[server]==$MOTO_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
}

running() {
  [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

# moto_server itself, with two changes:
# - DynamoDB requests are handled one at a time. moto's DynamoDB backend is not thread-safe (a
#   transaction applies its writes one by one and undoes them on failure), while the threaded
#   server runs requests concurrently; real DynamoDB makes every request atomic. Serialising only
#   DynamoDB keeps the race tests (exactly one of N conditional writes wins) about our code, not
#   about moto's, and leaves S3, SQS and EventBridge (long polls included) concurrent.
# - A transaction backs up only the items it writes. moto deep-copies the whole table for each of
#   a transaction's writes, so a transaction's cost grew with the table (~90 ms on the
#   conversation bench's table, 9 ms with this), and indexing a corpus of a few hundred sources
#   grew quadratically. The writes, their conditions and the all-or-nothing outcome stay moto's:
#   on failure the backed-up items are put back (an item that did not exist is removed).
LAUNCHER='
import copy, sys, threading, types
from moto import server
from moto.dynamodb import models
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

def deepcopy_but_tables(x, memo=None):
    return x if isinstance(x, Table) else copy.deepcopy(x, memo)

models.copy = types.SimpleNamespace(deepcopy=deepcopy_but_tables)
transact_write_items = models.DynamoDBBackend.transact_write_items

def transact_backing_up_items(self, transact_items):
    backup = []
    for entry in transact_items:
        try:
            ((_, op),) = entry.items()
            table = self.tables[op["TableName"]]
            key = op["Item"] if "Item" in op else op["Key"]
            h = DynamoType(key[table.hash_key_attr])
            r = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
            before = copy.deepcopy(table.get_item(h, r))
        except Exception:
            continue  # moto refuses the malformed write before applying anything
        backup.append((table, h, r, before))
    try:
        return transact_write_items(self, transact_items)
    except Exception:
        for table, h, r, before in reversed(backup):
            if before is None:
                table.delete_item(h, r)
            elif r is not None:
                table.items[h][r] = before
            else:
                table.items[h] = before
        raise

models.DynamoDBBackend.transact_write_items = transact_backing_up_items

_dynamodb = threading.Lock()

class SerialDynamoDB(DomainDispatcherApplication):
    def __call__(self, environ, start_response):
        if environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            with _dynamodb:
                return list(super().__call__(environ, start_response))
        return super().__call__(environ, start_response)

server.DomainDispatcherApplication = SerialDynamoDB
server.main(sys.argv[1:])
'

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
  install
  if running && [ -f "$URL_FILE" ] && curl -fsS -o /dev/null "$(cat "$URL_FILE")/moto-api/" 2>/dev/null; then
    cat "$URL_FILE"
    return
  fi
  # A stale server (running but not answering) is replaced.
  stop
  local port url pid
  port="$(free_port)"
  url="http://127.0.0.1:$port"
  # setsid: the server gets its own process group, so `stop` ends it and nothing else.
  setsid "$VENV/bin/python" -c "$LAUNCHER" -H 127.0.0.1 -p "$port" >"$LOG_FILE" 2>&1 < /dev/null &
  pid=$!
  echo "$pid" >"$PID_FILE"
  # Bounded wait: 60 tries of 0.25 s.
  for _ in $(seq 1 60); do
    if curl -fsS -o /dev/null "$url/moto-api/" 2>/dev/null; then
      echo "$url" >"$URL_FILE"
      echo "$url"
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      break
    fi
    sleep 0.25
  done
  echo "moto_server did not start; its log ($LOG_FILE):" >&2
  cat "$LOG_FILE" >&2 || true
  stop
  exit 1
}

stop() {
  if [ -f "$PID_FILE" ]; then
    local pid
    pid="$(cat "$PID_FILE")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$PID_FILE"
  fi
  rm -f "$URL_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) running && cat "$URL_FILE" ;;
  env) echo "export LORE_TEST_MOTO_URL=$(start)" ;;
  *)
    echo "usage: $0 start|stop|url|env" >&2
    exit 2
    ;;
esac
