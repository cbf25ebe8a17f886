/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reconcile core of rocepathd, free of netlink so it can be unit tested:
 * everything that touches the kernel or the planner goes through
 * struct rpd_backend.
 *
 *   desired   = this host's pins from the last plan that succeeded
 *   installed = what a pin dump returns
 *   sync      = if installed != desired: one atomic pin-replace transaction
 *
 * A plan that fails (bad file, planner error) leaves desired, and therefore
 * the installed pins, untouched. Before the first good plan, installed pins
 * are left alone too (a restarted daemon never opens a gap).
 */
#ifndef ROCEPATHD_RECONCILE_H
#define ROCEPATHD_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpd_config.h"
#include "pins.h"

/* What the reconciler needs from the outside world. All return -errno. */
struct rpd_backend {
	void *ctx;
	/*
	 * This host's pins for the config's topology/placement/host. On
	 * failure fill @err with the reason. @summary (may be NULL) receives
	 * a one-line description of the plan.
	 */
	int (*plan)(void *ctx, const struct rpd_config *cfg, struct rp_pins *out,
		    char *summary, size_t slen, char *err, size_t errlen);
	/*
	 * The loop took plan()'s last result as desired (NULL: nothing to
	 * do). plan() may run on another thread (plan_job.h): what it
	 * computed beside the pins becomes the backend's current state here.
	 */
	void (*plan_applied)(void *ctx);
	/* The installed pins and the rule set generation. */
	int (*pin_dump)(void *ctx, struct rp_pins *out, uint32_t *generation);
	/*
	 * Replace the installed pins with @set in one transaction. When
	 * @expect_gen is non-zero the commit must fail with -ESTALE if the
	 * live set changed since. @err gets the kernel's extack, if any.
	 */
	int (*pin_replace)(void *ctx, const struct rp_pins *set,
			   uint32_t expect_gen, uint32_t *new_gen,
			   char *err, size_t errlen);
	int (*dev_dump)(void *ctx, struct rp_devs *out);
	int (*dcqcn_set)(void *ctx, const char *ibdev,
			 const struct rpd_dcqcn_values *v, char *err, size_t errlen);
	/*
	 * Write the parameters to the device's mlx5 debugfs cc_params
	 * (NULL: skip). Returns the number of files written, -errno.
	 */
	int (*mlx5_cc_write)(void *ctx, const struct rp_dev *dev,
			     const struct rpd_dcqcn_values *v);
};

struct rpd_rec_stats {
	unsigned long plans_ok, plans_failed;
	unsigned long syncs, pushes, pushes_skipped, push_failures;
	unsigned long dcqcn_pushes, dcqcn_failures;
};

struct rpd_reconciler {
	const struct rpd_backend *be;
	const struct rpd_config *cfg;
	struct rp_pins desired;		/* sorted (rp_pins_sort) */
	bool have_desired;
	uint32_t installed_gen;
	struct rp_devs devs;		/* last dev dump */
	struct rpd_rec_stats st;
	char last_error[1024];
};

void rpd_rec_init(struct rpd_reconciler *r, const struct rpd_backend *be,
		  const struct rpd_config *cfg);
void rpd_rec_free(struct rpd_reconciler *r);

/*
 * One plan computation's result, between rpd_rec_plan() (which may run on
 * another thread: it only reads the reconciler's backend and config) and
 * rpd_rec_apply() (on the thread that owns the reconciler).
 */
struct rpd_plan_out {
	int ret;			/* the backend's plan(): 0 or -errno */
	struct rp_pins pins;
	char summary[512], err[512];
};
void rpd_rec_plan(const struct rpd_reconciler *r, struct rpd_plan_out *o);
/* Takes o's pins (o->pins is empty after); returns as rpd_rec_replan(). */
int rpd_rec_apply(struct rpd_reconciler *r, struct rpd_plan_out *o);

/*
 * Recompute the plan (rpd_rec_plan() then rpd_rec_apply()). On success
 * desired becomes the new pins (returns 1 when they differ from the
 * previous desired set, else 0); on failure the
 * previous desired set is kept, the reason is logged and stored in
 * last_error, and -errno is returned.
 */
int rpd_rec_replan(struct rpd_reconciler *r);

/*
 * Make the installed pins equal desired. Returns 1 when a replace was
 * pushed, 0 when they were equal already (or there is no good plan yet),
 * -errno on failure (the installed set is then unchanged).
 */
int rpd_rec_sync(struct rpd_reconciler *r);

/*
 * Push the DCQCN profile to every RDMA device (and mlx5 debugfs). Returns
 * the number of devices configured, or -errno of the first failure (the
 * other devices are still tried).
 */
int rpd_rec_dcqcn(struct rpd_reconciler *r);
/* Same for one device only (dev-add notification). */
int rpd_rec_dcqcn_dev(struct rpd_reconciler *r, const struct rp_dev *dev);

#endif
