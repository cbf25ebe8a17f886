// SPDX-License-Identifier: GPL-2.0
/* rocepathd's plan on a thread beside the event loop (plan_job.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "plan_job.h"

int rpd_plan_job_init(struct rpd_plan_job *j)
{
	memset(j, 0, sizeof(*j));
	atomic_init(&j->cancel, false);
	j->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return j->efd < 0 ? -errno : 0;
}

static void *job_main(void *arg)
{
	struct rpd_plan_job *j = arg;
	uint64_t one = 1;

	rpd_rec_plan(j->r, &j->out);
	/* an eventfd write of 1 cannot fail short of a counter overflow */
	if (write(j->efd, &one, sizeof(one)) != sizeof(one))
		j->out.ret = j->out.ret ?: -EIO;
	return NULL;
}

int rpd_plan_job_start(struct rpd_plan_job *j, const struct rpd_reconciler *r)
{
	int ret;

	if (j->running)
		return -EBUSY;
	j->r = r;
	atomic_store(&j->cancel, false);
	memset(&j->out, 0, sizeof(j->out));
	ret = pthread_create(&j->th, NULL, job_main, j);
	if (ret)
		return -ret;
	j->running = true;
	return 0;
}

void rpd_plan_job_cancel(struct rpd_plan_job *j)
{
	atomic_store(&j->cancel, true);
}

int rpd_plan_job_fd(const struct rpd_plan_job *j)
{
	return j->efd;
}

struct rpd_plan_out *rpd_plan_job_join(struct rpd_plan_job *j)
{
	uint64_t n;

	if (!j->running)
		return NULL;
	pthread_join(j->th, NULL);
	j->running = false;
	/* drain: the next job's end must be a new event */
	if (read(j->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		j->out.ret = j->out.ret ?: -errno;
	return &j->out;
}

void rpd_plan_job_free(struct rpd_plan_job *j)
{
	if (j->running) {
		rpd_plan_job_cancel(j);
		rpd_plan_job_join(j);
	}
	rp_pins_free(&j->out.pins);
	if (j->efd >= 0)
		close(j->efd);
	j->efd = -1;
}
