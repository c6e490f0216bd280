/*
 * control.h - global sample points and pause/resume: -S (periodic), -l SIGNAL (a point
 * per delivery), -y SIGNAL[,r] (each delivery toggles pause/resume) and the user API of
 * include/hpcollect.h (hpc_sample, hpc_pause, hpc_resume).
 *
 * A signal handler may interrupt the holder of the process-stream lock, so the -l / -y
 * handler takes it with one attempt only: it toggles the pause flag at once (a phase is
 * excluded from the first instruction after the signal), takes the time and the rusage,
 * queues the sample point in a fixed ring and writes the ring if the lock is free
 * (periodic.c); else the lock's holder writes it as it unlocks. Whoever writes a sample
 * point writes the queued ones first (hpc_control_drain_locked, called by
 * hpc_write_sample_point_locked), so process.hpe keeps its points in time order, which
 * is how the analyzer numbers sample periods.
 */
#ifndef HPC_COLLECTOR_CONTROL_H
#define HPC_COLLECTOR_CONTROL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "experiment.h"

/* Reset the queue and apply -y's start state; at process begin (also in a fork child).
 * NOT signal-safe. */
void hpc_control_init(void);

/* Handle a delivery of the -l or -y signal; false if sig is neither. Signal-safe. */
bool hpc_control_signal(int sig);

/* Queue a sample point stamped `time`, with the process's rusage now; label must be a
 * static string. Signal-safe. */
void hpc_control_post(unsigned reason, const char *label, uint64_t time);

/* Write the queued sample points to the process stream s (its lock held). Signal-safe. */
void hpc_control_drain_locked(hpc_stream *s);

/* Write one sample point with the process's rusage now. Lock held. Signal-safe. */
void hpc_control_write_point(hpc_stream *s, uint64_t time, unsigned reason, const char *label);

/* Write one sample point with a time and rusage read earlier (the start point, read
 * before the main thread's clock starts), after the queued ones. Lock held. Signal-safe. */
void hpc_control_write_point_at(hpc_stream *s, uint64_t time, unsigned reason, const char *label,
                                const hpc_usage *u);

/* A sample point of the process now (start, end, pause, an API call), after the queued
 * ones: the way every sample point but the queued ones is written. Lock held.
 * Signal-safe. */
void hpc_write_sample_point_locked(hpc_stream *s, unsigned reason, const char *label);

/* Empty the queue (process begin). Signal-safe. */
void hpc_control_queue_reset(void);
/* Label of -l sample points: the signal's name ("SIGUSR2"). */
extern char hpc_control_label[32];

/* True while points are queued. Signal-safe. */
bool hpc_control_queued(void);

/* periodic.c and sigsafe_points.c (which says how points are written without a thread
 * of our own). */
/* si_value of the points timer's SIGPROF. */
#define HPC_POINTS_COOKIE 0x50544d52u /* "PTMR" */
/* The first periodic point is due one -S period from now; create and arm the points
 * timer (at process begin, in a fork child, after a failed exec). NOT signal-safe. */
void hpc_points_start(void);
/* No more periodic points: delete the timer (the end of collection in this process,
 * exec). Signal-safe. */
void hpc_points_stop(void);
/* A fork child has neither the parent's timer nor its schedule. Signal-safe. */
void hpc_points_forget(void);
/* The first periodic point is due at first_due (0: none); the points timer is kernel
 * timer id when ok. Signal-safe (sigsafe_points.c; hpc_points_start makes the timer). */
void hpc_points_schedule(uint64_t first_due, int id, bool ok);
/* Is this delivery the points timer? Signal-safe. */
bool hpc_points_is_timer(int sig, const siginfo_t *si);
/* CLOCK_MONOTONIC ns of the next periodic point, 0 = none (-S off). Signal-safe. */
uint64_t hpc_points_next_due(void);
/* Is a periodic point due at `now`, or a -l / -y point queued? Signal-safe. */
bool hpc_points_pending(uint64_t now);
/* Write the queued points and a periodic point that is due at `now`, if the process
 * stream's lock is free at once; else its holder does as it unlocks. Called at the end
 * of every sample, by -l / -y handlers, the points timer, waits that wake for a point
 * (quiet_wait.c), thread start and end, and hpc_proc_unlock. Signal-safe. */
void hpc_points_catch_up(uint64_t now);

#endif
