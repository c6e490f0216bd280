/*
 * sigsafe.h - the signal-safe boundary of the code that runs inside the program: what a
 * signal handler may reach, and the re-entry rules, stated once and numbered
 * (hpcrun's safe-sampling.h is the model). Other files name a rule by its number.
 *
 * THE BOUNDARY. Every function a handler of ours can reach lives in a sigsafe_*.c file
 * (collector/, the experiment writer's experiment/sigsafe_*.c, mpi_wrap/sigsafe_end.c),
 * and a sigsafe object calls nothing but other sigsafe code and the async-signal-safe
 * functions listed, each with its reason, in tests/style/sigsafe_allowed.txt:
 * tests/style/test_sigsafe.sh checks every object's imports (nm -u) and fails on a
 * malloc, a printf, a lock. Calls through pointers are not seen there; they are: the
 * end hook (mpi_wrap/sigsafe_end.c), the program's own handlers (rule 11), and libunwind's
 * calls back into our interposers of dl_iterate_phdr and sigprocmask (rules 7 and 9).
 * Each prototype's comment says "Signal-safe" or "NOT signal-safe".
 *
 *   sigsafe_signals.c   the handler: dispatch, forwarding to the program, our masks
 *   sigsafe_sample.c    a clock sample;  sigsafe_counter.c  a counter sample
 *   sigsafe_clock.c     is a SIGPROF one of our clock samples (each source's test);
 *                       the clock's steps a handler takes (lazy perf event, new period)
 *   sigsafe_unwind.c    libunwind from the signal's context; fault recovery
 *   sigsafe_dl_guard.c  dl_iterate_phdr in samples and across fork (rule 7)
 *   sigsafe_cct.c       the calling-context tree;  sigsafe_limits.c  -L, -t, pause
 *   sigsafe_control.c   -l / -y and the queue of sample points
 *   sigsafe_points.c    periodic points, written by whoever meets them due
 *   sigsafe_process.c   the process stream's lock, proc_end, the end from a fatal signal
 *   sigsafe_util.c      clocks, rusage, the thread's state, statistics of lost samples
 *   sigsafe_tail.c      the CPU time after a thread's last sample, charged at its end
 *   sigsafe_throttle.c  handlers kept to a share of their thread's CPU (the throttle)
 *
 * THE RULES
 *
 *  1. Busy. A thread writes its own stream only between hpcollect_write_begin() and
 *     hpcollect_write_end() (collector_api.h: two stores, no nesting). A sample handler
 *     that finds its thread busy writes nothing: the sample counts in HPC_STAT_BLOCKED
 *     and its CPU time goes into the thread's next sample (a counter's count too). A
 *     signal that kills the process and finds its thread busy (not a fault) waits for
 *     hpcollect_write_end, which ends the process by it (hpc_thread.death): the end's
 *     records then find the stream free (tests/collector/test_die_in_write).
 *  2. One writer per stream. A thread stream is written by its own thread only, in
 *     normal context (under rule 1) or in its handler; the process stream only under
 *     rule 3.
 *  3. The process-stream lock. hpc_proc_lock() blocks the collector's signals in the
 *     calling thread and spins; handlers take it with hpc_proc_trylock() (bounded) or
 *     hpc_proc_trylock_once() (a sample point: leave it to the holder, who writes it at
 *     hpc_proc_unlock()). A handler never waits for a lock the thread it interrupted may
 *     hold.
 *  4. No allocation, no stdio, no locks in a handler (the boundary above); nothing in
 *     collector_api.h allocates except where it says so.
 *  5. NULL threads. hpcollect_self() is NULL for threads the collector does not follow
 *     and when collection is off in the process (-F off descendants, after a fatal
 *     error); every caller accepts NULL and does nothing.
 *  6. One sample at a time (t->in_handler). The clock handler runs with every signal but
 *     the faults blocked; a counter or clock handler that finds in_handler set returns at
 *     once. An unwinding fault (t->in_unwind: SIGSEGV/SIGBUS while libunwind reads a
 *     damaged stack) siglongjmps to t->unwind_env and the frames found so far are kept
 *     (HPC_STAT_UNWIND_FAULTS); libunwind holds its cache lock only while it parses the
 *     unwind tables of mapped objects, never across the stack reads that can fault.
 *  7. dl_iterate_phdr (sigsafe_dl_guard.c). libunwind calls dl_iterate_phdr, which holds
 *     the loader's lock. Unwinders and everybody else follow Dekker's protocol on two
 *     counters: an unwinder counts itself in (unwinders) and then looks for others; the
 *     others count themselves in (others) and then wait until no unwinder is inside. An
 *     unwinder that sees anybody gives way: its dl_iterate_phdr visits nothing, the walk
 *     stops (t->unwind_gave_way, HPC_STAT_UNWIND_SKIPPED) and it returns through
 *     libunwind, never jumping out of it (that left libunwind's cache lock held). The
 *     others wait only for unwinders, who wait for nobody: no cycle. A thread's own walk
 *     is no reason to give way while it is inside its callback (t->dl_inside,
 *     t->dl_in_callback: the lock is then held, and recursive), and is on the way in or
 *     out. Inside dlopen and dlclose (t->in_dl) the loader's data change: no unwinding,
 *     the leaf only. A fork waits (bounded) until nobody is inside; a child that inherited
 *     somebody inside may have inherited the lock held: it keeps leaf-only samples and
 *     its inherited module table.
 *  8. Real functions (interpose.h) are looked up before the first handler is installed;
 *     in a handler HPC_REAL(name) is a load, and hpc_real_init() returns at once.
 *  9. The sample's mask (t->masked, t->sample_mask). While a sample unwinds, libunwind's
 *     own sigprocmask calls (two per frame) are answered from t->sample_mask by our
 *     interposer's first test, without a system call; the mask is what the kernel set for
 *     the handler. An unwind outside a handler (hpc_unwind_here_slots) sets that mask for
 *     real first, with one system call, and is answered the same way.
 * 10. Cancellation. A handler's system calls (a chunk change, libunwind's validating
 *     reads) run with cancellation disabled and asynchronous (hpc_nocancel, collector.h):
 *     the program's pthread_cancel acts at its next cancellation point instead.
 * 11. The program's deliveries. A delivery that is not ours goes to the program's
 *     handler with its mask and flags (as the kernel would), the shadow mask of owned
 *     signals kept, the collector's guard (rule 12) let go meanwhile; errno is restored
 *     when our handler returns.
 * 12. The guard (interpose.h). The collector's own work in a program thread holds a
 *     per-thread guard (HPC_GUARD_SCOPE); a traced call made under it is ours and is not
 *     traced. Interposers hold it around their own work, never around the real call.
 */
#ifndef HPC_COLLECTOR_SIGSAFE_H
#define HPC_COLLECTOR_SIGSAFE_H
#endif
