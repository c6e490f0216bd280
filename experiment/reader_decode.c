/*
 * reader_decode.c - payload decoding: a generated decoder per built-in kind (the fast
 * path: a file written by this schema) and an interpreter over a file's own field list
 * (other writers' schemas: fields mapped by name and type, unknown ones skipped).
 *
 * Every read is bounds-checked against the payload end. A payload that ends before the
 * last field leaves the remaining fields 0 / empty (an older writer); bytes after the
 * last known field are ignored (a newer writer). Decoding 10 million sample_clock
 * records takes about 0.2 s on the 2-core development VM (bench/exp_codec.c).
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "reader_internal.h"

struct fail {
    const char *field;
    char type;
    const uint8_t *at;
    unsigned nfields; /* fields decoded */
    size_t left;      /* payload bytes after them */
};

static inline const uint8_t *dec_U(const uint8_t *p, const uint8_t *e, uint64_t *tb, uint64_t *out)
{
    (void)tb;
    return hpc_varint_get(p, e, out);
}

static inline const uint8_t *dec_S(const uint8_t *p, const uint8_t *e, uint64_t *tb, int64_t *out)
{
    uint64_t u;
    (void)tb;
    p = hpc_varint_get(p, e, &u);
    if (p)
        *out = hpc_unzigzag(u);
    return p;
}

static inline const uint8_t *dec_T(const uint8_t *p, const uint8_t *e, uint64_t *tb, uint64_t *out)
{
    uint64_t u;
    p = hpc_varint_get(p, e, &u);
    if (p) {
        *tb += (uint64_t)hpc_unzigzag(u);
        *out = *tb;
    }
    return p;
}

static inline const uint8_t *dec_STR(const uint8_t *p, const uint8_t *e, uint64_t *tb, hpc_str *out)
{
    uint64_t n;
    (void)tb;
    p = hpc_varint_get(p, e, &n);
    if (!p || n > (uint64_t)(e - p))
        return NULL;
    out->p = (const char *)p;
    out->n = (uint32_t)n;
    return p + n;
}

#define dec_BYTES dec_STR

#define TYPECHAR_U     'U'
#define TYPECHAR_S     'S'
#define TYPECHAR_T     'T'
#define TYPECHAR_STR   's'
#define TYPECHAR_BYTES 'b'

/* NFIELDS_<name>: how many fields a built-in kind has. */
#define HPC_FIELD(type, fname)       +1
#define HPC_RECORD(name, id, fields) NFIELDS_##name = 0 fields,
enum {
#include "schema.def"
};
#undef HPC_RECORD
#undef HPC_FIELD

/* Generated decoders: 0 = all fields decoded and the payload used up exactly,
 * 1 = decoded, but the payload ended early or has bytes left, -1 = a field is bad. */
#define HPC_FIELD(type, fname)                                                                     \
    if (p < e) {                                                                                   \
        const uint8_t *q = dec_##type(p, e, tb, &o->fname);                                        \
        if (!q) {                                                                                  \
            *fail = (struct fail){#fname, TYPECHAR_##type, p, 0, 0};                               \
            return -1;                                                                             \
        }                                                                                          \
        p = q;                                                                                     \
        n++;                                                                                       \
    }
#define HPC_RECORD(name, id, fields)                                                               \
    static int decode_##name(const uint8_t *p, const uint8_t *e, uint64_t *tb, hpc_rec_##name *o,  \
                             struct fail *fail)                                                    \
    {                                                                                              \
        unsigned n = 0;                                                                            \
        memset(o, 0, sizeof *o);                                                                   \
        fields fail->nfields = n;                                                                  \
        fail->left = (size_t)(e - p);                                                              \
        return n == NFIELDS_##name && p == e ? 0 : 1;                                              \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

static int decode_builtin(hpc_record *rec, uint64_t *tb, struct fail *fail)
{
    const uint8_t *p = (const uint8_t *)rec->raw.p, *e = p + rec->raw.n;
    switch (rec->kind) {
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        return decode_##name(p, e, tb, &rec->u.name, fail);
#include "schema.def"
#undef HPC_RECORD
    }
    return -1;
}

/* Generated walkers: a built-in kind's fields checked as its decoder checks them and its
 * T fields added to the time base, nothing stored (the struct is the compiler's to drop).
 * The same 0 / 1 / -1 as the decoders. */
#define HPC_FIELD(type, fname)                                                                     \
    if (p < e) {                                                                                   \
        const uint8_t *q = dec_##type(p, e, tb, &o.fname);                                         \
        if (!q)                                                                                    \
            return -1;                                                                             \
        p = q;                                                                                     \
        n++;                                                                                       \
    }
#define HPC_RECORD(name, id, fields)                                                               \
    static int walk_##name(const uint8_t *p, const uint8_t *e, uint64_t *tb)                       \
    {                                                                                              \
        unsigned n = 0;                                                                            \
        hpc_rec_##name o;                                                                          \
        fields(void) o;                                                                            \
        return n == NFIELDS_##name && p == e ? 0 : 1;                                              \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

int reader_walk(const hpc_record *rec, uint64_t *tb)
{
    const uint8_t *p = (const uint8_t *)rec->raw.p, *e = p + rec->raw.n;
    switch (rec->kind) {
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        return walk_##name(p, e, tb);
#include "schema.def"
#undef HPC_RECORD
    }
    return -1;
}

size_t reader_struct_size(unsigned kind)
{
    switch (kind) {
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        return sizeof(hpc_rec_##name);
#include "schema.def"
#undef HPC_RECORD
    }
    return 0;
}

/* Interpret a payload by a field list; store fields with a target into `base`. */
static int decode_by_desc(const hpc_kind_desc *d, hpc_str raw, uint64_t *tb, uint8_t *base,
                          struct fail *fail)
{
    const uint8_t *p = (const uint8_t *)raw.p, *e = p + raw.n;
    unsigned i;
    for (i = 0; i < d->nfields && p < e; i++) {
        const hpc_field_desc *f = &d->fields[i];
        void *out = f->offset == NO_TARGET ? NULL : base + f->offset;
        const uint8_t *q;
        uint64_t u;
        int64_t sv;
        hpc_str s;
        switch (f->type) {
        case 'U':
            q = dec_U(p, e, tb, &u);
            if (q && out)
                memcpy(out, &u, sizeof u);
            break;
        case 'S':
            q = dec_S(p, e, tb, &sv);
            if (q && out)
                memcpy(out, &sv, sizeof sv);
            break;
        case 'T':
            q = dec_T(p, e, tb, &u);
            if (q && out)
                memcpy(out, &u, sizeof u);
            break;
        default: /* 's', 'b' */
            q = dec_STR(p, e, tb, &s);
            if (q && out)
                memcpy(out, &s, sizeof s);
            break;
        }
        if (!q) {
            *fail = (struct fail){f->name, f->type, p, 0, 0};
            return -1;
        }
        p = q;
    }
    fail->nfields = i;
    fail->left = (size_t)(e - p);
    return i == d->nfields && p == e ? 0 : 1;
}

/* Say what is wrong with the field that failed to decode. */
static const char *fail_reason(const struct fail *f, const uint8_t *e)
{
    uint64_t n;
    if (f->type == 's' || f->type == 'b') {
        const uint8_t *q = hpc_varint_get(f->at, e, &n);
        if (q)
            return "string runs past the end of the record";
        return "bad string length";
    }
    return hpc_varint_get(f->at, e, &n) ? "bad value" : "bad varint";
}

int reader_decode(const hpc_reader *r, hpc_record *rec, uint64_t *tb, char *msg, size_t cap)
{
    struct fail fail;
    const hpc_kind_desc *d = r->fkind[rec->kind] ? &r->fkind[rec->kind]->desc : NULL;
    int rc;
    switch ((enum decode_mode)r->mode[rec->kind]) {
    case DECODE_BUILTIN:
        rc = decode_builtin(rec, tb, &fail);
        if (__builtin_expect(rc == 0, 1))
            return 0;
        d = hpc_schema_kind(rec->kind);
        break;
    case DECODE_MAPPED:
        memset(&rec->u, 0, reader_struct_size(rec->kind));
        rc = decode_by_desc(d, rec->raw, tb, (uint8_t *)&rec->u, &fail);
        break;
    case DECODE_UNKNOWN:
        rc = decode_by_desc(d, rec->raw, tb, NULL, &fail);
        break;
    default:
        return 0;
    }
    if (rc == 1 && !r->exact[rec->kind])
        rc = 0; /* another writer's schema, not at hand: fewer or more fields are fine */
    if (rc < 0)
        snprintf(msg, cap, "%s in field %s of a %s record",
                 fail_reason(&fail, (const uint8_t *)rec->raw.p + rec->raw.n), fail.field, d->name);
    else if (rc > 0 && fail.left)
        snprintf(msg, cap, "%zu bytes after the last field of a %s record of %u bytes", fail.left,
                 d->name, rec->raw.n);
    else if (rc > 0)
        snprintf(msg, cap, "%s record of %u bytes ends after %u of its %u fields", d->name,
                 rec->raw.n, fail.nfields, d->nfields);
    return rc ? -1 : 0;
}

int reader_skip_fields(const hpc_kind_desc *d, hpc_str raw, uint64_t *tb)
{
    struct fail fail;
    return decode_by_desc(d, raw, tb, NULL, &fail);
}

/* Packed varint arrays of BYTES fields (varints.c writes them). */
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
