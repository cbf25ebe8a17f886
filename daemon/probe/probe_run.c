// SPDX-License-Identifier: GPL-2.0
/* One host's probing: pairs from the plan, then the walk with sockets. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probe_run.h"
#include "probe_sock.h"

int rp_probe_host(const struct rp_topo *t, const struct rp_place *p,
		  const char *host, const struct rp_probe_opts *o,
		  struct rp_probes *ps, struct rp_probe_report *rep,
		  struct rp_err *err)
{
	struct rp_probe_sock sk = { .t = t, .host = host };
	struct rp_probe_pair *pairs = NULL;
	struct rp_plan *plan = NULL;
	size_t n = 0;
	int ret;

	/* the assignment alone: the same on every host, probes or not */
	ret = rp_plan_compute(t, p, &plan, err);
	if (ret)
		return ret;
	ret = rp_plan_probe_pairs(plan, host, &pairs, &n);
	if (ret == -ENOENT && err)
		snprintf(err->msg, sizeof(err->msg), "unknown host \"%s\"", host);
	if (!ret) {
		ps->digest = rp_topo_digest(t);
		ret = rp_probe_walk(pairs, n, rp_topo_nswitches(t), o,
				    rp_probe_sock_fn, &sk, ps, rep);
	}
	if (ret && ret != -ENOENT && err)
		snprintf(err->msg, sizeof(err->msg), "%s",
			 rep->error[0] ? rep->error : strerror(-ret));
	rp_probe_pairs_free(pairs, n);
	rp_plan_free(plan);
	return ret;
}

void rp_probe_cache_load(const struct rp_topo *t, const char *path,
			 struct rp_probes *ps)
{
	struct rp_err err;

	if (rp_probes_load(t, path, ps, &err))
		memset(ps, 0, sizeof(*ps));
	ps->digest = rp_topo_digest(t);
}
