// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: netfilter hooks on the packet path soft-RoCE uses.
 *
 * rxe transmits through ip_local_out()/ip6_local_out() and receives on
 * its UDP tunnel socket (port 4791), so LOCAL_OUT sees every RoCEv2
 * packet it sends and LOCAL_IN every one it receives. The hooks count
 * packets per flow, run the notification point (CNP on CE) and the
 * reaction point (ECT(0) marking, CNP handling, pacing by
 * earliest-departure-time stamps). Only the initial network namespace
 * is hooked: rxe's sockets live there on both test kernels.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "dcqcn.h"
#include "flow.h"
#include "qp.h"

struct roce_hdr {
	struct udphdr udp;
	u8 opcode;
	u8 flags;
	__be16 pkey;
	__be32 qpn;
};

struct roce_pkt {
	struct rocepath_flow_key key;
	unsigned int len;
	u8 opcode;
	u8 ecn;
	u32 bth_qpn;
};

/* Parse IP + UDP + BTH; false when not RoCEv2. */
static bool roce_parse(struct sk_buff *skb, bool v6, bool tx,
		       struct roce_pkt *p)
{
	const struct roce_hdr *rh;
	struct roce_hdr buf;
	unsigned int off;

	memset(&p->key, 0, sizeof(p->key));
	if (!v6) {
		const struct iphdr *iph = ip_hdr(skb);

		if (iph->protocol != IPPROTO_UDP || ip_is_fragment(iph))
			return false;
		off = skb_network_offset(skb) + iph->ihl * 4;
		ipv6_addr_set_v4mapped(tx ? iph->saddr : iph->daddr, &p->key.local);
		ipv6_addr_set_v4mapped(tx ? iph->daddr : iph->saddr, &p->key.remote);
		p->len = ntohs(iph->tot_len);
		p->ecn = iph->tos & INET_ECN_MASK;
		p->key.v4 = 1;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		/* rxe sends no extension headers */
		if (ip6h->nexthdr != IPPROTO_UDP)
			return false;
		off = skb_network_offset(skb) + sizeof(*ip6h);
		p->key.local = tx ? ip6h->saddr : ip6h->daddr;
		p->key.remote = tx ? ip6h->daddr : ip6h->saddr;
		p->len = ntohs(ip6h->payload_len) + sizeof(*ip6h);
		p->ecn = ipv6_get_dsfield(ip6h) & INET_ECN_MASK;
	}
	rh = skb_header_pointer(skb, off, sizeof(buf), &buf);
	if (!rh || rh->udp.dest != htons(ROCEPATH_ROCE_PORT))
		return false;
	p->opcode = rh->opcode;
	p->bth_qpn = be32_to_cpu(rh->qpn) & ROCEPATH_QPN_MASK;
	p->key.sport = ntohs(rh->udp.source);
	return true;
}

/* Mark a data packet ECT(0), as hardware does with its reaction point on. */
static void roce_set_ect0(struct sk_buff *skb, bool v6)
{
	unsigned int nh = skb_network_offset(skb);

	if (skb_ensure_writable(skb, nh + (v6 ? sizeof(struct ipv6hdr) :
					     sizeof(struct iphdr))))
		return;
	if (!v6) {
		struct iphdr *iph = ip_hdr(skb);

		if ((iph->tos & INET_ECN_MASK) == INET_ECN_NOT_ECT)
			ipv4_change_dsfield(iph, (u8)~INET_ECN_MASK, INET_ECN_ECT_0);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		if ((ipv6_get_dsfield(ip6h) & INET_ECN_MASK) == INET_ECN_NOT_ECT)
			ipv6_change_dsfield(ip6h, (u8)~INET_ECN_MASK, INET_ECN_ECT_0);
	}
}

static struct rocepath_rpt *flow_rp(struct rocepath_flow *f, u64 now)
{
	struct rocepath_rpt *rpt = READ_ONCE(f->rpt);

	if (likely(rpt))
		return rpt;
	rpt = kzalloc(sizeof(*rpt), GFP_ATOMIC);
	if (!rpt)
		return NULL;
	rocepath_rpt_init(rpt, f->dd, now);
	if (cmpxchg(&f->rpt, NULL, rpt)) {
		kfree(rpt);
		rpt = READ_ONCE(f->rpt);
	}
	return rpt;
}

/*
 * Learn a transmitting flow's local QPN. A miss is remembered with the QP
 * table's generation, read before the lookup: the chain is walked again
 * only once a QP has come or gone, not for every packet of a QP the table
 * does not hold (one whose record its owner's share refused, say).
 */
static void flow_find_qp(struct rocepath_flow *f, const struct net_device *out,
			 u32 dqpn)
{
	u32 gen = rocepath_qp_generation();
	struct rocepath_qp_info info;

	if (READ_ONCE(f->qp_miss_gen) == gen)
		return;
	if (rocepath_qp_lookup_remote(out, &f->key.remote, dqpn, &info))
		WRITE_ONCE(f->lqpn, info.lqpn);
	else
		WRITE_ONCE(f->qp_miss_gen, gen);
}

static void roce_out(struct sk_buff *skb, const struct nf_hook_state *state,
		     bool v6)
{
	struct rocepath_flow *f;
	struct rocepath_rpt *rpt;
	struct roce_pkt p;
	u64 now, t;

	if (!roce_parse(skb, v6, true, &p) || !state->out)
		return;
	/*
	 * Only the RDMA stack's packets, which rxe sends from its QPs' kernel
	 * sockets: any local process can send RoCEv2-shaped datagrams to 4791,
	 * and counting them would let it create flow records, which evict
	 * others, and put its own socket under the reaction point.
	 */
	if (!skb->sk || !sk_fullsock(skb->sk) || !skb->sk->sk_kern_sock)
		return;
	/* Our own CNPs are counted by the builder. */
	if (p.opcode == ROCEPATH_OP_CNP)
		return;
	p.key.dqpn = p.bth_qpn;
	f = rocepath_flow_get(&p.key, state->out, ROCEPATH_QPN_NONE);
	if (!f)
		return;
	if (unlikely(f->lqpn == ROCEPATH_QPN_NONE))
		flow_find_qp(f, state->out, p.bth_qpn);
	rocepath_flow_count(f, RP_FLOW_TX, p.len, 0);

	if (!rocepath_dcqcn_param(f->dd, ROCEPATH_DCQCN_RP_ENABLE))
		return;
	roce_set_ect0(skb, v6);
	now = ktime_get_ns();
	rpt = flow_rp(f, now);
	if (!rpt)
		return;
	t = rocepath_rpt_tx(rpt, f->dd, now, p.len);
	if (t > now)
		skb_set_delivery_time(skb, ns_to_ktime(t), true);
}

static void roce_in_cnp(struct rocepath_flow *f)
{
	struct rocepath_rpt *rpt;
	u64 now;

	rocepath_flow_count(f, RP_FLOW_CNP_RX, 0, 0);
	if (f->key.rx_only || !rocepath_dcqcn_param(f->dd, ROCEPATH_DCQCN_RP_ENABLE))
		return;
	now = ktime_get_ns();
	rpt = flow_rp(f, now);
	if (rpt)
		rocepath_rpt_cnp(rpt, f->dd, now);
}

static void roce_in_ce(struct sk_buff *skb, const struct nf_hook_state *state,
		       struct rocepath_flow *f)
{
	u64 now, last, gap;
	u32 prio;

	if (f->key.rx_only || !rocepath_dcqcn_param(f->dd, ROCEPATH_DCQCN_NP_ENABLE))
		return;
	now = ktime_get_ns();
	last = READ_ONCE(f->last_cnp);
	gap = (u64)rocepath_dcqcn_param(f->dd, ROCEPATH_DCQCN_NP_MIN_TIME_BETWEEN_CNPS) *
	      NSEC_PER_USEC;
	if (last && now - last < gap)
		return;
	if (cmpxchg64(&f->last_cnp, last, now) != last)
		return;
	prio = rocepath_dcqcn_param(f->dd, ROCEPATH_DCQCN_NP_CNP_PRIO_MODE) ?
	       rocepath_dcqcn_param(f->dd, ROCEPATH_DCQCN_NP_CNP_PRIO) : skb->priority;
	if (!rocepath_cnp_send(state->net, state->in, &f->key, f->dd, prio)) {
		rocepath_flow_count(f, RP_FLOW_CNP_TX, 0, 0);
		rocepath_flow_cnp_counted(true);
	}
}

/*
 * Returns true when the packet is a CNP to drop.
 *
 * A packet belongs to a QP only when the interface, the BTH destination
 * QPN, the source address and the destination address (the QP's source
 * GID, where the hook recorded it) all match a live QP: anyone can name a live
 * QPN, so the rest goes to rx-only records, which never answer CE with a
 * CNP, never drive the reaction point and never evict another record.
 */
static bool roce_in(struct sk_buff *skb, const struct nf_hook_state *state,
		    bool v6)
{
	struct rocepath_flow *f;
	struct roce_pkt p;
	u32 lqpn, rqpn;
	u16 sport;

	if (!roce_parse(skb, v6, false, &p) || !state->in)
		return false;
	lqpn = p.bth_qpn;
	if (rocepath_qp_rx_match(state->in, lqpn, &p.key.remote, &p.key.local,
				 &sport, &rqpn)) {
		p.key.sport = sport;
		p.key.dqpn = rqpn;
	} else {
		/* No such QP: an rx-only flow keyed by what the packet gives. */
		p.key.dqpn = lqpn;
		p.key.rx_only = 1;
	}
	if (p.opcode == ROCEPATH_OP_CNP)
		rocepath_flow_cnp_counted(false);
	f = rocepath_flow_get(&p.key, state->in, lqpn);
	if (!f)
		return p.opcode == ROCEPATH_OP_CNP;
	if (p.opcode == ROCEPATH_OP_CNP) {
		roce_in_cnp(f);
		return true;
	}
	rocepath_flow_count(f, RP_FLOW_RX, p.len, p.ecn);
	if (p.ecn == INET_ECN_CE)
		roce_in_ce(skb, state, f);
	return false;
}

static unsigned int flow_out4(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	local_bh_disable();
	roce_out(skb, state, false);
	local_bh_enable();
	return NF_ACCEPT;
}

static unsigned int flow_out6(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	local_bh_disable();
	roce_out(skb, state, true);
	local_bh_enable();
	return NF_ACCEPT;
}

static unsigned int flow_in4(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	return roce_in(skb, state, false) ? NF_DROP : NF_ACCEPT;
}

static unsigned int flow_in6(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	return roce_in(skb, state, true) ? NF_DROP : NF_ACCEPT;
}

/* Last on the way out (after mangling), first on the way in. */
static const struct nf_hook_ops rocepath_flow_ops[] = {
	{
		.hook		= flow_out4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_LAST - 1,
	},
	{
		.hook		= flow_in4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP_PRI_FILTER - 1,
	},
	{
		.hook		= flow_out6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP6_PRI_LAST - 1,
	},
	{
		.hook		= flow_in6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP6_PRI_FILTER - 1,
	},
};

int rocepath_flow_hooks_init(void)
{
	return nf_register_net_hooks(&init_net, rocepath_flow_ops,
				     ARRAY_SIZE(rocepath_flow_ops));
}

void rocepath_flow_hooks_exit(void)
{
	nf_unregister_net_hooks(&init_net, rocepath_flow_ops,
				ARRAY_SIZE(rocepath_flow_ops));
	/*
	 * nf_unregister_net_hooks() does not wait for packets already inside
	 * a hook; they hold the RCU read side, so this does.
	 */
	synchronize_net();
}
