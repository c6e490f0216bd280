/*
 * schema_internal.h - built-in schema helpers private to experiment/.
 */
#ifndef HPC_SCHEMA_INTERNAL_H
#define HPC_SCHEMA_INTERNAL_H

/* "name:TYPE name:TYPE ..." of a built-in kind in on-disk order (the text of its SCHEMA
 * record), or NULL. Static data; signal-safe. */
const char *hpc_schema_fields_text(unsigned kind);

#endif /* HPC_SCHEMA_INTERNAL_H */
