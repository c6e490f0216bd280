/*
 * varints.c - packed varint arrays for BYTES fields (mpi_comm.members and .remote): the
 * writer's half (the reader decodes them in reader_decode.c). Signal-safe.
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
