#!/usr/bin/env bash
# The Debian/Ubuntu packages `make demo` (demo) and `make test` (test) need: installed with apt-get when
# missing and run as root, as .ci/run does on a fresh machine; otherwise named in the one command to run.
# bubblewrap: the sandbox; util-linux: prlimit and setpriv; chromium: the browser tests (they skip without it);
# postgresql: the gradebook tests start a throw-away server from Debian's package.
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v prlimit >/dev/null 2>&1 || missing+=(util-linux)
if [ "${1:-demo}" = test ]; then
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
fi
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} with apt-get ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "missing system packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
fi
