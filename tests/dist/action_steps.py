#!/usr/bin/env python3
"""Turns a composite GitHub Action (action.yml) into one bash script that runs its steps the way a runner
does, so the action can be tested without GitHub: inputs (defaults, overridden by NAME=VALUE arguments)
reach the steps through `${{ inputs.NAME }}` in their `env:`, each step runs with `bash --noprofile --norc
-eo pipefail`, GITHUB_PATH lines are put on PATH for later steps, GITHUB_OUTPUT and RUNNER_TEMP exist, a step
without `if:` runs only while no step failed, and `always()` in an `if:` runs it anyway. The script prints
`step ID: exit N` per step (or `step ID: skipped`) and exits 1 when a step failed.

Usage: action_steps.py action.yml WORKDIR [NAME=VALUE...] > steps.sh   (needs PyYAML)
"""
import re
import shlex
import sys

import yaml


def main(argv):
    action = yaml.safe_load(open(argv[1]))
    work = argv[2]
    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    for arg in argv[3:]:
        k, v = arg.split("=", 1)
        if k not in inputs:
            sys.exit(f"action_steps: the action has no input `{k}`")
        inputs[k] = v
    if action["runs"]["using"] != "composite":
        sys.exit("action_steps: not a composite action")

    def substitute(text):
        def one(m):
            expr = m.group(1).strip()
            if not expr.startswith("inputs."):
                sys.exit(f"action_steps: unsupported expression ${{{{ {expr} }}}}")
            return inputs[expr[len("inputs.") :]]

        return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))

    def condition(text):
        """(static verdict, runs after a failure) of an `if:`; only inputs comparisons and always()."""
        expr = str(text).strip()
        if expr.startswith("${{") and expr.endswith("}}"):
            expr = expr[3:-2].strip()
        always = "always()" in expr
        py = expr.replace("always()", "True").replace("&&", " and ").replace("||", " or ")
        py = re.sub(r"inputs\.([A-Za-z0-9_-]+)", lambda m: repr(inputs[m.group(1)]), py)
        if re.search(r"[A-Za-z_]+\(", py):
            sys.exit(f"action_steps: unsupported condition `{text}`")
        return bool(eval(py, {"__builtins__": {}}, {"True": True})), always

    out = [
        "set -u",
        f"work={shlex.quote(work)}",
        'mkdir -p "$work/tmp"; : > "$work/path"; : > "$work/output"',
        'export GITHUB_PATH="$work/path" GITHUB_OUTPUT="$work/output" RUNNER_TEMP="$work/tmp"',
        "failed=0",
    ]
    for i, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", f"step{i}")
        if step.get("shell") != "bash" or "run" not in step:
            sys.exit(f"action_steps: step {sid} is not a bash `run:` step")
        verdict, always = condition(step["if"]) if "if" in step else (True, False)
        if not verdict:
            out.append(f"echo 'step {sid}: skipped'")
            continue
        env = " ".join(f"{k}={shlex.quote(substitute(v))}" for k, v in step.get("env", {}).items())
        script = f'"$work/{sid}.sh"'
        out.append(f"cat > {script} <<'VOX_ACTION_STEP'\n{substitute(step['run'])}\nVOX_ACTION_STEP")
        guard = "true" if always else '[ "$failed" = 0 ]'
        out.append(
            f'if {guard}; then\n'
            f'  prefix=$(tac "$GITHUB_PATH" | paste -sd: -)\n'
            f'  PATH="${{prefix:+$prefix:}}$PATH" {env} '
            f"bash --noprofile --norc -eo pipefail {script}\n"
            f"  status=$?; echo \"step {sid}: exit $status\"; [ $status = 0 ] || failed=1\n"
            f"else echo 'step {sid}: skipped'; fi"
        )
    out.append('exit "$failed"')
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv)
