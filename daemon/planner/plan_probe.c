// SPDX-License-Identifier: GPL-2.0
/*
 * Probe answers: the sorted set, its file (parse, print, atomic save) and
 * the topology queries the prober needs. See plan_probe.h for the format.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "digest.h"
#include "plan_json.h"
#include "plan_probe.h"

static int cmp_key(const struct rp_addr *src, const struct rp_addr *dst,
		   uint16_t sport, const struct rp_probe *p)
{
	int r = rp_addr_cmp(src, &p->src);

	if (!r)
		r = rp_addr_cmp(dst, &p->dst);
	if (!r)
		r = sport < p->sport ? -1 : sport > p->sport;
	return r;
}

/* index of the first entry >= key */
static size_t lower(const struct rp_probes *ps, const struct rp_addr *src,
		    const struct rp_addr *dst, uint16_t sport)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_key(src, dst, sport, &ps->v[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rp_probes_add(struct rp_probes *ps, const struct rp_probe *p)
{
	size_t i = lower(ps, &p->src, &p->dst, p->sport);

	if (i < ps->n && !cmp_key(&p->src, &p->dst, p->sport, &ps->v[i])) {
		ps->v[i] = *p;
		return 0;
	}
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 64;
		struct rp_probe *v = realloc(ps->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ps->v = v;
		ps->cap = cap;
	}
	memmove(&ps->v[i + 1], &ps->v[i], (ps->n - i) * sizeof(*ps->v));
	ps->v[i] = *p;
	ps->n++;
	return 0;
}

const struct rp_probe *rp_probes_find(const struct rp_probes *ps,
				      const struct rp_addr *src,
				      const struct rp_addr *dst,
				      uint16_t sport)
{
	size_t i = lower(ps, src, dst, sport);

	if (i < ps->n && !cmp_key(src, dst, sport, &ps->v[i]))
		return &ps->v[i];
	return NULL;
}

size_t rp_probes_range(const struct rp_probes *ps, const struct rp_addr *src,
		       const struct rp_addr *dst, size_t *first)
{
	size_t i = lower(ps, src, dst, 0), k = i;

	while (k < ps->n && !rp_addr_cmp(src, &ps->v[k].src) &&
	       !rp_addr_cmp(dst, &ps->v[k].dst))
		k++;
	*first = i;
	return k - i;
}

int rp_probes_merge(struct rp_probes *dst, struct rp_probes *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int ret = rp_probes_add(dst, &src->v[i]);

		if (ret)
			return ret;
	}
	if (!dst->ttl)
		dst->ttl = src->ttl;
	rp_probes_free(src);
	return 0;
}

size_t rp_probes_forget_src(struct rp_probes *ps, const struct rp_addr *src)
{
	size_t k = 0, n = ps->n;

	for (size_t i = 0; i < n; i++)
		if (rp_addr_cmp(src, &ps->v[i].src))
			ps->v[k++] = ps->v[i];
	ps->n = k;
	return n - k;
}

size_t rp_probes_forget_pair(struct rp_probes *ps, const struct rp_addr *src,
			     const struct rp_addr *dst)
{
	size_t first, n = rp_probes_range(ps, src, dst, &first);

	memmove(&ps->v[first], &ps->v[first + n],
		(ps->n - first - n) * sizeof(ps->v[0]));
	ps->n -= n;
	return n;
}

size_t rp_probes_forget_link(const struct rp_topo *t, const char *host,
			     const char *netdev, struct rp_probes *ps,
			     unsigned int *nics)
{
	int h = rp_topo_find_host(t, host);
	unsigned int m = 0;
	size_t gone = 0;

	for (int i = 0; h >= 0 && i < t->hosts[h].nnics; i++) {
		const struct rp_nic *n = &t->nics[t->hosts[h].nic0 + i];

		if (n->netdev && n->netdev[0] && strcmp(n->netdev, netdev))
			continue;
		m++;
		gone += rp_probes_forget_src(ps, &n->addr);
	}
	if (nics)
		*nics = m;
	return gone;
}

void rp_probes_free(struct rp_probes *ps)
{
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

uint64_t rp_topo_digest(const struct rp_topo *t)
{
	return t->digest;
}

bool rp_topo_measured(const struct rp_topo *t)
{
	return t->measured;
}

const char *rp_topo_switch_name(const struct rp_topo *t, int sw)
{
	return sw >= 0 && sw < t->nsw ? t->sw[sw].name : NULL;
}

void rp_probe_unexpected_fmt(const struct rp_topo *t,
			     const struct rp_probe_report *r, char *buf,
			     size_t len)
{
	snprintf(buf, len,
		 "probe %s: answer from %s, which the topology does not link to the source's leaf (%u such answers); the %zu earlier answers of %u pair(s) were dropped and probed again",
		 r->unexpected_first, rp_topo_switch_name(t, r->unexpected_sw) ?: "?",
		 r->unexpected, r->dropped, r->reprobed);
}

int rp_topo_nswitches(const struct rp_topo *t)
{
	return t->nsw;
}

int rp_topo_switch_of(const struct rp_topo *t, const struct rp_addr *a)
{
	return rp_topo_find_swaddr(t, a);
}

int rp_topo_check_nic(const struct rp_topo *t, const struct rp_addr *a,
		      const char *host)
{
	int n = rp_topo_find_nic_addr(t, a);

	if (n < 0)
		return -ENOENT;
	if (host && strcmp(t->hosts[t->nics[n].host].name, host))
		return -ENOENT;
	return 0;
}

static int find_switch(const struct rp_topo *t, const char *name)
{
	for (int i = 0; i < t->nsw; i++)
		if (!strcmp(t->sw[i].name, name))
			return i;
	return -1;
}

static int nic_member(struct pctx *c, const struct rp_topo *t,
		      const struct rp_jv *o,
		      const char *op, const char *key, struct rp_addr *a)
{
	const char *s;
	char p[320];
	int ret = rp_json_str(c, o, op, key, true, &s);

	if (ret)
		return ret;
	rp_json_pathf(p, sizeof(p), "%s.%s", op, key);
	if (rp_topo_addr_parse(s, a, NULL, 0))
		return rp_json_err(c, p, "invalid IP address \"%s\"", s);
	if (rp_topo_check_nic(t, a, NULL))
		return rp_json_err(c, p, "%s is no NIC of the topology", s);
	return 0;
}

static int probes_build(struct pctx *c, const struct rp_topo *t,
			const struct rp_jv *root, struct rp_probes *out)
{
	const struct rp_jv *arr, *e;
	const char *dig;
	char want[RP_DIGEST_LEN];
	int64_t ttl = 0;
	int ret;

	ret = rp_json_type(c, root, "", RP_JOBJECT);
	if (!ret)
		ret = rp_json_str(c, root, "", "topology", true, &dig);
	if (!ret)
		ret = rp_json_int(c, root, "", "ttl", false, 1, 255, "ttl", &ttl);
	if (!ret)
		ret = rp_json_member(c, root, "", "probes", RP_JARRAY, true,
				     &arr);
	if (ret)
		return ret;
	if (strcmp(dig, rp_digest_fmt(t->digest, want))) {
		rp_json_err(c, ".topology", "answers taken on another topology (%s, this one is %s): probe again",
			    dig, want);
		return -ESTALE;
	}
	out->digest = t->digest;
	out->ttl = ttl;
	e = rp_jv_first(arr);
	for (size_t i = 0; i < rp_jv_len(arr); i++, e = rp_jv_next(e)) {
		struct rp_probe pr = { .sw = -1 };
		const char *sw;
		char p[300], q[320];
		int64_t sport;

		rp_json_pathf(p, sizeof(p), ".probes[%zu]", i);
		ret = rp_json_type(c, e, p, RP_JOBJECT);
		if (!ret)
			ret = nic_member(c, t, e, p, "src_ip", &pr.src);
		if (!ret)
			ret = nic_member(c, t, e, p, "dst_ip", &pr.dst);
		if (!ret)
			ret = rp_json_int(c, e, p, "sport", true, RP_SPORT_MIN,
					  RP_SPORT_MAX, "port", &sport);
		if (!ret)
			ret = rp_json_str(c, e, p, "switch", true, &sw);
		if (ret)
			return ret;
		pr.sport = sport;
		pr.sw = find_switch(t, sw);
		rp_json_pathf(q, sizeof(q), "%s.switch", p);
		if (pr.sw < 0)
			return rp_json_err(c, q, "unknown switch \"%s\"", sw);
		ret = rp_probes_add(out, &pr);
		if (ret)
			return ret;
	}
	return 0;
}

int rp_probes_parse(const struct rp_topo *t, const char *name,
		    const char *text, size_t len, struct rp_probes *out,
		    struct rp_err *err)
{
	struct pctx c = { .file = name, .err = err };
	struct rp_jdoc d;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = rp_json_parse(&c, text, len, &d);
	if (!ret)
		ret = probes_build(&c, t, d.v, out);
	ret = rp_json_end(&c, &d, ret);
	if (ret)
		rp_probes_free(out);
	return ret;
}

int rp_probes_load(const struct rp_topo *t, const char *path,
		   struct rp_probes *out, struct rp_err *err)
{
	size_t len;
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = rp_json_load_file(path, &text, &len, err);
	if (ret)
		return ret;
	ret = rp_probes_parse(t, path, text, len, out, err);
	free(text);
	return ret;
}

static json_object *ip_json(const struct rp_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	rp_addr_fmt(a, buf, sizeof(buf));
	return json_object_new_string(buf);
}

json_object *rp_probes_to_json(const struct rp_topo *t,
			       const struct rp_probes *ps)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array_ext(ps->n);
	char dig[RP_DIGEST_LEN];

	rp_digest_fmt(t->digest, dig);
	json_object_object_add(o, "topology", json_object_new_string(dig));
	json_object_object_add(o, "ttl", json_object_new_int(ps->ttl ? ps->ttl : 2));
	for (size_t i = 0; i < ps->n; i++) {
		const struct rp_probe *p = &ps->v[i];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "src_ip", ip_json(&p->src));
		json_object_object_add(e, "dst_ip", ip_json(&p->dst));
		json_object_object_add(e, "sport", json_object_new_int(p->sport));
		json_object_object_add(e, "switch",
				       json_object_new_string(t->sw[p->sw].name));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "probes", arr);
	return o;
}

int rp_probes_save(const struct rp_topo *t, const struct rp_probes *ps,
		   const char *path)
{
	json_object *o = rp_probes_to_json(t, ps);
	const char *s = json_object_to_json_string_ext(o,
				JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(s);
	char tmp[4096];
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		json_object_put(o);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		json_object_put(o);
		return -errno;
	}
	if (write(fd, s, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		ret = -EIO;
	if (fsync(fd) && !ret)
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	json_object_put(o);
	return ret;
}
