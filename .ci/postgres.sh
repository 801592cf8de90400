#!/usr/bin/env bash
# Installs PostgreSQL 15 + pgvector (built from Debian's own source package) and starts a throwaway server on a
# loopback port. Prints the connection URL on stdout as its last line. Idempotent: safe to run twice.
#
# Debian bookworm has no pgvector binary package, so we fetch the *source* package from trixie through a private
# apt configuration (the system's sources stay untouched) and build it against the installed server.
set -euo pipefail

PG_MAJOR=15
PG_PORT="${PG_PORT:-55432}"
PG_ROOT="${PG_ROOT:-/tmp/filesift-ci-pg}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
log() { echo "[postgres.sh] $*" >&2; }

export DEBIAN_FRONTEND=noninteractive
need=()
[ -x "${PG_BIN}/initdb" ] || need+=("postgresql-${PG_MAJOR}")
[ -f "/usr/include/postgresql/${PG_MAJOR}/server/postgres.h" ] || need+=("postgresql-server-dev-${PG_MAJOR}")
command -v make >/dev/null || need+=(make)
command -v gcc >/dev/null || need+=(gcc)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

if [ ! -f "/usr/share/postgresql/${PG_MAJOR}/extension/vector.control" ]; then
  log "building pgvector from Debian's trixie source package"
  work="$(mktemp -d)"
  mkdir -p "${work}/lists/partial" "${work}/cache/archives/partial" "${work}/etc"
  # A deb-src entry for trixie, made from the machine's own sources (same mirror).
  uri="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
  [ -n "${uri}" ] || uri="$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)"
  [ -n "${uri}" ] || uri="http://deb.debian.org/debian"
  echo "deb-src [trusted=yes] ${uri} trixie main" > "${work}/etc/sources.list"
  apt_opts=(-o "Dir::Etc::sourcelist=${work}/etc/sources.list" -o "Dir::Etc::sourceparts=-"
            -o "Dir::State::Lists=${work}/lists" -o "Dir::Cache=${work}/cache" -o "APT::Get::List-Cleanup=0")
  apt-get "${apt_opts[@]}" update -qq >&2
  (cd "${work}" && apt-get "${apt_opts[@]}" source --download-only pgvector >&2)
  (cd "${work}" && dpkg-source -x --no-check pgvector_*.dsc src >&2)
  make -C "${work}/src" with_llvm=no PG_CONFIG="${PG_BIN}/pg_config" >&2
  make -C "${work}/src" install with_llvm=no PG_CONFIG="${PG_BIN}/pg_config" >&2
  rm -rf "${work}"
fi

# A throwaway cluster owned by the postgres user (the server refuses to run as root).
if ! "${PG_BIN}/pg_ctl" -D "${PG_ROOT}/data" status >/dev/null 2>&1 && ! su postgres -s /bin/sh -c "${PG_BIN}/pg_ctl -D ${PG_ROOT}/data status" >/dev/null 2>&1; then
  rm -rf "${PG_ROOT}"
  mkdir -p "${PG_ROOT}"
  chown postgres:postgres "${PG_ROOT}"
  su postgres -s /bin/sh -c "${PG_BIN}/initdb -D ${PG_ROOT}/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >&2
  su postgres -s /bin/sh -c "${PG_BIN}/pg_ctl -D ${PG_ROOT}/data -l ${PG_ROOT}/server.log -w -o '-c listen_addresses=127.0.0.1 -c port=${PG_PORT} -c unix_socket_directories=${PG_ROOT} -c fsync=off -c max_connections=200' start" >&2
fi
url="postgres://postgres@127.0.0.1:${PG_PORT}/postgres"
psql "${url}" -qAtc "CREATE EXTENSION IF NOT EXISTS vector; SELECT 'pgvector ' || extversion FROM pg_extension WHERE extname = 'vector'" >&2
echo "${url}"
