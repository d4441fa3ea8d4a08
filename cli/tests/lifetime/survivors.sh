# Starts six processes that try to outlive the run, each writing out/started-KIND at once and
# out/late-KIND after $1 seconds; returns when all six are running (their markers exist).
# Usage: bash tools/survivors.sh SECONDS OUT_DIR
D=$1
O=$2
# 1. A new session: out of the process group that a group kill reaches.
setsid sh -c "echo > $O/started-setsid; sleep $D; echo late > $O/late-setsid" </dev/null >/dev/null 2>&1 &
# 2. A double fork: the subshell exits at once, so its child is an orphan.
( sh -c "echo > $O/started-double; sleep $D; echo late > $O/late-double" </dev/null >/dev/null 2>&1 & )
# 3. nohup in the background: immune to SIGHUP.
nohup sh -c "echo > $O/started-nohup; sleep $D; echo late > $O/late-nohup" </dev/null >/dev/null 2>&1 &
# 4. A daemonising Python program: fork, setsid, fork again, close its streams.
python3 tools/daemon.py "$D" "$O" </dev/null >/dev/null 2>&1
# 5. A process that ignores SIGTERM, SIGINT and SIGHUP (its sleep inherits that), in its own session.
setsid sh -c "trap '' TERM INT HUP; echo > $O/started-noterm; sleep $D; echo late > $O/late-noterm" </dev/null >/dev/null 2>&1 &
# 6. A backgrounded subshell: a fork of this shell, orphaned when it exits.
( echo > $O/started-subshell; sleep $D; echo late > $O/late-subshell ) </dev/null >/dev/null 2>&1 &
for kind in setsid double nohup python noterm subshell; do
    while [ ! -e "$O/started-$kind" ]; do sleep 0.02; done
done
echo started
