/*
 * print.c - render any record as text or JSON members by the schema, for
 * `hpanalyze dump` and the hpexp-dump test tool.
 *
 *   text:  module_load @1234 time=5000 id=1 path="/lib/libc.so.6" build_id=0a1b2c flags=0
 *   JSON:  "record":"module_load","offset":1234,"time":5000,"id":1,"path":"/lib/libc.so.6",...
 *
 * Known kinds print every built-in field from the decoded struct. Kinds this library
 * does not know print by the file's own description (T fields as deltas "+N", since
 * their base is the reader's business), or as raw hex when nothing describes them.
 */
#include <inttypes.h>
#include <string.h>

#include "codec.h"
#include "experiment.h"

/* Length of the valid UTF-8 sequence at p (max n bytes), 0 if invalid. */
static unsigned utf8_len(const uint8_t *p, size_t n)
{
    unsigned len = p[0] < 0xc2 ? 0 : p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : p[0] < 0xf5 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (unsigned i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
        (p[0] == 0xf4 && p[1] > 0x8f) || (p[0] == 0xed && p[1] > 0x9f))
        return 0; /* overlong, beyond U+10FFFF, surrogates */
    return len;
}

/* A quoted string: valid UTF-8 as is, the rest escaped (JSON \uXXXX or C \xNN). */
static void print_string(FILE *f, hpc_str s, enum hpc_print_style style)
{
    const uint8_t *p = (const uint8_t *)s.p;
    fputc('"', f);
    for (size_t i = 0; i < s.n;) {
        uint8_t c = p[i];
        if (c >= 0x80) {
            unsigned len = utf8_len(p + i, s.n - i);
            if (len) {
                fwrite(p + i, 1, len, f);
                i += len;
                continue;
            }
        }
        i++;
        switch (c) {
        case '"':
            fputs("\\\"", f);
            continue;
        case '\\':
            fputs("\\\\", f);
            continue;
        case '\n':
            fputs("\\n", f);
            continue;
        case '\t':
            fputs("\\t", f);
            continue;
        }
        if (c >= 0x20 && c < 0x7f)
            fputc(c, f);
        else if (style == HPC_PRINT_JSON)
            fprintf(f, "\\u%04x", c);
        else if (c == 0)
            fputs("\\0", f);
        else
            fprintf(f, "\\x%02x", c);
    }
    fputc('"', f);
}

static void print_hex(FILE *f, hpc_str s, enum hpc_print_style style)
{
    if (style == HPC_PRINT_JSON)
        fputc('"', f);
    for (uint32_t i = 0; i < s.n; i++)
        fprintf(f, "%02x", (uint8_t)s.p[i]);
    if (style == HPC_PRINT_JSON)
        fputc('"', f);
}

static void print_key(FILE *f, const char *name, enum hpc_print_style style)
{
    if (style == HPC_PRINT_JSON)
        fprintf(f, ",\"%s\":", name);
    else
        fprintf(f, " %s=", name);
}

/* The fields of a known kind, from the decoded struct. */
static void print_struct(FILE *f, const hpc_kind_desc *d, const hpc_record *rec,
                         enum hpc_print_style style)
{
    const uint8_t *base = (const uint8_t *)&rec->u;
    for (unsigned i = 0; i < d->nfields; i++) {
        const hpc_field_desc *fd = &d->fields[i];
        uint64_t u;
        int64_t sv;
        hpc_str s;
        print_key(f, fd->name, style);
        switch (fd->type) {
        case 'S':
            memcpy(&sv, base + fd->offset, sizeof sv);
            fprintf(f, "%" PRId64, sv);
            break;
        case 's':
            memcpy(&s, base + fd->offset, sizeof s);
            print_string(f, s, style);
            break;
        case 'b':
            memcpy(&s, base + fd->offset, sizeof s);
            print_hex(f, s, style);
            break;
        default:
            memcpy(&u, base + fd->offset, sizeof u);
            fprintf(f, "%" PRIu64, u);
        }
    }
}

/* The fields of an unknown kind, decoded from raw by the file's description (f NULL:
 * only check). Returns -1 if the payload does not match it. */
static int print_by_desc(FILE *f, const hpc_kind_desc *d, hpc_str raw, enum hpc_print_style style)
{
    if (f && print_by_desc(NULL, d, raw, style) != 0)
        return -1;
    const uint8_t *p = (const uint8_t *)raw.p, *e = p + raw.n;
    for (unsigned i = 0; i < d->nfields && p < e; i++) {
        const hpc_field_desc *fd = &d->fields[i];
        uint64_t u;
        p = hpc_varint_get(p, e, &u);
        if (!p)
            return -1;
        if (!f) {
            if ((fd->type == 's' || fd->type == 'b') && u > (uint64_t)(e - p))
                return -1;
            if (fd->type == 's' || fd->type == 'b')
                p += u;
            continue;
        }
        print_key(f, fd->name, style);
        switch (fd->type) {
        case 'S':
            fprintf(f, "%" PRId64, hpc_unzigzag(u));
            break;
        case 'T':
            fprintf(f, style == HPC_PRINT_JSON ? "\"%+" PRId64 "\"" : "%+" PRId64, hpc_unzigzag(u));
            break;
        case 's':
        case 'b':
            if (u > (uint64_t)(e - p))
                return -1;
            if (fd->type == 's')
                print_string(f, (hpc_str){(const char *)p, (uint32_t)u}, style);
            else
                print_hex(f, (hpc_str){(const char *)p, (uint32_t)u}, style);
            p += u;
            break;
        default:
            fprintf(f, "%" PRIu64, u);
        }
    }
    return 0;
}

int hpc_record_print(FILE *f, const hpc_record *rec, const hpc_reader *schema,
                     enum hpc_print_style style)
{
    const hpc_kind_desc *builtin = hpc_schema_kind(rec->kind);
    const hpc_kind_desc *file = schema ? hpc_reader_schema_kind(schema, rec->kind) : NULL;
    const char *name = builtin ? builtin->name : file ? file->name : NULL;
    char unknown[16];
    if (!name) {
        snprintf(unknown, sizeof unknown, "kind%u", rec->kind);
        name = unknown;
    }
    if (style == HPC_PRINT_JSON)
        fprintf(f, "\"record\":\"%s\",\"offset\":%" PRIu64, name, rec->offset);
    else
        fprintf(f, "%s @%" PRIu64, name, rec->offset);

    if (builtin) {
        print_struct(f, builtin, rec, style);
    } else if (!file || print_by_desc(f, file, rec->raw, style) != 0) {
        print_key(f, "raw", style);
        print_hex(f, rec->raw, style);
    }
    return ferror(f) ? HPC_E_IO : 0;
}
