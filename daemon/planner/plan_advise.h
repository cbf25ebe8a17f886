/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The placement advisor: which free hosts a new job should get so that the
 * fabric's lower bound and the plan's max link load stay lowest, given the
 * jobs already placed (`rocepath place`, Documentation/planner.rst).
 *
 * Candidate host sets are built greedily from "racks" (hosts that share
 * their leaf on every rail of the job) and each is judged by the planner
 * itself: the placement with the job added is planned with
 * rp_plan_compute() and the best summary wins. Deterministic: the same
 * files and request give the same hosts in the same order.
 *
 *	struct rp_advise_req req = { .job = "job9", .nhosts = 16 };
 *	struct rp_advice *a;
 *	if (rp_place_advise(t, p, &req, &a, &err)) ... rp_err_str(&err, ...)
 *	rp_advice_save(a, "placement.json", "new.json", &err);
 *	rp_advice_free(a);
 */
#ifndef ROCEPATH_PLAN_ADVISE_H
#define ROCEPATH_PLAN_ADVISE_H

#include <stdbool.h>

#include "plan.h"

/* How the hosts are chosen: the advisor, or a baseline to compare with. */
enum rp_advise_policy {
	RP_ADVISE_BEST,		/* the advisor: best planned candidate */
	RP_ADVISE_FIRST_FIT,	/* the first N free hosts by name */
	RP_ADVISE_RANDOM,	/* N free hosts drawn with req->seed */
};

/*
 * Candidates the advisor judges at most (each costs one plan): two whole-rack
 * fills, balanced spreads over k, 2k, 4k, ... racks in two rack orders, and
 * first fit.
 */
#define RP_ADVISE_MAX_CANDS	24

/* Most rails a request may name (the placement format allows 0..65535). */
#define RP_ADVISE_MAX_RAILS	64

struct rp_advise_req {
	const char *job;		/* new job id, not yet in the placement */
	int nhosts;			/* >= 1 */
	int nrails;			/* 0: every rail of the topology */
	int rails[RP_ADVISE_MAX_RAILS];
	const char *pattern;		/* "ring" (NULL) or "alltoall" */
	int qps;			/* qps_per_connection, 0: 1 */
	enum rp_advise_policy policy;
	unsigned int seed;		/* RP_ADVISE_RANDOM only */
};

/* One planned result: the placement with (or, before, without) the job. */
struct rp_advise_eval {
	unsigned int max_link_flows;	/* the plan's most loaded link */
	unsigned int lower_bound;
	unsigned int unplaced;		/* flows the plan could not place */
	/* the job's flows: those crossing the fabric, and the most loaded
	 * link (NIC links included) any of them uses; 0 before */
	unsigned int job_fabric_flows;
	unsigned int job_max_link_flows;
};

/* A rack the chosen hosts come from. */
struct rp_advise_rack {
	int nleaves;
	char **leaves;			/* its leaves, in the job's rail order */
	int size;			/* hosts with NICs on the job's rails */
	int free;			/* of them, in no job before */
	int taken;			/* of them, given to the new job */
	unsigned int load;		/* busiest up/down link of its leaves,
					 * before (flows) */
};

struct rp_advise_cand {
	char strategy[64];		/* how its hosts were picked */
	int nracks;
	struct rp_advise_eval eval;
};

struct rp_advice {
	char *job;
	const char *pattern;		/* "ring" or "alltoall" */
	int qps;
	int nrails, *rails;		/* ascending */
	int nhosts;
	char **hosts;			/* in ring order */
	int free_hosts;			/* eligible hosts before (free, NICs
					 * on every rail of the job) */
	const char *strategy;		/* the winning candidate's (in cands) */
	struct rp_advise_eval before, after;
	int nracks;
	struct rp_advise_rack *racks;	/* those the job uses, ring order */
	int ncands;
	struct rp_advise_cand *cands;	/* every candidate judged */
	int chosen;			/* index into cands */
};

/*
 * Proposes hosts for req on topology t with placement p. Errors (-EINVAL,
 * -EEXIST for a job id already placed, -ENOSPC when too few eligible hosts
 * are free, -ENOMEM) fill *err with the reason; the file and JSON path are
 * left to the caller, which knows them (-EEXIST: path ".jobs").
 */
int rp_place_advise(const struct rp_topo *t, const struct rp_place *p,
		    const struct rp_advise_req *req, struct rp_advice **out,
		    struct rp_err *err);
void rp_advice_free(struct rp_advice *a);

/*
 * Writes place_path's placement with the advised job appended to its
 * "jobs" to out_path, atomically (a temporary file in the same directory,
 * renamed over out_path): everything else of the file is kept as it was.
 * out_path may be place_path. -errno with *err naming the file and reason.
 */
int rp_advice_save(const struct rp_advice *a, const char *place_path,
		   const char *out_path, struct rp_err *err);

/*
 * The advised job as a placement "jobs" element, and the placement text
 * place_text with it appended (malloc'd, NUL-terminated, pretty printed).
 */
struct json_object *rp_advice_job_json(const struct rp_advice *a);
int rp_advice_placement_text(const struct rp_advice *a, const char *name,
			     const char *place_text, size_t len, char **out,
			     struct rp_err *err);

#endif /* ROCEPATH_PLAN_ADVISE_H */
