/*
 * control.h - global sample points and pause/resume: -S (periodic), -l SIGNAL (a point
 * per delivery), -y SIGNAL[,r] (each delivery toggles pause/resume) and the user API of
 * include/hpcollect.h (hpc_sample, hpc_pause, hpc_resume).
 *
 * A signal handler may interrupt the holder of the process-stream lock, so the -l / -y
 * handler never writes: it toggles the pause flag at once (a phase is excluded from the
 * first instruction after the signal), takes the time and the rusage and queues the sample point in
 * a fixed ring; the sampler thread (periodic.c) is woken and writes it. Whoever writes a sample
 * point writes the queued ones first (hpc_control_drain_locked, called by
 * hpc_write_sample_point_locked), so process.hpe keeps its points in time order, which
 * is how the analyzer numbers sample periods.
 */
#ifndef HPC_COLLECTOR_CONTROL_H
#define HPC_COLLECTOR_CONTROL_H

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

/* Empty the queue (process begin). Signal-safe. */
void hpc_control_queue_reset(void);
/* Label of -l sample points: the signal's name ("SIGUSR2"). */
extern char hpc_control_label[32];

/* Address the sampler thread waits on; bumped (and woken) by every post. */
extern uint32_t hpc_control_wake;
/* Bump it and wake the sampler. Signal-safe. */
void hpc_control_wake_sampler(void);

/* periodic.c: start the sampler thread when -S, -l or -y asks for one (at process begin,
 * also in a fork child, where the parent's sampler does not exist). NOT signal-safe. */
void hpc_sampler_start(void);
/* The program's threads are all gone: the sampler writes the points still queued and
 * ends, so that glibc can end the process (last_thread.c). */
void hpc_sampler_quit(void);

#endif
