// SPDX-License-Identifier: GPL-2.0
/* rocepathd reconcile core: desired vs installed pins, DCQCN profile push. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "reconcile.h"

void rpd_pinset_init(struct rpd_pinset *s)
{
	memset(s, 0, sizeof(*s));
}

void rpd_pinset_free(struct rpd_pinset *s)
{
	free(s->pins);
	rpd_pinset_init(s);
}

void rpd_pinset_clear(struct rpd_pinset *s)
{
	s->n = 0;
}

int rpd_pinset_add(struct rpd_pinset *s, const struct rpd_pin *p)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct rpd_pin *np = realloc(s->pins, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		s->pins = np;
		s->cap = cap;
	}
	s->pins[s->n++] = *p;
	return 0;
}

int rpd_pinset_copy(struct rpd_pinset *dst, const struct rpd_pinset *src)
{
	rpd_pinset_clear(dst);
	for (size_t i = 0; i < src->n; i++) {
		int ret = rpd_pinset_add(dst, &src->pins[i]);

		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_pin(const void *pa, const void *pb)
{
	const struct rpd_pin *a = pa, *b = pb;
	int c;

	c = strcmp(a->ibdev, b->ibdev);
	if (c)
		return c;
	if (a->family != b->family)
		return a->family - b->family;
	c = memcmp(a->remote, b->remote, sizeof(a->remote));
	if (c)
		return c;
	c = cmp_u32(a->rqpn, b->rqpn);
	if (c)
		return c;
	c = cmp_u32(a->lqpn, b->lqpn);
	if (c)
		return c;
	if (a->n_sports != b->n_sports)
		return a->n_sports - b->n_sports;
	return memcmp(a->sports, b->sports, a->n_sports * sizeof(a->sports[0]));
}

void rpd_pinset_normalize(struct rpd_pinset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct rpd_pin *p = &s->pins[i];
		size_t dl = strnlen(p->ibdev, sizeof(p->ibdev) - 1);

		/* Clear the bytes that do not take part in the key. */
		memset(p->ibdev + dl, 0, sizeof(p->ibdev) - dl);
		if (p->family == AF_INET)
			memset(p->remote + 4, 0, 12);
		if (p->n_sports > RPD_PIN_MAX_SPORTS)
			p->n_sports = RPD_PIN_MAX_SPORTS;
		memset(p->sports + p->n_sports, 0,
		       (RPD_PIN_MAX_SPORTS - p->n_sports) * sizeof(p->sports[0]));
		qsort(p->sports, p->n_sports, sizeof(p->sports[0]), cmp_u16);
	}
	qsort(s->pins, s->n, sizeof(s->pins[0]), cmp_pin);
}

bool rpd_pinset_equal(const struct rpd_pinset *a, const struct rpd_pinset *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (cmp_pin(&a->pins[i], &b->pins[i]))
			return false;
	return true;
}

void rpd_pin_format(const struct rpd_pin *p, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	size_t off;

	inet_ntop(p->family, p->remote, addr, sizeof(addr));
	off = snprintf(buf, len, "%s sport ", addr);
	for (unsigned int i = 0; i < p->n_sports && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "",
				p->sports[i]);
	if (p->ibdev[0] && off < len)
		off += snprintf(buf + off, len - off, " dev %s", p->ibdev);
	if (p->rqpn != RPD_QPN_NONE && off < len)
		off += snprintf(buf + off, len - off, " rqpn %u", p->rqpn);
	if (p->lqpn != RPD_QPN_NONE && off < len)
		snprintf(buf + off, len - off, " lqpn %u", p->lqpn);
}

int rpd_pin_set_remote(struct rpd_pin *p, const char *addr)
{
	memset(p->remote, 0, sizeof(p->remote));
	if (inet_pton(AF_INET, addr, p->remote) == 1) {
		p->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, addr, p->remote) == 1) {
		p->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

void rpd_devlist_free(struct rpd_devlist *l)
{
	free(l->devs);
	l->devs = NULL;
	l->n = 0;
}

void rp_rec_init(struct rp_reconciler *r, const struct rp_backend *be,
		 const struct rp_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->be = be;
	r->cfg = cfg;
	rpd_pinset_init(&r->desired);
}

void rp_rec_free(struct rp_reconciler *r)
{
	rpd_pinset_free(&r->desired);
	rpd_devlist_free(&r->devs);
}

int rp_rec_replan(struct rp_reconciler *r)
{
	char summary[512] = "", err[512] = "";
	struct rpd_pinset next;
	int changed, ret;

	rpd_pinset_init(&next);
	ret = r->be->plan(r->be->ctx, r->cfg, &next, summary, sizeof(summary),
			  err, sizeof(err));
	if (ret) {
		r->st.plans_failed++;
		snprintf(r->last_error, sizeof(r->last_error), "%s",
			 err[0] ? err : strerror(-ret));
		if (r->have_desired)
			rpd_err("plan failed, keeping the last good plan (%zu pins): %s",
			       r->desired.n, r->last_error);
		else
			rpd_err("plan failed, no good plan yet (installed pins left as they are): %s",
			       r->last_error);
		rpd_pinset_free(&next);
		return ret < 0 ? ret : -EINVAL;
	}
	rpd_pinset_normalize(&next);
	changed = !r->have_desired || !rpd_pinset_equal(&next, &r->desired);
	r->st.plans_ok++;
	rpd_info("plan for host %s: %zu pins%s%s%s", r->cfg->host, next.n,
		summary[0] ? " (" : "", summary, summary[0] ? ")" : "");
	rpd_pinset_free(&r->desired);
	r->desired = next;
	r->have_desired = true;
	r->last_error[0] = '\0';
	return changed;
}

static void log_diff(const struct rpd_pinset *from, const struct rpd_pinset *to)
{
	char buf[512];
	size_t i = 0, j = 0;

	if (rp_log_get_level() < RP_LOG_DEBUG)
		return;
	while (i < from->n || j < to->n) {
		int c = i == from->n ? 1 : j == to->n ? -1 :
			cmp_pin(&from->pins[i], &to->pins[j]);

		if (c < 0) {
			rpd_pin_format(&from->pins[i++], buf, sizeof(buf));
			rpd_dbg("pin - %s", buf);
		} else if (c > 0) {
			rpd_pin_format(&to->pins[j++], buf, sizeof(buf));
			rpd_dbg("pin + %s", buf);
		} else {
			i++;
			j++;
		}
	}
}

int rp_rec_sync(struct rp_reconciler *r)
{
	struct rpd_pinset installed;
	uint32_t gen = 0, new_gen = 0;
	char err[512];
	int ret = 0;

	if (!r->have_desired)
		return 0;
	r->st.syncs++;
	rpd_pinset_init(&installed);
	for (int attempt = 0; attempt < 3; attempt++) {
		rpd_pinset_clear(&installed);
		ret = r->be->pin_dump(r->be->ctx, &installed, &gen);
		if (ret) {
			snprintf(r->last_error, sizeof(r->last_error),
				 "pin dump failed: %s", strerror(-ret));
			rpd_err("%s", r->last_error);
			goto out;
		}
		rpd_pinset_normalize(&installed);
		if (rpd_pinset_equal(&installed, &r->desired)) {
			r->installed_gen = gen;
			r->st.pushes_skipped++;
			rpd_dbg("installed pins (%zu, generation %u) match the plan, nothing to push",
			       installed.n, gen);
			ret = 0;
			goto out;
		}
		log_diff(&installed, &r->desired);
		err[0] = '\0';
		ret = r->be->pin_replace(r->be->ctx, &r->desired, gen, &new_gen,
					 err, sizeof(err));
		if (ret != -ESTALE)
			break;
		rpd_info("pin set changed under us (generation %u), retrying", gen);
	}
	if (ret) {
		r->st.push_failures++;
		snprintf(r->last_error, sizeof(r->last_error),
			 "pin replace of %zu pins failed: %s", r->desired.n,
			 err[0] ? err : strerror(-ret));
		rpd_err("%s; installed pins unchanged", r->last_error);
		goto out;
	}
	r->installed_gen = new_gen;
	r->st.pushes++;
	rpd_info("pins installed: %zu pins (was %zu), generation %u",
		r->desired.n, installed.n, new_gen);
	ret = 1;
out:
	rpd_pinset_free(&installed);
	return ret;
}

static void format_values(const struct rp_dcqcn_values *v, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < RP_DCQCN_NPARAMS && off < len; i++)
		if (v->set & (1ULL << i))
			off += snprintf(buf + off, len - off, "%s%s %u", off ? " " : "",
					rp_dcqcn_params[i].name, v->val[i]);
}

int rp_rec_dcqcn_dev(struct rp_reconciler *r, const struct rpd_dev *dev)
{
	struct rp_dcqcn_values v;
	char err[512] = "", vals[1024];
	int ret, n;

	if (!rp_config_dcqcn_for(r->cfg, dev->ibdev, &v) || !v.set) {
		rpd_dbg("dcqcn: no profile for %s", dev->ibdev);
		return 0;
	}
	format_values(&v, vals, sizeof(vals));
	ret = r->be->dcqcn_set(r->be->ctx, dev->ibdev, &v, err, sizeof(err));
	if (ret) {
		r->st.dcqcn_failures++;
		snprintf(r->last_error, sizeof(r->last_error),
			 "dcqcn set on %s failed: %s", dev->ibdev,
			 err[0] ? err : strerror(-ret));
		rpd_err("%s", r->last_error);
		return ret;
	}
	r->st.dcqcn_pushes++;
	rpd_info("dcqcn: %s (%s): %s", dev->ibdev,
		dev->driver[0] ? dev->driver : "?", vals);
	if (r->be->mlx5_cc_write && (!strncmp(dev->driver, "mlx5", 4) ||
				     (!dev->driver[0] && !strncmp(dev->ibdev, "mlx5_", 5)))) {
		n = r->be->mlx5_cc_write(r->be->ctx, dev, &v);
		if (n < 0)
			rpd_warn("dcqcn: %s: mlx5 debugfs cc_params not written: %s",
				dev->ibdev, strerror(-n));
	}
	return 1;
}

int rp_rec_dcqcn(struct rp_reconciler *r)
{
	struct rpd_devlist devs = { 0 };
	int ret, first = 0, count = 0;

	ret = r->be->dev_dump(r->be->ctx, &devs);
	if (ret) {
		snprintf(r->last_error, sizeof(r->last_error),
			 "dev dump failed: %s", strerror(-ret));
		rpd_err("%s", r->last_error);
		return ret;
	}
	for (size_t i = 0; i < devs.n; i++) {
		/* A device shows once per port; configure it once. */
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(devs.devs[j].ibdev, devs.devs[i].ibdev))
				seen = true;
		if (seen)
			continue;
		ret = rp_rec_dcqcn_dev(r, &devs.devs[i]);
		if (ret < 0 && !first)
			first = ret;
		else if (ret > 0)
			count++;
	}
	rpd_devlist_free(&r->devs);
	r->devs = devs;
	return first ? first : count;
}
