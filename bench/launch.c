/* The interpreter benchmark's launcher (bench/interp.py builds it with cc).

   Usage: launch OUT PROGRAM ARGS...  Runs PROGRAM and writes "<wall seconds> <peak RSS KiB>" to the file OUT.

   Why not Python's own wait4: a child's ru_maxrss counts the memory of the process it was forked from (the
   kernel records the old address space's high-water mark at exec), so every program measured from the Python
   driver showed at least the driver's 14 MiB. Forked from this small process, the floor is about 1 MiB. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: launch OUT PROGRAM ARGS...\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("launch: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("launch: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("launch: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror("launch: the output file");
        return 2;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(out, "%.9f %ld\n", secs, usage.ru_maxrss);
    fclose(out);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
