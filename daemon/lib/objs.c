// SPDX-License-Identifier: GPL-2.0
/*
 * The family's objects: name tables, the field maps that turn the generic
 * decoder (spec-decode.c) into one decoder per nest, and the containers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objs.h"
#include "spec-decode.h"

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

#define PARAM(name) (ROCEPATH_A_DCQCN_##name - ROCEPATH_A_DCQCN_NP_ENABLE)

/*
 * The rules between two parameters, which the spec's checks (one value
 * each) cannot state: val[lo] <= val[hi] unless val[hi] is 0 ("none").
 * kmod/dcqcn.c applies the same in rocepath_nl_dcqcn_set_doit().
 */
static const struct {
	int lo, hi;
} dcqcn_orders[] = {
	{ PARAM(RP_MIN_RATE), PARAM(RP_MAX_RATE) },	/* 0: line rate */
};

int rp_dcqcn_check(const uint32_t *val, uint64_t known, char *why, size_t len)
{
	for (size_t r = 0; r < sizeof(dcqcn_orders) / sizeof(dcqcn_orders[0]); r++) {
		int lo = dcqcn_orders[r].lo, hi = dcqcn_orders[r].hi;

		if (!(known & (1ULL << lo)) || !(known & (1ULL << hi)) ||
		    !val[hi] || val[lo] <= val[hi])
			continue;
		snprintf(why, len, "%s %u above %s %u", rp_dcqcn_params[lo].name,
			 val[lo], rp_dcqcn_params[hi].name, val[hi]);
		return -ERANGE;
	}
	return 0;
}

/* A number attribute's spec name, when attr is one of set's numbers. */
static const char *number_name(const struct rp_spec_set *set, int attr)
{
	if (attr < 0 || attr > set->max ||
	    !rp_spec_is_number(set->attrs[attr].type))
		return NULL;
	return set->attrs[attr].name;
}

const char *rp_stats_name(int attr)
{
	return number_name(&rp_spec_stats, attr);
}

const char *rp_flow_counter_name(int attr)
{
	/* The counters follow the flow's identity (ibdev .. lqpn). */
	return attr >= ROCEPATH_A_FLOW_TX_PACKETS ?
	       number_name(&rp_spec_flow, attr) : NULL;
}

bool rp_flow_has_dqpn(const struct rp_flow *f)
{
	return RP_HAS(f, ROCEPATH_A_FLOW_DQPN);
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

/*
 * Which member holds which attribute: the one part of the decoders the
 * spec cannot give (types, lengths and names come from spec-gen.c).
 */
static const struct rp_field pin_map[ROCEPATH_A_PIN_MAX + 1] = {
	[ROCEPATH_A_PIN_IBDEV] = RP_FIELD(struct rp_pin, ibdev),
	[ROCEPATH_A_PIN_REMOTE] = RP_FIELD(struct rp_pin, remote),
	[ROCEPATH_A_PIN_SPORT] = RP_ARRAY(struct rp_pin, sports, nsports),
	[ROCEPATH_A_PIN_SPORT_QPS] = RP_ARRAY(struct rp_pin, sport_qps,
					      nsport_qps),
	[ROCEPATH_A_PIN_RQPN] = RP_FIELD(struct rp_pin, rqpn),
	[ROCEPATH_A_PIN_LQPN] = RP_FIELD(struct rp_pin, lqpn),
};

const struct rp_decoder rp_pin_decoder = RP_DECODER(struct rp_pin,
	rp_spec_pin, pin_map, .required = 1ULL << ROCEPATH_A_PIN_REMOTE);

static const struct rp_field gid_map[ROCEPATH_A_GID_MAX + 1] = {
	[ROCEPATH_A_GID_INDEX] = RP_FIELD(struct rp_gid, index),
	[ROCEPATH_A_GID_ADDR] = RP_FIELD(struct rp_gid, addr),
	[ROCEPATH_A_GID_TYPE] = RP_FIELD(struct rp_gid, type),
};

const struct rp_decoder rp_gid_decoder = RP_DECODER(struct rp_gid,
	rp_spec_gid, gid_map);

static const struct rp_field hw_counter_map[ROCEPATH_A_HW_COUNTER_MAX + 1] = {
	[ROCEPATH_A_HW_COUNTER_NAME] = RP_FIELD(struct rp_hw_counter, name),
	[ROCEPATH_A_HW_COUNTER_VALUE] = RP_FIELD(struct rp_hw_counter, value),
};

const struct rp_decoder rp_hw_counter_decoder = RP_DECODER(
	struct rp_hw_counter, rp_spec_hw_counter, hw_counter_map,
	.required = 1ULL << ROCEPATH_A_HW_COUNTER_NAME);

static const struct rp_field dev_map[ROCEPATH_A_DEV_MAX + 1] = {
	[ROCEPATH_A_DEV_IBDEV] = RP_FIELD(struct rp_dev, ibdev),
	[ROCEPATH_A_DEV_INDEX] = RP_FIELD(struct rp_dev, index),
	[ROCEPATH_A_DEV_PORT] = RP_FIELD(struct rp_dev, port),
	[ROCEPATH_A_DEV_NETDEV] = RP_FIELD(struct rp_dev, netdev),
	[ROCEPATH_A_DEV_IFINDEX] = RP_FIELD(struct rp_dev, ifindex),
	[ROCEPATH_A_DEV_ROCE_V2] = RP_FIELD(struct rp_dev, roce_v2),
	[ROCEPATH_A_DEV_DRIVER] = RP_FIELD(struct rp_dev, driver),
	[ROCEPATH_A_DEV_SOFT] = RP_FIELD(struct rp_dev, soft),
	[ROCEPATH_A_DEV_GID] = RP_NEST_ARRAY(struct rp_dev, gids, ngids,
					     rp_gid_decoder),
	[ROCEPATH_A_DEV_HW_COUNTER] = RP_NEST_ARRAY(struct rp_dev, counters,
						    ncounters,
						    rp_hw_counter_decoder),
};

const struct rp_decoder rp_dev_decoder = RP_DECODER(struct rp_dev,
	rp_spec_dev, dev_map);

/* A QP's rule is a pin key: no sports. */
static const struct rp_field qp_rule_map[ROCEPATH_A_PIN_MAX + 1] = {
	[ROCEPATH_A_PIN_IBDEV] = RP_FIELD(struct rp_qp_rule, ibdev),
	[ROCEPATH_A_PIN_REMOTE] = RP_FIELD(struct rp_qp_rule, remote),
	[ROCEPATH_A_PIN_RQPN] = RP_FIELD(struct rp_qp_rule, rqpn),
	[ROCEPATH_A_PIN_LQPN] = RP_FIELD(struct rp_qp_rule, lqpn),
};

const struct rp_decoder rp_qp_rule_decoder = RP_DECODER(struct rp_qp_rule,
	rp_spec_pin, qp_rule_map, .required = 1ULL << ROCEPATH_A_PIN_REMOTE);

static const struct rp_field qp_map[ROCEPATH_A_QP_MAX + 1] = {
	[ROCEPATH_A_QP_IBDEV] = RP_FIELD(struct rp_qp, ibdev),
	[ROCEPATH_A_QP_PORT] = RP_FIELD(struct rp_qp, port),
	[ROCEPATH_A_QP_LQPN] = RP_FIELD(struct rp_qp, lqpn),
	[ROCEPATH_A_QP_RQPN] = RP_FIELD(struct rp_qp, rqpn),
	[ROCEPATH_A_QP_REMOTE] = RP_FIELD(struct rp_qp, remote),
	[ROCEPATH_A_QP_SPORT] = RP_FIELD(struct rp_qp, sport),
	[ROCEPATH_A_QP_PINNED] = RP_FIELD(struct rp_qp, pinned),
	[ROCEPATH_A_QP_TYPE] = RP_FIELD(struct rp_qp, type),
	[ROCEPATH_A_QP_DEFAULT_SPORT] = RP_FIELD(struct rp_qp, default_sport),
	[ROCEPATH_A_QP_RULE] = RP_NEST(struct rp_qp, rule, rp_qp_rule_decoder),
};

const struct rp_decoder rp_qp_decoder = RP_DECODER(struct rp_qp,
	rp_spec_qp, qp_map);

/* The flow's counters and DCQCN state are the numbers left to val[]. */
static const struct rp_field flow_map[ROCEPATH_A_FLOW_MAX + 1] = {
	[ROCEPATH_A_FLOW_IBDEV] = RP_FIELD(struct rp_flow, ibdev),
	[ROCEPATH_A_FLOW_LOCAL] = RP_FIELD(struct rp_flow, local),
	[ROCEPATH_A_FLOW_REMOTE] = RP_FIELD(struct rp_flow, remote),
	[ROCEPATH_A_FLOW_SPORT] = RP_FIELD(struct rp_flow, sport),
	[ROCEPATH_A_FLOW_DQPN] = RP_FIELD(struct rp_flow, dqpn),
	[ROCEPATH_A_FLOW_LQPN] = RP_FIELD(struct rp_flow, lqpn),
};

const struct rp_decoder rp_flow_decoder = RP_DECODER(struct rp_flow,
	rp_spec_flow, flow_map, .val = RP_VAL(struct rp_flow, val));

static const struct rp_field stats_map[ROCEPATH_A_STATS_MAX + 1];

const struct rp_decoder rp_stats_decoder = RP_DECODER(struct rp_stats,
	rp_spec_stats, stats_map, .val = RP_VAL(struct rp_stats, val));

static const struct rp_field dcqcn_map[ROCEPATH_A_DCQCN_MAX + 1] = {
	[ROCEPATH_A_DCQCN_IBDEV] = RP_FIELD(struct rp_dcqcn, ibdev),
};

const struct rp_decoder rp_dcqcn_decoder = RP_DECODER(struct rp_dcqcn,
	rp_spec_dcqcn, dcqcn_map, .val = RP_VAL(struct rp_dcqcn, val));

const struct rp_decoder *const rp_obj_decoders[] = {
	&rp_pin_decoder, &rp_gid_decoder, &rp_hw_counter_decoder,
	&rp_dev_decoder, &rp_qp_rule_decoder, &rp_qp_decoder,
	&rp_flow_decoder, &rp_stats_decoder, &rp_dcqcn_decoder, NULL,
};

int rp_pin_parse(const struct nlattr *nest, struct rp_pin *p)
{
	return rp_decode(&rp_pin_decoder, nest, p);
}

int rp_dev_parse(const struct nlattr *nest, struct rp_dev *d)
{
	return rp_decode(&rp_dev_decoder, nest, d);
}

int rp_qp_parse(const struct nlattr *nest, struct rp_qp *q)
{
	return rp_decode(&rp_qp_decoder, nest, q);
}

int rp_flow_parse(const struct nlattr *nest, struct rp_flow *f)
{
	return rp_decode(&rp_flow_decoder, nest, f);
}

int rp_stats_parse(const struct nlattr *nest, struct rp_stats *s)
{
	return rp_decode(&rp_stats_decoder, nest, s);
}

int rp_dcqcn_parse(const struct nlattr *nest, struct rp_dcqcn *d)
{
	return rp_decode(&rp_dcqcn_decoder, nest, d);
}

void rp_pin_release(struct rp_pin *p)
{
	rp_decode_release(&rp_pin_decoder, p);
}

void rp_dev_release(struct rp_dev *d)
{
	rp_decode_release(&rp_dev_decoder, d);
}

int rp_dev_merge(struct rp_dev *into, struct rp_dev *from)
{
	size_t n = into->ngids + from->ngids;
	struct rp_gid *g;

	if (strcmp(into->ibdev, from->ibdev) || into->port != from->port ||
	    RP_HAS(from, ROCEPATH_A_DEV_DRIVER))
		return 0;
	if (from->ngids) {
		/* merged records are never decoded into again: room for n */
		g = realloc(into->gids, n * sizeof(*g));
		if (!g)
			return -ENOMEM;
		memcpy(g + into->ngids, from->gids, from->ngids * sizeof(*g));
		into->gids = g;
		into->ngids = n;
		into->attrs |= from->attrs & (1ULL << ROCEPATH_A_DEV_GID);
	}
	rp_dev_release(from);
	return 1;
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
