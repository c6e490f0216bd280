/*
 * share.h - a merge rank's share of the job as bytes, from rank 0 (see share.c).
 */
#ifndef MG_SHARE_H
#define MG_SHARE_H

#include "job.h"

/* Rank 0: the share of merge rank r, whose processes are those with owner[i] == r (entries;
 * job->exp still open). */
void mg_share_write(hpa_buf *b, const mg_job *job, const int *owner, int r);
/* Merge rank r > 0: its share. Returns 0, or -1 if the bytes are not a well-formed share
 * (s is then empty). */
int mg_share_read(hpa_buf *b, mg_share *s);
void mg_share_free(mg_share *s);

#endif
