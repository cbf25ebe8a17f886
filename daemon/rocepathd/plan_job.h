/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd plans beside its event loop. Probing a fabric costs tries x
 * timeout for every port a switch does not answer, and the probe budget's
 * slot can be a whole cycle away; meanwhile pin pushes, resyncs, signals
 * and file changes must still be served. One job runs at a time: a thread
 * computes the plan (rpd_rec_plan()) and signals an eventfd, then the
 * loop joins it and applies the result (rpd_rec_apply()).
 *
 * While a job runs its thread owns the backend's planning state (struct
 * rpd_kernel's replan and planned): the loop reads or changes it only
 * between jobs. The config is read by both and changed by neither until
 * the job is joined.
 */
#ifndef ROCEPATHD_PLAN_JOB_H
#define ROCEPATHD_PLAN_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "reconcile.h"

struct rpd_plan_job {
	pthread_t th;
	int efd;			/* eventfd: readable once the job ended */
	bool running;			/* started, not yet joined */
	atomic_bool cancel;		/* ask the probe walk to stop */
	const struct rpd_reconciler *r;
	struct rpd_plan_out out;	/* the result, once joined */
};

int rpd_plan_job_init(struct rpd_plan_job *j);
/* Cancels and joins a running job, frees its result. */
void rpd_plan_job_free(struct rpd_plan_job *j);
/* Starts rpd_rec_plan(r) on a thread; -errno when it cannot. */
int rpd_plan_job_start(struct rpd_plan_job *j, const struct rpd_reconciler *r);
/* Ends a running job's probing early: its result is then -ECANCELED. */
void rpd_plan_job_cancel(struct rpd_plan_job *j);
/* Poll this for POLLIN while the job runs. */
int rpd_plan_job_fd(const struct rpd_plan_job *j);
/* After its fd was readable: joins the thread; the result is j->out. */
struct rpd_plan_out *rpd_plan_job_join(struct rpd_plan_job *j);

#endif
