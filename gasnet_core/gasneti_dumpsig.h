/* gasneti_dumpsig.h: GASNET_DUMP_SIGNAL's value, read the same way by a rank (the core's
 * state dump, gasneti_watchdog.c) and by the launchers that forward the signal to every
 * rank (smp's monitor, other/gasneti_launch_job.c). libc only. Layer: core (shared
 * with other/). */
#ifndef GASNETI_DUMPSIG_H
#define GASNETI_DUMPSIG_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A signal number, or a name with or without SIG (USR1, SIGUSR2, ...); 0 for none, off or
 * 0; -1 if not a signal the dump may use. Unset or empty: SIGUSR1. */
static inline int gasneti_dump_signal_parse(const char *s) {
    static const struct {
        const char *name;
        int sig;
    } names[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"WINCH", SIGWINCH},
                 {"URG", SIGURG},   {"PWR", SIGPWR},   {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}};
    if (!s || !*s) return SIGUSR1;
    if (!strcasecmp(s, "none") || !strcasecmp(s, "off") || !strcmp(s, "0")) return 0;
    if (!strncasecmp(s, "SIG", 3)) s += 3;
    char *end;
    long v = strtol(s, &end, 10);
    if (end != s && !*end)
        return v > 0 && v < NSIG && v != SIGKILL && v != SIGSTOP && v != SIGQUIT && v != SIGSEGV && v != SIGBUS &&
                       v != SIGILL && v != SIGFPE && v != SIGABRT && v != SIGINT && v != SIGTERM && v != SIGPIPE && v != SIGHUP
                   ? (int)v
                   : -1;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcasecmp(s, names[i].name)) return names[i].sig;
    return -1;
}

#endif
