// SPDX-License-Identifier: GPL-2.0
/*
 * The port walk: which ports a host probes. Per pair, ports from
 * RP_SPORT_MIN upward until every spine the plan assigns the pair's flows
 * to has answered for as many ports as it has flows. The walk is a pure
 * function of the answers, so a walk over a full cache sends nothing and a
 * walk over part of one probes only what is missing; the planner then
 * picks from exactly these ports (lowest first).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan_probe.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void rp_probe_report_free(struct rp_probe_report *r)
{
	free(r->fails);
	memset(r, 0, sizeof(*r));
}

static int add_fail(struct rp_probe_report *r, const struct rp_probe_pair *pp,
		    uint16_t sport, unsigned int tries, const char *why)
{
	struct rp_probe_fail *f = realloc(r->fails,
					  (r->nfails + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	r->fails = f;
	f = &f[r->nfails++];
	memset(f, 0, sizeof(*f));
	snprintf(f->src_ip, sizeof(f->src_ip), "%s", pp->src_ip);
	snprintf(f->dst_ip, sizeof(f->dst_ip), "%s", pp->dst_ip);
	f->sport = sport;
	f->tries = tries;
	snprintf(f->why, sizeof(f->why), "%s", why);
	return 0;
}

/*
 * An answer from a switch the pair's leaf has no up link to: a link the
 * topology marks down carries traffic again, or routes changed, and so
 * the answers taken before may no longer hold either.
 */
static void unexpected(struct rp_probe_report *r, const struct rp_probe_pair *pp,
		       uint16_t sport, int sw)
{
	if (r->unexpected++)
		return;
	snprintf(r->unexpected_first, sizeof(r->unexpected_first),
		 "%s -> %s sport %u", pp->src_ip, pp->dst_ip, sport);
	r->unexpected_sw = sw;
}

/* ports the pair still wants, over all switches */
static unsigned int still_wanted(const unsigned int *want, int nsw)
{
	unsigned int n = 0;

	for (int i = 0; i < nsw; i++)
		n += want[i];
	return n;
}

int rp_probe_walk(const struct rp_probe_pair *pairs, size_t n, int nsw,
		  const struct rp_probe_opts *o, rp_probe_fn fn, void *ctx,
		  struct rp_probes *ps, struct rp_probe_report *rep)
{
	unsigned int *want = calloc(nsw + 1, sizeof(*want));
	double t0 = now_s();
	int ret = 0;

	if (!want)
		return -ENOMEM;
	if (!ps->ttl)
		ps->ttl = o->ttl;
	for (size_t i = 0; i < n && !ret; i++) {
		const struct rp_probe_pair *pp = &pairs[i];
		unsigned int cap = o->max_ports ? o->max_ports :
				   (pp->nflows * 8 > 16 ? pp->nflows * 8 : 16);
		unsigned int looked = 0;
		bool again = false;
		uint32_t port;

		memcpy(want, pp->want, nsw * sizeof(*want));
		for (port = RP_SPORT_MIN; port <= RP_SPORT_MAX && !ret &&
		     still_wanted(want, nsw) && looked < cap; port++) {
			const struct rp_probe *c;
			struct rp_probe pr = { .src = pp->src, .dst = pp->dst,
					       .sport = port, .sw = -1 };
			char why[96] = "no answer";
			int sent;

			if (rp_probe_cancelled(o)) {
				snprintf(rep->error, sizeof(rep->error),
					 "probing cancelled");
				ret = -ECANCELED;
				break;
			}
			looked++;
			c = rp_probes_find(ps, &pp->src, &pp->dst, port);
			if (c) {
				rep->cached++;
				if (want[c->sw])
					want[c->sw]--;
				continue;
			}
			sent = fn(ctx, pp, port, o, &pr.sw, why, sizeof(why));
			if (sent == -EADDRINUSE) {
				/* a port that cannot be probed is never planned */
				rep->skipped++;
				continue;
			}
			if (sent < 0) {
				snprintf(rep->error, sizeof(rep->error),
					 "probe %s -> %s sport %u: %s",
					 pp->src_ip, pp->dst_ip, port, why);
				ret = sent;
				break;
			}
			rep->packets += sent;
			rep->ports++;
			if (pr.sw < 0 || pr.sw >= nsw) {
				ret = add_fail(rep, pp, port, sent, why);
				continue;
			}
			rep->answered++;
			ret = rp_probes_add(ps, &pr);
			if (want[pr.sw])
				want[pr.sw]--;
			if (ret || !pp->expect || pp->expect[pr.sw])
				continue;
			unexpected(rep, pp, port, pr.sw);
			if (again)
				continue;
			/* once: the walk ends even if the fabric keeps changing */
			again = true;
			rep->reprobed++;
			rep->dropped += rp_probes_forget_pair(ps, &pp->src, &pp->dst);
			memcpy(want, pp->want, nsw * sizeof(*want));
			looked = 0;
			port = RP_SPORT_MIN - 1;
		}
		if (!ret && still_wanted(want, nsw))
			rep->short_pairs++;
	}
	free(want);
	rep->seconds += now_s() - t0;
	return ret;
}
