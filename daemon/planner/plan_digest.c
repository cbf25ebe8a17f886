// SPDX-License-Identifier: GPL-2.0
/*
 * Digests of a plan and of a probe set (plan.h, plan_probe.h), so that
 * hosts can tell, without exchanging plans, whether they run the same one.
 * Each value goes in as a fixed-width big-endian number, never a struct,
 * so padding and byte order cannot make equal plans differ.
 */
#include <sys/socket.h>

#include "digest.h"
#include "plan_model.h"
#include "plan_probe.h"

static uint64_t u32(uint64_t h, uint32_t v)
{
	uint8_t b[4] = { v >> 24, v >> 16, v >> 8, v };

	return rp_fnv1a64(h, b, sizeof(b));
}

/*
 * Every flow in canonical order with what the plan decided for it: its
 * identity (job, NICs, rail, QP), status, spine (and superspine route),
 * links and source port. The indices are the files' own order, so two
 * hosts with the same files and the same rocepath agree.
 */
uint64_t rp_plan_digest(const struct rp_plan *pl)
{
	uint64_t h = RP_FNV1A64_INIT;

	h = u32(h, pl->nflows);
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];

		h = u32(h, f->job);
		h = u32(h, f->src_nic);
		h = u32(h, f->dst_nic);
		h = u32(h, f->rail);
		h = u32(h, f->qp);
		h = u32(h, f->status);
		h = u32(h, f->spine);
		h = u32(h, f->up);
		h = u32(h, f->dn);
		h = u32(h, f->sport);
		if (pl->f3) {
			h = u32(h, pl->f3[i].super);
			h = u32(h, pl->f3[i].spine2);
		}
	}
	return h;
}

/* The family and its bytes only: an IPv4 address leaves raw[4..15] unset. */
static uint64_t addr(uint64_t h, const struct rp_addr *a)
{
	h = u32(h, a->family);
	return rp_fnv1a64(h, a->raw, a->family == AF_INET ? 4 : 16);
}

/* The answers in their sorted order: addresses, port, switch index. */
uint64_t rp_probes_digest(const struct rp_probes *ps)
{
	uint64_t h = RP_FNV1A64_INIT;

	if (!ps)
		return h;
	h = u32(h, ps->n);
	for (size_t i = 0; i < ps->n; i++) {
		const struct rp_probe *p = &ps->v[i];

		h = addr(h, &p->src);
		h = addr(h, &p->dst);
		h = u32(h, p->sport);
		h = u32(h, p->sw);
	}
	return h;
}
