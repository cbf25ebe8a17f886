// SPDX-License-Identifier: GPL-2.0
/*
 * The topology file parser. Everything is validated and then sorted
 * canonically, so that the plan does not depend on the order of elements in
 * the file. Errors name the file, the JSON path and the reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "plan_json.h"

/* name -> index lookups through a sorted array of (name, index) */
struct nidx {
	const char *name;
	int idx;
};

static int cmp_nidx(const void *a, const void *b)
{
	return strcmp(((const struct nidx *)a)->name,
		      ((const struct nidx *)b)->name);
}

static int nidx_find(const struct nidx *v, int n, const char *name)
{
	struct nidx key = { .name = name };
	struct nidx *r = bsearch(&key, v, n, sizeof(*v), cmp_nidx);

	return r ? r->idx : -1;
}

void rp_topo_free(struct rp_topo *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nsw; i++) {
		free(t->sw[i].name);
		free(t->sw[i].hash.table);
		free(t->sw[i].addrs);
	}
	free(t->swaddrs);
	for (int i = 0; i < t->nhosts; i++)
		free(t->hosts[i].name);
	for (int i = 0; i < t->nnics; i++)
		free(t->nics[i].netdev);
	for (int i = 0; i < t->npods; i++)
		free(t->pods[i]);
	for (int i = 0; i < t->nplanes; i++)
		free(t->planes[i]);
	free(t->pods);
	free(t->planes);
	free(t->sw);
	free(t->leaf_sw);
	free(t->spine_sw);
	free(t->super_sw);
	free(t->links);
	free(t->ulinks);
	free(t->hosts);
	free(t->nics);
	free(t);
}

static int parse_hash(struct pctx *c, const struct rp_jv *h, const char *hp,
		      struct rp_hash_model *m)
{
	const struct rp_jv *fields, *table, *e;
	const char *s = NULL;
	char p[300];
	int64_t seed = 0;
	int ret;

	m->alg = RP_HASH_CRC16_CCITT;
	m->sel = RP_SEL_FULL;
	m->nfields = 5;
	for (int i = 0; i < 5; i++)
		m->fields[i] = i;
	if (!h)
		return 0;
	ret = rp_json_str(c, h, hp, "algorithm", true, &s);
	if (ret)
		return ret;
	if (rp_hash_alg_parse(s, &m->alg)) {
		rp_json_pathf(p, sizeof(p), "%s.algorithm", hp);
		return rp_json_err(c, p, "unknown hash algorithm \"%s\"", s);
	}
	ret = rp_json_int(c, h, hp, "seed", false, 0, 0xFFFFFFFFll, "seed", &seed);
	if (ret)
		return ret;
	m->seed = seed;
	s = NULL;
	ret = rp_json_str(c, h, hp, "select", false, &s);
	if (ret)
		return ret;
	if (s && rp_hash_sel_parse(s, &m->sel)) {
		rp_json_pathf(p, sizeof(p), "%s.select", hp);
		return rp_json_err(c, p, "unknown hash select \"%s\" (full, lo16, hi16)",
				   s);
	}
	ret = rp_json_member(c, h, hp, "fields", RP_JARRAY, false, &fields);
	if (ret)
		return ret;
	if (fields) {
		size_t n = rp_jv_len(fields);

		if (!n || n > RP_HASH_MAX_FIELDS) {
			rp_json_pathf(p, sizeof(p), "%s.fields", hp);
			return rp_json_err(c, p, "needs 1..%d fields",
					   RP_HASH_MAX_FIELDS);
		}
		m->nfields = n;
		e = rp_jv_first(fields);
		for (size_t i = 0; i < n; i++, e = rp_jv_next(e)) {
			rp_json_pathf(p, sizeof(p), "%s.fields[%zu]", hp, i);
			ret = rp_json_type(c, e, p, RP_JSTRING);
			if (ret)
				return ret;
			if (rp_hash_field_parse(e->s, &m->fields[i]))
				return rp_json_err(c, p, "unknown hash field \"%s\"",
						   e->s);
		}
	}
	ret = rp_json_member(c, h, hp, "table", RP_JOBJECT, false, &table);
	if (ret)
		return ret;
	if (m->alg == RP_HASH_TABLE && !table)
		return rp_json_err(c, hp, "algorithm \"table\" needs a \"table\"");
	if (table && m->alg == RP_HASH_TABLE) {
		m->table = malloc(65536 * sizeof(*m->table));
		if (!m->table)
			return -ENOMEM;
		memset(m->table, 0xFF, 65536 * sizeof(*m->table));
		e = rp_jv_first(table);
		for (size_t i = 0; i < table->n; i++, e = rp_jv_next(e)) {
			char *end;
			long port = strtol(e->key, &end, 10);
			int64_t mem;

			rp_json_pathf(p, sizeof(p), "%s.table.\"%s\"", hp, e->key);
			if (!*e->key || *end)
				return rp_json_err(c, p, "key is not a port number");
			if (port < 0 || port > 65535)
				return rp_json_err(c, p, "port %ld out of range (0..65535)",
						   port);
			ret = rp_json_type(c, e, p, RP_JINT);
			if (ret)
				return ret;
			mem = rp_jv_int(e);
			if (mem < 0 || mem > 65535)
				return rp_json_err(c, p, "member %lld out of range (0..65535)",
						   (long long)mem);
			m->table[port] = (int32_t)mem;
		}
	}
	return 0;
}

/*
 * Not rp_addr_parse: that turns an IPv4-mapped IPv6 address into IPv4,
 * which would change what the hash models are fed (4 bytes instead of 16)
 * and the canonical text of topologies that write ::ffff:a.b.c.d, so their
 * plans. Same struct and zero fill, so only the mapped case differs.
 */
int rp_topo_addr_parse(const char *s, struct rp_addr *a, char *canon,
		       size_t len)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->v4) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, s, &a->v6) == 1)
		a->family = AF_INET6;
	else
		return -EINVAL;
	if (canon)
		rp_addr_fmt(a, canon, len);
	return 0;
}

/* A switch's optional "addresses": the IPs its ICMP errors come from. */
static int parse_swaddrs(struct pctx *c, const struct rp_jv *s, const char *sp,
			 struct rp_switch *sw)
{
	const struct rp_jv *arr, *a;
	char p[320];
	size_t n;
	int ret;

	ret = rp_json_member(c, s, sp, "addresses", RP_JARRAY, false, &arr);
	if (ret || !arr)
		return ret;
	n = rp_jv_len(arr);
	sw->addrs = calloc(n + 1, sizeof(*sw->addrs));
	if (!sw->addrs)
		return -ENOMEM;
	a = rp_jv_first(arr);
	for (size_t i = 0; i < n; i++, a = rp_jv_next(a)) {
		rp_json_pathf(p, sizeof(p), "%s.addresses[%zu]", sp, i);
		ret = rp_json_type(c, a, p, RP_JSTRING);
		if (ret)
			return ret;
		if (rp_topo_addr_parse(a->s, &sw->addrs[i], NULL, 0))
			return rp_json_err(c, p, "invalid IP address \"%s\"",
					   a->s);
		sw->naddrs++;
	}
	return 0;
}

static int cmp_swaddr(const void *a, const void *b)
{
	const struct rp_swaddr *x = a, *y = b;

	return rp_addr_cmp(&x->addr, &y->addr);
}

/* t->swaddrs, sorted; an address of two switches, or of a host, is an error. */
static int index_swaddrs(struct pctx *c, struct rp_topo *t)
{
	int n = 0;

	for (int i = 0; i < t->nsw; i++)
		n += t->sw[i].naddrs;
	t->swaddrs = calloc(n + 1, sizeof(*t->swaddrs));
	if (!t->swaddrs)
		return -ENOMEM;
	for (int i = 0; i < t->nsw; i++)
		for (int k = 0; k < t->sw[i].naddrs; k++) {
			t->swaddrs[t->nswaddrs].addr = t->sw[i].addrs[k];
			t->swaddrs[t->nswaddrs++].sw = i;
		}
	qsort(t->swaddrs, n, sizeof(*t->swaddrs), cmp_swaddr);
	for (int i = 0; i < n; i++) {
		char buf[64];

		rp_addr_fmt(&t->swaddrs[i].addr, buf, sizeof(buf));
		if (i && !rp_addr_cmp(&t->swaddrs[i].addr, &t->swaddrs[i - 1].addr))
			return rp_json_err(c, ".switches", "address %s is listed by \"%s\" and \"%s\": an ICMP error from it would name neither",
					   buf, t->sw[t->swaddrs[i - 1].sw].name,
					   t->sw[t->swaddrs[i].sw].name);
		if (rp_topo_find_nic_addr(t, &t->swaddrs[i].addr) >= 0)
			return rp_json_err(c, ".switches", "address %s of \"%s\" is also a host NIC's",
					   buf, t->sw[t->swaddrs[i].sw].name);
	}
	return 0;
}

int rp_topo_find_swaddr(const struct rp_topo *t, const struct rp_addr *a)
{
	struct rp_swaddr key = { .addr = *a };
	const struct rp_swaddr *r = bsearch(&key, t->swaddrs, t->nswaddrs,
					    sizeof(key), cmp_swaddr);

	return r ? r->sw : -1;
}

int rp_topo_find_nic_addr(const struct rp_topo *t, const struct rp_addr *a)
{
	for (int i = 0; i < t->nnics; i++)
		if (!rp_addr_cmp(&t->nics[i].addr, a))
			return i;
	return -1;
}

/* temporary records with original JSON indices, for errors and sorting */
struct tsw {
	struct rp_switch s;
	const char *pod, *plane;	/* as in the file (NULL: absent) */
	int orig;
};
struct tlink {
	struct rp_link l;
	int orig;
};
struct tulink {
	struct rp_ulink l;
	int orig;
};
struct tnic {
	struct rp_nic n;
	const char *hname;
	int orig_h, orig_n;
};

static int cmp_tsw(const void *a, const void *b)
{
	return strcmp(((const struct tsw *)a)->s.name,
		      ((const struct tsw *)b)->s.name);
}

static int cmp_link(const void *a, const void *b)
{
	const struct rp_link *x = &((const struct tlink *)a)->l;
	const struct rp_link *y = &((const struct tlink *)b)->l;

	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	if (x->leaf_port != y->leaf_port)
		return x->leaf_port < y->leaf_port ? -1 : 1;
	return 0;
}

static int cmp_ulink(const void *a, const void *b)
{
	const struct rp_ulink *x = &((const struct tulink *)a)->l;
	const struct rp_ulink *y = &((const struct tulink *)b)->l;

	if (x->spine != y->spine)
		return x->spine < y->spine ? -1 : 1;
	return x->spine_port < y->spine_port ? -1 : x->spine_port > y->spine_port;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The distinct names among names[0..n) (NULLs skipped), sorted, copied
 * into *out; -ENOMEM.
 */
static int name_set(const char **names, int n, char ***out, int *nout)
{
	const char **v = calloc(n + 1, sizeof(*v));
	int k = 0, m = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (names[i])
			v[k++] = names[i];
	qsort(v, k, sizeof(*v), cmp_str);
	*out = calloc(k + 1, sizeof(**out));
	if (!*out) {
		free(v);
		return -ENOMEM;
	}
	for (int i = 0; i < k; i++) {
		if (m && !strcmp((*out)[m - 1], v[i]))
			continue;
		(*out)[m] = strdup(v[i]);
		if (!(*out)[m++]) {
			*nout = m;
			free(v);
			return -ENOMEM;
		}
	}
	*nout = m;
	free(v);
	return 0;
}

static int name_find(char *const *v, int n, const char *name)
{
	int lo = 0, hi = n - 1;

	while (name && lo <= hi) {
		int mid = (lo + hi) / 2, r = strcmp(v[mid], name);

		if (!r)
			return mid;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static const char *const tier_names[] = {
	[RP_TIER_LEAF] = "leaf", [RP_TIER_SPINE] = "spine",
	[RP_TIER_SUPER] = "superspine",
};

/* Planes as declared: names, and which plane (file index) owns each rail. */
struct tplanes {
	int n;
	const char **name;		/* by file index */
	int nrails;
	int *rail, *plane;		/* rail[i] belongs to planes[plane[i]] */
};

static void tplanes_free(struct tplanes *tp)
{
	free(tp->name);
	free(tp->rail);
	free(tp->plane);
}

/* The plane (file index) of a rail, or -1. */
static int tplanes_rail(const struct tplanes *tp, int rail)
{
	for (int i = 0; i < tp->nrails; i++)
		if (tp->rail[i] == rail)
			return tp->plane[i];
	return -1;
}

/* "planes": [{"name": "p0", "rails": [0, 1]}, ...] (optional). */
static int parse_planes(struct pctx *c, const struct rp_jv *root,
			struct tplanes *tp)
{
	const struct rp_jv *ps, *o, *rails, *r;
	size_t n, nr = 0;
	char p[300];
	int ret;

	memset(tp, 0, sizeof(*tp));
	ret = rp_json_member(c, root, "", "planes", RP_JARRAY, false, &ps);
	if (ret || !ps)
		return ret;
	n = rp_jv_len(ps);
	o = rp_jv_first(ps);
	for (size_t i = 0; i < n; i++, o = rp_jv_next(o)) {
		r = rp_jv_get(o, "rails");
		if (r && r->type == RP_JARRAY)
			nr += r->n;
	}
	tp->name = calloc(n + 1, sizeof(*tp->name));
	tp->rail = calloc(nr + 1, sizeof(int));
	tp->plane = calloc(nr + 1, sizeof(int));
	if (!tp->name || !tp->rail || !tp->plane)
		return -ENOMEM;
	o = rp_jv_first(ps);
	for (size_t i = 0; i < n; i++, o = rp_jv_next(o)) {
		size_t k;

		rp_json_pathf(p, sizeof(p), ".planes[%zu]", i);
		ret = rp_json_type(c, o, p, RP_JOBJECT);
		if (!ret)
			ret = rp_json_str(c, o, p, "name", true, &tp->name[i]);
		if (!ret)
			ret = rp_json_member(c, o, p, "rails", RP_JARRAY,
					     true, &rails);
		if (ret)
			return ret;
		for (k = 0; k < i; k++)
			if (!strcmp(tp->name[k], tp->name[i])) {
				rp_json_pathf(p, sizeof(p), ".planes[%zu].name", i);
				return rp_json_err(c, p, "duplicate plane name \"%s\" (also .planes[%zu])",
						   tp->name[i], k);
			}
		tp->n = i + 1;
		if (!rails->n) {
			rp_json_pathf(p, sizeof(p), ".planes[%zu].rails", i);
			return rp_json_err(c, p, "plane \"%s\" has no rails",
					   tp->name[i]);
		}
		r = rp_jv_first(rails);
		for (k = 0; k < rails->n; k++, r = rp_jv_next(r)) {
			int64_t rail;
			int other;

			rp_json_pathf(p, sizeof(p), ".planes[%zu].rails[%zu]", i, k);
			ret = rp_json_type(c, r, p, RP_JINT);
			if (ret)
				return ret;
			rail = rp_jv_int(r);
			if (rail < 0 || rail > 65535)
				return rp_json_err(c, p, "rail %lld out of range (0..65535)",
						   (long long)rail);
			other = tplanes_rail(tp, rail);
			if (other >= 0)
				return rp_json_err(c, p, "rail %lld is already in plane \"%s\" (.planes[%d])",
						   (long long)rail, tp->name[other],
						   other);
			tp->rail[tp->nrails] = rail;
			tp->plane[tp->nrails++] = i;
		}
	}
	return 0;
}

/*
 * Pods and planes of the switches (file order), before the links: a
 * superspine is in no pod; with superspines or any pod, every leaf and
 * spine names its pod; with planes, every switch names a declared plane,
 * and a pod lies in one plane.
 */
static int check_membership(struct pctx *c, const struct tsw *tsw, int nsw,
			    const struct tplanes *tp)
{
	int supers = 0, podded = -1;
	char p[300];

	for (int i = 0; i < nsw; i++) {
		supers += tsw[i].s.tier == RP_TIER_SUPER;
		if (tsw[i].pod && tsw[i].s.tier != RP_TIER_SUPER && podded < 0)
			podded = i;
	}
	for (int i = 0; i < nsw; i++) {
		const struct tsw *x = &tsw[i];

		rp_json_pathf(p, sizeof(p), ".switches[%d]", i);
		if (x->s.tier == RP_TIER_SUPER && x->pod) {
			rp_json_pathf(p, sizeof(p), ".switches[%d].pod", i);
			return rp_json_err(c, p, "superspine \"%s\" is in no pod (pods group leaves and spines)",
					   x->s.name);
		}
		if (x->s.tier != RP_TIER_SUPER && !x->pod && supers)
			return rp_json_err(c, p, "%s \"%s\" needs a \"pod\" (the topology has superspines)",
					   tier_names[x->s.tier], x->s.name);
		if (x->s.tier != RP_TIER_SUPER && !x->pod && podded >= 0)
			return rp_json_err(c, p, "%s \"%s\" needs a \"pod\" (.switches[%d] has one)",
					   tier_names[x->s.tier], x->s.name, podded);
		if (x->plane && !tp->n) {
			rp_json_pathf(p, sizeof(p), ".switches[%d].plane", i);
			return rp_json_err(c, p, "unknown plane \"%s\" (the topology declares no \"planes\")",
					   x->plane);
		}
		if (tp->n && !x->plane)
			return rp_json_err(c, p, "switch \"%s\" needs a \"plane\" (the topology has \"planes\")",
					   x->s.name);
		if (x->plane) {
			int k;

			for (k = 0; k < tp->n; k++)
				if (!strcmp(tp->name[k], x->plane))
					break;
			rp_json_pathf(p, sizeof(p), ".switches[%d].plane", i);
			if (k == tp->n)
				return rp_json_err(c, p, "unknown plane \"%s\"",
						   x->plane);
		}
	}
	return 0;
}

static int cmp_tnic_name(const void *a, const void *b)
{
	const struct tnic *x = a, *y = b;
	int r = strcmp(x->hname, y->hname);

	if (r)
		return r;
	return x->n.rail < y->n.rail ? -1 : x->n.rail > y->n.rail;
}

static int cmp_tnic_addr(const void *a, const void *b)
{
	const struct tnic *x = *(const struct tnic *const *)a;
	const struct tnic *y = *(const struct tnic *const *)b;

	return rp_addr_cmp(&x->n.addr, &y->n.addr);
}

struct portkey {
	int sw, port, orig;
};

static int cmp_portkey(const void *a, const void *b)
{
	const struct portkey *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->orig - y->orig;
}

/* Pod and plane names of the switches, as indices (t->pods, t->planes). */
static int index_groups(struct pctx *c, struct tsw *tsw, int nsw,
			const struct tplanes *tp, struct rp_topo *t)
{
	const char **v = calloc(nsw + tp->n + 1, sizeof(*v));
	int *first = NULL, ret;
	char p[300];

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < nsw; i++)
		v[i] = tsw[i].pod;
	ret = name_set(v, nsw, &t->pods, &t->npods);
	for (int i = 0; i < tp->n; i++)
		v[i] = tp->name[i];
	if (!ret)
		ret = name_set(v, tp->n, &t->planes, &t->nplanes);
	free(v);
	if (ret)
		return ret;
	first = malloc((t->npods + 1) * sizeof(int));
	if (!first) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < t->npods; i++)
		first[i] = -1;
	/* switches are sorted by name here: report the first in file order */
	for (int i = 0; i < nsw; i++) {
		struct rp_switch *x = &tsw[i].s;

		x->pod = name_find(t->pods, t->npods, tsw[i].pod);
		x->plane = name_find(t->planes, t->nplanes, tsw[i].plane);
		if (x->pod >= 0 && (first[x->pod] < 0 ||
				    tsw[first[x->pod]].orig > tsw[i].orig))
			first[x->pod] = i;
	}
	for (int i = 0; i < nsw && t->nplanes; i++) {
		const struct tsw *x = &tsw[i];
		const struct tsw *y = x->s.pod >= 0 ? &tsw[first[x->s.pod]] : x;

		if (y->s.plane != x->s.plane) {
			if (y->orig > x->orig) {
				const struct tsw *z = x;

				x = y;
				y = z;
			}
			rp_json_pathf(p, sizeof(p), ".switches[%d].plane", x->orig);
			ret = rp_json_err(c, p, "pod \"%s\" spans planes \"%s\" (.switches[%d]) and \"%s\"",
					  x->pod, y->plane, y->orig, x->plane);
			goto out;
		}
	}
	ret = 0;
out:
	free(first);
	return ret;
}

/*
 * The tiers connect: every leaf has an uplink, every superspine a spine
 * link; with superspines or several pods, every pod links to a superspine
 * and has leaves; every plane has leaves. Links count whether up or not:
 * this is the wiring, not its state.
 */
static int check_tiers(struct pctx *c, const struct tsw *tsw, int nsw,
		       const struct tlink *tl, int nl, const struct tulink *tu,
		       int nu, const struct tplanes *tp, const struct rp_topo *t)
{
	int *leaf_up = calloc(t->nleaves + 1, sizeof(int));
	int *super_dn = calloc(t->nsupers + 1, sizeof(int));
	int *pod_up = calloc(t->npods + 1, sizeof(int));
	int *pod_leaves = calloc(t->npods + 1, sizeof(int));
	int *plane_leaves = calloc(t->nplanes + 1, sizeof(int));
	int *orig_sw = calloc(nsw + 1, sizeof(int));
	char p[300];
	int ret = -ENOMEM;

	if (!leaf_up || !super_dn || !pod_up || !pod_leaves || !plane_leaves ||
	    !orig_sw)
		goto out;
	for (int i = 0; i < nl; i++)
		leaf_up[tl[i].l.leaf] = 1;
	for (int i = 0; i < nu; i++) {
		super_dn[tu[i].l.super] = 1;
		if (rp_spine_pod(t, tu[i].l.spine) >= 0)
			pod_up[rp_spine_pod(t, tu[i].l.spine)] = 1;
	}
	for (int i = 0; i < t->nleaves; i++) {
		const struct rp_switch *x = &t->sw[t->leaf_sw[i]];

		if (x->pod >= 0)
			pod_leaves[x->pod] = 1;
		if (x->plane >= 0)
			plane_leaves[x->plane] = 1;
	}
	/* in file order, so that the first offender is reported */
	for (int i = 0; i < nsw; i++)
		orig_sw[tsw[i].orig] = i;
	for (int k = 0; k < nsw; k++) {
		const struct rp_switch *x = &t->sw[orig_sw[k]];

		rp_json_pathf(p, sizeof(p), ".switches[%d]", k);
		ret = -EINVAL;
		if (x->tier == RP_TIER_LEAF && !leaf_up[x->tidx]) {
			rp_json_err(c, p, "leaf \"%s\" has no uplinks", x->name);
			goto out;
		}
		if (x->tier == RP_TIER_SUPER && !super_dn[x->tidx]) {
			rp_json_err(c, p, "superspine \"%s\" has no spine links (links to no pod)",
				    x->name);
			goto out;
		}
		rp_json_pathf(p, sizeof(p), ".switches[%d].pod", k);
		if (x->pod >= 0 && !pod_leaves[x->pod]) {
			rp_json_err(c, p, "pod \"%s\" has no leaves",
				    t->pods[x->pod]);
			goto out;
		}
		if (x->pod >= 0 && !pod_up[x->pod] &&
		    (t->nsupers || t->npods > 1)) {
			rp_json_err(c, p, "pod \"%s\" has no superspine link (no spine of it links to a superspine)",
				    t->pods[x->pod]);
			goto out;
		}
	}
	for (int i = 0; i < tp->n; i++) {
		int k = name_find(t->planes, t->nplanes, tp->name[i]);

		if (!plane_leaves[k]) {
			rp_json_pathf(p, sizeof(p), ".planes[%d]", i);
			ret = rp_json_err(c, p, "plane \"%s\" has no leaves",
					  tp->name[i]);
			goto out;
		}
	}
	ret = 0;
out:
	free(leaf_up);
	free(super_dn);
	free(pod_up);
	free(pod_leaves);
	free(plane_leaves);
	free(orig_sw);
	return ret;
}

/*
 * Whether a link may join these two switches: "" when it may, the tier's
 * plural when both are of one tier, NULL for a leaf and a superspine.
 */
static const char *bad_pair(const struct rp_switch *x, const struct rp_switch *y)
{
	static const char *const plural[] = {
		[RP_TIER_LEAF] = "leaves", [RP_TIER_SPINE] = "spines",
		[RP_TIER_SUPER] = "superspines",
	};
	int a = x->tier < y->tier ? x->tier : y->tier;
	int b = x->tier + y->tier - a;

	if (a == b)
		return plural[a];
	if (a == RP_TIER_LEAF && b == RP_TIER_SUPER)
		return NULL;	/* caller: a leaf and a superspine */
	return "";
}

static int topo_build(struct pctx *c, const struct rp_jv *root,
		      struct rp_topo *t)
{
	const struct rp_jv *sws, *lks, *hs, *js, *jl, *jh;
	struct tsw *tsw = NULL;
	struct tlink *tl = NULL;
	struct tulink *tu = NULL;
	struct tnic *tn = NULL, **tnp = NULL;
	struct nidx *swi = NULL, *hi = NULL;
	struct portkey *pk = NULL;
	struct tplanes tp = { 0 };
	size_t nsw, nl, nh, nn = 0, nll = 0, nul = 0;
	char p[300];
	int ret;

	ret = rp_json_type(c, root, "", RP_JOBJECT);
	if (ret)
		return ret;
	ret = rp_json_member(c, root, "", "switches", RP_JARRAY, true, &sws);
	if (!ret)
		ret = rp_json_member(c, root, "", "links", RP_JARRAY, true, &lks);
	if (!ret)
		ret = rp_json_member(c, root, "", "hosts", RP_JARRAY, true, &hs);
	if (!ret)
		ret = parse_planes(c, root, &tp);
	if (ret)
		goto out;
	nsw = rp_jv_len(sws);
	nl = rp_jv_len(lks);
	nh = rp_jv_len(hs);

	ret = -ENOMEM;
	tsw = calloc(nsw + 1, sizeof(*tsw));
	swi = calloc(nsw + 1, sizeof(*swi));
	tl = calloc(nl + 1, sizeof(*tl));
	tu = calloc(nl + 1, sizeof(*tu));
	pk = calloc(2 * nl + 1, sizeof(*pk));
	hi = calloc(nh + 1, sizeof(*hi));
	if (!tsw || !swi || !tl || !tu || !pk || !hi)
		goto out;

	/* switches */
	js = rp_jv_first(sws);
	for (size_t i = 0; i < nsw; i++, js = rp_jv_next(js)) {
		const struct rp_jv *hash;
		const char *name, *tier;

		rp_json_pathf(p, sizeof(p), ".switches[%zu]", i);
		tsw[i].orig = i;
		ret = rp_json_type(c, js, p, RP_JOBJECT);
		if (!ret)
			ret = rp_json_str(c, js, p, "name", true, &name);
		if (!ret)
			ret = rp_json_str(c, js, p, "tier", true, &tier);
		if (!ret)
			ret = rp_json_str(c, js, p, "pod", false, &tsw[i].pod);
		if (!ret)
			ret = rp_json_str(c, js, p, "plane", false, &tsw[i].plane);
		if (ret)
			goto out;
		if (!strcmp(tier, "leaf")) {
			tsw[i].s.tier = RP_TIER_LEAF;
		} else if (!strcmp(tier, "spine")) {
			tsw[i].s.tier = RP_TIER_SPINE;
		} else if (!strcmp(tier, "superspine")) {
			tsw[i].s.tier = RP_TIER_SUPER;
		} else {
			char q[320];

			rp_json_pathf(q, sizeof(q), "%s.tier", p);
			ret = rp_json_err(c, q, "unknown tier \"%s\" (leaf, spine, superspine)",
					  tier);
			goto out;
		}
		tsw[i].s.name = strdup(name);
		if (!tsw[i].s.name) {
			ret = -ENOMEM;
			goto out;
		}
		ret = rp_json_member(c, js, p, "hash", RP_JOBJECT, false, &hash);
		if (ret)
			goto out;
		{
			char q[320];

			rp_json_pathf(q, sizeof(q), "%s.hash", p);
			ret = parse_hash(c, hash, q, &tsw[i].s.hash);
		}
		if (!ret)
			ret = parse_swaddrs(c, js, p, &tsw[i].s);
		if (ret)
			goto out;
		if (tsw[i].s.hash.alg == RP_HASH_MEASURED)
			t->measured = true;
	}
	ret = check_membership(c, tsw, nsw, &tp);
	if (ret)
		goto out;
	qsort(tsw, nsw, sizeof(*tsw), cmp_tsw);
	for (size_t i = 1; i < nsw; i++) {
		if (!strcmp(tsw[i].s.name, tsw[i - 1].s.name)) {
			int o = tsw[i].orig > tsw[i - 1].orig ?
				tsw[i].orig : tsw[i - 1].orig;
			int f = tsw[i].orig + tsw[i - 1].orig - o;

			rp_json_pathf(p, sizeof(p), ".switches[%d].name", o);
			ret = rp_json_err(c, p, "duplicate switch name \"%s\" (also .switches[%d])",
					  tsw[i].s.name, f);
			goto out;
		}
	}
	ret = index_groups(c, tsw, nsw, &tp, t);
	if (ret)
		goto out;
	t->nsw = nsw;
	t->sw = calloc(nsw + 1, sizeof(*t->sw));
	t->leaf_sw = calloc(nsw + 1, sizeof(int));
	t->spine_sw = calloc(nsw + 1, sizeof(int));
	t->super_sw = calloc(nsw + 1, sizeof(int));
	if (!t->sw || !t->leaf_sw || !t->spine_sw || !t->super_sw) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nsw; i++) {
		t->sw[i] = tsw[i].s;
		tsw[i].s.name = NULL;
		tsw[i].s.hash.table = NULL;
		tsw[i].s.addrs = NULL;
		if (t->sw[i].tier == RP_TIER_LEAF) {
			t->sw[i].tidx = t->nleaves;
			t->leaf_sw[t->nleaves++] = i;
		} else if (t->sw[i].tier == RP_TIER_SPINE) {
			t->sw[i].tidx = t->nspines;
			t->spine_sw[t->nspines++] = i;
		} else {
			t->sw[i].tidx = t->nsupers;
			t->super_sw[t->nsupers++] = i;
		}
		swi[i].name = t->sw[i].name;
		swi[i].idx = i;
	}

	/* links: leaf-spine into tl, spine-superspine into tu */
	jl = rp_jv_first(lks);
	for (size_t i = 0; i < nl; i++, jl = rp_jv_next(jl)) {
		const struct rp_jv *up;
		const struct rp_switch *x, *y;
		const char *a, *b, *why;
		int64_t ap = 0, bp = 0;
		int sa, sb;
		bool isup;

		rp_json_pathf(p, sizeof(p), ".links[%zu]", i);
		ret = rp_json_type(c, jl, p, RP_JOBJECT);
		if (!ret)
			ret = rp_json_str(c, jl, p, "a", true, &a);
		if (!ret)
			ret = rp_json_str(c, jl, p, "b", true, &b);
		if (!ret)
			ret = rp_json_int(c, jl, p, "a_port", true, 0, 65535, "port",
					  &ap);
		if (!ret)
			ret = rp_json_int(c, jl, p, "b_port", true, 0, 65535, "port",
					  &bp);
		if (!ret)
			ret = rp_json_member(c, jl, p, "up", RP_JBOOL, false, &up);
		if (ret)
			goto out;
		sa = nidx_find(swi, nsw, a);
		sb = nidx_find(swi, nsw, b);
		if (sa < 0 || sb < 0) {
			char q[320];

			rp_json_pathf(q, sizeof(q), "%s.%s", p, sa < 0 ? "a" : "b");
			ret = rp_json_err(c, q, "unknown switch \"%s\"",
					  sa < 0 ? a : b);
			goto out;
		}
		x = &t->sw[sa];
		y = &t->sw[sb];
		why = bad_pair(x, y);
		if (!why || *why) {
			char r[160];

			if (why)
				snprintf(r, sizeof(r), "\"%s\" and \"%s\" are both %s",
					 a, b, why);
			else
				snprintf(r, sizeof(r), "\"%s\" is a %s, \"%s\" a %s",
					 a, tier_names[x->tier], b,
					 tier_names[y->tier]);
			ret = rp_json_err(c, p, "link must join a leaf and a spine, or a spine and a superspine (%s)",
					  r);
			goto out;
		}
		if (x->plane != y->plane) {
			ret = rp_json_err(c, p, "link joins planes \"%s\" and \"%s\" (\"%s\" and \"%s\")",
					  t->planes[x->plane], t->planes[y->plane],
					  a, b);
			goto out;
		}
		if (x->tier != RP_TIER_SUPER && y->tier != RP_TIER_SUPER &&
		    x->pod != y->pod) {
			ret = rp_json_err(c, p, "link joins pods \"%s\" and \"%s\" (\"%s\" and \"%s\"): spines link to leaves of their own pod",
					  t->pods[x->pod], t->pods[y->pod], a, b);
			goto out;
		}
		pk[2 * i] = (struct portkey){ sa, ap, 2 * i };
		pk[2 * i + 1] = (struct portkey){ sb, bp, 2 * i + 1 };
		/* normalise: the lower tier is the "a" end */
		if (x->tier > y->tier) {
			int ts = sa;
			int64_t tpp = ap;

			sa = sb;
			sb = ts;
			ap = bp;
			bp = tpp;
		}
		isup = up ? up->b : true;
		if (t->sw[sa].tier == RP_TIER_LEAF) {
			struct tlink *k = &tl[nll++];

			k->orig = i;
			k->l.leaf = t->sw[sa].tidx;
			k->l.spine = t->sw[sb].tidx;
			k->l.leaf_port = ap;
			k->l.spine_port = bp;
			k->l.up = isup;
		} else {
			struct tulink *k = &tu[nul++];

			k->orig = i;
			k->l.spine = t->sw[sa].tidx;
			k->l.super = t->sw[sb].tidx;
			k->l.spine_port = ap;
			k->l.super_port = bp;
			k->l.up = isup;
		}
	}
	qsort(pk, 2 * nl, sizeof(*pk), cmp_portkey);
	for (size_t i = 1; i < 2 * nl; i++) {
		if (pk[i].sw == pk[i - 1].sw && pk[i].port == pk[i - 1].port) {
			rp_json_pathf(p, sizeof(p), ".links[%d].%s_port",
				      pk[i].orig / 2, pk[i].orig % 2 ? "b" : "a");
			ret = rp_json_err(c, p, "port %d of \"%s\" already used by .links[%d]",
					  pk[i].port, t->sw[pk[i].sw].name,
					  pk[i - 1].orig / 2);
			goto out;
		}
	}
	ret = check_tiers(c, tsw, nsw, tl, nll, tu, nul, &tp, t);
	if (ret)
		goto out;
	qsort(tl, nll, sizeof(*tl), cmp_link);
	qsort(tu, nul, sizeof(*tu), cmp_ulink);
	t->nlinks = nll;
	t->links = calloc(nll + 1, sizeof(*t->links));
	t->nulinks = nul;
	t->ulinks = calloc(nul + 1, sizeof(*t->ulinks));
	if (!t->links || !t->ulinks) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nll; i++)
		t->links[i] = tl[i].l;
	for (size_t i = 0; i < nul; i++)
		t->ulinks[i] = tu[i].l;

	/* hosts */
	jh = rp_jv_first(hs);
	for (size_t i = 0; i < nh; i++, jh = rp_jv_next(jh)) {
		const struct rp_jv *ns;

		rp_json_pathf(p, sizeof(p), ".hosts[%zu]", i);
		ret = rp_json_type(c, jh, p, RP_JOBJECT);
		if (!ret)
			ret = rp_json_str(c, jh, p, "name", true, &hi[i].name);
		if (!ret)
			ret = rp_json_member(c, jh, p, "nics", RP_JARRAY, true,
					     &ns);
		if (ret)
			goto out;
		hi[i].idx = i;
		nn += ns->n;
	}
	qsort(hi, nh, sizeof(*hi), cmp_nidx);
	for (size_t i = 1; i < nh; i++) {
		if (!strcmp(hi[i].name, hi[i - 1].name)) {
			int o = hi[i].idx > hi[i - 1].idx ? hi[i].idx :
				hi[i - 1].idx;

			rp_json_pathf(p, sizeof(p), ".hosts[%d].name", o);
			ret = rp_json_err(c, p, "duplicate host name \"%s\" (also .hosts[%d])",
					  hi[i].name, hi[i].idx + hi[i - 1].idx - o);
			goto out;
		}
	}
	tn = calloc(nn + 1, sizeof(*tn));
	tnp = calloc(nn + 1, sizeof(*tnp));
	if (!tn || !tnp) {
		ret = -ENOMEM;
		goto out;
	}
	nn = 0;
	jh = rp_jv_first(hs);
	for (size_t i = 0; i < nh; i++, jh = rp_jv_next(jh)) {
		const char *hname = rp_jv_get(jh, "name")->s;
		const struct rp_jv *ns = rp_jv_get(jh, "nics");
		const struct rp_jv *n = rp_jv_first(ns);
		size_t k, n0 = nn;

		for (k = 0; k < ns->n; k++, n = rp_jv_next(n)) {
			const char *ip, *leaf, *dev = NULL;
			struct tnic *x = &tn[nn];
			int64_t rail;
			int s;

			rp_json_pathf(p, sizeof(p), ".hosts[%zu].nics[%zu]", i, k);
			ret = rp_json_type(c, n, p, RP_JOBJECT);
			if (!ret)
				ret = rp_json_int(c, n, p, "rail", true, 0, 65535,
						  "rail", &rail);
			if (!ret)
				ret = rp_json_str(c, n, p, "ip", true, &ip);
			if (!ret)
				ret = rp_json_str(c, n, p, "leaf", true, &leaf);
			if (!ret)
				ret = rp_json_str(c, n, p, "netdev", false, &dev);
			if (ret)
				goto out;
			x->hname = hname;
			x->orig_h = i;
			x->orig_n = k;
			x->n.rail = rail;
			if (rp_topo_addr_parse(ip, &x->n.addr, x->n.ip, sizeof(x->n.ip))) {
				char q[320];

				rp_json_pathf(q, sizeof(q), "%s.ip", p);
				ret = rp_json_err(c, q, "invalid IP address \"%s\"",
						  ip);
				goto out;
			}
			s = nidx_find(swi, nsw, leaf);
			if (s < 0 || t->sw[s].tier != RP_TIER_LEAF) {
				char q[320];

				rp_json_pathf(q, sizeof(q), "%s.leaf", p);
				ret = rp_json_err(c, q, s < 0 ? "unknown switch \"%s\"" :
						  "switch \"%s\" is not a leaf", leaf);
				goto out;
			}
			x->n.leaf = t->sw[s].tidx;
			if (tp.n) {
				int pl = tplanes_rail(&tp, rail);
				char q[320];

				if (pl < 0) {
					rp_json_pathf(q, sizeof(q), "%s.rail", p);
					ret = rp_json_err(c, q, "rail %lld is in no plane",
							  (long long)rail);
					goto out;
				}
				if (t->sw[s].plane !=
				    name_find(t->planes, t->nplanes, tp.name[pl])) {
					rp_json_pathf(q, sizeof(q), "%s.leaf", p);
					ret = rp_json_err(c, q, "leaf \"%s\" is in plane \"%s\", rail %lld in plane \"%s\"",
							  leaf, t->planes[t->sw[s].plane],
							  (long long)rail, tp.name[pl]);
					goto out;
				}
			}
			for (size_t j = n0; j < nn; j++) {
				if (tn[j].n.rail == rail) {
					char q[320];

					rp_json_pathf(q, sizeof(q), "%s.rail", p);
					ret = rp_json_err(c, q, "duplicate rail %lld on host \"%s\" (also .nics[%d])",
							  (long long)rail, hname,
							  tn[j].orig_n);
					goto out;
				}
			}
			x->n.netdev = strdup(dev ? dev : "");
			if (!x->n.netdev) {
				ret = -ENOMEM;
				goto out;
			}
			tnp[nn] = x;
			nn++;
		}
	}
	qsort(tnp, nn, sizeof(*tnp), cmp_tnic_addr);
	for (size_t i = 1; i < nn; i++) {
		if (!rp_addr_cmp(&tnp[i]->n.addr, &tnp[i - 1]->n.addr)) {
			const struct tnic *x = tnp[i], *y = tnp[i - 1];

			if (x->orig_h < y->orig_h ||
			    (x->orig_h == y->orig_h && x->orig_n < y->orig_n)) {
				x = tnp[i - 1];
				y = tnp[i];
			}
			rp_json_pathf(p, sizeof(p), ".hosts[%d].nics[%d].ip",
				      x->orig_h, x->orig_n);
			ret = rp_json_err(c, p, "duplicate IP address %s (also .hosts[%d].nics[%d])",
					  x->n.ip, y->orig_h, y->orig_n);
			goto out;
		}
	}
	qsort(tn, nn, sizeof(*tn), cmp_tnic_name);
	t->nhosts = nh;
	t->hosts = calloc(nh + 1, sizeof(*t->hosts));
	t->nics = calloc(nn + 1, sizeof(*t->nics));
	if (!t->hosts || !t->nics) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nh; i++) {
		t->hosts[i].name = strdup(hi[i].name);
		if (!t->hosts[i].name) {
			ret = -ENOMEM;
			goto out;
		}
		t->hosts[i].nic0 = -1;
	}
	t->nnics = nn;
	for (size_t i = 0; i < nn; i++) {
		int h = 0, lo = 0, hiw = nh - 1;

		while (lo <= hiw) {	/* hosts are sorted by name */
			int mid = (lo + hiw) / 2;
			int r = strcmp(t->hosts[mid].name, tn[i].hname);

			if (!r) {
				h = mid;
				break;
			}
			if (r < 0)
				lo = mid + 1;
			else
				hiw = mid - 1;
		}
		t->nics[i] = tn[i].n;
		tn[i].n.netdev = NULL;
		t->nics[i].host = h;
		if (t->hosts[h].nic0 < 0)
			t->hosts[h].nic0 = i;
		t->hosts[h].nnics++;
	}
	ret = index_swaddrs(c, t);
out:
	if (tsw)
		for (size_t i = 0; i < nsw; i++) {
			free(tsw[i].s.name);
			free(tsw[i].s.hash.table);
			free(tsw[i].s.addrs);
		}
	if (tn)
		for (size_t i = 0; i < nn; i++)
			free(tn[i].n.netdev);
	free(tsw);
	free(swi);
	free(tl);
	free(tu);
	free(pk);
	free(hi);
	free(tn);
	free(tnp);
	tplanes_free(&tp);
	return ret;
}

int rp_topo_parse(const char *name, const char *text, size_t len,
		  struct rp_topo **out, struct rp_err *err)
{
	struct pctx c = { .file = name, .err = err };
	struct rp_topo *t;
	struct rp_jdoc d;
	int ret;

	ret = rp_json_parse(&c, text, len, &d);
	if (ret)
		return rp_json_end(&c, &d, ret);
	t = calloc(1, sizeof(*t));
	if (!t)
		return rp_json_end(&c, &d, -ENOMEM);
	ret = rp_json_end(&c, &d, topo_build(&c, d.v, t));
	/* the probe cache's key: any change to the file re-probes */
	t->digest = rp_fnv1a64(RP_FNV1A64_INIT, text, len);
	if (ret) {
		rp_topo_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int rp_topo_load(const char *path, struct rp_topo **out, struct rp_err *err)
{
	size_t len;
	char *text;
	int ret;

	ret = rp_json_load_file(path, &text, &len, err);
	if (ret)
		return ret;
	ret = rp_topo_parse(path, text, len, out, err);
	free(text);
	return ret;
}

int rp_topo_find_host(const struct rp_topo *t, const char *name)
{
	int lo = 0, hi = t->nhosts - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int r = strcmp(t->hosts[mid].name, name);

		if (!r)
			return mid;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int rp_topo_has_host(const struct rp_topo *t, const char *host)
{
	return rp_topo_find_host(t, host) < 0 ? -ENOENT : 0;
}

int rp_topo_host_nic(const struct rp_topo *t, int host, int rail)
{
	const struct rp_host *h = &t->hosts[host];

	for (int i = 0; i < h->nnics; i++)
		if (t->nics[h->nic0 + i].rail == rail)
			return h->nic0 + i;
	return -1;
}

/* placement ---------------------------------------------------------- */
