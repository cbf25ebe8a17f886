/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One host's place in the fabric-wide probe budget (plan_probe_budget.h):
 * its slot and first rail for the files it plans from, the refusal of a
 * budget that cannot probe every flow within RP_PROBE_BUDGET_BOUND_S, and
 * the wait for the slot before each probe (probe_run.c).
 */
#ifndef ROCEPATH_PROBE_BUDGET_H
#define ROCEPATH_PROBE_BUDGET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "plan_probe.h"	/* rp_cancel_set() */
#include "plan_probe_budget.h"

struct rp_probe_slot {
	struct rp_probe_sched s;
	unsigned int budget_pps;
	unsigned int host;		/* index among the topology's hosts */
	unsigned int slot, first_rail;
	uint64_t waited_ms;		/* outside the slot, so far */
};

/*
 * host's slot in the schedule for plan (the assignment, without probes)
 * at rate_pps and budget_pps. -EDOM when the budget cannot answer every
 * host's flows within the bound even at best, or one host per rail
 * already asks a switch for more than its share; why says so with the
 * time the budget achieves and the budget that would fit. -ENOENT for an
 * unknown host.
 */
int rp_probe_budget_for(const struct rp_topo *t, const struct rp_plan *plan,
			const char *host, unsigned int rate_pps,
			unsigned int budget_pps, struct rp_probe_slot *sl,
			char *why, size_t whylen);
/* The refusal on its own, for the figures in b: 0 or -EDOM and why. */
int rp_probe_budget_verdict(const struct rp_probe_budget *b,
			    struct rp_probe_slot *sl, char *why, size_t whylen);
/* The same from the files (plans the assignment itself): rocepathd --check. */
int rp_probe_budget_check(const struct rp_topo *t, const struct rp_place *p,
			  const char *host, unsigned int rate_pps,
			  unsigned int budget_pps, struct rp_probe_slot *sl,
			  char *why, size_t whylen);

/*
 * Sleeps until sl's slot is open on the wall clock; adds to waited_ms.
 * -ECANCELED as soon as *cancel is set (may be NULL): a slot can be a
 * cycle away, and the daemon must not wait that long to stop or reload.
 */
int rp_probe_slot_wait(struct rp_probe_slot *sl, const atomic_bool *cancel);

/* "slot 3 of 64 (256 hosts per slot, 64 s cycle), first rail 2" */
void rp_probe_slot_fmt(const struct rp_probe_slot *sl, char *buf, size_t len);

#endif /* ROCEPATH_PROBE_BUDGET_H */
