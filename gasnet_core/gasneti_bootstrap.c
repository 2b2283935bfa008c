/* gasneti_bootstrap.c: the checked entry points of the bootstrap's variable-length
 * exchange and out-of-band messages (gasneti_boot_exchange_v, gasneti_boot_send,
 * gasneti_boot_recv: conduit_contract.h); for the bootstraps, exchange_v built from the
 * fixed-size exchange and a queue of arrived messages. Layer: core. */
#include "conduit_contract.h"

#include <pthread.h>
#include <string.h>

GASNETI_NORETURN GASNETI_COLD static void lacks(const char *call, const char *what) {
    gasneti_fatalerror("%s: the %s bootstrap has no %s", call, gasneti_boot ? gasneti_boot->name : "(no)", what);
}

void *gasneti_boot_exchange_v(const void *src, size_t len, size_t *lens) {
    if (!gasneti_boot || !gasneti_boot->exchange_v) lacks("gasneti_boot_exchange_v", "variable-length exchange");
    if (len && !src) gasneti_fatalerror("gasneti_boot_exchange_v: %zu bytes from a NULL buffer", len);
    return gasneti_boot->exchange_v(src, len, lens);
}

void gasneti_boot_send(gex_Rank_t dest, const void *buf, size_t len) {
    if (!gasneti_boot || !gasneti_boot->p2p_send) lacks("gasneti_boot_send", "point-to-point messages");
    if (dest >= gasneti_nodes)
        gasneti_fatalerror("gasneti_boot_send: rank %u is out of range (the job has %u ranks)", (unsigned)dest,
                           (unsigned)gasneti_nodes);
    if (len > GASNETI_BOOT_MSG_MAX)
        gasneti_fatalerror("gasneti_boot_send: a message of %zu bytes (at most %zu over the %s bootstrap)", len,
                           GASNETI_BOOT_MSG_MAX, gasneti_boot->name);
    if (len && !buf) gasneti_fatalerror("gasneti_boot_send: %zu bytes from a NULL buffer", len);
    gasneti_boot->p2p_send(dest, buf, len);
}

void *gasneti_boot_recv(gex_Rank_t *src, size_t *len, int block) {
    if (!gasneti_boot || !gasneti_boot->p2p_recv) lacks("gasneti_boot_recv", "point-to-point messages");
    return gasneti_boot->p2p_recv(src, len, block);
}

void *gasneti_boot_exchange_v_padded(void (*exchange)(const void *, size_t, void *), const void *src, size_t len,
                                     size_t *lens) {
    gex_Rank_t n = gasneti_nodes;
    uint64_t mine = len, *all = malloc(n * sizeof(uint64_t));
    if (!all) gasneti_fatalerror("out of memory in the bootstrap exchange");
    exchange(&mine, sizeof(mine), all);
    size_t most = 0, total = 0;
    for (gex_Rank_t r = 0; r < n; r++) {
        lens[r] = (size_t)all[r];
        total += lens[r];
        if (lens[r] > most) most = lens[r];
    }
    free(all);
    uint8_t *pad = calloc(most ? most : 1, 1), *padded = malloc(most * n + 1), *out = malloc(total + 1);
    if (!pad || !padded || !out) gasneti_fatalerror("out of memory in a bootstrap exchange of %zu bytes", most * n);
    if (len) memcpy(pad, src, len);
    if (most) exchange(pad, most, padded);
    size_t off = 0;
    for (gex_Rank_t r = 0; r < n; r++) {
        if (lens[r]) memcpy(out + off, padded + (size_t)r * most, lens[r]);
        off += lens[r];
    }
    free(pad);
    free(padded);
    return out;
}

/* ---- the queue of arrived out-of-band messages ----
 * A message's block: its bytes first (what take returns and the caller frees), then, at
 * the next multiple of 8, the queue's record of it. */
typedef struct msg_s {
    struct msg_s *next;
    gex_Rank_t src;
    size_t len;
} msg_t;
#define MSG_REC_AT(len) (((len) + 7) & ~(size_t)7)
static msg_t *q_head, **q_tail = &q_head;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;

void gasneti_boot_msgq_put(gex_Rank_t src, const void *buf, size_t len) {
    uint8_t *b = malloc(MSG_REC_AT(len) + sizeof(msg_t));
    if (!b) gasneti_fatalerror("out of memory for an out-of-band message of %zu bytes", len);
    if (len) memcpy(b, buf, len);
    msg_t *m = (msg_t *)(b + MSG_REC_AT(len));
    m->next = NULL;
    m->src = src;
    m->len = len;
    pthread_mutex_lock(&q_lock);
    __atomic_store_n(q_tail, m, __ATOMIC_RELEASE); /* take() looks without the lock */
    q_tail = &m->next;
    pthread_cond_broadcast(&q_cond);
    pthread_mutex_unlock(&q_lock);
}

void *gasneti_boot_msgq_take(gex_Rank_t *src, size_t *len, int block) {
    if (!block && !__atomic_load_n(&q_head, __ATOMIC_ACQUIRE)) return NULL; /* cheap when empty */
    pthread_mutex_lock(&q_lock);
    while (block && !q_head) pthread_cond_wait(&q_cond, &q_lock);
    msg_t *m = q_head;
    if (m) {
        __atomic_store_n(&q_head, m->next, __ATOMIC_RELEASE);
        if (!m->next) q_tail = &q_head;
    }
    pthread_mutex_unlock(&q_lock);
    if (!m) return NULL;
    *src = m->src;
    *len = m->len;
    return (uint8_t *)m - MSG_REC_AT(m->len);
}
