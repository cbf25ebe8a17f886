/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probing for one host, as `rocepath probe` and rocepathd do it: the pairs
 * the plan's assignment needs (plan_probe.h), walked with real probes
 * (probe_sock.h) over the answers already known.
 */
#ifndef ROCEPATH_PROBE_RUN_H
#define ROCEPATH_PROBE_RUN_H

#include "plan_probe.h"
#include "probe_budget.h"

/*
 * t, p: the cluster files; ps: answers known (a cache for t, or empty),
 * new answers added. rep: what was sent and what failed. -errno as
 * rp_probe_walk(); -ENOENT for an unknown host (err says so).
 * budget_pps: the fabric-wide probe budget (0: none); then sl (may be
 * NULL) gets the host's slot, probes are sent only in it and the walk starts at its first
 * rail, and a budget rp_probe_budget_for() refuses is -EDOM with its
 * reason in err. Answers from ps wait for no slot.
 */
int rp_probe_host(const struct rp_topo *t, const struct rp_place *p,
		  const char *host, const struct rp_probe_opts *o,
		  unsigned int budget_pps, struct rp_probe_slot *sl,
		  struct rp_probes *ps, struct rp_probe_report *rep,
		  struct rp_err *err);

/*
 * The answers in path when they were taken on t, else empty (missing,
 * stale or bad files are a cache miss, not an error).
 */
void rp_probe_cache_load(const struct rp_topo *t, const char *path,
			 struct rp_probes *ps);

#endif /* ROCEPATH_PROBE_RUN_H */
