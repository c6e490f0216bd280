/*
 * sigsafe_cct.c - each thread's calling-context tree: stacks are stored once, as
 * cct_node records (id, parent, pc) in the thread's stream, and a sample names its leaf
 * node. Lookup is an open-addressing hash table of (parent id, pc) -> node id in
 * mmap'd memory, grown by doubling (mmap a new table, rehash, munmap the old one) when
 * it is 5/8 full. Expected: hundreds to a few hundred thousand nodes per thread; a
 * lookup per frame per sample, inserts only for new stacks. All of it runs in the
 * sample handler: no malloc, no locks.
 */
#include <string.h>
#include <sys/mman.h>

#include "collector.h"

#define CCT_INITIAL_SLOTS 512u       /* 8 KiB: a short thread's few stacks */
#define CCT_KEEP_SLOTS    4096u      /* tables up to this are kept for the next thread (thread.c) */
#define CCT_MAX_SLOTS     (1u << 26) /* 64 M slots (1 GiB): beyond, stacks are cut */

static inline uint32_t cct_hash(uint32_t parent, uint64_t pc)
{
    uint64_t h = (pc ^ ((uint64_t)parent << 40) ^ parent) * 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(h >> 32);
}

static hpc_cct_slot *cct_map(uint32_t nslots)
{
    void *p = mmap(NULL, (size_t)nslots * sizeof(hpc_cct_slot), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void hpc_cct_free(hpc_cct *c)
{
    if (c->slots)
        munmap(c->slots, ((size_t)c->mask + 1) * sizeof(hpc_cct_slot));
    c->slots = NULL;
    c->mask = 0;
    c->count = 0;
}

void hpc_cct_clear(hpc_cct *c)
{
    if (c->slots && c->mask + 1 <= CCT_KEEP_SLOTS) {
        if (c->count)
            memset(c->slots, 0, ((size_t)c->mask + 1) * sizeof(hpc_cct_slot));
        c->count = 0;
    } else {
        hpc_cct_free(c);
    }
}

/* Double the table. Returns 0, or -1 if it cannot grow (the tree is then full). */
static int cct_grow(hpc_cct *c)
{
    uint32_t nslots = c->slots ? (c->mask + 1) * 2 : CCT_INITIAL_SLOTS;
    if (nslots > CCT_MAX_SLOTS)
        return -1;
    hpc_cct_slot *n = cct_map(nslots);
    if (!n)
        return -1;
    uint32_t mask = nslots - 1;
    for (uint32_t i = 0; c->slots && i <= c->mask; i++) {
        hpc_cct_slot s = c->slots[i];
        if (!s.id)
            continue;
        uint32_t j = cct_hash(s.parent, s.pc) & mask;
        while (n[j].id)
            j = (j + 1) & mask;
        n[j] = s;
    }
    uint32_t count = c->count;
    hpc_cct_free(c);
    c->slots = n;
    c->mask = mask;
    c->count = count;
    return 0;
}

/* Child `pc` of `parent`, created (and written) if new. Returns its id or 0. */
static uint32_t cct_child(hpc_thread_priv *t, uint32_t parent, uint64_t pc, int *err)
{
    hpc_cct *c = &t->cct;
    if ((!c->slots || (uint64_t)(c->count + 1) * 8 > (uint64_t)(c->mask + 1) * 5) &&
        cct_grow(c) != 0) {
        if (!c->slots) {
            *err = 0;
            return 0;
        }
        if (c->count + 1 > c->mask) { /* keep one empty slot so probing ends */
            *err = 0;
            return 0;
        }
    }
    uint32_t i = cct_hash(parent, pc) & c->mask;
    while (c->slots[i].id) {
        if (c->slots[i].parent == parent && c->slots[i].pc == pc)
            return c->slots[i].id;
        i = (i + 1) & c->mask;
    }
    /* new node: on disk before any sample that uses it */
    uint32_t id = c->count + 1;
    hpc_rec_cct_node r = {.id = id, .parent = parent, .pc = pc};
    int rc = hpc_write_cct_node(&t->pub.stream, &r);
    if (rc != 0) {
        *err = rc;
        return 0;
    }
    c->slots[i] = (hpc_cct_slot){.pc = pc, .parent = parent, .id = id};
    c->count = id;
    return id;
}

uint64_t hpc_cct_insert(hpc_thread_priv *t, const uint64_t *pcs, int n, int *err)
{
    uint32_t node = 0;
    *err = 0;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t child = cct_child(t, node, pcs[i], err);
        if (!child) {
            if (*err == 0) { /* tree full: keep the stack cut here */
                hpc_stat(t, HPC_STAT_CCT_FULL, 1);
                return node;
            }
            return 0;
        }
        node = child;
    }
    return node;
}
