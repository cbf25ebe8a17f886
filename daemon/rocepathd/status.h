/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd's status file (daemon/lib/rpd_status.h), written after every
 * plan from the figures the rocepath_plan_info metric shows, so that
 * `rocepath stats` and `rocepathd --status` show what the daemon runs.
 */
#ifndef ROCEPATHD_STATUS_H
#define ROCEPATHD_STATUS_H

#include <stdbool.h>

#include "backend.h"
#include "reconcile.h"
#include "rpd_status.h"

struct rpd_status_out {
	bool dir_missing_logged;
	bool write_failed_logged;
};

/* st from the reconciler and the last good plan's info. */
void rpd_status_fill(struct rpd_status *st, const struct rpd_reconciler *r,
		     const struct rpd_plan_info *info, bool last_ok);
/*
 * Writes the status file at path (NULL: nothing); a missing directory
 * (info) or a failed write (warn) is logged once until it works again.
 * Returns 0 or -errno.
 */
int rpd_status_note(struct rpd_status_out *so, const char *path,
		    const struct rpd_reconciler *r,
		    const struct rpd_plan_info *info, bool last_ok);

#endif
