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

/* NIC tx and rx, then up to two up and two down fabric links */
#define RP_FAIR_HOPS	6

int rp_plan_fair_time(const struct rp_plan *pl, enum rp_plan_mode mode,
		      double link_gbps, double bytes_per_conn, double *seconds)
{
	const struct rp_topo *t = pl->t;
	int nlo = rp_topo_nload(t), nl = 2 * nlo + 2 * t->nnics;
	int nf = pl->nflows;
	int *fl = NULL, *l0 = NULL, *lf = NULL, *nact = NULL;
	double *rem = NULL, *rate = NULL, worst = 0;
	int ret = -ENOMEM, left = 0;

	fl = malloc((size_t)nf * RP_FAIR_HOPS * sizeof(int) + 1);
	l0 = calloc(nl + 2, sizeof(int));
	nact = calloc(nl + 1, sizeof(int));
	rem = malloc((nl + 1) * sizeof(double));
	rate = calloc(nf + 1, sizeof(double));
	if (!fl || !l0 || !nact || !rem || !rate)
		goto out;
	/* each flow crosses: src NIC tx, [up links, down links], dst NIC rx */
	for (int i = 0; i < nf; i++) {
		const struct flow *f = &pl->flows[i];
		int *k = &fl[RP_FAIR_HOPS * i], u[2], d[2], n;
		bool ok = mode == RP_MODE_PLAN ? f->status == ST_PLACED :
			  (f->status == ST_PLACED || f->status == ST_NO_PORT);

		for (int j = 0; j < RP_FAIR_HOPS; j++)
			k[j] = -1;
		if (!ok) {
			rate[i] = -1;
			continue;
		}
		n = rp_plan_flow_links(pl, i, mode, u, d);
		k[0] = 2 * nlo + f->src_nic;
		k[1] = 2 * nlo + t->nnics + f->dst_nic;
		for (int j = 0; j < n; j++) {
			k[2 + 2 * j] = u[j];
			k[3 + 2 * j] = nlo + d[j];
		}
		for (int j = 0; j < RP_FAIR_HOPS; j++)
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
			for (int j = 0; j < RP_FAIR_HOPS; j++) {
				int l = fl[RP_FAIR_HOPS * i + j];

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
				for (int j = 0; j < RP_FAIR_HOPS; j++) {
					int x = fl[RP_FAIR_HOPS * i + j];

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
