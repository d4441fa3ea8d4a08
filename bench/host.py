"""What the host did to this machine while a benchmark measured: shared by bench/lint.py and
bench/lsp_latency.py."""
import os


def steal_seconds():
    """CPU time the hypervisor has taken from this machine's vCPUs so far, all CPUs together (the
    `steal` column of /proc/stat), in seconds; None where it is not reported. On a shared VM the host
    preempts a vCPU for a scheduler tick at a time: a run it hits is slower, which "best of" only partly
    hides, and an editor edit it hits takes ~10 ms more (p95 moves, p50 does not)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
