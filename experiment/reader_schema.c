/*
 * reader_schema.c - which schema a stream was written with, and how its fields map onto
 * the built-in structs.
 *
 * Sources, in order: the stream's own SCHEMA records (job and process streams start with
 * them), the reader given as schema_from (thread streams: their process.hpe), else the
 * built-in schema (the header's schema hash says whether that is exact).
 *
 * Per kind id the result is a decode mode (reader_internal.h): BUILTIN when the file's
 * field list equals ours (the generated decoder runs), MAPPED when it differs (fields
 * found by name with the same type are stored, others skipped), UNKNOWN for kinds only
 * the file knows (returned raw, but walked so the time base stays right), RAW when
 * nothing describes the kind.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "schema_internal.h"

static char type_char(const char *t, size_t n)
{
    static const struct {
        const char *name;
        char c;
    } types[] = {{"U", 'U'}, {"S", 'S'}, {"T", 'T'}, {"STR", 's'}, {"BYTES", 'b'}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == n && memcmp(types[i].name, t, n) == 0)
            return types[i].c;
    return 0;
}

static const char *type_text(char c)
{
    switch (c) {
    case 'U':
        return "U";
    case 'S':
        return "S";
    case 'T':
        return "T";
    case 's':
        return "STR";
    case 'b':
        return "BYTES";
    }
    return "?";
}

static void fkind_free(file_kind *fk)
{
    if (!fk || __atomic_sub_fetch(&fk->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    free(fk->fields);
    free(fk->names);
    free(fk->name_raw);
    free(fk->fields_raw);
    free(fk);
}

static char *dup_n(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        if (n)
            memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

/*
 * Parse "name:TYPE name:TYPE ..." into a file_kind. Returns NULL with *bad set to a
 * description of what is wrong (or NULL when out of memory).
 */
static file_kind *fkind_parse(unsigned kind, hpc_str name, hpc_str fields, const char **bad)
{
    *bad = NULL;
    file_kind *fk = calloc(1, sizeof *fk);
    if (!fk)
        return NULL;
    fk->refs = 1;
    fk->name_raw = dup_n(name.p, name.n);
    fk->fields_raw = dup_n(fields.p, fields.n);
    fk->names = dup_n(fields.p, fields.n);
    size_t cap = fields.n / 2 + 1; /* a field takes at least "x:U " */
    fk->fields = calloc(cap, sizeof *fk->fields);
    if (!fk->name_raw || !fk->fields_raw || !fk->names || !fk->fields) {
        fkind_free(fk);
        return NULL;
    }
    unsigned n = 0;
    char *p = fk->names, *end = p + fields.n;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p == end)
            break;
        char *tok = p;
        while (p < end && *p != ' ')
            p++;
        char *colon = memchr(tok, ':', (size_t)(p - tok));
        char t = colon ? type_char(colon + 1, (size_t)(p - colon - 1)) : 0;
        if (!colon || colon == tok || !t || memchr(tok, 0, (size_t)(p - tok))) {
            *bad = colon && colon != tok ? "unknown field type" : "field without name:TYPE";
            fkind_free(fk);
            return NULL;
        }
        *colon = 0;
        if (p < end)
            *p++ = 0;
        fk->fields[n++] = (hpc_field_desc){tok, t, NO_TARGET};
    }
    if (memchr(fk->name_raw, 0, name.n) || name.n == 0) {
        *bad = "bad kind name";
        fkind_free(fk);
        return NULL;
    }
    fk->desc = (hpc_kind_desc){kind, fk->name_raw, n, fk->fields};
    return fk;
}

/* A stream described by another file's schema (a thread stream by its process.hpe)
 * shares that file's kinds, read-only but for the mapping onto the built-in structs,
 * which comes out the same for both: a thread opens without parsing its schema again. */
static file_kind *fkind_share(file_kind *src)
{
    __atomic_add_fetch(&src->refs, 1, __ATOMIC_RELAXED);
    return src;
}

/*
 * The SCHEMA records last parsed: every process.hpe of a job starts with the same ones,
 * so a file whose SCHEMA records are the same bytes at the same place shares these kinds
 * instead of parsing them again (opening a job of many processes: hpanalyze, and every
 * merge rank of hpmerge). A few are kept (process and launcher streams of other writers
 * may alternate). Only a parse that reported nothing is kept: a file that hits would
 * have reported the same nothing.
 */
#define NLAST 4
typedef struct last_schema {
    uint8_t *bytes;
    uint64_t start;
    size_t n;
    file_kind *fkind[256];
} last_schema;
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static last_schema last[NLAST];
static unsigned last_next; /* the slot replaced next */

/* Where the stream's SCHEMA records are: [*start, *end). */
static void schema_region(hpc_reader *r, uint64_t *start, uint64_t *end)
{
    hpc_record rec;
    *start = *end = r->size;
    bool first = true;
    while (reader_next_raw(r, &rec)) {
        if (first)
            *start = rec.offset;
        first = false;
        if (rec.kind != HPC_K_schema) {
            *end = rec.offset;
            break;
        }
    }
    if (*start > *end)
        *start = *end;
    hpc_reader_rewind(r);
}

/* Share the kinds of a kept schema when r's SCHEMA records are its bytes. */
static bool schema_from_last(hpc_reader *r, uint64_t start, uint64_t end)
{
    bool hit = false;
    pthread_mutex_lock(&last_lock);
    for (unsigned i = 0; i < NLAST && !hit && end > start; i++) {
        const last_schema *l = &last[i];
        if (!l->bytes || l->start != start || l->n != end - start ||
            memcmp(l->bytes, r->map + start, l->n) != 0)
            continue;
        for (unsigned k = 0; k < 256; k++)
            if (l->fkind[k]) {
                r->fkind[k] = fkind_share(l->fkind[k]);
                r->has_own_schema = true;
            }
        hit = true;
    }
    pthread_mutex_unlock(&last_lock);
    return hit;
}

/* Keep r's freshly parsed kinds (bytes [start, end) of its file) in the next slot. */
static void schema_keep(const hpc_reader *r, uint64_t start, uint64_t end)
{
    uint8_t *bytes = end > start ? malloc(end - start) : NULL;
    if (!bytes)
        return;
    memcpy(bytes, r->map + start, end - start);
    pthread_mutex_lock(&last_lock);
    last_schema *l = &last[last_next++ % NLAST];
    for (unsigned k = 0; k < 256; k++) {
        fkind_free(l->fkind[k]);
        l->fkind[k] = r->fkind[k] ? fkind_share(r->fkind[k]) : NULL;
    }
    free(l->bytes);
    l->bytes = bytes;
    l->start = start;
    l->n = end - start;
    pthread_mutex_unlock(&last_lock);
}

/* Read the SCHEMA records at the start of the stream into r->fkind. */
static int schema_records_read(hpc_reader *r)
{
    hpc_record rec;
    int rc = 0;
    r->mode[HPC_K_schema] = DECODE_BUILTIN; /* the schema kind's layout never changes */
    r->exact[HPC_K_schema] = true;
    r->scanning = true;
    uint64_t start, end;
    schema_region(r, &start, &end);
    if (schema_from_last(r, start, end)) {
        r->scanning = false;
        r->damaged = r->torn = 0;
        return 0;
    }
    unsigned reports = r->reports;
    while (reader_next_raw(r, &rec) && rec.kind == HPC_K_schema) {
        const char *bad;
        char why[200];
        uint64_t tb = 0;
        if (reader_decode(r, &rec, &tb, why, sizeof why) != 0)
            continue; /* reported when read */
        const hpc_rec_schema *s = &rec.u.schema;
        r->has_own_schema = true;
        if (s->kind < 1 || s->kind > 255 || r->fkind[s->kind])
            continue; /* bad or repeated: keep the first */
        file_kind *fk = fkind_parse((unsigned)s->kind, s->name, s->fields, &bad);
        if (!fk && !bad) {
            rc = HPC_E_NOMEM;
            break;
        }
        if (!fk) {
            r->scanning = false;
            READER_CORRUPT(r, rec.offset, "SCHEMA record of kind %u: %s; kind ignored",
                           (unsigned)s->kind, bad);
            r->scanning = true;
            continue;
        }
        fk->offset = rec.offset;
        r->fkind[s->kind] = fk;
    }
    r->scanning = false;
    /* Damage met here is counted again when the records are read. */
    r->damaged = r->torn = 0;
    if (rc == 0 && r->reports == reports && r->has_own_schema)
        schema_keep(r, start, end);
    return rc;
}

static bool types_compatible(char a, char b)
{
    return a == b || ((a == 's' || a == 'b') && (b == 's' || b == 'b'));
}

static bool fields_equal(const hpc_kind_desc *a, const hpc_kind_desc *b)
{
    if (a->nfields != b->nfields)
        return false;
    for (unsigned i = 0; i < a->nfields; i++)
        if (a->fields[i].type != b->fields[i].type ||
            strcmp(a->fields[i].name, b->fields[i].name) != 0)
            return false;
    return true;
}

/* fields_equal(fk, builtin), compared once per kind description: every process.hpe of a
 * job shares one (schema_from_last), and every thread stream its process's. */
static bool same_as_builtin(file_kind *fk, const hpc_kind_desc *builtin)
{
    int same = __atomic_load_n(&fk->builtin_same, __ATOMIC_RELAXED);
    if (!same) {
        same = fields_equal(&fk->desc, builtin) ? 1 : -1;
        __atomic_store_n(&fk->builtin_same, same, __ATOMIC_RELAXED);
    }
    return same > 0;
}

/* Point the file's fields at the built-in struct members of the same name and type. */
static void fkind_map(hpc_reader *r, file_kind *fk, const hpc_kind_desc *builtin)
{
    for (unsigned i = 0; i < fk->desc.nfields; i++) {
        hpc_field_desc *f = &fk->fields[i];
        for (unsigned j = 0; j < builtin->nfields; j++) {
            const hpc_field_desc *b = &builtin->fields[j];
            if (strcmp(f->name, b->name) != 0)
                continue;
            if (types_compatible(f->type, b->type))
                f->offset = b->offset;
            else
                READER_CORRUPT(r, r->has_own_schema ? fk->offset : HPC_NO_OFFSET,
                               "schema: field %s of %s is %s in this file but %s here; "
                               "ignored",
                               f->name, builtin->name, type_text(f->type), type_text(b->type));
            break;
        }
    }
}

int reader_schema_load(hpc_reader *r, const hpc_reader *from)
{
    int rc = schema_records_read(r);
    if (rc)
        return rc;
    if (!r->has_own_schema && from) {
        for (unsigned k = 0; k < 256; k++) {
            if (!from->fkind[k])
                continue;
            r->fkind[k] = fkind_share(from->fkind[k]);
        }
        if (from->schema_hash != r->schema_hash)
            READER_CORRUPT(r, 24,
                           "schema hash differs from that of %s: decoding by that file's "
                           "schema",
                           from->path);
    } else if (!r->has_own_schema && r->schema_hash != hpc_schema_hash()) {
        READER_CORRUPT(r, 24,
                       "written with another schema (hash %016llx) and none is at hand: "
                       "decoding by the built-in schema",
                       (unsigned long long)r->schema_hash);
    }
    /* Without a description the built-in fields are the writer's only if the hash says so */
    bool builtin_exact = r->schema_hash == hpc_schema_hash();
    for (unsigned k = 1; k < 256; k++) {
        const hpc_kind_desc *builtin = hpc_schema_kind(k);
        file_kind *fk = r->fkind[k];
        r->exact[k] = fk || builtin_exact;
        if (!fk)
            r->mode[k] = builtin ? DECODE_BUILTIN : DECODE_RAW;
        else if (!builtin)
            r->mode[k] = DECODE_UNKNOWN;
        else if (same_as_builtin(fk, builtin))
            r->mode[k] = DECODE_BUILTIN;
        else {
            fkind_map(r, fk, builtin);
            r->mode[k] = DECODE_MAPPED;
        }
    }
    r->mode[HPC_K_schema] = DECODE_BUILTIN;
    r->exact[HPC_K_schema] = true;
    return 0;
}

void reader_schema_free(hpc_reader *r)
{
    for (unsigned k = 0; k < 256; k++) {
        fkind_free(r->fkind[k]);
        r->fkind[k] = NULL;
    }
}

bool reader_schema_is_builtin(const hpc_reader *r)
{
    if (r->schema_hash != hpc_schema_hash())
        return false;
    for (unsigned k = 1; k < 256; k++)
        if (r->fkind[k] && r->mode[k] != DECODE_BUILTIN)
            return false; /* a kind we do not know, or other fields */
    return true;
}
