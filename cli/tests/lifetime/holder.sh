# Leaves a grandchild in a new session that keeps the captured stdout pipe open (it inherits it),
# so the caller's `process.run` waits for the pipe to close; it writes out/started-pipe at once
# and out/late-pipe after $1 seconds.
# Usage: bash tools/holder.sh SECONDS OUT_DIR
D=$1
O=$2
setsid sh -c "echo > $O/started-pipe; sleep $D; echo late > $O/late-pipe; echo done" &
while [ ! -e "$O/started-pipe" ]; do sleep 0.02; done
exit 0
