// SPDX-License-Identifier: GPL-2.0
/*
 * Cluster file parsers: topology and placement. Everything is validated and
 * then sorted canonically, so that the plan does not depend on the order of
 * elements in the files. Errors name the file, the JSON path and the reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "plan_int.h"

void rp_err_set(struct rp_err *err, const char *file, const char *path,
		int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *rp_err_str(const struct rp_err *err, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (err->file[0])
		n += snprintf(buf + n, len - n, "%s", err->file);
	if (n < len && err->line)
		n += snprintf(buf + n, len - n, ":%d:%d", err->line, err->col);
	if (n < len && n)
		n += snprintf(buf + n, len - n, ": ");
	if (n < len && err->path[0])
		n += snprintf(buf + n, len - n, "%s: ", err->path);
	if (n < len)
		snprintf(buf + n, len - n, "%s", err->msg);
	return buf;
}

int rp_read_file(const char *path, char **text, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int e = -errno;

			if (e == -EINTR)
				continue;
			free(buf);
			close(fd);
			return e;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

/* snprintf for JSON paths: long paths are cut, which is fine for errors */
static void pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Parser state: file name for errors and the JSON path being walked. */
struct pctx {
	const char *file;
	struct rp_err *err;
	char path[256];
};

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(struct pctx *c, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp_err_set(c->err, c->file, path, 0, 0, "%s", msg);
	return -EINVAL;
}

static int parse_json(struct pctx *c, const char *text, size_t len,
		      json_object **out)
{
	struct json_tokener *tok;
	enum json_tokener_error je;
	json_object *o;
	size_t end, i;
	int line = 1, col = 1;

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o && je == json_tokener_continue)
		je = json_tokener_error_parse_eof;
	if (o) {
		/* Only white space may follow the document. */
		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len) {
			json_object_put(o);
			o = NULL;
			je = json_tokener_error_parse_unexpected;
		}
	}
	json_tokener_free(tok);
	if (o) {
		*out = o;
		return 0;
	}
	if (end > len)
		end = len;
	for (i = 0; i < end && i < len; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	rp_err_set(c->err, c->file, "", line, col, "malformed JSON: %s",
		   json_tokener_error_desc(je));
	return -EINVAL;
}

/* Typed member access; *v NULL when absent and optional. */
static int member(struct pctx *c, json_object *obj, const char *opath,
		  const char *key, enum json_type type, bool required,
		  json_object **v)
{
	static const char *const tn[] = {
		[json_type_null] = "null", [json_type_boolean] = "a boolean",
		[json_type_double] = "a number", [json_type_int] = "an integer",
		[json_type_object] = "an object", [json_type_array] = "an array",
		[json_type_string] = "a string",
	};
	char p[300];

	*v = NULL;
	pathf(p, sizeof(p), "%s.%s", opath, key);
	if (!json_object_object_get_ex(obj, key, v) || !*v) {
		*v = NULL;
		if (required)
			return perr(c, opath, "missing \"%s\"", key);
		return 0;
	}
	if (json_object_get_type(*v) != type)
		return perr(c, p, "expected %s", tn[type]);
	return 0;
}

static int get_int(struct pctx *c, json_object *obj, const char *opath,
		   const char *key, bool required, int64_t lo, int64_t hi,
		   const char *what, int64_t *out)
{
	json_object *v;
	char p[300];
	int64_t x;
	int ret;

	ret = member(c, obj, opath, key, json_type_int, required, &v);
	if (ret || !v)
		return ret;
	pathf(p, sizeof(p), "%s.%s", opath, key);
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < lo || x > hi)
		return perr(c, p, "%s %s out of range (%lld..%lld)", what,
			    json_object_get_string(v), (long long)lo,
			    (long long)hi);
	*out = x;
	return 0;
}

static int get_str(struct pctx *c, json_object *obj, const char *opath,
		   const char *key, bool required, const char **out)
{
	json_object *v;
	char p[300];
	int ret;

	ret = member(c, obj, opath, key, json_type_string, required, &v);
	if (ret || !v)
		return ret;
	*out = json_object_get_string(v);
	if (!**out) {
		pathf(p, sizeof(p), "%s.%s", opath, key);
		return perr(c, p, "empty string");
	}
	return 0;
}

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
	}
	for (int i = 0; i < t->nhosts; i++)
		free(t->hosts[i].name);
	for (int i = 0; i < t->nnics; i++)
		free(t->nics[i].netdev);
	free(t->sw);
	free(t->leaf_sw);
	free(t->spine_sw);
	free(t->links);
	free(t->hosts);
	free(t->nics);
	free(t);
}

static int parse_hash(struct pctx *c, json_object *h, const char *hp,
		      struct rp_hash_model *m)
{
	json_object *fields, *table;
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
	ret = get_str(c, h, hp, "algorithm", true, &s);
	if (ret)
		return ret;
	if (rp_hash_alg_parse(s, &m->alg)) {
		pathf(p, sizeof(p), "%s.algorithm", hp);
		return perr(c, p, "unknown hash algorithm \"%s\"", s);
	}
	ret = get_int(c, h, hp, "seed", false, 0, 0xFFFFFFFFll, "seed", &seed);
	if (ret)
		return ret;
	m->seed = seed;
	s = NULL;
	ret = get_str(c, h, hp, "select", false, &s);
	if (ret)
		return ret;
	if (s && rp_hash_sel_parse(s, &m->sel)) {
		pathf(p, sizeof(p), "%s.select", hp);
		return perr(c, p, "unknown hash select \"%s\" (full, lo16, hi16)",
			    s);
	}
	ret = member(c, h, hp, "fields", json_type_array, false, &fields);
	if (ret)
		return ret;
	if (fields) {
		size_t n = json_object_array_length(fields);

		if (!n || n > RP_HASH_MAX_FIELDS) {
			pathf(p, sizeof(p), "%s.fields", hp);
			return perr(c, p, "needs 1..%d fields",
				    RP_HASH_MAX_FIELDS);
		}
		m->nfields = n;
		for (size_t i = 0; i < n; i++) {
			json_object *f = json_object_array_get_idx(fields, i);

			pathf(p, sizeof(p), "%s.fields[%zu]", hp, i);
			if (!json_object_is_type(f, json_type_string))
				return perr(c, p, "expected a string");
			if (rp_hash_field_parse(json_object_get_string(f),
						&m->fields[i]))
				return perr(c, p, "unknown hash field \"%s\"",
					    json_object_get_string(f));
		}
	}
	ret = member(c, h, hp, "table", json_type_object, false, &table);
	if (ret)
		return ret;
	if (m->alg == RP_HASH_TABLE && !table)
		return perr(c, hp, "algorithm \"table\" needs a \"table\"");
	if (table && m->alg == RP_HASH_TABLE) {
		m->table = malloc(65536 * sizeof(*m->table));
		if (!m->table)
			return -ENOMEM;
		memset(m->table, 0xFF, 65536 * sizeof(*m->table));
		json_object_object_foreach(table, key, val) {
			char *end;
			long port = strtol(key, &end, 10);
			int64_t mem;

			pathf(p, sizeof(p), "%s.table.\"%s\"", hp, key);
			if (!*key || *end)
				return perr(c, p, "key is not a port number");
			if (port < 0 || port > 65535)
				return perr(c, p, "port %ld out of range (0..65535)",
					    port);
			if (!json_object_is_type(val, json_type_int))
				return perr(c, p, "expected an integer");
			mem = json_object_get_int64(val);
			if (mem < 0 || mem > 65535)
				return perr(c, p, "member %lld out of range (0..65535)",
					    (long long)mem);
			m->table[port] = (int32_t)mem;
		}
	}
	return 0;
}

static int parse_ip(const char *s, struct rp_ipaddr *a, char *canon, size_t len)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->b) == 1) {
		a->family = 4;
		inet_ntop(AF_INET, a->b, canon, len);
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->b) == 1) {
		a->family = 6;
		inet_ntop(AF_INET6, a->b, canon, len);
		return 0;
	}
	return -EINVAL;
}

static int cmp_addr(const struct rp_ipaddr *a, const struct rp_ipaddr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->b, b->b, 16);
}

/* temporary records with original JSON indices, for errors and sorting */
struct tsw {
	struct rp_switch s;
	int orig;
};
struct tlink {
	struct rp_link l;
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

	return cmp_addr(&x->n.addr, &y->n.addr);
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

static int topo_build(struct pctx *c, json_object *root, struct rp_topo *t)
{
	json_object *sws, *lks, *hs;
	struct tsw *tsw = NULL;
	struct tlink *tl = NULL;
	struct tnic *tn = NULL, **tnp = NULL;
	struct nidx *swi = NULL, *hi = NULL;
	struct portkey *pk = NULL;
	int *has_link = NULL;
	size_t nsw, nl, nh, nn = 0;
	char p[300];
	int ret;

	if (!json_object_is_type(root, json_type_object))
		return perr(c, "", "expected an object");
	ret = member(c, root, "", "switches", json_type_array, true, &sws);
	if (!ret)
		ret = member(c, root, "", "links", json_type_array, true, &lks);
	if (!ret)
		ret = member(c, root, "", "hosts", json_type_array, true, &hs);
	if (ret)
		return ret;
	nsw = json_object_array_length(sws);
	nl = json_object_array_length(lks);
	nh = json_object_array_length(hs);

	ret = -ENOMEM;
	tsw = calloc(nsw + 1, sizeof(*tsw));
	swi = calloc(nsw + 1, sizeof(*swi));
	tl = calloc(nl + 1, sizeof(*tl));
	pk = calloc(2 * nl + 1, sizeof(*pk));
	hi = calloc(nh + 1, sizeof(*hi));
	if (!tsw || !swi || !tl || !pk || !hi)
		goto out;

	/* switches */
	for (size_t i = 0; i < nsw; i++) {
		json_object *s = json_object_array_get_idx(sws, i), *h;
		const char *name, *tier;

		pathf(p, sizeof(p), ".switches[%zu]", i);
		tsw[i].orig = i;
		if (!json_object_is_type(s, json_type_object)) {
			ret = perr(c, p, "expected an object");
			goto out;
		}
		ret = get_str(c, s, p, "name", true, &name);
		if (!ret)
			ret = get_str(c, s, p, "tier", true, &tier);
		if (ret)
			goto out;
		if (!strcmp(tier, "leaf")) {
			tsw[i].s.tier = RP_TIER_LEAF;
		} else if (!strcmp(tier, "spine")) {
			tsw[i].s.tier = RP_TIER_SPINE;
		} else {
			char q[320];

			pathf(q, sizeof(q), "%s.tier", p);
			ret = perr(c, q, "unknown tier \"%s\" (leaf, spine)",
				   tier);
			goto out;
		}
		tsw[i].s.name = strdup(name);
		if (!tsw[i].s.name) {
			ret = -ENOMEM;
			goto out;
		}
		ret = member(c, s, p, "hash", json_type_object, false, &h);
		if (ret)
			goto out;
		{
			char q[320];

			pathf(q, sizeof(q), "%s.hash", p);
			ret = parse_hash(c, h, q, &tsw[i].s.hash);
		}
		if (ret)
			goto out;
	}
	qsort(tsw, nsw, sizeof(*tsw), cmp_tsw);
	for (size_t i = 1; i < nsw; i++) {
		if (!strcmp(tsw[i].s.name, tsw[i - 1].s.name)) {
			int o = tsw[i].orig > tsw[i - 1].orig ?
				tsw[i].orig : tsw[i - 1].orig;
			int f = tsw[i].orig + tsw[i - 1].orig - o;

			pathf(p, sizeof(p), ".switches[%d].name", o);
			ret = perr(c, p, "duplicate switch name \"%s\" (also .switches[%d])",
				   tsw[i].s.name, f);
			goto out;
		}
	}
	t->nsw = nsw;
	t->sw = calloc(nsw + 1, sizeof(*t->sw));
	t->leaf_sw = calloc(nsw + 1, sizeof(int));
	t->spine_sw = calloc(nsw + 1, sizeof(int));
	if (!t->sw || !t->leaf_sw || !t->spine_sw) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nsw; i++) {
		t->sw[i] = tsw[i].s;
		tsw[i].s.name = NULL;
		tsw[i].s.hash.table = NULL;
		if (t->sw[i].tier == RP_TIER_LEAF) {
			t->sw[i].tidx = t->nleaves;
			t->leaf_sw[t->nleaves++] = i;
		} else {
			t->sw[i].tidx = t->nspines;
			t->spine_sw[t->nspines++] = i;
		}
		swi[i].name = t->sw[i].name;
		swi[i].idx = i;
	}

	/* links */
	for (size_t i = 0; i < nl; i++) {
		json_object *l = json_object_array_get_idx(lks, i), *up;
		const char *a, *b;
		int64_t ap = 0, bp = 0;
		int sa, sb;

		pathf(p, sizeof(p), ".links[%zu]", i);
		tl[i].orig = i;
		if (!json_object_is_type(l, json_type_object)) {
			ret = perr(c, p, "expected an object");
			goto out;
		}
		ret = get_str(c, l, p, "a", true, &a);
		if (!ret)
			ret = get_str(c, l, p, "b", true, &b);
		if (!ret)
			ret = get_int(c, l, p, "a_port", true, 0, 65535, "port",
				      &ap);
		if (!ret)
			ret = get_int(c, l, p, "b_port", true, 0, 65535, "port",
				      &bp);
		if (!ret)
			ret = member(c, l, p, "up", json_type_boolean, false,
				     &up);
		if (ret)
			goto out;
		sa = nidx_find(swi, nsw, a);
		sb = nidx_find(swi, nsw, b);
		if (sa < 0 || sb < 0) {
			char q[320];

			pathf(q, sizeof(q), "%s.%s", p, sa < 0 ? "a" : "b");
			ret = perr(c, q, "unknown switch \"%s\"",
				   sa < 0 ? a : b);
			goto out;
		}
		if (t->sw[sa].tier == t->sw[sb].tier) {
			ret = perr(c, p, "link must join a leaf and a spine (\"%s\" and \"%s\" are both %s)",
				   a, b, t->sw[sa].tier == RP_TIER_LEAF ?
				   "leaves" : "spines");
			goto out;
		}
		pk[2 * i] = (struct portkey){ sa, ap, 2 * i };
		pk[2 * i + 1] = (struct portkey){ sb, bp, 2 * i + 1 };
		if (t->sw[sa].tier == RP_TIER_SPINE) {
			int ts = sa;
			int64_t tp = ap;

			sa = sb;
			sb = ts;
			ap = bp;
			bp = tp;
		}
		tl[i].l.leaf = t->sw[sa].tidx;
		tl[i].l.spine = t->sw[sb].tidx;
		tl[i].l.leaf_port = ap;
		tl[i].l.spine_port = bp;
		tl[i].l.up = up ? json_object_get_boolean(up) : true;
	}
	qsort(pk, 2 * nl, sizeof(*pk), cmp_portkey);
	for (size_t i = 1; i < 2 * nl; i++) {
		if (pk[i].sw == pk[i - 1].sw && pk[i].port == pk[i - 1].port) {
			pathf(p, sizeof(p), ".links[%d].%s_port",
				 pk[i].orig / 2, pk[i].orig % 2 ? "b" : "a");
			ret = perr(c, p, "port %d of \"%s\" already used by .links[%d]",
				   pk[i].port, t->sw[pk[i].sw].name,
				   pk[i - 1].orig / 2);
			goto out;
		}
	}
	has_link = calloc(t->nleaves + 1, sizeof(int));
	if (!has_link) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nl; i++)
		has_link[tl[i].l.leaf] = 1;
	for (int i = 0; i < t->nleaves; i++) {
		if (!has_link[i]) {
			int orig = tsw[t->leaf_sw[i]].orig;

			pathf(p, sizeof(p), ".switches[%d]", orig);
			ret = perr(c, p, "leaf \"%s\" has no uplinks",
				   rp_leaf_name(t, i));
			goto out;
		}
	}
	qsort(tl, nl, sizeof(*tl), cmp_link);
	t->nlinks = nl;
	t->links = calloc(nl + 1, sizeof(*t->links));
	if (!t->links) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nl; i++)
		t->links[i] = tl[i].l;

	/* hosts */
	for (size_t i = 0; i < nh; i++) {
		json_object *h = json_object_array_get_idx(hs, i), *ns;

		pathf(p, sizeof(p), ".hosts[%zu]", i);
		if (!json_object_is_type(h, json_type_object)) {
			ret = perr(c, p, "expected an object");
			goto out;
		}
		ret = get_str(c, h, p, "name", true, &hi[i].name);
		if (!ret)
			ret = member(c, h, p, "nics", json_type_array, true,
				     &ns);
		if (ret)
			goto out;
		hi[i].idx = i;
		nn += json_object_array_length(ns);
	}
	qsort(hi, nh, sizeof(*hi), cmp_nidx);
	for (size_t i = 1; i < nh; i++) {
		if (!strcmp(hi[i].name, hi[i - 1].name)) {
			int o = hi[i].idx > hi[i - 1].idx ? hi[i].idx :
				hi[i - 1].idx;

			pathf(p, sizeof(p), ".hosts[%d].name", o);
			ret = perr(c, p, "duplicate host name \"%s\" (also .hosts[%d])",
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
	for (size_t i = 0; i < nh; i++) {
		json_object *h = json_object_array_get_idx(hs, i), *ns;
		const char *hname = json_object_get_string(
			json_object_object_get(h, "name"));
		size_t k, n0 = nn;

		ns = json_object_object_get(h, "nics");
		for (k = 0; k < json_object_array_length(ns); k++) {
			json_object *n = json_object_array_get_idx(ns, k);
			const char *ip, *leaf, *dev = NULL;
			struct tnic *x = &tn[nn];
			int64_t rail;
			int s;

			pathf(p, sizeof(p), ".hosts[%zu].nics[%zu]", i, k);
			if (!json_object_is_type(n, json_type_object)) {
				ret = perr(c, p, "expected an object");
				goto out;
			}
			ret = get_int(c, n, p, "rail", true, 0, 65535, "rail",
				      &rail);
			if (!ret)
				ret = get_str(c, n, p, "ip", true, &ip);
			if (!ret)
				ret = get_str(c, n, p, "leaf", true, &leaf);
			if (!ret)
				ret = get_str(c, n, p, "netdev", false, &dev);
			if (ret)
				goto out;
			x->hname = hname;
			x->orig_h = i;
			x->orig_n = k;
			x->n.rail = rail;
			if (parse_ip(ip, &x->n.addr, x->n.ip, sizeof(x->n.ip))) {
				char q[320];

				pathf(q, sizeof(q), "%s.ip", p);
				ret = perr(c, q, "invalid IP address \"%s\"",
					   ip);
				goto out;
			}
			s = nidx_find(swi, nsw, leaf);
			if (s < 0 || t->sw[s].tier != RP_TIER_LEAF) {
				char q[320];

				pathf(q, sizeof(q), "%s.leaf", p);
				ret = perr(c, q, s < 0 ? "unknown switch \"%s\"" :
					   "switch \"%s\" is not a leaf", leaf);
				goto out;
			}
			x->n.leaf = t->sw[s].tidx;
			for (size_t j = n0; j < nn; j++) {
				if (tn[j].n.rail == rail) {
					char q[320];

					pathf(q, sizeof(q), "%s.rail", p);
					ret = perr(c, q, "duplicate rail %lld on host \"%s\" (also .nics[%d])",
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
		if (!cmp_addr(&tnp[i]->n.addr, &tnp[i - 1]->n.addr)) {
			const struct tnic *x = tnp[i], *y = tnp[i - 1];

			if (x->orig_h < y->orig_h ||
			    (x->orig_h == y->orig_h && x->orig_n < y->orig_n)) {
				x = tnp[i - 1];
				y = tnp[i];
			}
			pathf(p, sizeof(p), ".hosts[%d].nics[%d].ip",
				 x->orig_h, x->orig_n);
			ret = perr(c, p, "duplicate IP address %s (also .hosts[%d].nics[%d])",
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
	ret = 0;
out:
	if (tsw)
		for (size_t i = 0; i < nsw; i++) {
			free(tsw[i].s.name);
			free(tsw[i].s.hash.table);
		}
	if (tn)
		for (size_t i = 0; i < nn; i++)
			free(tn[i].n.netdev);
	free(tsw);
	free(swi);
	free(tl);
	free(pk);
	free(hi);
	free(tn);
	free(tnp);
	free(has_link);
	return ret;
}

int rp_topo_parse(const char *name, const char *text, size_t len,
		  struct rp_topo **out, struct rp_err *err)
{
	struct pctx c = { .file = name, .err = err };
	struct rp_topo *t;
	json_object *root;
	int ret;

	ret = parse_json(&c, text, len, &root);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t) {
		json_object_put(root);
		return -ENOMEM;
	}
	ret = topo_build(&c, root, t);
	json_object_put(root);
	if (ret) {
		if (ret == -ENOMEM)
			rp_err_set(err, name, "", 0, 0, "out of memory");
		rp_topo_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

static int load(const char *path, char **text, size_t *len,
		struct rp_err *err)
{
	int ret = rp_read_file(path, text, len);

	if (ret)
		rp_err_set(err, path, "", 0, 0, "cannot read: %s",
			   strerror(-ret));
	return ret;
}

int rp_topo_load(const char *path, struct rp_topo **out, struct rp_err *err)
{
	size_t len;
	char *text;
	int ret;

	ret = load(path, &text, &len, err);
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

void rp_place_free(struct rp_place *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->njobs; i++) {
		free(p->jobs[i].id);
		free(p->jobs[i].rails);
		free(p->jobs[i].hosts);
	}
	free(p->jobs);
	free(p);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static int cmp_job(const void *a, const void *b)
{
	return strcmp(((const struct rp_job *)a)->id,
		      ((const struct rp_job *)b)->id);
}

static int parse_job(struct pctx *c, const struct rp_topo *t, json_object *j,
		     const char *p, struct rp_job *job)
{
	json_object *rails, *hosts;
	const char *id, *pat;
	int64_t qps = 1;
	char q[320];
	size_t n;
	int ret;

	if (!json_object_is_type(j, json_type_object))
		return perr(c, p, "expected an object");
	ret = get_str(c, j, p, "id", true, &id);
	if (!ret)
		ret = get_str(c, j, p, "pattern", true, &pat);
	if (!ret)
		ret = get_int(c, j, p, "qps_per_connection", false, 1, 1024,
			      "qps_per_connection", &qps);
	if (!ret)
		ret = member(c, j, p, "rails", json_type_array, true, &rails);
	if (!ret)
		ret = member(c, j, p, "hosts", json_type_array, true, &hosts);
	if (ret)
		return ret;
	job->id = strdup(id);
	if (!job->id)
		return -ENOMEM;
	if (!strcmp(pat, "ring")) {
		job->pattern = RP_PAT_RING;
	} else if (!strcmp(pat, "alltoall")) {
		job->pattern = RP_PAT_ALLTOALL;
	} else {
		pathf(q, sizeof(q), "%s.pattern", p);
		return perr(c, q, "unknown pattern \"%s\" (ring, alltoall)", pat);
	}
	job->qps = qps;
	n = json_object_array_length(rails);
	if (!n) {
		pathf(q, sizeof(q), "%s.rails", p);
		return perr(c, q, "empty job \"%s\": no rails", id);
	}
	job->rails = calloc(n, sizeof(int));
	if (!job->rails)
		return -ENOMEM;
	job->nrails = n;
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rails, i);

		pathf(q, sizeof(q), "%s.rails[%zu]", p, i);
		if (!json_object_is_type(r, json_type_int))
			return perr(c, q, "expected an integer");
		if (json_object_get_int64(r) < 0 ||
		    json_object_get_int64(r) > 65535)
			return perr(c, q, "rail %s out of range (0..65535)",
				    json_object_get_string(r));
		job->rails[i] = json_object_get_int(r);
		for (size_t k = 0; k < i; k++)
			if (job->rails[k] == job->rails[i])
				return perr(c, q, "duplicate rail %d",
					    job->rails[i]);
	}
	qsort(job->rails, n, sizeof(int), cmp_int);
	n = json_object_array_length(hosts);
	if (!n) {
		pathf(q, sizeof(q), "%s.hosts", p);
		return perr(c, q, "empty job \"%s\": no hosts", id);
	}
	job->hosts = calloc(n, sizeof(int));
	if (!job->hosts)
		return -ENOMEM;
	job->nhosts = n;
	for (size_t i = 0; i < n; i++) {
		json_object *h = json_object_array_get_idx(hosts, i);
		int hi;

		pathf(q, sizeof(q), "%s.hosts[%zu]", p, i);
		if (!json_object_is_type(h, json_type_string))
			return perr(c, q, "expected a string");
		hi = rp_topo_find_host(t, json_object_get_string(h));
		if (hi < 0)
			return perr(c, q, "unknown host \"%s\"",
				    json_object_get_string(h));
		for (size_t k = 0; k < i; k++)
			if (job->hosts[k] == hi)
				return perr(c, q, "duplicate host \"%s\" (also .hosts[%zu])",
					    t->hosts[hi].name, k);
		for (int r = 0; r < job->nrails; r++)
			if (rp_topo_host_nic(t, hi, job->rails[r]) < 0)
				return perr(c, q, "host \"%s\" has no nic on rail %d",
					    t->hosts[hi].name, job->rails[r]);
		job->hosts[i] = hi;
	}
	return 0;
}

int rp_place_parse(const char *name, const char *text, size_t len,
		   const struct rp_topo *t, struct rp_place **out,
		   struct rp_err *err)
{
	struct pctx c = { .file = name, .err = err };
	struct rp_place *pl;
	json_object *root, *jobs;
	char p[300];
	int ret;

	ret = parse_json(&c, text, len, &root);
	if (ret)
		return ret;
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		json_object_put(root);
		return -ENOMEM;
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = perr(&c, "", "expected an object");
		goto out;
	}
	ret = member(&c, root, "", "jobs", json_type_array, true, &jobs);
	if (ret)
		goto out;
	pl->jobs = calloc(json_object_array_length(jobs) + 1,
			  sizeof(*pl->jobs));
	if (!pl->jobs) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		pathf(p, sizeof(p), ".jobs[%zu]", i);
		pl->njobs++;
		ret = parse_job(&c, t, json_object_array_get_idx(jobs, i), p,
				&pl->jobs[i]);
		if (ret)
			goto out;
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(pl->jobs[k].id, pl->jobs[i].id)) {
				pathf(p, sizeof(p), ".jobs[%zu].id", i);
				ret = perr(&c, p, "duplicate job id \"%s\" (also .jobs[%zu])",
					   pl->jobs[i].id, k);
				goto out;
			}
		}
	}
	qsort(pl->jobs, pl->njobs, sizeof(*pl->jobs), cmp_job);
out:
	json_object_put(root);
	if (ret) {
		if (ret == -ENOMEM)
			rp_err_set(err, name, "", 0, 0, "out of memory");
		rp_place_free(pl);
		return ret;
	}
	*out = pl;
	return 0;
}

int rp_place_load(const char *path, const struct rp_topo *t,
		  struct rp_place **out, struct rp_err *err)
{
	size_t len;
	char *text;
	int ret;

	ret = load(path, &text, &len, err);
	if (ret)
		return ret;
	ret = rp_place_parse(path, text, len, t, out, err);
	free(text);
	return ret;
}
