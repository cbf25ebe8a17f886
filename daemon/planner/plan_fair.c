// SPDX-License-Identifier: GPL-2.0
/*
 * Max-min fair completion time of the placement's collectives: the flow
 * model the planner benchmark compares plans with (not used for planning).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_fair.h"
#include "plan_model.h"

int rp_plan_fair_time(const struct rp_plan *pl, enum rp_plan_mode mode,
		      double link_gbps, double bytes_per_conn, double *seconds)
{
	const struct rp_topo *t = pl->t;
	int nl = 2 * t->nlinks + 2 * t->nnics, nf = pl->nflows;
	int *fl = NULL, *l0 = NULL, *lf = NULL, *nact = NULL;
	double *rem = NULL, *rate = NULL, worst = 0;
	int ret = -ENOMEM, left = 0;

	fl = malloc((size_t)nf * 4 * sizeof(int) + 1);
	l0 = calloc(nl + 2, sizeof(int));
	nact = calloc(nl + 1, sizeof(int));
	rem = malloc((nl + 1) * sizeof(double));
	rate = calloc(nf + 1, sizeof(double));
	if (!fl || !l0 || !nact || !rem || !rate)
		goto out;
	/* each flow crosses: src NIC tx, [up, down], dst NIC rx */
	for (int i = 0; i < nf; i++) {
		const struct flow *f = &pl->flows[i];
		int *k = &fl[4 * i];
		int u = mode == RP_MODE_PLAN ? f->up :
			mode == RP_MODE_ECMP ? f->e_up : f->s_up;
		int d = mode == RP_MODE_PLAN ? f->dn :
			mode == RP_MODE_ECMP ? f->e_dn : f->s_dn;
		bool ok = mode == RP_MODE_PLAN ? f->status == ST_PLACED :
			  (f->status == ST_PLACED || f->status == ST_NO_PORT);

		k[0] = k[1] = k[2] = k[3] = -1;
		if (!ok) {
			rate[i] = -1;
			continue;
		}
		k[0] = 2 * t->nlinks + f->src_nic;
		k[1] = u;
		k[2] = d >= 0 ? t->nlinks + d : -1;
		k[3] = 2 * t->nlinks + t->nnics + f->dst_nic;
		for (int j = 0; j < 4; j++)
			if (k[j] >= 0)
				l0[k[j] + 1]++;
		left++;
	}
	for (int l = 0; l < nl; l++) {
		nact[l] = l0[l + 1];
		l0[l + 1] += l0[l];
		rem[l] = link_gbps;
	}
	lf = malloc((size_t)l0[nl] * sizeof(int) + 1);
	if (!lf)
		goto out;
	{
		int *pos = calloc(nl + 1, sizeof(int));

		if (!pos)
			goto out;
		for (int i = 0; i < nf; i++)
			for (int j = 0; j < 4; j++) {
				int l = fl[4 * i + j];

				if (l >= 0)
					lf[l0[l] + pos[l]++] = i;
			}
		free(pos);
	}
	/* progressive filling */
	while (left > 0) {
		double m = 1e300;

		for (int l = 0; l < nl; l++)
			if (nact[l] && rem[l] / nact[l] < m)
				m = rem[l] / nact[l];
		for (int l = 0; l < nl; l++) {
			if (!nact[l] || rem[l] / nact[l] > m * (1 + 1e-9))
				continue;
			for (int k = l0[l]; k < l0[l + 1]; k++) {
				int i = lf[k];

				if (rate[i] != 0)
					continue;
				rate[i] = m;
				left--;
				for (int j = 0; j < 4; j++) {
					int x = fl[4 * i + j];

					if (x >= 0) {
						rem[x] -= m;
						nact[x]--;
					}
				}
			}
		}
	}
	for (int i = 0; i < nf; i++) {
		const struct flow *f = &pl->flows[i];
		double bytes, tm;

		if (rate[i] <= 0)
			continue;
		bytes = bytes_per_conn / pl->p->jobs[f->job].qps;
		tm = bytes * 8 / (rate[i] * 1e9);
		if (tm > worst)
			worst = tm;
	}
	*seconds = worst;
	ret = 0;
out:
	free(fl);
	free(l0);
	free(lf);
	free(nact);
	free(rem);
	free(rate);
	return ret;
}
