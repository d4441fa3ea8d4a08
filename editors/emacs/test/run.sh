#!/usr/bin/env bash
# Headless Emacs end-to-end test of VoxScript with eglot (docs/editors.md, "Other editors"): Emacs 28 and
# eglot 1.9 from Debian (apt-get install emacs-nox elpa-eglot), against the real `vox lsp`. A fresh copy of the
# fixture workspace and a temp HOME, everything under `timeout`. Exit status: 0 when every step passes.
#
#   VOX_SERVER=/path/to/vox   the server (required: the fake server has no analysis); linked as `vox` on PATH
#   EMACS=/path/to/emacs      default: emacs on PATH
#   VOX_E2E_KEEP=1            keep the temp dir
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
editors=$(cd "$here/../.." && pwd)

emacs=${EMACS:-$(command -v emacs || true)}
if [ -z "$emacs" ]; then
  echo "emacs e2e: no emacs found (apt-get install emacs-nox elpa-eglot, or set EMACS)" >&2
  exit 1
fi
if ! "$emacs" --batch --eval "(require 'eglot)" >/dev/null 2>&1; then
  echo "emacs e2e: $emacs has no eglot (apt-get install elpa-eglot, or Emacs 29+)" >&2
  exit 1
fi
server=${VOX_SERVER:-}
if [ -z "$server" ] || [ ! -x "$server" ]; then
  echo "emacs e2e: set VOX_SERVER to the vox binary (cargo build -p vox-cli --bin vox; found: '${server}')" >&2
  exit 1
fi
server=$(cd "$(dirname "$server")" && pwd)/$(basename "$server")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vox-emacs-e2e.XXXXXX")
cleanup() { [ -n "${VOX_E2E_KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/home" "$tmp/bin"
ln -s "$server" "$tmp/bin/vox"
cp -r "$editors/test/fixtures/workspace" "$tmp/ws"

cd "$tmp/ws"
status=0
env -i HOME="$tmp/home" PATH="$tmp/bin:$PATH" TERM=dumb LANG=C.UTF-8 USER=ann \
  VOX_E2E_WS="$tmp/ws" VOX_E2E_EDITORS="$editors" VOX_E2E_EVENTS="$tmp/events.log" \
  timeout -k 5 "${VOX_E2E_TIMEOUT:-180}" "$emacs" --batch -l "$here/e2e.el" </dev/null || status=$?
if [ "$status" = 124 ] || [ "$status" = 137 ]; then echo "emacs e2e: timed out" >&2; fi
if [ "$status" != 0 ] && [ -f "$tmp/events.log" ]; then
  echo "--- eglot events buffer (tail)"; tail -60 "$tmp/events.log"
fi
exit "$status"
