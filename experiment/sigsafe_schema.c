/*
 * sigsafe_schema.c - the built-in schema: one hpc_kind_desc per record kind of schema.def, the
 * "name:TYPE ..." text that SCHEMA records carry, and the schema hash in every header.
 *
 * Everything here is static data generated from schema.def (no start-up work), so it may
 * be used from a signal handler. A duplicate kind id in schema.def fails to compile
 * (duplicate case value).
 */
#include <stddef.h>
#include <string.h>

#include "experiment.h"
#include "schema_internal.h"

#define TYPECHAR_U     'U'
#define TYPECHAR_S     'S'
#define TYPECHAR_T     'T'
#define TYPECHAR_STR   's'
#define TYPECHAR_BYTES 'b'

const hpc_kind_desc *hpc_schema_kind(unsigned kind)
{
    switch (kind) {
#define HPC_FIELD(type, fname) {#fname, TYPECHAR_##type, (uint16_t)offsetof(REC, fname)},
#define HPC_RECORD(name, id, fields)                                                               \
    case id: {                                                                                     \
        _Static_assert((id) >= 1 && (id) <= 255, "kind ids are 1..255");                           \
        typedef hpc_rec_##name REC;                                                                \
        static const hpc_field_desc f[] = {fields};                                                \
        static const hpc_kind_desc k = {id, #name, sizeof f / sizeof f[0], f};                     \
        return &k;                                                                                 \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD
    }
    return NULL;
}

const char *hpc_schema_fields_text(unsigned kind)
{
    switch (kind) {
#define HPC_FIELD(type, fname) " " #fname ":" #type
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        return &(fields)[1]; /* skip the leading space */
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD
    }
    return NULL;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t schema_hash_compute(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned kind = 1; kind <= 255; kind++) {
        const hpc_kind_desc *k = hpc_schema_kind(kind);
        if (!k)
            continue;
        char id[4] = {(char)('0' + kind / 100), (char)('0' + kind / 10 % 10),
                      (char)('0' + kind % 10), ' '};
        const char *text = hpc_schema_fields_text(kind);
        h = fnv1a(h, id, sizeof id);
        h = fnv1a(h, k->name, strlen(k->name));
        h = fnv1a(h, " ", 1);
        h = fnv1a(h, text, strlen(text));
        h = fnv1a(h, "\n", 1);
    }
    return h;
}

uint64_t hpc_schema_hash(void)
{
    /* Computing twice in a race gives the same value: a relaxed store is enough. */
    static uint64_t cached;
    uint64_t h = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!h) {
        h = schema_hash_compute();
        __atomic_store_n(&cached, h, __ATOMIC_RELAXED);
    }
    return h;
}
