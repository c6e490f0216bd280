/*
 * header_layout.h - byte offsets of the stream header fields (experiment.h draws the
 * table), shared by writer and reader. Private to experiment/.
 */
#ifndef HPC_HEADER_LAYOUT_H
#define HPC_HEADER_LAYOUT_H

#include <stdint.h>

#include "experiment.h"

#define HPC_HDR_MAGIC       0
#define HPC_HDR_MAJOR       8
#define HPC_HDR_MINOR       10
#define HPC_HDR_KIND        12
#define HPC_HDR_SIZE        14
#define HPC_HDR_CHUNK_SIZE  16
#define HPC_HDR_STREAM_ID   20
#define HPC_HDR_SCHEMA_HASH 24
#define HPC_HDR_CREATED     32
#define HPC_HDR_STATS       40
#define HPC_HDR_MIN_SIZE    (HPC_HDR_STATS + 8 * 24) /* what a reader needs: format 1.0's */

#define HPC_CHUNK_DEFAULT (256u * 1024)
#define HPC_CHUNK_MIN     4096u
#define HPC_CHUNK_MAX     (1u << 30)

/* The live stats are read and updated in place as native u64: little-endian hosts only. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the format is little-endian");

static inline uint64_t hpc_le_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void hpc_le_put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* How many stats a header of hdr_size bytes holds (a 1.0 file: 27 slots, 24 used and the
 * rest zero; this writer's: HPC_NSTATS). */
static inline unsigned hpc_hdr_nstats(uint64_t hdr_size)
{
    uint64_t n = hdr_size > HPC_HDR_STATS ? (hdr_size - HPC_HDR_STATS) / 8 : 0;
    return n < HPC_NSTATS ? (unsigned)n : HPC_NSTATS;
}

#endif /* HPC_HEADER_LAYOUT_H */
