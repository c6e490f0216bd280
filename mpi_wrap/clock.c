/*
 * clock.c - the clock of call timestamps: CLOCK_MONOTONIC nanoseconds, read from the
 * TSC where that is as good and cheaper.
 *
 * Why: a traced call reads the clock twice. On virtual machines clock_gettime through
 * the vDSO costs 30-60 ns (measured here: 33 ns idle, 59 ns under load), reading the TSC
 * 14-18 ns; the difference is most of the wrappers' budget (bench/RESULTS.md).
 *
 * How: each thread keeps an anchor, a (TSC, CLOCK_MONOTONIC) pair read together, and
 * extrapolates from it with the process-wide rate (ns per cycle) for at most
 * HPCW_REANCHOR_CYCLES (about 1.5 ms), then re-reads the clock. The rate is measured
 * against CLOCK_MONOTONIC from a first pair taken at MPI_Init, refined at every re-anchor,
 * so it follows NTP's slewing; the fast clock starts only once 10 ms have passed, when
 * the rate is known to about 1e-5 (jitter of two clock reads over 10 ms), so an
 * extrapolation is off by at most a few tens of ns and every re-anchor puts the thread
 * back on CLOCK_MONOTONIC: timestamps of the trace and of the collector's samples (which
 * read CLOCK_MONOTONIC) agree to well under a microsecond.
 *
 * Only when the kernel's clocksource is "tsc": the kernel then has checked that the TSC
 * is invariant and synchronized across CPUs. Elsewhere (and before MPI_Init, and in
 * signal handlers) clock_gettime is used.
 */
#include <stdio.h>
#include <string.h>

#include "mpiw.h"

#define CALIBRATE_NS 10000000u /* 10 ms */

hpcw_fast_clock hpcw_clk;
__thread hpcw_anchor hpcw_anch __attribute__((tls_model("initial-exec")));
static volatile int calibrating;

static uint64_t rdtsc(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/* ns per cycle (32.32) from the first pair to (tsc, ns); 0 if not yet measurable. */
static uint64_t rate_since_base(uint64_t tsc, uint64_t ns)
{
    if (tsc <= hpcw_clk.base_tsc || ns < hpcw_clk.base_ns + CALIBRATE_NS)
        return 0;
    return (uint64_t)(((unsigned __int128)(ns - hpcw_clk.base_ns) << 32) /
                      (tsc - hpcw_clk.base_tsc));
}

uint64_t hpcw_clock_reanchor(void)
{
    uint64_t ns = hpcw_clock_exact(), tsc = rdtsc();
    uint64_t mult = rate_since_base(tsc, ns);
    if (mult)
        hpcw_clk.mult = mult;
    hpcw_anch.tsc = tsc;
    hpcw_anch.ns = ns;
    return ns;
}

/* Before the fast clock is on: clock_gettime, and switch it on after 10 ms. */
static void try_enable(void)
{
    uint64_t mult = rate_since_base(rdtsc(), hpcw_clock_exact());
    if (mult) {
        hpcw_clk.mult = mult;
        hpcw_clk.enabled = 1;
        calibrating = 0;
    }
}

static int kernel_uses_tsc(void)
{
    char buf[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f)
        return 0;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = 0;
    fclose(f);
    return strcmp(buf, "tsc\n") == 0;
}

void hpcw_clock_init(void)
{
#if defined(__x86_64__)
    if (hpcw_clk.base_tsc || !kernel_uses_tsc())
        return;
    hpcw_clk.base_ns = hpcw_clock_exact();
    hpcw_clk.base_tsc = rdtsc();
    calibrating = 1;
#endif
}

/* Called from hpcw_write_call: enables the fast clock once calibrated. */
void hpcw_clock_tick(void)
{
    if (calibrating)
        try_enable();
}
