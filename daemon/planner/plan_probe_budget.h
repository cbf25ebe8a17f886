/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fabric-wide probe budget (Documentation/fabric.rst, "A fabric-wide
 * probe budget"): a time slot schedule that keeps the ICMP answers each
 * switch is asked for under a per-switch rate when every host of the
 * fabric probes at once, as after a topology change.
 *
 * Time is cut into slots of RP_PROBE_SLOT_MS on the wall clock; a cycle is
 * `slots` slots. Host i (its index among the topology's hosts, sorted by
 * name, the same on every host) sends probes only in slot i mod slots of
 * each cycle, and starts its walk at rail (i div slots) mod rails, so that
 * the hosts sharing a slot spread evenly over the rails and so over the
 * switches each rail's leaves reach. A walk longer than a slot goes on in
 * the same slot of the next cycle.
 *
 * The rate model: a host probing a rail sends rate_pps spread over the
 * spines that rail's leaves link to (a hash spreads ports evenly); weight
 * is the largest, over the spines, of the sum of 1/spines(r) over the
 * rails r that reach it, so m hosts per rail load a spine with at most
 * m * rate_pps * weight answers per second. m is the largest count that
 * keeps this at RP_PROBE_BUDGET_HEADROOM of the budget (the rest is
 * room for the hash's skew and for walks that drift off their rail).
 *
 * Everything here is a pure function of the numbers, so every host, the
 * CLI and scripts/bench/probe_budget.py compute the same schedule.
 */
#ifndef ROCEPATH_PLAN_PROBE_BUDGET_H
#define ROCEPATH_PLAN_PROBE_BUDGET_H

#include <stdint.h>

#include "plan.h"

/* one slot on the wall clock; clocks (NTP) agree far better than this */
#define RP_PROBE_SLOT_MS 1000U
/* the model's per-switch rate is held to this share of the budget, in % */
#define RP_PROBE_BUDGET_HEADROOM 80U
/* every host's probes must fit in this (at best), or the budget is refused */
#define RP_PROBE_BUDGET_BOUND_S 300U

/* What the schedule depends on, the same on every host. */
struct rp_probe_budget {
	unsigned int hosts;		/* hosts in the topology */
	unsigned int rails;		/* distinct rails of their NICs */
	double weight;			/* see above; 1 / spines in one plane */
	unsigned int rate_pps;		/* each host's probe rate */
	unsigned int budget_pps;	/* answers per second per switch */
	unsigned int max_flows;		/* most probed flows of one host */
};

struct rp_probe_sched {
	unsigned int per_rail;		/* m: hosts per rail in one slot */
	unsigned int per_slot;		/* m * rails */
	unsigned int slots;		/* per cycle: ceil(hosts / per_slot) */
	unsigned int slot_ms;		/* RP_PROBE_SLOT_MS */
	unsigned int rails;
	uint64_t cycle_ms;		/* slots * slot_ms */
	unsigned int host_slots;	/* slots the busiest host needs, at best */
	uint64_t min_ms;		/* every host answered, at best */
	double peak_pps;		/* the model's answers/s on one switch */
};

/*
 * The schedule for b; -EINVAL when one host per rail at rate_pps already
 * exceeds the budget's headroom (s->peak_pps says what it would ask for),
 * or an input is 0. min_ms counts one probe per flow (each flow needs an
 * answered port): the real walk needs more, so it is a lower bound.
 */
int rp_probe_schedule(const struct rp_probe_budget *b, struct rp_probe_sched *s);

/*
 * The smallest budget (answers/s per switch) whose schedule probes every
 * host within bound_s at best; 0 when none does (too many flows for one
 * host at rate_pps).
 */
unsigned int rp_probe_budget_needed(const struct rp_probe_budget *b,
				    unsigned int bound_s);

/* Host index i's slot in the cycle and the rail its walk starts at. */
void rp_probe_host_slot(const struct rp_probe_sched *s, unsigned int i,
			unsigned int *slot, unsigned int *first_rail);

/*
 * Milliseconds from now_ms (wall clock, ms since the epoch) until slot is
 * open (0 while it is).
 */
uint64_t rp_probe_slot_wait_ms(const struct rp_probe_sched *s,
			       unsigned int slot, uint64_t now_ms);

/*
 * The fabric's part of rp_probe_budget from t: hosts, rails and weight
 * (from the leaf-spine links; in three tiers the spines a TTL-2 probe
 * expires at). -ENOENT when no leaf has a spine.
 */
int rp_probe_budget_topo(const struct rp_topo *t, struct rp_probe_budget *b);
/* host's index among t's hosts (sorted by name), or -ENOENT */
int rp_probe_host_index(const struct rp_topo *t, const char *host);
/* The name of host index i (0 .. hosts - 1) */
const char *rp_probe_host_name(const struct rp_topo *t, unsigned int i);
/*
 * *max: the most flows one host sends through measured leaves in plan
 * (what rp_plan_probe_pairs() gives that host, counted in flows); -ENOMEM.
 */
int rp_plan_probe_max_flows(const struct rp_plan *plan, unsigned int *max);

#endif /* ROCEPATH_PLAN_PROBE_BUDGET_H */
