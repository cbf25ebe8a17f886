// SPDX-License-Identifier: GPL-2.0
/* The table-driven nest decoder (see spec-decode.h for its rules). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "spec-decode.h"

/* Bytes a number of each spec type needs (longer payloads are accepted). */
static const uint8_t num_width[] = {
	[RP_SPEC_U8] = 1, [RP_SPEC_U16] = 2, [RP_SPEC_U32] = 4, [RP_SPEC_U64] = 8,
};

bool rp_spec_is_number(enum rp_spec_type t)
{
	return t < sizeof(num_width) && num_width[t];
}

const struct rp_field *rp_decoder_field(const struct rp_decoder *dec,
					int type, struct rp_field *tmp)
{
	const struct rp_field *f;

	if (type < 0 || (size_t)type >= dec->nfields || type > dec->set->max)
		return NULL;
	f = &dec->fields[type];
	if (f->dst != RP_DST_NONE)
		return f;
	if (dec->val.dst == RP_DST_NONE ||
	    !rp_spec_is_number(dec->set->attrs[type].type))
		return NULL;
	*tmp = dec->val;
	tmp->off += type * dec->val.size;
	return tmp;
}

static int get_number(const struct nlattr *a, enum rp_spec_type t,
		      enum rp_dst dst, void *to)
{
	const void *p = mnl_attr_get_payload(a);
	uint64_t v;

	if (mnl_attr_get_payload_len(a) < num_width[t])
		return -EINVAL;
	switch (t) {
	case RP_SPEC_U8:
		v = *(const uint8_t *)p;
		break;
	case RP_SPEC_U16:
		v = mnl_attr_get_u16(a);
		break;
	case RP_SPEC_U32:
		v = mnl_attr_get_u32(a);
		break;
	default:
		/* u64 attributes may be unaligned: copy. */
		memcpy(&v, p, sizeof(v));
		break;
	}
	switch (dst) {
	case RP_DST_BOOL:
		*(bool *)to = v;
		return 0;
	case RP_DST_U16:
		*(uint16_t *)to = v;
		return 0;
	case RP_DST_U32:
		*(uint32_t *)to = v;
		return 0;
	case RP_DST_U64:
		*(uint64_t *)to = v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int get_str(const struct nlattr *a, const struct rp_spec_attr *sa,
		   char *buf, size_t len)
{
	const char *s = mnl_attr_get_payload(a);
	size_t plen = mnl_attr_get_payload_len(a);
	size_t slen = strnlen(s, plen);

	if (slen == plen || slen >= len || (sa->max_len && slen > sa->max_len))
		return -EINVAL;
	memcpy(buf, s, slen + 1);
	return 0;
}

static int get_one(const struct nlattr *a, const struct rp_spec_attr *sa,
		   const struct rp_field *f, void *to)
{
	/* A member of the wrong kind is a map bug (test_decode finds it). */
	switch (sa->type) {
	case RP_SPEC_STRING:
		if (f->dst != RP_DST_STR)
			return -EINVAL;
		return get_str(a, sa, to, f->size);
	case RP_SPEC_BINARY:
		if (f->dst != RP_DST_ADDR)
			return -EINVAL;
		return rp_addr_from_bin(mnl_attr_get_payload(a),
					mnl_attr_get_payload_len(a), to);
	case RP_SPEC_NEST:
		if (f->dst != RP_DST_NEST || f->nest->set != sa->nest)
			return -EINVAL;
		/* A repeated single nest replaces the first one. */
		rp_decode_release(f->nest, to);
		return rp_decode(f->nest, a, to);
	default:
		if (!rp_spec_is_number(sa->type))
			return -EINVAL;
		return get_number(a, sa->type, f->dst, to);
	}
}

/*
 * Room for element n of a multi-attr array: its capacity is not stored
 * but follows from n (8, then doubling), new room zeroed.
 */
static void *grow(void **v, size_t n, size_t size)
{
	size_t cap = 8;
	void *p;

	while (cap < n)
		cap *= 2;
	if (n && n != cap)
		return (char *)*v + n * size;
	if (n)
		cap *= 2;
	p = realloc(*v, cap * size);
	if (!p)
		return NULL;
	memset((char *)p + n * size, 0, (cap - n) * size);
	*v = p;
	return (char *)p + n * size;
}

/* Every required attribute is present; a required string is not empty. */
static int check_required(const struct rp_decoder *dec, const void *obj)
{
	uint64_t attrs = *(const uint64_t *)obj;

	if ((attrs & dec->required) != dec->required)
		return -EINVAL;
	for (size_t i = 0; i < dec->nfields; i++) {
		const struct rp_field *f = &dec->fields[i];

		if ((dec->required & (1ULL << i)) && f->dst == RP_DST_STR &&
		    !*((const char *)obj + f->off))
			return -EINVAL;
	}
	return 0;
}

int rp_decode(const struct rp_decoder *dec, const struct nlattr *nest,
	      void *obj)
{
	uint64_t *attrs = obj;
	const struct nlattr *a;
	int ret = 0;

	memset(obj, 0, dec->size);
	mnl_attr_for_each_nested(a, nest) {
		int type = mnl_attr_get_type(a);
		const struct rp_spec_attr *sa;
		const struct rp_field *f;
		struct rp_field tmp;
		char *to;

		f = rp_decoder_field(dec, type, &tmp);
		if (!f)
			continue;
		sa = &dec->set->attrs[type];
		to = (char *)obj + f->off;
		if (sa->multi) {
			size_t *n = (size_t *)((char *)obj + f->count_off);

			to = f->count_off ? grow((void **)to, *n, f->size) :
					    NULL;
			if (!to) {
				ret = f->count_off ? -ENOMEM : -EINVAL;
				break;
			}
			(*n)++;
		}
		ret = get_one(a, sa, f, to);
		if (ret)
			break;
		*attrs |= 1ULL << type;
	}
	if (!ret)
		ret = check_required(dec, obj);
	if (ret)
		rp_decode_release(dec, obj);
	return ret;
}

void rp_decode_release(const struct rp_decoder *dec, void *obj)
{
	for (size_t i = 0; i < dec->nfields; i++) {
		const struct rp_field *f = &dec->fields[i];
		char *m = (char *)obj + f->off;

		if (f->dst == RP_DST_NONE)
			continue;
		if (f->count_off) {
			size_t n = *(size_t *)((char *)obj + f->count_off);
			char *v = *(char **)m;

			for (size_t j = 0; f->nest && v && j < n; j++)
				rp_decode_release(f->nest, v + j * f->size);
			free(v);
		} else if (f->nest) {
			rp_decode_release(f->nest, m);
		}
	}
	memset(obj, 0, dec->size);
}
