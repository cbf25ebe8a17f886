/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fair-share flow model the planner benchmark uses to compare plans
 * (daemon/bench/planbench.c); planning itself never uses it.
 */
#ifndef ROCEPATH_PLAN_FAIR_H
#define ROCEPATH_PLAN_FAIR_H

#include "plan.h"

/*
 * Estimated completion time in seconds of the placement's collectives, each
 * connection transferring bytes_per_conn (split evenly over its QPs), when
 * flows share every link (host NIC links and fabric links, all of
 * link_gbps) max-min fairly. Flows routed as in mode. The slowest flow
 * determines the result (static max-min fair rates, see planner.rst).
 */
int rp_plan_fair_time(const struct rp_plan *plan, enum rp_plan_mode mode,
		      double link_gbps, double bytes_per_conn, double *seconds);

#endif /* ROCEPATH_PLAN_FAIR_H */
