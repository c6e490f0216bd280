/*
 * reader_internal.h - the reader's state, shared by reader.c (framing, header),
 * reader_schema.c (a file's schema and how it maps onto the built-in structs) and
 * reader_decode.c (payload decoding). Private to experiment/.
 */
#ifndef HPC_READER_INTERNAL_H
#define HPC_READER_INTERNAL_H

#include "experiment.h"

/* How records of one kind id are decoded. */
enum decode_mode {
    DECODE_RAW = 0, /* unknown kind, no description: raw only */
    DECODE_BUILTIN, /* the file's fields are the built-in ones: generated decoder */
    DECODE_MAPPED,  /* fields differ: interpret the file's fields, map by name and type */
    DECODE_UNKNOWN, /* a kind this library does not know, described by the file */
};

#define NO_TARGET UINT16_MAX /* plan field not stored (unknown to the built-in struct) */

/* The file's description of a kind (from SCHEMA records), as a hpc_kind_desc whose
 * field offsets point into the built-in struct, or NO_TARGET. */
typedef struct file_kind {
    hpc_kind_desc desc;
    hpc_field_desc *fields;      /* desc.fields, owned */
    char *names;                 /* storage for the kind and field names */
    char *name_raw, *fields_raw; /* the SCHEMA record's text */
    uint64_t offset;             /* of the SCHEMA record in the file that has it */
    unsigned refs;               /* readers holding it: schema_from's streams share it */
    int builtin_same;            /* fields equal the built-in kind's: 1, differ: -1, 0 not
                                    compared yet (compared once for all readers sharing it) */
} file_kind;

struct hpc_reader {
    char *path;
    const uint8_t *map; /* the whole file, read-only */
    uint64_t size;
    bool borrowed; /* map belongs to the caller (reader_open_memory) */
    bool heap;     /* map is a malloc'd copy of a small file, not a mapping */
    hpc_diag *diag;

    /* header */
    enum hpc_stream_kind kind;
    uint32_t stream_id;
    uint32_t chunk_size;
    uint32_t header_size;
    uint64_t schema_hash;
    uint64_t stats[HPC_NSTATS];

    /* position */
    uint64_t pos;       /* next record */
    uint64_t chunk_end; /* end of the current chunk, at most size */
    uint64_t time_base; /* previous T value in this chunk */

    /* one thread's life in a stream that holds several (hpc_reader_open_life) */
    bool life;         /* stop at the thread_begin after the first */
    uint64_t life_off; /* where its thread_begin is; 0 = the file's first */
    bool life_started, life_done;

    /* counts */
    uint64_t unknown, damaged, torn;
    unsigned reports; /* damage reports so far; capped per file */

    /* schema */
    uint8_t mode[256];      /* enum decode_mode per kind id */
    bool exact[256];        /* the writer's field list is known: it must match exactly */
    bool unknown_seen[256]; /* reported once per kind */
    bool skip[256];         /* not returned (hpc_reader_only): checked, walked, dropped */
    file_kind *fkind[256];  /* the file's description, NULL if none (built-in used) */
    bool has_own_schema;
    bool scanning; /* reading the schema at open: do not report yet */
};

/* Report damage at off (capped per file so garbage does not flood the terminal). */
#define READER_CORRUPT(r, off, ...) reader_corrupt((r), (off), __FILE__, __LINE__, __VA_ARGS__)
void reader_corrupt(hpc_reader *r, uint64_t off, const char *src, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Build r->mode/r->fkind from the file's SCHEMA records (read from the stream start), or
 * from `from`, or the built-in schema. Returns 0 or HPC_E_NOMEM. (reader_schema.c) */
int reader_schema_load(hpc_reader *r, const hpc_reader *from);
void reader_schema_free(hpc_reader *r);

/* r's schema is the built-in one: its header's hash is ours and every kind its SCHEMA
 * records describe decodes by the built-in decoder. A stream whose hash is ours then
 * reads the same with r as schema_from or without (reader_open_builtin). */
bool reader_schema_is_builtin(const hpc_reader *r);

/* Open one thread's life as hpc_reader_open_life with no schema_from, when its header's
 * schema hash is the built-in one; returns 1 (nothing reported, nothing open) when it is
 * not, for the caller to open it with its process's schema. */
int reader_open_life_builtin(hpc_reader **out, const char *path, hpc_diag *d, uint64_t offset);

/* Decode rec->raw of rec->kind into rec->u. *tb is the chunk's time base, advanced past
 * the record's T fields. Returns 0, or -1 with a description of the damage in msg.
 * (reader_decode.c) */
int reader_decode(const hpc_reader *r, hpc_record *rec, uint64_t *tb, char *msg, size_t cap);

/* Check a record of a built-in kind (DECODE_BUILTIN) as reader_decode would, advancing
 * the time base, storing nothing: 0 when it decodes exactly, else nonzero (reader_decode
 * then says what is wrong). (reader_decode.c) */
int reader_walk(const hpc_record *rec, uint64_t *tb);

/* Decode with a file description, storing nothing: advances the time base only. */
int reader_skip_fields(const hpc_kind_desc *d, hpc_str raw, uint64_t *tb);

/* Byte size of the built-in struct of a kind, 0 if unknown. */
size_t reader_struct_size(unsigned kind);

/* A reader over bytes in memory (not unmapped at close), named `name` in reports; for
 * the fuzz target, where an overread past the bytes is then an ASan finding. */
int reader_open_memory(hpc_reader **out, const char *name, const uint8_t *buf, size_t size,
                       const hpc_reader *schema_from, hpc_diag *d);

/* Raw record iteration used by reader_schema_load before modes are set. */
int reader_next_raw(hpc_reader *r, hpc_record *rec);

#endif /* HPC_READER_INTERNAL_H */
