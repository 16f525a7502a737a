#!/usr/bin/env bash
# The offline install, tested for real (docs/environment.md): clone the repository, download the
# locked packages into its wheelhouse/ (`make wheelhouse`, the one step that needs PyPI), then run
# `make setup` in a network namespace of its own, which has no network at all (not even a route
# to an index), and check the environment it made: every locked package installed, the package
# runs, and the lock's hash recorded for the provenance.
#
# Needs root (unshare --net). Run it as `make test-offline` (CI runs it after `make test`).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$(mktemp -d /tmp/offline-setup.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

log() { printf '[offline-setup %(%H:%M:%S)T] %s\n' -1 "$*"; }

if [[ $EUID -ne 0 ]]; then
    echo "setup_offline.sh: needs root, for a network namespace without network (unshare --net)" >&2
    exit 2
fi

log "cloning $ROOT"
git clone --quiet "$ROOT" "$WORK/clone"
cd "$WORK/clone"
log "make wheelhouse (online)"
make wheelhouse
log "make setup with the network off"
unshare --net -- sh -c '! python3 -c "import socket; socket.create_connection((\"pypi.org\", 443), 5)" 2>/dev/null && make setup'
log "checking the environment"
.venv/bin/python -m pip check
.venv/bin/delayed-bandits --help > /dev/null
expected="$(sha256sum envs/requirements.lock | cut -d' ' -f1)"
recorded="$(.venv/bin/python -c 'from delayed_bandits import software; print(software.lock_sha256())')"
if [[ "$recorded" != "$expected" ]]; then
    echo "setup_offline.sh: the environment records lock $recorded, not $expected" >&2
    exit 1
fi
locked="$(grep -c '^[A-Za-z0-9._-]*==' envs/requirements.lock)"
installed="$(.venv/bin/python -m pip list --format=freeze --exclude-editable | wc -l)"
log "ok: $installed packages installed offline ($locked in the lock, some for other platforms only)"
