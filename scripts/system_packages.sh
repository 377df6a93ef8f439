#!/usr/bin/env bash
# The Debian/Ubuntu packages `make demo` (demo) and `make test` (test) need: installed with apt-get when
# missing and run as root, as .ci/run does on a fresh machine; otherwise named in the one command to run.
# bubblewrap: the sandbox; util-linux: prlimit and setpriv; chromium: the browser tests (they skip without it);
# postgresql: the gradebook tests start a throw-away server from Debian's package; npm: the JupyterHub test's
# proxy, configurable-http-proxy (JupyterHub's own), from the npm registry.
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v prlimit >/dev/null 2>&1 || missing+=(util-linux)
if [ "${1:-demo}" = test ]; then
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
    command -v configurable-http-proxy >/dev/null 2>&1 || command -v npm >/dev/null 2>&1 || missing+=(npm)
fi
PROXY=configurable-http-proxy@5.3.0
proxy_missing() { [ "${1:-demo}" = test ] && ! command -v configurable-http-proxy >/dev/null 2>&1; }
if [ "${#missing[@]}" -eq 0 ] && ! proxy_missing "${1:-demo}"; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "installing ${missing[*]} with apt-get ..."
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if proxy_missing "${1:-demo}"; then
        echo "installing $PROXY with npm ..."
        npm install --global --no-fund --no-audit --loglevel=error "$PROXY" >/dev/null
    fi
elif [ "${#missing[@]}" -gt 0 ]; then
    echo "missing system packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
else
    echo "missing the JupyterHub test's proxy; install it with: sudo npm install --global $PROXY" >&2
fi
