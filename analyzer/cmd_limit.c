/*
 * cmd_limit.c - `limit N`: print at most N rows in the reports that follow (0 = all), as
 * er_print's limit command does:
 *
 *     Print limit set to 10
 *
 * JSON: {"report":"limit","limit":10}.
 */
#include <errno.h>
#include <stdlib.h>

#include "commands.h"

int cmd_limit(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    char *end;
    errno = 0;
    unsigned long n = strtoul(argv[0], &end, 10);
    if (!argv[0][0] || *end || errno || argv[0][0] == '-')
        return hpa_usage_error("limit", "bad value '%s' (expected a number of rows, 0 = all)",
                               argv[0]);
    ctx->opts.limit = n;
    if (ctx->opts.format == HPA_TEXT) {
        if (n)
            fprintf(ctx->out, "Print limit set to %lu\n", n);
        else
            fprintf(ctx->out, "Print limit removed\n");
    } else if (ctx->opts.format == HPA_CSV) {
        fprintf(ctx->out, "limit\n%lu\n", n);
    } else {
        hpa_json j;
        hpa_json_init(&j, ctx->out);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "limit");
        hpa_json_ku64(&j, "limit", n);
        hpa_json_end_obj(&j);
    }
    return HPA_EXIT_OK;
}
