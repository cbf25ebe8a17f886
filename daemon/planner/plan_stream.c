// SPDX-License-Identifier: GPL-2.0
/*
 * The plan written as a stream: `rocepath [-j [-p]] plan` output without
 * building a document first. A 32k-GPU plan is a 39 MB JSON text; as a
 * json-c tree it took 600 MiB and most of the command's time. The JSON is
 * byte-for-byte what json-c prints for rp_plan_to_json()'s document with
 * JSON_C_TO_STRING_PLAIN or PRETTY|SPACED (and NOSLASHESCAPE); the unit
 * tests compare the two.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"

#define W_BUF		(1 << 16)
#define W_DEPTH		8

/* A string as it is printed: quoted and escaped once, written many times. */
struct qs {
	char *s;
	size_t len;
};

/*
 * Buffered writer with json-c's separators and indentation. Without a
 * file it writes to memory (mem: mlen bytes of mcap), as the quoted names
 * are made.
 */
struct w {
	FILE *f;
	bool pretty;
	bool err;
	int depth;
	bool first[W_DEPTH];
	char *mem;
	size_t mlen, mcap;
	size_t n;
	char buf[W_BUF];
};

static void w_sink(struct w *w, const char *s, size_t len)
{
	if (w->f) {
		if (fwrite(s, 1, len, w->f) != len)
			w->err = true;
		return;
	}
	if (w->mlen + len > w->mcap) {
		size_t cap = 2 * w->mcap + len;
		char *m = realloc(w->mem, cap);

		if (!m) {
			w->err = true;
			return;
		}
		w->mem = m;
		w->mcap = cap;
	}
	memcpy(w->mem + w->mlen, s, len);
	w->mlen += len;
}

static void w_flush(struct w *w)
{
	if (w->n)
		w_sink(w, w->buf, w->n);
	w->n = 0;
}

static void w_put_slow(struct w *w, const char *s, size_t len)
{
	w_flush(w);
	if (len > W_BUF) {
		w_sink(w, s, len);
		return;
	}
	memcpy(w->buf, s, len);
	w->n = len;
}

static inline void w_put(struct w *w, const char *s, size_t len)
{
	if (w->n + len > W_BUF) {
		w_put_slow(w, s, len);
		return;
	}
	memcpy(w->buf + w->n, s, len);
	w->n += len;
}

static inline void w_ch(struct w *w, char c)
{
	if (w->n == W_BUF)
		w_flush(w);
	w->buf[w->n++] = c;
}

static inline void w_str(struct w *w, const char *s)
{
	w_put(w, s, strlen(s));
}

static void w_int(struct w *w, long long v)
{
	char tmp[24];
	int i = sizeof(tmp);
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;

	do {
		tmp[--i] = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	w_put(w, tmp + i, sizeof(tmp) - i);
}

/* A JSON string as json-c escapes it (without escaping '/'). */
static void w_qstr(struct w *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	w_ch(w, '"');
	for (; *s; s++) {
		unsigned char c = *s;
		const char *e = NULL;
		char u[6];

		switch (c) {
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		default:
			if (c >= 0x20)
				continue;
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
		}
		w_put(w, run, s - run);
		if (e)
			w_str(w, e);
		else
			w_put(w, u, 6);
		run = s + 1;
	}
	w_put(w, run, s - run);
	w_ch(w, '"');
}

/*
 * Quoted names of hosts, NIC addresses, switches and jobs, by index: one
 * text, quoted once (an allocation each cost more than the plan's output).
 */
struct names {
	struct qs *host, *ip, *sw, *job;
	char *text;
};

static void names_free(struct names *n)
{
	free(n->host);
	free(n->ip);
	free(n->sw);
	free(n->job);
	free(n->text);
}

/* Appends s quoted to the memory writer m; q gets its length. */
static void name_quote(struct w *m, struct qs *q, const char *s)
{
	size_t at = m->mlen + m->n;

	w_qstr(m, s);
	q->len = m->mlen + m->n - at;
}

/* Points q[0..n) at their quoted text, which starts at at; the end. */
static char *names_place(struct qs *q, int n, char *at)
{
	for (int i = 0; i < n; i++) {
		q[i].s = at;
		at += q[i].len;
	}
	return at;
}

static int names_init(const struct rp_plan *pl, struct names *n)
{
	const struct rp_topo *t = pl->t;
	struct w *m;
	char *at;
	bool err;

	n->host = calloc(t->nhosts + 1, sizeof(*n->host));
	n->ip = calloc(t->nnics + 1, sizeof(*n->ip));
	n->sw = calloc(t->nsw + 1, sizeof(*n->sw));
	n->job = calloc(pl->p->njobs + 1, sizeof(*n->job));
	m = malloc(sizeof(*m));
	if (!n->host || !n->ip || !n->sw || !n->job || !m) {
		free(m);
		return -ENOMEM;
	}
	memset(m, 0, offsetof(struct w, buf));
	/* the lengths now, the places once the text has stopped moving */
	for (int i = 0; i < t->nhosts; i++)
		name_quote(m, &n->host[i], t->hosts[i].name);
	for (int i = 0; i < t->nnics; i++)
		name_quote(m, &n->ip[i], t->nics[i].ip);
	for (int i = 0; i < t->nsw; i++)
		name_quote(m, &n->sw[i], t->sw[i].name);
	for (int i = 0; i < pl->p->njobs; i++)
		name_quote(m, &n->job[i], pl->p->jobs[i].id);
	w_flush(m);
	n->text = m->mem;
	err = m->err;
	free(m);
	if (err)
		return -ENOMEM;
	at = names_place(n->host, t->nhosts, n->text);
	at = names_place(n->ip, t->nnics, at);
	at = names_place(n->sw, t->nsw, at);
	names_place(n->job, pl->p->njobs, at);
	return 0;
}

static void w_q(struct w *w, const struct qs *q)
{
	w_put(w, q->s, q->len);
}

static void w_indent(struct w *w)
{
	w_ch(w, '\n');
	for (int i = 0; i < w->depth; i++)
		w_put(w, "  ", 2);
}

/* Before a member or element: separator and indentation. */
static void w_next(struct w *w)
{
	if (!w->first[w->depth])
		w_ch(w, ',');
	w->first[w->depth] = false;
	if (w->pretty)
		w_indent(w);
}

static void w_open(struct w *w, char c)
{
	w_ch(w, c);
	w->depth++;
	w->first[w->depth] = true;
}

static void w_close(struct w *w, char c)
{
	w->depth--;
	if (w->pretty)
		w_indent(w);
	w_ch(w, c);
}

/* k: one of this file's keys, which have nothing to escape */
static inline void w_key(struct w *w, const char *k)
{
	w_next(w);
	w_ch(w, '"');
	w_str(w, k);
	w_ch(w, '"');
	if (w->pretty)
		w_put(w, ": ", 2);
	else
		w_ch(w, ':');
}

static void w_kint(struct w *w, const char *k, long long v)
{
	w_key(w, k);
	w_int(w, v);
}

static void w_kstr(struct w *w, const char *k, const char *v)
{
	w_key(w, k);
	w_qstr(w, v);
}

static void w_kq(struct w *w, const char *k, const struct qs *q)
{
	w_key(w, k);
	w_q(w, q);
}

static void json_flow_common(struct w *w, const struct rp_plan *pl,
			     const struct names *nm, const struct flow *f)
{
	const struct rp_topo *t = pl->t;

	w_kq(w, "job", &nm->job[f->job]);
	w_kq(w, "src_host", &nm->host[t->nics[f->src_nic].host]);
	w_kq(w, "src_ip", &nm->ip[f->src_nic]);
	w_kq(w, "dst_host", &nm->host[t->nics[f->dst_nic].host]);
	w_kq(w, "dst_ip", &nm->ip[f->dst_nic]);
	w_kint(w, "rail", f->rail);
	w_kint(w, "qp", f->qp);
}

/* The flow's superspine hop, or NULL (two tiers, within a pod). */
static const struct flow3 *far3(const struct rp_plan *pl, const struct flow *f)
{
	const struct flow3 *g = pl->f3 ? &pl->f3[f - pl->flows] : NULL;

	return g && g->uu >= 0 ? g : NULL;
}

static void json_path(struct w *w, const struct rp_plan *pl,
		      const struct names *nm, const struct flow *f)
{
	const struct rp_topo *t = pl->t;
	const struct flow3 *g = far3(pl, f);

	w_key(w, "path");
	w_open(w, '[');
	w_next(w);
	w_q(w, &nm->sw[t->leaf_sw[t->nics[f->src_nic].leaf]]);
	if (f->up >= 0) {
		w_next(w);
		w_q(w, &nm->sw[t->spine_sw[f->spine]]);
		if (g) {
			w_next(w);
			w_q(w, &nm->sw[t->super_sw[t->ulinks[g->uu].super]]);
			w_next(w);
			w_q(w, &nm->sw[t->spine_sw[t->ulinks[g->ud].spine]]);
		}
		w_next(w);
		w_q(w, &nm->sw[t->leaf_sw[t->nics[f->dst_nic].leaf]]);
	}
	w_close(w, ']');
}

static void json_flow(struct w *w, const struct rp_plan *pl,
		      const struct names *nm, const struct flow *f)
{
	const struct rp_topo *t = pl->t;
	const struct flow3 *g = far3(pl, f);

	w_open(w, '{');
	json_flow_common(w, pl, nm, f);
	w_kint(w, "sport", f->sport);
	json_path(w, pl, nm, f);
	w_key(w, "egress_ports");
	w_open(w, '[');
	if (f->up >= 0) {
		w_next(w);
		w_int(w, t->links[f->up].leaf_port);
		if (g) {
			w_next(w);
			w_int(w, t->ulinks[g->uu].spine_port);
			w_next(w);
			w_int(w, t->ulinks[g->ud].super_port);
		}
		w_next(w);
		w_int(w, t->links[f->dn].spine_port);
	}
	w_close(w, ']');
	/* int32 as rp_plan_to_json() stores them */
	w_kint(w, "ecmp_sport", f->e_sport);
	w_kint(w, "ecmp_lqpn", (int32_t)f->lqpn);
	w_kint(w, "ecmp_rqpn", (int32_t)f->rqpn);
	w_close(w, '}');
}

static void json_unplaced(struct w *w, const struct rp_plan *pl,
			  const struct names *nm, const struct flow *f)
{
	w_open(w, '{');
	json_flow_common(w, pl, nm, f);
	w_kstr(w, "reason", rp_plan_status_reason[f->status]);
	/* assigned, realised by the sending host's probed ports */
	if (f->status == ST_UNPROBED)
		json_path(w, pl, nm, f);
	w_close(w, '}');
}

static bool listed(const struct rp_plan *pl, const struct flow *f, int h)
{
	return h < 0 || pl->t->nics[f->src_nic].host == h;
}

static void json_plan(struct w *w, const struct rp_plan *pl,
		      const struct names *nm, int h, const int *upl,
		      const int *dnl)
{
	const struct rp_topo *t = pl->t;
	const struct rp_plan_summary *s = &pl->sum;

	w_open(w, '{');
	w_key(w, "flows");
	w_open(w, '[');
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];

		if (f->status == ST_PLACED && listed(pl, f, h)) {
			w_next(w);
			json_flow(w, pl, nm, f);
		}
	}
	w_close(w, ']');
	w_key(w, "unplaced");
	w_open(w, '[');
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];

		if (f->status != ST_PLACED && listed(pl, f, h)) {
			w_next(w);
			json_unplaced(w, pl, nm, f);
		}
	}
	w_close(w, ']');
	w_key(w, "links");
	w_open(w, '[');
	for (int i = 0; i < t->nlinks; i++) {
		const struct rp_link *l = &t->links[i];
		const struct qs *ln = &nm->sw[t->leaf_sw[l->leaf]];
		const struct qs *sn = &nm->sw[t->spine_sw[l->spine]];

		if (!l->up)
			continue;
		for (int dir = 0; dir < 2; dir++) {
			w_next(w);
			w_open(w, '{');
			w_kq(w, "from", dir ? sn : ln);
			w_kint(w, "from_port", dir ? l->spine_port : l->leaf_port);
			w_kq(w, "to", dir ? ln : sn);
			w_kint(w, "to_port", dir ? l->leaf_port : l->spine_port);
			w_kint(w, "flows", dir ? dnl[i] : upl[i]);
			w_close(w, '}');
		}
	}
	for (int i = 0; i < t->nulinks; i++) {
		const struct rp_ulink *l = &t->ulinks[i];
		const struct qs *sn = &nm->sw[t->spine_sw[l->spine]];
		const struct qs *un = &nm->sw[t->super_sw[l->super]];

		if (!l->up)
			continue;
		for (int dir = 0; dir < 2; dir++) {
			w_next(w);
			w_open(w, '{');
			w_kq(w, "from", dir ? un : sn);
			w_kint(w, "from_port", dir ? l->super_port : l->spine_port);
			w_kq(w, "to", dir ? sn : un);
			w_kint(w, "to_port", dir ? l->spine_port : l->super_port);
			w_kint(w, "flows", dir ? dnl[t->nlinks + i] :
			       upl[t->nlinks + i]);
			w_close(w, '}');
		}
	}
	w_close(w, ']');
	w_key(w, "summary");
	w_open(w, '{');
	w_kint(w, "flows", (int)s->flows);
	w_kint(w, "unplaced", (int)s->unplaced);
	w_kint(w, "max_link_flows", (int)s->max_link_flows);
	w_kint(w, "lower_bound", (int)s->lower_bound);
	w_kint(w, "ecmp_max_link_flows", (int)s->ecmp_max_link_flows);
	w_kstr(w, "ecmp_qpns", RP_PLAN_ECMP_QPNS);
	w_kint(w, "slice_max_link_flows", (int)s->slice_max_link_flows);
	w_kint(w, "bound_gap", (int)s->bound_gap);
	w_kstr(w, "bound_gap_reason", s->bound_gap_reason);
	w_close(w, '}');
	w_close(w, '}');
	w_ch(w, '\n');
}

static void text_flow(struct w *w, const struct rp_plan *pl,
		      const struct flow *f)
{
	const struct rp_topo *t = pl->t;
	const struct rp_nic *sn = &t->nics[f->src_nic];
	const struct rp_nic *dn = &t->nics[f->dst_nic];

	w_str(w, "job ");
	w_str(w, pl->p->jobs[f->job].id);
	w_str(w, " rail ");
	w_int(w, f->rail);
	w_ch(w, ' ');
	w_str(w, t->hosts[sn->host].name);
	w_ch(w, ' ');
	w_str(w, sn->ip);
	w_str(w, " -> ");
	w_str(w, t->hosts[dn->host].name);
	w_ch(w, ' ');
	w_str(w, dn->ip);
	w_str(w, " qp ");
	w_int(w, f->qp);
	if (f->status != ST_PLACED) {
		w_str(w, " unplaced: ");
		w_str(w, rp_plan_status_reason[f->status]);
		w_ch(w, '\n');
		return;
	}
	w_str(w, " sport ");
	w_int(w, f->sport);
	w_str(w, " path ");
	w_str(w, rp_leaf_name(t, sn->leaf));
	if (f->up >= 0) {
		const struct flow3 *g = far3(pl, f);

		w_ch(w, ',');
		w_str(w, rp_spine_name(t, f->spine));
		if (g) {
			w_ch(w, ',');
			w_str(w, rp_super_name(t, t->ulinks[g->uu].super));
			w_ch(w, ',');
			w_str(w, rp_spine_name(t, t->ulinks[g->ud].spine));
		}
		w_ch(w, ',');
		w_str(w, rp_leaf_name(t, dn->leaf));
	}
	w_str(w, " default_sport ");
	w_int(w, f->e_sport);
	w_ch(w, '\n');
}

static void text_plan(struct w *w, const struct rp_plan *pl, int h)
{
	const struct rp_plan_summary *s = &pl->sum;
	char line[256];

	snprintf(line, sizeof(line),
		 "flows %u unplaced %u max_link_flows %u lower_bound %u "
		 "ecmp_max_link_flows %u slice_max_link_flows %u\n",
		 s->flows, s->unplaced, s->max_link_flows, s->lower_bound,
		 s->ecmp_max_link_flows, s->slice_max_link_flows);
	w_str(w, line);
	if (s->bound_gap) {
		w_str(w, "bound_gap ");
		w_int(w, s->bound_gap);
		w_str(w, ": ");
		w_str(w, s->bound_gap_reason);
		w_ch(w, '\n');
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < pl->nflows; i++) {
			const struct flow *f = &pl->flows[i];

			if ((f->status == ST_PLACED) == !pass && listed(pl, f, h))
				text_flow(w, pl, f);
		}
}

int rp_plan_write(const struct rp_plan *pl, const char *host,
		  enum rp_plan_format fmt, FILE *out)
{
	const struct rp_topo *t = pl->t;
	int *upl = NULL, *dnl = NULL, h = -1, ret = 0;
	struct names nm = { 0 };
	struct w *w;

	if (host) {
		h = rp_topo_find_host(t, host);
		if (h < 0)
			return -ENOENT;
	}
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	memset(w, 0, offsetof(struct w, buf));
	w->f = out;
	w->pretty = fmt == RP_PLAN_JSON_PRETTY;
	if (fmt == RP_PLAN_TEXT) {
		text_plan(w, pl, h);
	} else {
		upl = calloc(rp_topo_nload(t) + 1, sizeof(int));
		dnl = calloc(rp_topo_nload(t) + 1, sizeof(int));
		if (!upl || !dnl) {
			ret = -ENOMEM;
			goto out;
		}
		ret = names_init(pl, &nm);
		if (ret)
			goto out;
		rp_plan_max_load(pl, RP_MODE_PLAN, upl, dnl);
		json_plan(w, pl, &nm, h, upl, dnl);
	}
	w_flush(w);
	if (w->err || fflush(out) || ferror(out))
		ret = -EIO;
out:
	names_free(&nm);
	free(upl);
	free(dnl);
	free(w);
	return ret;
}
