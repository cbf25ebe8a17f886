// SPDX-License-Identifier: GPL-2.0
/*
 * Decoders for the rocepath family's nests. Unknown attributes are skipped
 * (newer kernels may add some); malformed known ones fail with -EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "objs.h"

/* The parameters are consecutive attributes, np-enable .. np-cnp-prio. */
static const struct rp_dcqcn_param *dcqcn_param(int attr)
{
	int i = attr - ROCEPATH_A_DCQCN_NP_ENABLE;

	return i >= 0 && i < RP_DCQCN_NPARAMS ? &rp_dcqcn_params[i] : NULL;
}

const char *rp_dcqcn_name(int attr)
{
	const struct rp_dcqcn_param *p = dcqcn_param(attr);

	return p ? p->name : NULL;
}

int rp_dcqcn_attr(const char *name)
{
	int i = rp_dcqcn_param_find(name);

	return i < 0 ? i : rp_dcqcn_params[i].attr;
}

int rp_dcqcn_param_find(const char *name)
{
	for (int i = 0; i < RP_DCQCN_NPARAMS; i++)
		if (!strcmp(rp_dcqcn_params[i].name, name))
			return i;
	return -ENOENT;
}

const char *rp_stats_name(int attr)
{
	return attr >= 0 && attr <= ROCEPATH_A_STATS_MAX ?
	       rp_spec_stats_names[attr] : NULL;
}

const char *rp_flow_counter_name(int attr)
{
	/* The counters follow the flow's identity (ibdev .. lqpn). */
	return attr >= ROCEPATH_A_FLOW_TX_PACKETS && attr <= ROCEPATH_A_FLOW_MAX ?
	       rp_spec_flow_names[attr] : NULL;
}

/* Reads a NUL-terminated string attribute into a fixed buffer. */
static int get_str(const struct nlattr *a, char *buf, size_t len)
{
	const char *s = mnl_attr_get_payload(a);
	size_t plen = mnl_attr_get_payload_len(a);
	size_t slen = strnlen(s, plen);

	if (slen == plen || slen >= len)
		return -EINVAL;
	memcpy(buf, s, slen + 1);
	return 0;
}

static int get_u(const struct nlattr *a, size_t size, uint64_t *v)
{
	size_t len = mnl_attr_get_payload_len(a);

	if (len < size)
		return -EINVAL;
	switch (size) {
	case 1:
		*v = mnl_attr_get_u8(a);
		break;
	case 2:
		*v = mnl_attr_get_u16(a);
		break;
	case 4:
		*v = mnl_attr_get_u32(a);
		break;
	default:
		/* u64 attributes may be unaligned: copy. */
		memcpy(v, mnl_attr_get_payload(a), 8);
		break;
	}
	return 0;
}

static int get_u32(const struct nlattr *a, uint32_t *v)
{
	uint64_t x = 0;
	int ret = get_u(a, 4, &x);

	*v = x;
	return ret;
}

static int get_u16(const struct nlattr *a, uint16_t *v)
{
	uint64_t x = 0;
	int ret = get_u(a, 2, &x);

	*v = x;
	return ret;
}

static int get_bool(const struct nlattr *a, bool *v)
{
	uint64_t x = 0;
	int ret = get_u(a, 1, &x);

	*v = x;
	return ret;
}

static int get_addr(const struct nlattr *a, struct rp_addr *addr)
{
	return rp_addr_from_bin(mnl_attr_get_payload(a),
				mnl_attr_get_payload_len(a), addr);
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*v, ncap * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
	*v = p;
	*cap = ncap;
	return 0;
}

int rp_pin_set_sports(struct rp_pin *p, const uint16_t *sports, size_t n)
{
	uint16_t *v = NULL;

	if (n) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, sports, n * sizeof(*v));
	}
	free(p->sports);
	p->sports = v;
	p->nsports = n;
	if (n)
		RP_SET(p, ROCEPATH_A_PIN_SPORT);
	return 0;
}

int rp_pin_parse(const struct nlattr *nest, struct rp_pin *p)
{
	size_t nsport = 0, nqps = 0, cap_s = 0, cap_q = 0;
	const struct nlattr *a;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);

		switch (type) {
		case ROCEPATH_A_PIN_IBDEV:
			ret = get_str(a, p->ibdev, sizeof(p->ibdev));
			break;
		case ROCEPATH_A_PIN_REMOTE:
			ret = get_addr(a, &p->remote);
			break;
		case ROCEPATH_A_PIN_SPORT:
			ret = grow((void **)&p->sports, &cap_s, nsport,
				   sizeof(*p->sports));
			if (!ret)
				ret = get_u16(a, &p->sports[nsport++]);
			break;
		case ROCEPATH_A_PIN_SPORT_QPS:
			ret = grow((void **)&p->sport_qps, &cap_q, nqps,
				   sizeof(*p->sport_qps));
			if (!ret)
				ret = get_u32(a, &p->sport_qps[nqps++]);
			break;
		case ROCEPATH_A_PIN_RQPN:
			ret = get_u32(a, &p->rqpn);
			break;
		case ROCEPATH_A_PIN_LQPN:
			ret = get_u32(a, &p->lqpn);
			break;
		default:
			continue;
		}
		if (ret)
			break;
		RP_SET(p, type);
	}
	p->nsports = nsport;
	p->nsport_qps = nqps;
	if (!ret && !RP_HAS(p, ROCEPATH_A_PIN_REMOTE))
		ret = -EINVAL;
	if (ret)
		rp_pin_release(p);
	return ret;
}

static int parse_gid(const struct nlattr *nest, struct rp_gid *g)
{
	const struct nlattr *a;
	int ret = 0;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case ROCEPATH_A_GID_INDEX:
			ret = get_u32(a, &g->index);
			break;
		case ROCEPATH_A_GID_ADDR:
			ret = get_addr(a, &g->addr);
			break;
		case ROCEPATH_A_GID_TYPE:
			ret = get_u32(a, &g->type);
			break;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_counter(const struct nlattr *nest, struct rp_hw_counter *c)
{
	const struct nlattr *a;
	int ret = 0;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case ROCEPATH_A_HW_COUNTER_NAME:
			ret = get_str(a, c->name, sizeof(c->name));
			break;
		case ROCEPATH_A_HW_COUNTER_VALUE:
			ret = get_u(a, 8, &c->value);
			break;
		}
		if (ret)
			return ret;
	}
	return c->name[0] ? 0 : -EINVAL;
}

int rp_dev_parse(const struct nlattr *nest, struct rp_dev *d)
{
	size_t cap_g = 0, cap_c = 0;
	const struct nlattr *a;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);

		switch (type) {
		case ROCEPATH_A_DEV_IBDEV:
			ret = get_str(a, d->ibdev, sizeof(d->ibdev));
			break;
		case ROCEPATH_A_DEV_INDEX:
			ret = get_u32(a, &d->index);
			break;
		case ROCEPATH_A_DEV_PORT:
			ret = get_u32(a, &d->port);
			break;
		case ROCEPATH_A_DEV_NETDEV:
			ret = get_str(a, d->netdev, sizeof(d->netdev));
			break;
		case ROCEPATH_A_DEV_IFINDEX:
			ret = get_u32(a, &d->ifindex);
			break;
		case ROCEPATH_A_DEV_ROCE_V2:
			ret = get_bool(a, &d->roce_v2);
			break;
		case ROCEPATH_A_DEV_DRIVER:
			ret = get_str(a, d->driver, sizeof(d->driver));
			break;
		case ROCEPATH_A_DEV_SOFT:
			ret = get_bool(a, &d->soft);
			break;
		case ROCEPATH_A_DEV_GID:
			ret = grow((void **)&d->gids, &cap_g, d->ngids,
				   sizeof(*d->gids));
			if (!ret)
				ret = parse_gid(a, &d->gids[d->ngids++]);
			break;
		case ROCEPATH_A_DEV_HW_COUNTER:
			ret = grow((void **)&d->counters, &cap_c, d->ncounters,
				   sizeof(*d->counters));
			if (!ret)
				ret = parse_counter(a,
						    &d->counters[d->ncounters++]);
			break;
		default:
			continue;
		}
		if (ret)
			break;
		RP_SET(d, type);
	}
	if (ret)
		rp_dev_release(d);
	return ret;
}

static int parse_rule(const struct nlattr *nest, struct rp_qp_rule *r)
{
	const struct nlattr *a;
	int ret = 0;

	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);

		switch (type) {
		case ROCEPATH_A_PIN_IBDEV:
			ret = get_str(a, r->ibdev, sizeof(r->ibdev));
			break;
		case ROCEPATH_A_PIN_REMOTE:
			ret = get_addr(a, &r->remote);
			break;
		case ROCEPATH_A_PIN_RQPN:
			ret = get_u32(a, &r->rqpn);
			break;
		case ROCEPATH_A_PIN_LQPN:
			ret = get_u32(a, &r->lqpn);
			break;
		default:
			continue;
		}
		if (ret)
			return ret;
		RP_SET(r, type);
	}
	return RP_HAS(r, ROCEPATH_A_PIN_REMOTE) ? 0 : -EINVAL;
}

int rp_qp_parse(const struct nlattr *nest, struct rp_qp *q)
{
	const struct nlattr *a;
	int ret = 0;

	memset(q, 0, sizeof(*q));
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);

		switch (type) {
		case ROCEPATH_A_QP_IBDEV:
			ret = get_str(a, q->ibdev, sizeof(q->ibdev));
			break;
		case ROCEPATH_A_QP_PORT:
			ret = get_u32(a, &q->port);
			break;
		case ROCEPATH_A_QP_LQPN:
			ret = get_u32(a, &q->lqpn);
			break;
		case ROCEPATH_A_QP_RQPN:
			ret = get_u32(a, &q->rqpn);
			break;
		case ROCEPATH_A_QP_REMOTE:
			ret = get_addr(a, &q->remote);
			break;
		case ROCEPATH_A_QP_SPORT:
			ret = get_u16(a, &q->sport);
			break;
		case ROCEPATH_A_QP_PINNED:
			ret = get_bool(a, &q->pinned);
			break;
		case ROCEPATH_A_QP_TYPE:
			ret = get_u32(a, &q->type);
			break;
		case ROCEPATH_A_QP_DEFAULT_SPORT:
			ret = get_u16(a, &q->default_sport);
			break;
		case ROCEPATH_A_QP_RULE:
			ret = parse_rule(a, &q->rule);
			break;
		default:
			continue;
		}
		if (ret)
			return ret;
		RP_SET(q, type);
	}
	return 0;
}

int rp_flow_parse(const struct nlattr *nest, struct rp_flow *f)
{
	const struct nlattr *a;
	int ret = 0;

	memset(f, 0, sizeof(*f));
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);

		switch (type) {
		case ROCEPATH_A_FLOW_IBDEV:
			ret = get_str(a, f->ibdev, sizeof(f->ibdev));
			break;
		case ROCEPATH_A_FLOW_LOCAL:
			ret = get_addr(a, &f->local);
			break;
		case ROCEPATH_A_FLOW_REMOTE:
			ret = get_addr(a, &f->remote);
			break;
		case ROCEPATH_A_FLOW_SPORT:
			ret = get_u16(a, &f->sport);
			break;
		case ROCEPATH_A_FLOW_DQPN:
			ret = get_u32(a, &f->dqpn);
			break;
		case ROCEPATH_A_FLOW_LQPN:
			ret = get_u32(a, &f->lqpn);
			break;
		case ROCEPATH_A_FLOW_RATE_MBPS:
		case ROCEPATH_A_FLOW_ALPHA:
		case ROCEPATH_A_FLOW_RATE_KBPS:
			ret = get_u(a, 4, &f->val[type]);
			break;
		case ROCEPATH_A_FLOW_RP_PACED:
			ret = get_u(a, 1, &f->val[type]);
			break;
		default:
			if (!rp_flow_counter_name(type))
				continue;
			ret = get_u(a, 8, &f->val[type]);
			break;
		}
		if (ret)
			return ret;
		RP_SET(f, type);
	}
	return 0;
}

int rp_stats_parse(const struct nlattr *nest, struct rp_stats *s)
{
	const struct nlattr *a;

	memset(s, 0, sizeof(*s));
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);
		size_t len = mnl_attr_get_payload_len(a);

		if (!rp_stats_name(type))
			continue;
		/* u32 and u64 both occur: take the width the kernel sent. */
		if (get_u(a, len >= 8 ? 8 : 4, &s->val[type]))
			return -EINVAL;
		RP_SET(s, type);
	}
	return 0;
}

int rp_dcqcn_parse(const struct nlattr *nest, struct rp_dcqcn *d)
{
	const struct nlattr *a;

	memset(d, 0, sizeof(*d));
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);
		int ret;

		if (type == ROCEPATH_A_DCQCN_IBDEV) {
			ret = get_str(a, d->ibdev, sizeof(d->ibdev));
		} else if (type == ROCEPATH_A_DCQCN_SOFT ||
			   type == ROCEPATH_A_DCQCN_FQ_MISSING) {
			uint64_t x = 0;

			ret = get_u(a, 1, &x);
			d->val[type] = x;
		} else if (rp_dcqcn_name(type)) {
			ret = get_u32(a, &d->val[type]);
		} else {
			continue;
		}
		if (ret)
			return ret;
		RP_SET(d, type);
	}
	return 0;
}

void rp_pin_release(struct rp_pin *p)
{
	free(p->sports);
	free(p->sport_qps);
	memset(p, 0, sizeof(*p));
}

void rp_dev_release(struct rp_dev *d)
{
	free(d->gids);
	free(d->counters);
	memset(d, 0, sizeof(*d));
}

void rp_pins_free(struct rp_pins *s)
{
	for (size_t i = 0; i < s->n; i++)
		rp_pin_release(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void rp_devs_free(struct rp_devs *s)
{
	for (size_t i = 0; i < s->n; i++)
		rp_dev_release(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void rp_qps_free(struct rp_qps *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void rp_flows_free(struct rp_flows *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void rp_dcqcns_free(struct rp_dcqcns *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int rp_pins_push(struct rp_pins *s, struct rp_pin *p)
{
	int ret = grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v));

	if (ret)
		return ret;
	s->v[s->n++] = *p;
	memset(p, 0, sizeof(*p));
	return 0;
}

int rp_vec_grow(void **v, size_t *cap, size_t n, size_t size)
{
	return grow(v, cap, n, size);
}
