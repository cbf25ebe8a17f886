/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stable re-plans in rocepathd: which placement is "previous" when the
 * placement changes, and the state file that keeps it across restarts.
 *
 * Every host must plan with the same previous placement, or their plans
 * (and so their pins) disagree. The state is therefore a pure record of
 * the placement files the daemon planned from, never of local decisions:
 *
 *   placement = the bytes of the placement the current plan came from
 *   previous  = the placement that plan used as previous (NULL: none)
 *
 * A re-plan of the same placement bytes (restart, SIGHUP, topology change)
 * uses the same previous again, so it reproduces the running plan; a new
 * placement uses the recorded placement as previous. The file is
 * <state_dir>/replan-state.json, replaced atomically (rp_write_atomic()).
 * See Documentation/daemon.rst, "Stable re-plans".
 */
#ifndef ROCEPATHD_REPLAN_STATE_H
#define ROCEPATHD_REPLAN_STATE_H

#include <stdbool.h>
#include <stddef.h>

#define RPD_REPLAN_STATE_FILE "replan-state.json"

struct rpd_replan_state {
	char *placement;	/* NULL: nothing recorded */
	size_t placement_len;
	char *previous;		/* NULL: that plan was made from scratch */
	size_t previous_len;
};

void rpd_replan_state_free(struct rpd_replan_state *st);

/*
 * Reads <dir>/replan-state.json into @st (freed first). -ENOENT when the
 * file does not exist, -EINVAL when it is not a valid state file (@err
 * says why, naming the file), other -errno from reading; @st is empty
 * on any error.
 */
int rpd_replan_state_load(const char *dir, struct rpd_replan_state *st,
			  char *err, size_t errlen);
/*
 * Replaces <dir>/replan-state.json atomically (fsync'ed), creating @dir
 * (not its parents) when it is missing. -errno.
 */
int rpd_replan_state_save(const char *dir, const struct rpd_replan_state *st,
			  char *err, size_t errlen);

/*
 * The previous placement for planning @cur (the placement file's bytes)
 * from the recorded state: the recorded previous when @cur is the recorded
 * placement, else the recorded placement. Sets *prev and *prev_len (NULL: none;
 * they point into @st) and returns true when @cur is the recorded placement.
 */
bool rpd_replan_previous(const struct rpd_replan_state *st, const char *cur,
			 size_t cur_len, const char **prev, size_t *prev_len);

/*
 * The state after a good plan of @cur with previous @prev (NULL: none):
 * copies both into @st (freed first). -ENOMEM.
 */
int rpd_replan_state_set(struct rpd_replan_state *st, const char *cur,
			 size_t cur_len, const char *prev, size_t prev_len);

#endif
