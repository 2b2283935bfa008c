/* amudprun.c: the udp-conduit launcher's command line (also installed as gasnetrun_udp).
 *   amudprun -np N [-spawn L|S|C] [-v] prog args...      (-n N is the same as -np N)
 * The job start itself is udp_launch.c, shared with programs that self-spawn.
 * Layer: udp-conduit. */
#include "udp_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(const char *why) {
    if (why) { /* a mistake: one line, the way to the full usage in it */
        fprintf(stderr, "amudprun: %s (amudprun -h shows the usage)\n", why);
        return 2;
    }
    fprintf(stdout, "usage: amudprun -np N [-spawn L|S|C] [-v] prog args...\n"
                    "  -np N, -n N   run N processes\n"
                    "  -spawn X      how: L this host (default), S ssh to GASNET_SSH_SERVERS, C GASNET_CSPAWN_CMD\n"
                    "                (default: GASNET_SPAWNFN, else L)\n"
                    "  -v            say what is done\n");
    return 2;
}

/* prog as a path the ranks can exec: as given if it has a '/', else found in PATH */
static int find_program(const char *prog, char *out, size_t outlen) {
    if (strchr(prog, '/')) {
        snprintf(out, outlen, "%s", prog);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, outlen, "%s/%s", *d ? d : ".", prog);
        struct stat st;
        if (!stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK)) {
            free(copy);
            return 0;
        }
    }
    free(copy);
    errno = ENOENT;
    return -1;
}

int main(int argc, char **argv) {
    long n = -1;
    const char *spawn = getenv("GASNET_SPAWNFN");
    int verbose = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if ((!strcmp(argv[i], "-np") || !strcmp(argv[i], "-n")) && i + 1 < argc) {
            char *end;
            n = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || n < 1 || n > 1000000) {
                char msg[300];
                snprintf(msg, sizeof(msg), "-np %s: expected a number of processes of at least 1", argv[i]);
                return usage(msg);
            }
        } else if (!strcmp(argv[i], "-spawn") && i + 1 < argc) {
            spawn = argv[++i];
        } else if (!strcmp(argv[i], "-v")) {
            verbose = 1;
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(NULL);
            return 0;
        } else {
            char msg[300];
            snprintf(msg, sizeof(msg), "unknown option %s", argv[i]);
            return usage(msg);
        }
    }
    if (n < 0) return usage("the number of processes (-np N) is missing");
    if (i >= argc) return usage("the program to run is missing");
    char prog[PATH_MAX], abs[PATH_MAX];
    if (find_program(argv[i], prog, sizeof(prog))) {
        fprintf(stderr, "amudprun: %s: %s\n", argv[i],
                errno == ENOENT ? "no such program (not found, or not in PATH)" : "not executable");
        return 127;
    }
    /* ranks on other hosts (S, C) run it by absolute path from the same directory */
    if (realpath(prog, abs)) snprintf(prog, sizeof(prog), "%s", abs);
    argv[i] = prog;
    return gasnetc_udp_launch((int)n, spawn && *spawn ? spawn : "L", argc - i, argv + i, verbose);
}
