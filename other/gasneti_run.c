/* gasneti_run.c: the command line of the shared launcher, built once per conduit that uses
 * it, with -DGASNETI_RUN_NAME (amudprun, gasnetrun_ofi, gasnetrun_smp), -DGASNETI_RUN_CONDUIT
 * (UDP, OFI, SMP) and -DGASNETI_RUN_HOSTLIST_SSH (1: GASNET_SSH_SERVERS alone selects ssh):
 *   NAME -np N [-N nodes] [-E VAR,...] [-spawn L|S|C] [-spawner=local|ssh|mpi|pmi] [-v] prog args...
 * (-n N is the same as -np N). The job start itself is gasneti_spawn_launch.c, shared with
 * programs that self-spawn; for smp (-DGASNETI_RUN_SMP=1) it is an exec of the program with
 * GASNET_PSHM_NODES=N (the program forks its ranks itself: smp_spawn.c), so the job's exit
 * status and the signals sent to the launcher's pid are the job's. Layer: other (launchers). */
#include "gasneti_spawn.h"
#if defined(GASNETI_SPAWN_MPIRUN_PATHS) || defined(GASNETI_SPAWN_PLUGIN_DIRS)
#include "other/gasneti_instpaths.h" /* GASNETI_INST_*, of which those -D paths are made */
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef GASNETI_RUN_SMP
#  define GASNETI_RUN_SMP 0 /* 1: gasnetrun_smp (one host, no spawner: exec the program) */
#endif
#ifdef GASNETI_SPAWN_MPIRUN_PATHS
#  define EXTERNAL 1 /* the mpi and pmi spawners */
#else
#  define EXTERNAL 0
#endif

static int usage(const char *why) {
    if (why) { /* a mistake: one line, the way to the full usage in it */
        fprintf(stderr, "%s: %s (%s -h shows the usage)\n", GASNETI_RUN_NAME, why, GASNETI_RUN_NAME);
        return 2;
    }
    if (GASNETI_RUN_SMP) {
        fprintf(stdout,
                "usage: %s -np N [-N 1] [-c cpus] [-E VAR,...] [-v] [-t] [-k] [--] prog args...\n"
                "  -np N, -n N   run N processes (ranks) on this host: GASNET_PSHM_NODES=N\n"
                "  -N nodes      accepted when 1 (smp runs on one host); more is an error\n"
                "  -c cpus       CPUs per process: accepted, changes nothing\n"
                "  -E VAR,...    accepted for compatibility: every variable is passed anyway\n"
                "  -t            test only: say what would be run, run nothing\n"
                "  -k            keep temporary files: accepted (there are none)\n"
                "  -spawner=L    accepted (local is the only way smp starts)\n"
                "  -v            say what is run\n",
                GASNETI_RUN_NAME);
        return 2;
    }
    fprintf(stdout,
            "usage: %s -np N [-N nodes] [-c cpus] [-E VAR,...] [-spawner=local|ssh|custom%s] [-v] [-t] [-k]\n"
            "       prog args...\n"
            "  -np N, -n N   run N processes\n"
            "  -N nodes      use the first `nodes` hosts of GASNET_SSH_SERVERS (ssh spawner)\n"
            "  -c cpus       CPUs per process: accepted, changes nothing\n"
            "  -E VAR,...    accepted for compatibility: every variable is forwarded anyway\n"
            "  -t            test only: say what would be started, start nothing\n"
            "  -k            keep temporary files: accepted (there are none)\n"
            "  -spawner=X    how: local (L) this host, ssh (S) to GASNET_SSH_SERVERS, custom (C)\n"
            "                GASNET_CSPAWN_CMD%s. Also -spawn X.\n"
            "                Default: GASNET_%s_SPAWNER, else GASNET_SPAWNER, else GASNET_SPAWNFN,\n"
            "                else %s\n"
            "  -v            say what is done\n",
            GASNETI_RUN_NAME, EXTERNAL ? "|mpi|pmi" : "",
            EXTERNAL ? ",\n                mpi (mpirun), pmi (PMIRUN_CMD or mpirun: a PMIx launcher)" : "",
            GASNETI_RUN_CONDUIT,
            GASNETI_RUN_HOSTLIST_SSH ? "ssh if GASNET_SSH_SERVERS is set, else local" : "local");
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

/* The conduit a program was built for, from the ident string every GASNet library puts
 * in it ("$GASNetConduitName: UDP $"); 0 with "" if none is found (a script, say). */
static int program_conduit(const char *path, char *out, size_t outlen) {
    static const char tag[] = "$GASNetConduitName: ";
    *out = 0;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !st.st_size) {
        if (fd >= 0) close(fd);
        return 0;
    }
    const char *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return 0;
    const char *hit = memmem(p, (size_t)st.st_size, tag, sizeof(tag) - 1);
    if (hit) {
        const char *w = hit + sizeof(tag) - 1, *end = p + st.st_size;
        size_t n = 0;
        while (w + n < end && n + 1 < outlen && w[n] != ' ' && w[n] != '$' && w[n]) n++;
        memcpy(out, w, n);
        out[n] = 0;
    }
    munmap((void *)p, (size_t)st.st_size);
    return *out != 0;
}

/* smp: the program itself forks its n ranks and waits for them (smp_spawn.c); this
 * process becomes it, so its status and the signals sent to us are the job's */
static int run_smp(long n, int testonly, int verbose, char **args) {
    char nodes[32];
    snprintf(nodes, sizeof(nodes), "%ld", n);
    if (testonly || verbose) {
        FILE *f = testonly ? stdout : stderr;
        fprintf(f, "%s: %sGASNET_PSHM_NODES=%s", GASNETI_RUN_NAME, testonly ? "would run " : "running ", nodes);
        for (char **a = args; *a; a++) fprintf(f, " %s", *a);
        fputc('\n', f);
        if (testonly) return 0;
    }
    setenv("GASNET_PSHM_NODES", nodes, 1);
    execv(args[0], args);
    fprintf(stderr, "%s: cannot run %s: %s\n", GASNETI_RUN_NAME, args[0], strerror(errno));
    return 127;
}

int main(int argc, char **argv) {
    long n = -1;
    const char *spawn = GASNETI_RUN_SMP ? "L" : gasneti_spawn_default(GASNETI_RUN_CONDUIT, GASNETI_RUN_HOSTLIST_SSH);
    long nodes = 0;
    int verbose = 0, testonly = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if ((!strcmp(argv[i], "-np") || !strcmp(argv[i], "-n")) && i + 1 < argc) {
            char *end;
            n = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || n < 1 || n > 1000000) {
                char msg[300];
                snprintf(msg, sizeof(msg), "-np %s: expected a number of processes of at least 1", argv[i]);
                return usage(msg);
            }
        } else if ((!strcmp(argv[i], "-spawn") || !strcmp(argv[i], "-spawner")) && i + 1 < argc) {
            spawn = argv[++i];
        } else if (!strncmp(argv[i], "-spawner=", 9)) {
            spawn = argv[i] + 9;
        } else if (!strcmp(argv[i], "-E") && i + 1 < argc) {
            i++; /* the whole environment is forwarded */
        } else if (!strcmp(argv[i], "-N") && i + 1 < argc) {
            char *end;
            nodes = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || nodes < 1) {
                char msg[300];
                snprintf(msg, sizeof(msg), "-N %s: expected a number of nodes of at least 1", argv[i]);
                return usage(msg);
            }
        } else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
            char *end;
            long c = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || c < 1) {
                char msg[300];
                snprintf(msg, sizeof(msg), "-c %s: expected a number of CPUs of at least 1", argv[i]);
                return usage(msg);
            }
        } else if (!strcmp(argv[i], "-t")) {
            testonly = 1;
        } else if (!strcmp(argv[i], "-k")) {
            /* nothing to keep */
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
    if (GASNETI_RUN_SMP && nodes > 1) {
        char msg[300];
        snprintf(msg, sizeof(msg), "-N %ld: smp runs every process on this host (only -N 1)", nodes);
        return usage(msg);
    }
    if (GASNETI_RUN_SMP && strcmp(spawn, "L") && strcmp(spawn, "local")) {
        char msg[300];
        snprintf(msg, sizeof(msg), "spawner %s: smp starts its processes itself, on this host (only local)", spawn);
        return usage(msg);
    }
    if (i >= argc) return usage("the program to run is missing");
    char prog[PATH_MAX], abs[PATH_MAX];
    if (find_program(argv[i], prog, sizeof(prog))) {
        fprintf(stderr, "%s: %s: %s\n", GASNETI_RUN_NAME, argv[i],
                errno == ENOENT ? "no such program (not found, or not in PATH)" : "not executable");
        return 127;
    }
    char built_for[32];
    if (program_conduit(prog, built_for, sizeof(built_for)) && strcmp(built_for, GASNETI_RUN_CONDUIT)) {
        fprintf(stderr, "%s: %s was built for the %s conduit, not %s: run it with that conduit's launcher\n",
                GASNETI_RUN_NAME, argv[i], built_for, GASNETI_RUN_CONDUIT);
        return 2;
    }
    /* ranks on other hosts (S, C) run it by absolute path from the same directory */
    if (realpath(prog, abs)) snprintf(prog, sizeof(prog), "%s", abs);
    argv[i] = prog;
    if (GASNETI_RUN_SMP) return run_smp(n, testonly, verbose, argv + i);
    if (nodes) { /* the first `nodes` hosts of the list */
        const char *sv = getenv("GASNET_SSH_SERVERS");
        char *list = strdup(sv ? sv : ""), *save = NULL, out[8192] = "";
        long k = 0;
        for (char *w = strtok_r(list, " ,\t\n", &save); w && k < nodes; w = strtok_r(NULL, " ,\t\n", &save), k++)
            snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", k ? " " : "", w);
        if (k) setenv("GASNET_SSH_SERVERS", out, 1);
        free(list);
    }
    if (testonly) {
        printf("%s: would start %ld process%s of %s with the %s spawner%s%s\n", GASNETI_RUN_NAME, n, n == 1 ? "" : "es",
               prog, spawn, getenv("GASNET_SSH_SERVERS") ? " on " : "",
               getenv("GASNET_SSH_SERVERS") ? getenv("GASNET_SSH_SERVERS") : "");
        return 0;
    }
    return gasneti_spawn_launch(GASNETI_RUN_NAME, GASNETI_RUN_CONDUIT, (int)n, spawn, argc - i, argv + i, verbose);
}
