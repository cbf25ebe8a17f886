// SPDX-License-Identifier: GPL-2.0
/*
 * Plan output: planner.rst's plan object as a json-c document (library
 * users and the tests' reference for the stream form, plan_stream.c) and a
 * host's pins.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <linux/rocepath.h>

#include "addr.h"
#include "objs.h"
#include "plan_model.h"

const char *const rp_plan_status_reason[] = {
	[ST_PLACED] = "placed",
	[ST_NO_PATH] = "no path between the leaves over up links",
	[ST_FAMILY] = "source and destination address families differ",
	[ST_NO_PORT] = "no source port hashes onto the assigned links",
	[ST_UNPROBED] = "measured hash: no probe answers from the sending host",
	[ST_NO_PROBED] = "measured hash: no probed source port reaches the assigned spine",
	[ST_PARALLEL] = "measured hash: probes cannot tell parallel links to the assigned spine apart",
};

static json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static void flow_common(const struct rp_plan *pl, const struct flow *f,
			json_object *o)
{
	const struct rp_topo *t = pl->t;
	const struct rp_nic *sn = &t->nics[f->src_nic];
	const struct rp_nic *dn = &t->nics[f->dst_nic];

	json_object_object_add(o, "job", jstr(pl->p->jobs[f->job].id));
	json_object_object_add(o, "src_host", jstr(t->hosts[sn->host].name));
	json_object_object_add(o, "src_ip", jstr(sn->ip));
	json_object_object_add(o, "dst_host", jstr(t->hosts[dn->host].name));
	json_object_object_add(o, "dst_ip", jstr(dn->ip));
	json_object_object_add(o, "rail", json_object_new_int(f->rail));
	json_object_object_add(o, "qp", json_object_new_int(f->qp));
}

/* One direction of a link of the load space (rp_topo_nload()). */
struct link_end {
	const char *from, *to;
	int from_port, to_port;
};

/*
 * Link x: t->links[x] (up: leaf to spine) or t->ulinks[x - nlinks] (up:
 * spine to superspine), direction dir (0 up, 1 down); false if it is down.
 */
static bool link_ends(const struct rp_topo *t, int x, int dir,
		      struct link_end *e)
{
	const char *lo, *hi;
	int lp, hp;

	if (x < t->nlinks) {
		const struct rp_link *l = &t->links[x];

		if (!l->up)
			return false;
		lo = rp_leaf_name(t, l->leaf);
		hi = rp_spine_name(t, l->spine);
		lp = l->leaf_port;
		hp = l->spine_port;
	} else {
		const struct rp_ulink *l = &t->ulinks[x - t->nlinks];

		if (!l->up)
			return false;
		lo = rp_spine_name(t, l->spine);
		hi = rp_super_name(t, l->super);
		lp = l->spine_port;
		hp = l->super_port;
	}
	e->from = dir ? hi : lo;
	e->to = dir ? lo : hi;
	e->from_port = dir ? hp : lp;
	e->to_port = dir ? lp : hp;
	return true;
}

/* The flow's superspine hop, or NULL (two tiers, within a pod). */
static const struct flow3 *far3(const struct rp_plan *pl, const struct flow *f)
{
	const struct flow3 *g = pl->f3 ? &pl->f3[f - pl->flows] : NULL;

	return g && g->uu >= 0 ? g : NULL;
}

static json_object *path_json(const struct rp_plan *pl, const struct flow *f)
{
	const struct rp_topo *t = pl->t;
	json_object *path = json_object_new_array();
	const struct flow3 *g = far3(pl, f);

	json_object_array_add(path, jstr(rp_leaf_name(t, t->nics[f->src_nic].leaf)));
	if (f->up >= 0) {
		json_object_array_add(path, jstr(rp_spine_name(t, f->spine)));
		if (g) {
			json_object_array_add(path, jstr(rp_super_name(t,
						t->ulinks[g->uu].super)));
			json_object_array_add(path, jstr(rp_spine_name(t,
						t->ulinks[g->ud].spine)));
		}
		json_object_array_add(path, jstr(rp_leaf_name(t,
					t->nics[f->dst_nic].leaf)));
	}
	return path;
}

static json_object *flow_json(const struct rp_plan *pl, const struct flow *f)
{
	const struct rp_topo *t = pl->t;
	json_object *o = json_object_new_object();
	json_object *path = path_json(pl, f);
	json_object *eg = json_object_new_array();

	flow_common(pl, f, o);
	json_object_object_add(o, "sport", json_object_new_int(f->sport));
	if (f->up >= 0) {
		const struct flow3 *g = far3(pl, f);

		json_object_array_add(eg, json_object_new_int(
				t->links[f->up].leaf_port));
		if (g) {
			json_object_array_add(eg, json_object_new_int(
					t->ulinks[g->uu].spine_port));
			json_object_array_add(eg, json_object_new_int(
					t->ulinks[g->ud].super_port));
		}
		json_object_array_add(eg, json_object_new_int(
				t->links[f->dn].spine_port));
	}
	json_object_object_add(o, "path", path);
	json_object_object_add(o, "egress_ports", eg);
	json_object_object_add(o, "ecmp_sport",
			       json_object_new_int(f->e_sport));
	json_object_object_add(o, "ecmp_lqpn", json_object_new_int(f->lqpn));
	json_object_object_add(o, "ecmp_rqpn", json_object_new_int(f->rqpn));
	return o;
}

int rp_plan_to_json(const struct rp_plan *pl, const char *host,
		    json_object **out)
{
	const struct rp_topo *t = pl->t;
	json_object *o, *flows, *un, *links, *sum;
	int *upl, *dnl, h = -1;

	if (host) {
		h = rp_topo_find_host(t, host);
		if (h < 0)
			return -ENOENT;
	}
	upl = calloc(rp_topo_nload(t) + 1, sizeof(int));
	dnl = calloc(rp_topo_nload(t) + 1, sizeof(int));
	if (!upl || !dnl) {
		free(upl);
		free(dnl);
		return -ENOMEM;
	}
	rp_plan_max_load(pl, RP_MODE_PLAN, upl, dnl);
	o = json_object_new_object();
	flows = json_object_new_array_ext(pl->sum.flows);
	un = json_object_new_array();
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];

		if (h >= 0 && t->nics[f->src_nic].host != h)
			continue;
		if (f->status == ST_PLACED) {
			json_object_array_add(flows, flow_json(pl, f));
		} else {
			json_object *u = json_object_new_object();

			flow_common(pl, f, u);
			json_object_object_add(u, "reason",
					       jstr(rp_plan_status_reason[f->status]));
			if (f->status == ST_UNPROBED)
				json_object_object_add(u, "path",
						       path_json(pl, f));
			json_object_array_add(un, u);
		}
	}
	json_object_object_add(o, "flows", flows);
	json_object_object_add(o, "unplaced", un);
	links = json_object_new_array_ext(2 * rp_topo_nload(t));
	/* leaf-spine links, then spine-superspine links: one load space */
	for (int x = 0; x < rp_topo_nload(t); x++) {
		for (int dir = 0; dir < 2; dir++) {
			json_object *k;
			struct link_end e;

			if (!link_ends(t, x, dir, &e))
				break;
			k = json_object_new_object();
			json_object_object_add(k, "from", jstr(e.from));
			json_object_object_add(k, "from_port",
					       json_object_new_int(e.from_port));
			json_object_object_add(k, "to", jstr(e.to));
			json_object_object_add(k, "to_port",
					       json_object_new_int(e.to_port));
			json_object_object_add(k, "flows",
				json_object_new_int(dir ? dnl[x] : upl[x]));
			json_object_array_add(links, k);
		}
	}
	json_object_object_add(o, "links", links);
	sum = json_object_new_object();
	json_object_object_add(sum, "flows", json_object_new_int(pl->sum.flows));
	json_object_object_add(sum, "unplaced",
			       json_object_new_int(pl->sum.unplaced));
	json_object_object_add(sum, "max_link_flows",
			       json_object_new_int(pl->sum.max_link_flows));
	json_object_object_add(sum, "lower_bound",
			       json_object_new_int(pl->sum.lower_bound));
	json_object_object_add(sum, "ecmp_max_link_flows",
			       json_object_new_int(pl->sum.ecmp_max_link_flows));
	json_object_object_add(sum, "ecmp_qpns",
		jstr(RP_PLAN_ECMP_QPNS));
	json_object_object_add(sum, "slice_max_link_flows",
			       json_object_new_int(pl->sum.slice_max_link_flows));
	json_object_object_add(sum, "bound_gap",
			       json_object_new_int(pl->sum.bound_gap));
	json_object_object_add(sum, "bound_gap_reason",
			       jstr(pl->sum.bound_gap_reason));
	json_object_object_add(o, "summary", sum);
	free(upl);
	free(dnl);
	*out = o;
	return 0;
}

static int cmp_pin_flow(const void *a, const void *b, void *ctx)
{
	const struct rp_topo *pin_t = ctx;
	const struct flow *x = *(const struct flow *const *)a;
	const struct flow *y = *(const struct flow *const *)b;
	const struct rp_addr *xa = &pin_t->nics[x->dst_nic].addr;
	const struct rp_addr *ya = &pin_t->nics[y->dst_nic].addr;
	int r;

	r = rp_addr_cmp(xa, ya);
	if (r)
		return r;
	return x->sport < y->sport ? -1 : x->sport > y->sport;
}

/* Appends one rule {dev any, remote, sports} to pins; -errno. */
static int push_pin(struct rp_pins *pins, const struct rp_addr *remote,
		    const uint16_t *sports, size_t n)
{
	struct rp_pin p;
	int ret;

	memset(&p, 0, sizeof(p));
	/*
	 * The topology keeps ::ffff:a.b.c.d as IPv6 (see rp_topo_addr_parse),
	 * but the kernel matches such a peer as IPv4, so the pin does too.
	 */
	p.remote = *remote;
	rp_addr_normalise(&p.remote);
	RP_SET(&p, ROCEPATH_A_PIN_REMOTE);
	ret = rp_pin_set_sports(&p, sports, n);
	if (!ret)
		ret = rp_pins_push(pins, &p);
	if (ret)
		rp_pin_release(&p);
	return ret;
}

int rp_plan_host_pins(const struct rp_plan *pl, const char *host,
		      struct rp_pins *pins)
{
	const struct rp_topo *t = pl->t;
	const struct flow **v;
	uint16_t *sp;
	int h, n = 0, ns = 0, ret = 0;

	h = rp_topo_find_host(t, host);
	if (h < 0)
		return -ENOENT;
	v = calloc(pl->nflows + 1, sizeof(*v));
	sp = calloc(pl->nflows + 1, sizeof(*sp));
	if (!v || !sp) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < pl->nflows; i++)
		if (pl->flows[i].status == ST_PLACED &&
		    t->nics[pl->flows[i].src_nic].host == h)
			v[n++] = &pl->flows[i];
	qsort_r(v, n, sizeof(*v), cmp_pin_flow, (void *)t);
	/* one rule per remote address, its ports ascending and distinct */
	for (int i = 0; i < n && !ret; i++) {
		const struct rp_addr *dst = &t->nics[v[i]->dst_nic].addr;

		if (!ns || sp[ns - 1] != v[i]->sport)
			sp[ns++] = v[i]->sport;
		if (i + 1 == n ||
		    !rp_addr_equal(dst, &t->nics[v[i + 1]->dst_nic].addr)) {
			ret = push_pin(pins, dst, sp, ns);
			ns = 0;
		}
	}
out:
	if (ret)
		rp_pins_free(pins);
	free(v);
	free(sp);
	return ret;
}
