/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real rocepathd backend: plans with the shared planner
 * (daemon/planner) and talks to the module through the shared netlink
 * library (daemon/lib). A dry-run variant keeps the "installed" pins in
 * memory and touches no kernel state (rocepathd -n).
 */
#ifndef ROCEPATHD_BACKEND_H
#define ROCEPATHD_BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>

#include "plan.h"
#include "reconcile.h"

#include "replan_state.h"
#include "digest.h"	/* RP_DIGEST_FMT */
#include "linkmon.h"	/* RPD_LINKMON_MAX */

struct rp_nl;

/*
 * The last good plan's figures and digests (FNV-1a 64, digest.h), for the
 * metrics, the status line and --check: the three inputs, "input" over
 * those three digests (each 8 bytes big-endian, in that order) and the
 * plan's own (rp_plan_digest()). Hosts with equal inputs and different
 * plans differ in their stable re-plan state or their rocepath version.
 */
struct rpd_plan_info {
	struct rp_plan_summary sum;
	uint64_t topology, placement, probes, input, plan;
	bool probed;		/* the topology has measured hashes */
};

/*
 * This host's links that came up since the last plan that probed: before
 * the next plan probes, their NICs' cached answers are dropped, so that
 * their flows, and only theirs, are probed again. They come from the link
 * monitor, so it can follow no more than this holds.
 */
#define RPD_REPROBE_MAX RPD_LINKMON_MAX
struct rpd_reprobe {
	char netdev[RPD_REPROBE_MAX][64];
	size_t n;
};
/* Remembers netdev (once); -ENOSPC when the list is full. */
int rpd_reprobe_add(struct rpd_reprobe *r, const char *netdev);

/* A running daemon's stable re-plan state (replan_state.h). */
struct rpd_replan {
	struct rpd_replan_state st;	/* what the current plan came from */
	char *dir;			/* state_dir st was read from */
	bool persist;			/* write it back (not in dry run) */
	struct rpd_reprobe reprobe;	/* links to probe again */
	const atomic_bool *cancel;	/* stops a probe round (NULL: never) */
};
void rpd_replan_free(struct rpd_replan *rp);

struct rpd_kernel {
	struct rp_nl *nl;		/* request socket; NULL: module absent */
	bool dry_run;
	struct rp_pins dry_installed;
	uint32_t dry_gen;
	const char *sysfs_ib;		/* RPD_SYSFS_IB */
	const char *debugfs_mlx5;	/* RPD_DEBUGFS_MLX5 */
	struct rpd_plan_info plan_info;	/* of the last good plan (metrics) */
	/*
	 * What plan() computes, beside the event loop (plan_job.h): it
	 * becomes plan_info when the loop applies the plan (plan_applied).
	 */
	struct rpd_plan_info planned;
	struct rpd_replan replan;
};

void rpd_kernel_init(struct rpd_kernel *k, bool dry_run);
void rpd_kernel_free(struct rpd_kernel *k);
/* Fill @be with the kernel (or dry-run) operations on @k. */
void rpd_backend_init(struct rpd_backend *be, struct rpd_kernel *k);

/*
 * The planner step on its own: this host's pins for the config's files,
 * a stable re-plan with the recorded previous placement unless the config
 * says "stable_replan": false. `rocepathd --check` reads the recorded
 * state and never writes it.
 */
int rpd_plan_files(const struct rpd_config *cfg, struct rp_pins *out,
		   char *summary, size_t slen, char *err, size_t errlen);
/*
 * The same for a running daemon: @rp (NULL: as rpd_plan_files()) keeps the
 * re-plan state between plans and records each good plan's placement; also
 * returns the plan's figures and digests in @info (may be NULL).
 */
int rpd_plan_files_sum(const struct rpd_config *cfg, struct rpd_replan *rp,
		       struct rp_pins *out, struct rpd_plan_info *info,
		       char *summary, size_t slen, char *err, size_t errlen);
/*
 * -EDOM (err names the config key, the time the budget achieves and the
 * budget that fits) when cfg's probe_budget_pps cannot probe every flow of
 * its files within RP_PROBE_BUDGET_BOUND_S; 0 otherwise, also when the
 * files do not load yet (the plan reports that). For start-up and SIGHUP,
 * so that such a config is refused whole, as any other bad value.
 */
int rpd_budget_check(const struct rpd_config *cfg, char *err, size_t errlen);


#endif
