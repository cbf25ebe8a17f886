/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the planner's unit tests share (test_plan.c, test_tiers.c): a
 * seeded generator for random fabrics, a hash model to give switches, and
 * one run of topology + placement -> plan -> JSON document.
 */
#ifndef ROCEPATH_TEST_PLAN_RUN_H
#define ROCEPATH_TEST_PLAN_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "plan_int.h"

struct hm {
	const char *alg, *sel;
	uint32_t seed;
};

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return rng_state >> 33;
}

struct run {
	struct rp_topo *t;
	struct rp_place *p;
	struct rp_plan *plan;
	json_object *j;
};

static int run_plan(const char *ts, const char *ps, struct run *r)
{
	struct rp_err e;
	char b[1200];
	int ret;

	memset(r, 0, sizeof(*r));
	ret = rp_topo_parse("topo", ts, strlen(ts), &r->t, &e);
	if (!ret)
		ret = rp_place_parse("place", ps, strlen(ps), r->t, &r->p, &e);
	if (!ret)
		ret = rp_plan_compute(r->t, r->p, &r->plan, &e);
	if (!ret)
		ret = rp_plan_to_json(r->plan, NULL, &r->j);
	if (ret)
		fprintf(stderr, "plan: %s\n", rp_err_str(&e, b, sizeof(b)));
	return ret;
}

static void run_free(struct run *r)
{
	json_object_put(r->j);
	rp_plan_free(r->plan);
	rp_place_free(r->p);
	rp_topo_free(r->t);
}

static const struct rp_nic *nic_by_ip(const struct rp_topo *t, const char *ip)
{
	for (int i = 0; i < t->nnics; i++)
		if (!strcmp(t->nics[i].ip, ip))
			return &t->nics[i];
	return NULL;
}

static const char *js(json_object *o, const char *k)
{
	return json_object_get_string(json_object_object_get(o, k));
}

static int ceil_div(int a, int b)
{
	return (a + b - 1) / b;
}

/* Leaf of a generated job host (name "h<leaf>_<i>"). */
static int host_leaf(const char *name)
{
	return atoi(name + 1);
}

#endif /* ROCEPATH_TEST_PLAN_RUN_H */
