// SPDX-License-Identifier: GPL-2.0
/*
 * The probe budget's slot schedule (plan_probe_budget.h): pure arithmetic
 * on a few figures of the topology and the plan, so that every host
 * computes the same slots without talking to the others.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"
#include "plan_probe_budget.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int rp_probe_schedule(const struct rp_probe_budget *b, struct rp_probe_sched *s)
{
	uint64_t per_slot_probes, busiest;
	double m;

	memset(s, 0, sizeof(*s));
	if (!b->hosts || !b->rails || !b->rate_pps || !b->budget_pps ||
	    !(b->weight > 0))
		return -EINVAL;
	s->slot_ms = RP_PROBE_SLOT_MS;
	s->rails = b->rails;
	/* the epsilon keeps an exact quotient from flooring one below */
	m = (double)b->budget_pps * RP_PROBE_BUDGET_HEADROOM /
	    (100.0 * b->rate_pps * b->weight);
	if (m + 1e-9 < 1) {
		s->peak_pps = b->rate_pps * b->weight;
		return -EINVAL;
	}
	s->per_rail = m + 1e-9 > b->hosts ? b->hosts : (unsigned int)(m + 1e-9);
	s->per_slot = (uint64_t)s->per_rail * b->rails > b->hosts ?
		      b->hosts : s->per_rail * b->rails;
	s->slots = div_up(b->hosts, s->per_slot);
	s->cycle_ms = (uint64_t)s->slots * s->slot_ms;
	/* ranks in a slot go round the rails: at most this many on one */
	busiest = div_up(s->per_slot, b->rails);
	s->peak_pps = busiest * b->rate_pps * b->weight;
	per_slot_probes = (uint64_t)b->rate_pps * s->slot_ms / 1000;
	if (!per_slot_probes)
		per_slot_probes = 1;
	s->host_slots = div_up(b->max_flows, per_slot_probes);
	/* the last slot's hosts finish at the end of their last cycle */
	s->min_ms = s->host_slots * s->cycle_ms;
	return 0;
}

unsigned int rp_probe_budget_needed(const struct rp_probe_budget *b,
				    unsigned int bound_s)
{
	struct rp_probe_budget x = *b;
	struct rp_probe_sched s;
	unsigned int lo = 1, hi = 100000000;

	/* more budget never means more slots: the first that fits, by halving */
	x.budget_pps = hi;
	if (rp_probe_schedule(&x, &s) || s.min_ms > bound_s * 1000ULL)
		return 0;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		x.budget_pps = mid;
		if (!rp_probe_schedule(&x, &s) && s.min_ms <= bound_s * 1000ULL)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void rp_probe_host_slot(const struct rp_probe_sched *s, unsigned int i,
			unsigned int *slot, unsigned int *first_rail)
{
	*slot = i % s->slots;
	/* the rank within the slot; i itself would repeat the slot number */
	*first_rail = (i / s->slots) % s->rails;
}

uint64_t rp_probe_slot_wait_ms(const struct rp_probe_sched *s,
			       unsigned int slot, uint64_t now_ms)
{
	uint64_t phase = now_ms % s->cycle_ms;
	uint64_t start = (uint64_t)slot * s->slot_ms;

	if (phase >= start && phase < start + s->slot_ms)
		return 0;
	return (start + s->cycle_ms - phase) % s->cycle_ms;
}

static int rail_index(const int *rails, int n, int rail)
{
	for (int i = 0; i < n; i++)
		if (rails[i] == rail)
			return i;
	return -1;
}

int rp_probe_budget_topo(const struct rp_topo *t, struct rp_probe_budget *b)
{
	int *rails = calloc(t->nnics + 1, sizeof(*rails)), *n = NULL;
	unsigned char *on = NULL;	/* [leaf][rail]: a NIC of the rail */
	unsigned char *reach = NULL;	/* [rail][spine] */
	int nr = 0, ret = -ENOMEM;
	double w = 0;

	if (!rails)
		return -ENOMEM;
	for (int i = 0; i < t->nnics; i++)
		if (rail_index(rails, nr, t->nics[i].rail) < 0)
			rails[nr++] = t->nics[i].rail;
	on = calloc((size_t)t->nleaves * nr + 1, 1);
	reach = calloc((size_t)nr * t->nspines + 1, 1);
	n = calloc(nr + 1, sizeof(*n));
	if (!on || !reach || !n)
		goto out;
	for (int i = 0; i < t->nnics; i++)
		on[(size_t)t->nics[i].leaf * nr +
		   rail_index(rails, nr, t->nics[i].rail)] = 1;
	/* which spines a rail's probes can expire at: its leaves' up links */
	for (int l = 0; l < t->nlinks; l++) {
		const struct rp_link *k = &t->links[l];

		for (int r = 0; k->up && r < nr; r++)
			if (on[(size_t)k->leaf * nr + r] &&
			    !reach[(size_t)r * t->nspines + k->spine]) {
				reach[(size_t)r * t->nspines + k->spine] = 1;
				n[r]++;
			}
	}
	for (int sp = 0; sp < t->nspines; sp++) {
		double sum = 0;

		for (int r = 0; r < nr; r++)
			if (reach[(size_t)r * t->nspines + sp])
				sum += 1.0 / n[r];
		if (sum > w)
			w = sum;
	}
	ret = -ENOENT;
	if (w > 0) {
		b->hosts = t->nhosts;
		b->rails = nr;
		b->weight = w;
		ret = 0;
	}
out:
	free(n);
	free(reach);
	free(on);
	free(rails);
	return ret;
}

int rp_probe_host_index(const struct rp_topo *t, const char *host)
{
	int h = rp_topo_find_host(t, host);

	return h < 0 ? -ENOENT : h;
}

const char *rp_probe_host_name(const struct rp_topo *t, unsigned int i)
{
	return t->hosts[i].name;
}
