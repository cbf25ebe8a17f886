// SPDX-License-Identifier: GPL-2.0
/* The status file after each plan (rpd_status.h, Documentation/daemon.rst). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "rpd_log.h"
#include "status.h"

void rpd_status_fill(struct rpd_status *st, const struct rpd_reconciler *r,
		     const struct rpd_plan_info *info, bool last_ok)
{
	memset(st, 0, sizeof(*st));
	st->pid = getpid();
	st->updated = time(NULL);
	st->last_plan_ok = last_ok;
	/* the metric shows the digests under the same condition */
	st->plan_valid = r->have_desired;
	if (st->plan_valid) {
		st->pins = r->desired.n;
		st->plan = info->plan;
		st->input = info->input;
		st->topology = info->topology;
		st->placement = info->placement;
		st->probes = info->probes;
	}
	if (!last_ok)
		snprintf(st->last_error, sizeof(st->last_error), "%s",
			 r->last_error);
}

int rpd_status_note(struct rpd_status_out *so, const char *path,
		    const struct rpd_reconciler *r,
		    const struct rpd_plan_info *info, bool last_ok)
{
	struct rpd_status st;
	int ret;

	if (!path)
		return 0;
	/* no RuntimeDirectory (not under systemd): say so once, write nothing */
	if (!rp_dir_of_exists(path)) {
		if (!so->dir_missing_logged)
			rpd_info("status: directory of %s does not exist; not writing the status file until it does",
				 path);
		so->dir_missing_logged = true;
		return -ENOENT;
	}
	so->dir_missing_logged = false;
	rpd_status_fill(&st, r, info, last_ok);
	ret = rpd_status_write(path, &st);
	if (ret && !so->write_failed_logged)
		rpd_warn("status: writing %s: %s", path, strerror(-ret));
	so->write_failed_logged = ret != 0;
	return ret;
}
