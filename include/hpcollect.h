/*
 * hpcollect.h - the collector API: mark phases of a program and choose what is recorded,
 * for programs run under `hpcollect` (installed in PREFIX/include by `make install`).
 *
 *     #include <hpcollect.h>
 *     ...
 *     hpc_sample("setup");     // ends sample period "setup": everything before this
 *                              // point (since the previous sample point) is "setup"
 *     hpc_pause();             // nothing recorded from here ...
 *     checkpoint();
 *     hpc_resume();            // ... to here
 *
 * No link-time dependency: build the program as usual (no -l option). The functions are
 * declared weak and every call goes through a macro that checks the symbol first, as
 * gprofng's collectorAPI.h does, so:
 *   - run under hpcollect (which preloads libhpcollect.so), the calls reach the collector;
 *   - run on its own, the symbols are null and the calls do nothing (a test and a branch).
 * The weak references are resolved by the dynamic linker, so the program must be
 * dynamically linked and position-independent (gcc's default on Debian and most
 * distributions; with -no-pie a weak function's address is fixed to 0 at link time and
 * the calls are skipped even under hpcollect).
 *
 * In hpanalyze, sample periods are selected by number or by the label of the sample
 * point that ends them: `hpanalyze EXP --samples setup functions`; `overview` lists the
 * periods with their resource usage.
 *
 * Thread safety: every function may be called from any thread, at any time, also before
 * main and after exit() started; each takes a short lock (the process's experiment
 * stream). NOT async-signal-safe: do not call them from a signal handler (use
 * `hpcollect -l SIGNAL` / `-y SIGNAL` for sample points and pause/resume by signal).
 */
#ifndef HPCOLLECT_H
#define HPCOLLECT_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Record a global sample point now: a timestamp and the process's resource usage (user
 * and system CPU, page faults, block I/O, context switches), which closes the current
 * sample period and names it `label`.
 *   label  text of the period, copied (NULL is ""); selects the period in hpanalyze's
 *          --samples. Several periods may share a label: selecting it selects them all.
 * Without the collector: nothing.
 */
void hpc_sample(const char *label) __attribute__((weak));

/*
 * Stop recording samples and events in every thread of the process until hpc_resume():
 * a sample point (reason "pause") marks the moment. Pausing a paused process does
 * nothing more than record the point. Shared with `hpcollect -y` and MPI_Pcontrol(0):
 * whichever comes last decides. Without the collector: nothing.
 */
void hpc_pause(void) __attribute__((weak));

/* Resume recording (a sample point with reason "resume"). Without the collector:
 * nothing. */
void hpc_resume(void) __attribute__((weak));

#ifdef __cplusplus
}
#endif

/* Each call becomes "if the collector is there, call it". */
#define hpc_sample(label) ((hpc_sample) ? (hpc_sample)(label) : (void)0)
#define hpc_pause()       ((hpc_pause) ? (hpc_pause)() : (void)0)
#define hpc_resume()      ((hpc_resume) ? (hpc_resume)() : (void)0)

#endif /* HPCOLLECT_H */
