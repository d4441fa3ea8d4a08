#!/usr/bin/env bash
# Checks the release artifacts scripts/dist left in target/dist/, as a user would meet them (offline):
#   - SHA256SUMS verifies; the tarball holds vox, README and the licences; the wheel is tagged manylinux_2_17;
#   - the binary needs no glibc symbol version above GLIBC_2.17 (its ELF version needs, read by elf_glibc.py);
#   - `pip install --no-index` of the wheel into a fresh venv puts `vox` on PATH, `vox --version` names this
#     version and commit, and the README's lint of examples/ gives the README's verdict;
#   - the steps of action.yml, run in bash as GitHub would run them, against that wheel: on examples/ (findings:
#     the lint step fails, its SARIF report is written) and on a clean project (every step passes);
#   - the .vsix carries the binary at extension/bin/linux-x64/vox, executable;
#   - with VOX_DIST_E2E=1, the code-server end-to-end test runs from that .vsix with no vox on PATH and no
#     setting (it needs what editors/ci.sh installed).
# Prints one line per check and "N passed, N failed"; exit 1 on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${CARGO_TARGET_DIR:-$root/target}/dist
tools=${VOX_DIST_TOOLS:-${CARGO_TARGET_DIR:-$root/target}/dist-tools}  # scripts/dist's venv (PyYAML)
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
work=$(mktemp -d "${TMPDIR:-/tmp}/vox-dist-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() {
  local name=$1
  shift
  if out_text=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
    printf '%s\n' "$out_text" | sed 's/^/     /' | tail -40
  fi
}

tarball=$out/vox-$version-x86_64-unknown-linux-gnu.tar.gz
wheel=$(ls "$out"/voxscript-"$version"-*.whl 2>/dev/null | head -1)
vsix=$out/voxscript-linux-x64-$version.vsix

check "the checksums verify" bash -c "cd '$out' && sha256sum -c SHA256SUMS"

tarball_contents() {
  tar -tzf "$tarball" | sort >"$work/list" || return 1
  for f in vox README.md LICENSE-MIT LICENSE-APACHE; do
    grep -qx "vox-$version-x86_64-unknown-linux-gnu/$f" "$work/list" || { echo "missing $f in:"; cat "$work/list"; return 1; }
  done
}
check "the tarball holds vox, README.md and the licences" tarball_contents

glibc_217() {
  mkdir -p "$work/tar" && tar -xzf "$tarball" -C "$work/tar" || return 1
  local bin="$work/tar/vox-$version-x86_64-unknown-linux-gnu/vox"
  python3 tests/dist/elf_glibc.py "$bin" --max 2.17 || return 1
  # Stripped: no symbol table left.
  if python3 - "$bin" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28)
n, = struct.unpack_from("<H", d, 0x3C)
sys.exit(0 if any(struct.unpack_from("<I", d, shoff + i * 64 + 4)[0] == 2 for i in range(n)) else 1)
EOF
  then echo "the binary has a .symtab: not stripped"; return 1; fi
}
check "the binary needs glibc 2.17 at most, and is stripped" glibc_217

check "the wheel is tagged manylinux_2_17_x86_64" bash -c "case '$wheel' in *manylinux_2_17_x86_64*.whl) ;; *) echo 'wheel: $wheel'; exit 1;; esac"

venv_install() {
  python3 -m venv "$work/venv" || return 1
  "$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel" || return 1
  local got
  got=$(PATH="$work/venv/bin:/usr/bin:/bin" command -v vox) || { echo "vox is not on PATH after the install"; return 1; }
  [ "$got" = "$work/venv/bin/vox" ] || { echo "vox on PATH is $got"; return 1; }
  local v commit
  v=$("$work/venv/bin/vox" --version) || return 1
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  [ "$v" = "vox $version ($commit)" ] || { echo "vox --version: '$v', want 'vox $version ($commit)'"; return 1; }
}
check "pip install --no-index of the wheel puts vox on PATH; vox --version names the version and commit" venv_install

readme_lint() {
  # The README's quick start, with the installed vox in place of ./target/release/vox.
  local report status
  report=$(cd "$root" && "$work/venv/bin/vox" lint --determinism examples/ 2>&1)
  status=$?
  [ "$status" = 1 ] || { echo "exit $status, the README shows 1"; return 1; }
  local summary
  summary=$(printf '%s\n' "$report" | tail -1)
  grep -qxF -- "$summary" README.md || { echo "the summary '$summary' is not the README's"; return 1; }
}
check "the README's lint of examples/ with the installed vox gives the README's verdict" readme_lint

# action.yml's steps, in bash, the way a runner runs a composite action: inputs through the steps' env,
# GITHUB_PATH and GITHUB_OUTPUT files, a step's `if: always()` after a failure.
run_action() {
  local project=$1 expect_lint=$2
  "$tools/bin/python" tests/dist/action_steps.py action.yml "$work/action-$expect_lint" \
    "wheel=$wheel" "paths=." "sarif=$work/action-$expect_lint.sarif" >"$work/steps.sh" || return 1
  (cd "$project" && env -i PATH=/usr/bin:/bin HOME="$work" bash "$work/steps.sh") >"$work/action.log" 2>&1
  local status=$?
  cat "$work/action.log"
  grep -q '^step install: exit 0$' "$work/action.log" || return 1
  grep -q "^step lint: exit $expect_lint\$" "$work/action.log" || { echo "want lint exit $expect_lint"; return 1; }
  grep -q '^step caps-check: exit 0$' "$work/action.log" || return 1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["version"]=="2.1.0" and r["runs"][0]["tool"]["driver"]["name"]=="vox", r' \
    "$work/action-$expect_lint.sarif" || return 1
  [ "$status" = "$([ "$expect_lint" = 0 ] && echo 0 || echo 1)" ] || { echo "the action's status $status"; return 1; }
}
mkdir -p "$work/clean"
cat >"$work/clean/report.vox" <<'EOF'
let xs = [3, 1, 2]
print(sorted(xs))
EOF
cat >"$work/clean/Vox.toml" <<'EOF'
[run.report]
script = "report.vox"
caps = []
EOF
cp -r examples "$work/examples"
check "action.yml on examples/: the lint step fails with a SARIF report, caps --check still runs" run_action "$work/examples" 1
check "action.yml on a clean project: every step passes" run_action "$work/clean" 0

vsix_binary() {
  [ -f "$vsix" ] || { echo "no $vsix (VOX_DIST_SKIP_VSIX?)"; return 1; }
  python3 - "$vsix" <<'EOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
info = z.getinfo("extension/bin/linux-x64/vox")
mode = info.external_attr >> 16
assert mode & 0o111, f"extension/bin/linux-x64/vox is not executable (mode {oct(mode)})"
assert info.file_size > 1_000_000, info.file_size
print(f"extension/bin/linux-x64/vox: {info.file_size} bytes, mode {oct(mode)}")
EOF
}
check "the .vsix carries the binary at extension/bin/linux-x64/vox" vsix_binary

if [ -n "${VOX_DIST_E2E:-}" ]; then
  e2e() {
    local cache=${VOX_EDITORS_CACHE:-$HOME/.cache/vox-editors}
    VOX_E2E_BUNDLED=1 VSIX="$vsix" VOX_SERVER="$work/tar/vox-$version-x86_64-unknown-linux-gnu/vox" \
      CODE_SERVER="$cache/code-server/node_modules/.bin/code-server" \
      timeout -k 10 900 node editors/vscode/test/e2e/code-server.mjs
  }
  check "VS Code (code-server) from the platform .vsix, no vox on PATH, no setting" e2e
fi

echo "dist check: $passed passed, $failed failed"
[ "$failed" = 0 ]
