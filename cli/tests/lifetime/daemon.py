# The classic Unix daemon: detach from the parent, the session and the terminal, then work late.
# Usage: python3 tools/daemon.py SECONDS OUT_DIR
import os
import sys
import time

delay, out = float(sys.argv[1]), sys.argv[2]
if os.fork():
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
for fd in (0, 1, 2):
    os.close(fd)
open(os.path.join(out, "started-python"), "w").close()
time.sleep(delay)
with open(os.path.join(out, "late-python"), "w") as f:
    f.write("late\n")
