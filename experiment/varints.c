/*
 * varints.c - packed varint arrays for BYTES fields (mpi_comm.members and .remote).
 */
#include "codec.h"
#include "experiment.h"

int hpc_varints_encode(uint8_t *buf, size_t cap, const uint64_t *v, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned len = hpc_varint_len(v[i]);
        if (len > cap - used || used + len > (size_t)INT32_MAX)
            return -1;
        hpc_varint_put(buf + used, v[i]);
        used += len;
    }
    return (int)used;
}

long hpc_varints_decode(hpc_str b, uint64_t *v, size_t max)
{
    if (!b.p)
        return b.n ? -1 : 0;
    const uint8_t *p = (const uint8_t *)b.p, *end = p + b.n;
    size_t count = 0;
    while (p < end && count < max) {
        p = hpc_varint_get(p, end, &v[count]);
        if (!p)
            return -1;
        count++;
    }
    return (long)count;
}
