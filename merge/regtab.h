/*
 * regtab.h - a process's parallel-region executions, by region id, in constant memory.
 *
 * Every sample and implicit-task record of every thread names the parallel region it is
 * in; what the region was (its construct, encountering thread, begin and end) is known
 * only from the encountering thread's records. A job can run millions of regions, so
 * the table lives in an unlinked temporary file: fixed 32-byte slots at id * 32 (region
 * ids are a process-wide counter, so the file is dense; holes read as "absent"), behind
 * a small write-back cache of 4 KiB pages. Threads name regions in increasing order, so
 * lookups almost always hit the cache. Memory: 64 pages, whatever the number of regions.
 */
#ifndef MG_REGTAB_H
#define MG_REGTAB_H

#include <stdbool.h>
#include <stdint.h>

/* One execution of a parallel region. */
typedef struct mg_ompreg {
    uint32_t lregion; /* process-local region id of the construct */
    uint32_t enc_seq; /* encountering thread */
    uint64_t begin;   /* raw times; end 0 until the region's end is seen */
    uint64_t end;
    uint32_t hint; /* encountering thread's CCT node at the construct + 1, 0 = none */
    uint32_t func; /* the function holding the construct (symbolizer id), 0 = unknown */
} mg_ompreg;

typedef struct mg_regtab mg_regtab;

/* Ids beyond this are not stored (a damaged record): lookups say absent. */
#define MG_REGTAB_MAX_ID (1ull << 36)

/* A new empty table, or NULL (errno) when no temporary file can be made. */
mg_regtab *mg_regtab_open(void);
/* Store r under id (replacing). Returns 0, or -1 on an I/O error or an id out of range. */
int mg_regtab_put(mg_regtab *t, uint64_t id, const mg_ompreg *r);
/* The record of id into *r; false if none was stored (or on an I/O error). */
bool mg_regtab_get(mg_regtab *t, uint64_t id, mg_ompreg *r);
/* Regions stored. */
uint64_t mg_regtab_count(const mg_regtab *t);
/* Closing NULL does nothing. */
void mg_regtab_close(mg_regtab *t);

#endif
