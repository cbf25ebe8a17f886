/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spine colouring's units and loads, shared by plan_colour.c (the
 * colouring) and plan_colour_stable.c (its stable re-plan searches) only.
 *
 * Side 0 = source leaves (up bundles), side 1 = destination leaves (down
 * bundles). A "colour" is a spine; leaf l may use spine s on side k at most
 * T * c(l, s) times, c = number of up links between them. A pair's x[]
 * counts its units (flows) per common spine.
 */
#ifndef ROCEPATH_PLAN_COLOUR_H
#define ROCEPATH_PLAN_COLOUR_H

#include "plan_model.h"

static inline int cap(const struct rp_plan *pl, int leaf, int s)
{
	return pl->T * bcount(pl, leaf, s);
}

static inline int *load(const struct rp_plan *pl, int side, int leaf, int s)
{
	return &pl->ld[side][(size_t)leaf * pl->t->nspines + s];
}

static inline int spare(const struct rp_plan *pl, int side, int leaf, int s)
{
	return cap(pl, leaf, s) - *load(pl, side, leaf, s);
}

/* Index of spine s among the pair's common spines, or -1. */
static inline int cidx(const struct rp_plan *pl, const struct pair *p, int s)
{
	int lo = 0, hi = p->nc - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, v = pl->cs[p->c0 + mid];

		if (v == s)
			return mid;
		if (v < s)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The pair's leaf on a side. */
static inline int ep(const struct pair *p, int side)
{
	return side ? p->dst : p->src;
}

static inline void move_unit(struct rp_plan *pl, int pi, int from, int to)
{
	struct pair *p = &pl->pairs[pi];

	pl->x[p->c0 + cidx(pl, p, from)]--;
	pl->x[p->c0 + cidx(pl, p, to)]++;
	(*load(pl, 0, p->src, from))--;
	(*load(pl, 1, p->dst, from))--;
	(*load(pl, 0, p->src, to))++;
	(*load(pl, 1, p->dst, to))++;
}

static inline void put_unit(struct rp_plan *pl, struct pair *p, int s)
{
	pl->x[p->c0 + cidx(pl, p, s)]++;
	(*load(pl, 0, p->src, s))++;
	(*load(pl, 1, p->dst, s))++;
}

/*
 * plan_colour_stable.c: a stable re-plan's colouring places every unit it
 * can without moving running units off their spines (rp_keep_place()),
 * defers the others, and places those last at the least cost
 * (rp_keep_finish()). -errno; -EAGAIN when a deferred unit fits nowhere.
 */
struct rp_keep;
int rp_keep_new(const struct rp_plan *pl, struct rp_keep **out);
void rp_keep_free(struct rp_keep *k);
void rp_keep_place(struct rp_plan *pl, struct rp_keep *k, int pi);
int rp_keep_finish(struct rp_plan *pl, struct rp_keep *k);

#endif /* ROCEPATH_PLAN_COLOUR_H */
