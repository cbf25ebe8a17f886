// SPDX-License-Identifier: GPL-2.0
/* One host's slot in the fabric-wide probe budget, and waiting for it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "probe_budget.h"

int rp_probe_budget_verdict(const struct rp_probe_budget *b,
			    struct rp_probe_slot *sl, char *why, size_t whylen)
{
	unsigned int need;
	int off;

	if (rp_probe_schedule(b, &sl->s)) {
		snprintf(why, whylen,
			 "%u answers/s per switch: one host per rail probing at %u/s already asks a switch for %.3g/s, above %u%% of the budget (lower probe_rate_pps or raise the budget)",
			 b->budget_pps, b->rate_pps, sl->s.peak_pps,
			 RP_PROBE_BUDGET_HEADROOM);
		return -EDOM;
	}
	if (sl->s.min_ms <= RP_PROBE_BUDGET_BOUND_S * 1000ULL)
		return 0;
	off = snprintf(why, whylen,
		       "%u answers/s per switch: probing every flow takes at least %.0f s (%u hosts at %u per slot make a %.0f s cycle; %u flows at %u probes/s need %u cycle%s), above the %u s bound; ",
		       b->budget_pps, sl->s.min_ms / 1000.0, b->hosts,
		       sl->s.per_slot, sl->s.cycle_ms / 1000.0, b->max_flows,
		       b->rate_pps, sl->s.host_slots,
		       sl->s.host_slots == 1 ? "" : "s", RP_PROBE_BUDGET_BOUND_S);
	need = rp_probe_budget_needed(b, RP_PROBE_BUDGET_BOUND_S);
	if (off > 0 && (size_t)off < whylen && need)
		snprintf(why + off, whylen - off, "a budget of at least %u fits",
			 need);
	else if (off > 0 && (size_t)off < whylen)
		snprintf(why + off, whylen - off,
			 "no budget fits: one host's flows alone take longer at this probe_rate_pps");
	return -EDOM;
}

int rp_probe_budget_for(const struct rp_topo *t, const struct rp_plan *plan,
			const char *host, unsigned int rate_pps,
			unsigned int budget_pps, struct rp_probe_slot *sl,
			char *why, size_t whylen)
{
	struct rp_probe_budget b = { .rate_pps = rate_pps,
				     .budget_pps = budget_pps };
	int h, ret;

	memset(sl, 0, sizeof(*sl));
	sl->budget_pps = budget_pps;
	h = rp_probe_host_index(t, host);
	if (h < 0) {
		snprintf(why, whylen, "host \"%s\" is not in the topology", host);
		return h;
	}
	sl->host = h;
	ret = rp_probe_budget_topo(t, &b);
	if (!ret)
		ret = rp_plan_probe_max_flows(plan, &b.max_flows);
	if (ret == -ENOENT)
		snprintf(why, whylen, "no leaf of the topology has an up link to a spine");
	if (!ret)
		ret = rp_probe_budget_verdict(&b, sl, why, whylen);
	if (!ret)
		rp_probe_host_slot(&sl->s, h, &sl->slot, &sl->first_rail);
	return ret;
}

int rp_probe_budget_check(const struct rp_topo *t, const struct rp_place *p,
			  const char *host, unsigned int rate_pps,
			  unsigned int budget_pps, struct rp_probe_slot *sl,
			  char *why, size_t whylen)
{
	struct rp_plan *plan = NULL;
	struct rp_err err;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = rp_plan_compute(t, p, &plan, &err);
	if (ret) {
		rp_err_str(&err, why, whylen);
		return ret;
	}
	ret = rp_probe_budget_for(t, plan, host, rate_pps, budget_pps, sl, why,
				  whylen);
	rp_plan_free(plan);
	return ret;
}

/* How long one sleep of the slot wait lasts at most: the cancel latency. */
#define SLOT_NAP_MS 100

int rp_probe_slot_wait(struct rp_probe_slot *sl, const atomic_bool *cancel)
{
	for (;;) {
		struct timespec now, d;
		uint64_t ms, wait;

		if (rp_cancel_set(cancel))
			return -ECANCELED;
		/* the wall clock: the one clock every host of the fabric shares */
		clock_gettime(CLOCK_REALTIME, &now);
		ms = (uint64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
		wait = rp_probe_slot_wait_ms(&sl->s, sl->slot, ms);
		if (!wait)
			return 0;
		if (wait > SLOT_NAP_MS)
			wait = SLOT_NAP_MS;
		d.tv_sec = 0;
		d.tv_nsec = wait * 1000000;
		nanosleep(&d, NULL);
		sl->waited_ms += wait;
	}
}

void rp_probe_slot_fmt(const struct rp_probe_slot *sl, char *buf, size_t len)
{
	snprintf(buf, len,
		 "slot %u of %u (%u hosts per slot, %.0f s cycle), first rail %u",
		 sl->slot, sl->s.slots, sl->s.per_slot, sl->s.cycle_ms / 1000.0,
		 sl->first_rail);
}
