// SPDX-License-Identifier: GPL-2.0
/*
 * ECMP hash models. The CRC tables are computed at start-up from the
 * polynomials (CRC-16/CCITT-FALSE: 0x1021 MSB-first; CRC-32/ISO-HDLC:
 * 0xEDB88320 reflected; CRC-32C: 0x82F63B78 reflected), with slices for
 * several bytes a step: a plan hashes a switch's input for each of its
 * flows' hops, over a million times at 32k GPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_hash.h"

/* [k][b]: byte b followed by k zero bytes */
static uint16_t crc16_tab[2][256];
static uint32_t crc32_tab[4][256];
static uint32_t crc32c_tab[4][256];

static void __attribute__((constructor)) crc_tables_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		uint16_t c16 = i << 8;
		uint32_t c32 = i, c32c = i;

		for (int k = 0; k < 8; k++) {
			c16 = (c16 & 0x8000) ? (c16 << 1) ^ 0x1021 : c16 << 1;
			c32 = (c32 & 1) ? (c32 >> 1) ^ 0xEDB88320u : c32 >> 1;
			c32c = (c32c & 1) ? (c32c >> 1) ^ 0x82F63B78u : c32c >> 1;
		}
		crc16_tab[0][i] = c16;
		crc32_tab[0][i] = c32;
		crc32c_tab[0][i] = c32c;
	}
	for (unsigned int i = 0; i < 256; i++) {
		uint16_t c16 = crc16_tab[0][i];

		crc16_tab[1][i] = (uint16_t)(c16 << 8) ^ crc16_tab[0][c16 >> 8];
		for (int k = 1; k < 4; k++) {
			uint32_t c32 = crc32_tab[k - 1][i];
			uint32_t c32c = crc32c_tab[k - 1][i];

			crc32_tab[k][i] = (c32 >> 8) ^ crc32_tab[0][c32 & 0xFF];
			crc32c_tab[k][i] = (c32c >> 8) ^ crc32c_tab[0][c32c & 0xFF];
		}
	}
}

uint16_t rp_crc16_ccitt(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t crc = 0xFFFF;

	for (; len >= 2; len -= 2, p += 2)
		crc = crc16_tab[1][(crc >> 8) ^ p[0]] ^
		      crc16_tab[0][(crc & 0xFF) ^ p[1]];
	if (len)
		crc = (crc << 8) ^ crc16_tab[0][((crc >> 8) ^ *p) & 0xFF];
	return crc;
}

static uint32_t crc32_refl(const uint32_t tab[4][256], const void *buf,
			   size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = 0xFFFFFFFFu;

	for (; len >= 4; len -= 4, p += 4) {
		crc ^= p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		crc = tab[3][crc & 0xFF] ^ tab[2][crc >> 8 & 0xFF] ^
		      tab[1][crc >> 16 & 0xFF] ^ tab[0][crc >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xFF];
	return crc ^ 0xFFFFFFFFu;
}

uint32_t rp_crc32(const void *buf, size_t len)
{
	return crc32_refl(crc32_tab, buf, len);
}

uint32_t rp_crc32c(const void *buf, size_t len)
{
	return crc32_refl(crc32c_tab, buf, len);
}

uint16_t rp_xor16(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t x = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		x ^= (uint16_t)(p[i] << 8 | p[i + 1]);
	if (i < len)
		x ^= (uint16_t)(p[i] << 8);
	return x;
}

static const char *const alg_names[] = {
	[RP_HASH_CRC16_CCITT] = "crc16-ccitt",
	[RP_HASH_CRC32] = "crc32",
	[RP_HASH_CRC32C] = "crc32c",
	[RP_HASH_XOR16] = "xor16",
	[RP_HASH_TABLE] = "table",
	[RP_HASH_MEASURED] = "measured",
};

static const char *const sel_names[] = {
	[RP_SEL_FULL] = "full", [RP_SEL_LO16] = "lo16", [RP_SEL_HI16] = "hi16",
};

static const char *const field_names[] = {
	[RP_F_SRC_IP] = "src_ip", [RP_F_DST_IP] = "dst_ip",
	[RP_F_PROTOCOL] = "protocol", [RP_F_SRC_PORT] = "src_port",
	[RP_F_DST_PORT] = "dst_port",
};

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -EINVAL;
}

int rp_hash_alg_parse(const char *s, enum rp_hash_alg *alg)
{
	int i = lookup(alg_names, 6, s);

	if (i < 0)
		return i;
	*alg = i;
	return 0;
}

int rp_hash_sel_parse(const char *s, enum rp_hash_sel *sel)
{
	int i = lookup(sel_names, 3, s);

	if (i < 0)
		return i;
	*sel = i;
	return 0;
}

int rp_hash_field_parse(const char *s, enum rp_hash_field *f)
{
	int i = lookup(field_names, 5, s);

	if (i < 0)
		return i;
	*f = i;
	return 0;
}

const char *rp_hash_alg_name(enum rp_hash_alg alg)
{
	return alg_names[alg];
}

static size_t put_addr(uint8_t *p, const struct rp_addr *a)
{
	/*
	 * what the switch sees: an IPv4 header's 4 bytes, IPv6's 16; each
	 * a copy of a fixed size, inline (every hash input has two)
	 */
	if (a->family == AF_INET6) {
		memcpy(p, a->raw, 16);
		return 16;
	}
	memcpy(p, a->raw, 4);
	return 4;
}

static size_t build(const struct rp_hash_model *m, const struct rp_addr *src,
		    const struct rp_addr *dst, uint16_t sport, uint8_t *buf,
		    size_t *sport_off, unsigned int *nsport)
{
	size_t n = 0;

	buf[n++] = m->seed >> 24;
	buf[n++] = m->seed >> 16;
	buf[n++] = m->seed >> 8;
	buf[n++] = m->seed;
	if (nsport)
		*nsport = 0;
	for (unsigned int i = 0; i < m->nfields; i++) {
		switch (m->fields[i]) {
		case RP_F_SRC_IP:
			n += put_addr(buf + n, src);
			break;
		case RP_F_DST_IP:
			n += put_addr(buf + n, dst);
			break;
		case RP_F_PROTOCOL:
			buf[n++] = 17;
			break;
		case RP_F_SRC_PORT:
			if (nsport)
				sport_off[(*nsport)++] = n;
			buf[n++] = sport >> 8;
			buf[n++] = sport;
			break;
		case RP_F_DST_PORT:
			buf[n++] = 4791 >> 8;
			buf[n++] = 4791 & 0xFF;
			break;
		}
	}
	return n;
}

size_t rp_hash_input(const struct rp_hash_model *m, const struct rp_addr *src,
		     const struct rp_addr *dst, uint16_t sport, uint8_t *buf)
{
	return build(m, src, dst, sport, buf, NULL, NULL);
}

static int64_t value(const struct rp_hash_model *m, const uint8_t *buf,
		     size_t len, uint16_t sport)
{
	uint32_t v;

	switch (m->alg) {
	case RP_HASH_CRC16_CCITT:
		v = rp_crc16_ccitt(buf, len);
		break;
	case RP_HASH_CRC32:
		v = rp_crc32(buf, len);
		break;
	case RP_HASH_CRC32C:
		v = rp_crc32c(buf, len);
		break;
	case RP_HASH_XOR16:
		v = rp_xor16(buf, len);
		break;
	case RP_HASH_TABLE:
	case RP_HASH_MEASURED:
	default:
		/* A measured table already is the member: no select. */
		return m->table ? m->table[sport] : -1;
	}
	if (m->sel == RP_SEL_LO16)
		v &= 0xFFFF;
	else if (m->sel == RP_SEL_HI16)
		v >>= 16;
	return v;
}

int64_t rp_hash_value(const struct rp_hash_model *m, const struct rp_addr *src,
		      const struct rp_addr *dst, uint16_t sport)
{
	uint8_t buf[4 + RP_HASH_MAX_FIELDS * 16];
	size_t len = build(m, src, dst, sport, buf, NULL, NULL);

	return value(m, buf, len, sport);
}

int rp_hash_member(const struct rp_hash_model *m, const struct rp_addr *src,
		   const struct rp_addr *dst, uint16_t sport,
		   unsigned int group)
{
	int64_t v = rp_hash_value(m, src, dst, sport);

	return v < 0 ? -1 : (int)(v % group);
}

/* Raw (unselected) CRC/XOR16 value of buf. */
static uint32_t raw(enum rp_hash_alg alg, const uint8_t *buf, size_t len)
{
	switch (alg) {
	case RP_HASH_CRC16_CCITT:
		return rp_crc16_ccitt(buf, len);
	case RP_HASH_CRC32:
		return rp_crc32(buf, len);
	case RP_HASH_CRC32C:
		return rp_crc32c(buf, len);
	default:
		return rp_xor16(buf, len);
	}
}

/* The linear part of the CRC of one byte b followed by k zero bytes. */
static uint32_t crc_lin(enum rp_hash_alg alg, uint8_t b, size_t k)
{
	const uint32_t *tab = alg == RP_HASH_CRC32 ? crc32_tab[0] : crc32c_tab[0];
	uint32_t crc = 0;

	if (alg == RP_HASH_CRC16_CCITT) {
		uint16_t c = crc16_tab[0][b];

		while (k--)
			c = (c << 8) ^ crc16_tab[0][(c >> 8) & 0xFF];
		return c;
	}
	crc = tab[b];
	while (k--)
		crc = (crc >> 8) ^ tab[crc & 0xFF];
	return crc;
}

static const uint32_t *lin_table_new(uint32_t **t, enum rp_hash_alg alg,
				     size_t k)
{
	*t = malloc(256 * sizeof(**t));
	if (!*t)
		return NULL;
	for (unsigned int b = 0; b < 256; b++)
		(*t)[b] = crc_lin(alg, b, k);
	return *t;
}

/* Every context asks for two: the made case stays inline. */
static inline const uint32_t *lin_table(struct rp_hash_lin *l,
					enum rp_hash_alg alg, size_t k)
{
	uint32_t **t = &l->t[alg][k];

	return *t ? *t : lin_table_new(t, alg, k);
}

void rp_hash_lin_free(struct rp_hash_lin *l)
{
	for (int a = 0; a < RP_HASH_XOR16; a++)
		for (int k = 0; k < RP_HASH_MAX_INPUT; k++) {
			free(l->t[a][k]);
			l->t[a][k] = NULL;
		}
}

void rp_hash_ctx_init(struct rp_hash_ctx *c, const struct rp_hash_model *m,
		      const struct rp_addr *src, const struct rp_addr *dst,
		      struct rp_hash_lin *lin)
{
	c->m = m;
	c->len = build(m, src, dst, 0, c->buf, c->sport_off, &c->nsport);
	c->lin = false;
	if (m->alg >= RP_HASH_TABLE || !lin)
		return;
	for (unsigned int i = 0; i < c->nsport; i++) {
		size_t o = c->sport_off[i];

		if (m->alg == RP_HASH_XOR16) {
			/* bytes at even offsets are the high half of a word */
			c->xhi[i] = o % 2 ? 0 : 8;
			c->xlo[i] = o % 2 ? 8 : 0;
			continue;
		}
		c->thi[i] = lin_table(lin, m->alg, c->len - o - 1);
		c->tlo[i] = lin_table(lin, m->alg, c->len - o - 2);
		if (!c->thi[i] || !c->tlo[i])
			return;
	}
	c->base = raw(m->alg, c->buf, c->len);
	c->lin = true;
}

void rp_hash_ctx_init_like(struct rp_hash_ctx *c,
			   const struct rp_hash_model *m,
			   const struct rp_addr *src, const struct rp_addr *dst,
			   struct rp_hash_lin *lin,
			   const struct rp_hash_ctx *like)
{
	uint32_t d, base;

	if (!like || !like->lin || !lin || like->m->alg != m->alg ||
	    like->m->nfields != m->nfields ||
	    memcmp(like->m->fields, m->fields,
		   m->nfields * sizeof(*m->fields)))
		goto full;
	d = like->m->seed ^ m->seed;
	base = like->base;
	if (m->alg == RP_HASH_XOR16) {
		/* the seed is the input's first two words */
		base ^= d >> 16 ^ (d & 0xFFFF);
	} else {
		for (int i = 0; i < 4; i++) {
			const uint32_t *t = lin_table(lin, m->alg,
						      like->len - 1 - i);

			if (!t)
				goto full;
			base ^= t[d >> (24 - 8 * i) & 0xFF];
		}
	}
	c->m = m;
	c->len = like->len;
	memcpy(c->buf, like->buf, like->len);
	c->buf[0] = m->seed >> 24;
	c->buf[1] = m->seed >> 16;
	c->buf[2] = m->seed >> 8;
	c->buf[3] = m->seed;
	c->nsport = like->nsport;
	for (unsigned int i = 0; i < c->nsport; i++) {
		c->sport_off[i] = like->sport_off[i];
		if (m->alg == RP_HASH_XOR16) {
			c->xhi[i] = like->xhi[i];
			c->xlo[i] = like->xlo[i];
		} else {
			c->thi[i] = like->thi[i];
			c->tlo[i] = like->tlo[i];
		}
	}
	c->base = base;
	c->lin = true;
	return;
full:
	rp_hash_ctx_init(c, m, src, dst, lin);
}

/* The selected value of a linear context for sport. */
static uint32_t lin_value(const struct rp_hash_ctx *c, uint16_t sport)
{
	uint32_t x = c->base;

	if (c->m->alg == RP_HASH_XOR16)
		for (unsigned int i = 0; i < c->nsport; i++)
			x ^= (uint32_t)(sport >> 8) << c->xhi[i] ^
			     (uint32_t)(sport & 0xFF) << c->xlo[i];
	else
		for (unsigned int i = 0; i < c->nsport; i++)
			x ^= c->thi[i][sport >> 8] ^ c->tlo[i][sport & 0xFF];
	if (c->m->sel == RP_SEL_LO16)
		x &= 0xFFFF;
	else if (c->m->sel == RP_SEL_HI16)
		x >>= 16;
	return x;
}

int rp_hash_ctx_lin(const struct rp_hash_ctx *c, uint16_t port0,
		    unsigned int nbits, unsigned int group, uint32_t *m0,
		    uint32_t *col)
{
	uint32_t v0;

	if (!c->lin || !group || (group & (group - 1)))
		return -1;
	v0 = lin_value(c, port0);
	*m0 = v0 & (group - 1);
	/* the value is affine in the port: each bit adds a fixed term */
	for (unsigned int j = 0; j < nbits; j++)
		col[j] = (lin_value(c, port0 ^ 1u << j) ^ v0) & (group - 1);
	return __builtin_ctz(group);
}

int rp_hash_ctx_member(struct rp_hash_ctx *c, uint16_t sport,
		       unsigned int group)
{
	int64_t v;

	if (c->lin)
		return (int)(lin_value(c, sport) % group);
	for (unsigned int i = 0; i < c->nsport; i++) {
		c->buf[c->sport_off[i]] = sport >> 8;
		c->buf[c->sport_off[i] + 1] = sport;
	}
	v = value(c->m, c->buf, c->len, sport);
	return v < 0 ? -1 : (int)(v % group);
}

uint16_t rp_qpn_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl, lo, hi;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = v & 0xFFFFF;
	lo = fl & 0x3FFF;
	hi = fl & 0xFC000;
	lo ^= hi >> 14;
	return (uint16_t)(lo | 0xC000);
}
