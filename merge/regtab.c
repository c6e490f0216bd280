/*
 * regtab.c - parallel-region table in a temporary file behind a page cache (see
 * regtab.h).
 */
#include "regtab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define PAGE     4096
#define SLOT     32
#define PER_PAGE (PAGE / SLOT)
#define NPAGES   64 /* direct-mapped by page number */

/* On disk: lregion + 1 (0 = absent), enc_seq, begin, end, hint, func. */
typedef struct slot {
    uint32_t lregion1, enc_seq;
    uint64_t begin, end;
    uint32_t hint, func;
} slot;
_Static_assert(sizeof(slot) == SLOT, "slot size");

typedef struct page {
    uint64_t no; /* page number, UINT64_MAX = empty */
    bool dirty;
    slot s[PER_PAGE];
} page;

struct mg_regtab {
    FILE *f;
    uint64_t count;
    page pages[NPAGES];
};

mg_regtab *mg_regtab_open(void)
{
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    mg_regtab *t = mg_xcalloc(1, sizeof(*t));
    t->f = f;
    for (int i = 0; i < NPAGES; i++)
        t->pages[i].no = UINT64_MAX;
    return t;
}

static int flush_page(mg_regtab *t, page *p)
{
    if (!p->dirty)
        return 0;
    p->dirty = false;
    ssize_t n = pwrite(fileno(t->f), p->s, PAGE, (off_t)(p->no * PAGE));
    return n == PAGE ? 0 : -1;
}

/* The cached page no, read from the file (holes and the end read as zeros). */
static page *get_page(mg_regtab *t, uint64_t no)
{
    page *p = &t->pages[no % NPAGES];
    if (p->no == no)
        return p;
    if (p->no != UINT64_MAX && flush_page(t, p) != 0)
        return NULL;
    ssize_t n = pread(fileno(t->f), p->s, PAGE, (off_t)(no * PAGE));
    if (n < 0) {
        p->no = UINT64_MAX;
        return NULL;
    }
    memset((char *)p->s + n, 0, PAGE - (size_t)n);
    p->no = no;
    return p;
}

int mg_regtab_put(mg_regtab *t, uint64_t id, const mg_ompreg *r)
{
    if (id >= MG_REGTAB_MAX_ID)
        return -1;
    page *p = get_page(t, id / PER_PAGE);
    if (!p)
        return -1;
    slot *s = &p->s[id % PER_PAGE];
    t->count += s->lregion1 == 0;
    *s = (slot){r->lregion + 1, r->enc_seq, r->begin, r->end, r->hint, r->func};
    p->dirty = true;
    return 0;
}

bool mg_regtab_get(mg_regtab *t, uint64_t id, mg_ompreg *r)
{
    if (id >= MG_REGTAB_MAX_ID)
        return false;
    page *p = get_page(t, id / PER_PAGE);
    if (!p)
        return false;
    const slot *s = &p->s[id % PER_PAGE];
    if (s->lregion1 == 0)
        return false;
    *r = (mg_ompreg){s->lregion1 - 1, s->enc_seq, s->begin, s->end, s->hint, s->func};
    return true;
}

uint64_t mg_regtab_count(const mg_regtab *t)
{
    return t->count;
}

void mg_regtab_close(mg_regtab *t)
{
    if (!t)
        return;
    fclose(t->f);
    free(t);
}
