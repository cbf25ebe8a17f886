// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: RoCEv2 congestion notification packets (CNPs).
 *
 * A CNP is IP / UDP (dst 4791) / BTH (opcode 0x81, the sending QP as
 * destination) / 16 reserved bytes / ICRC. The ICRC is the invariant CRC
 * of rxe_icrc.c: CRC-32 seeded with the CRC of a masked LRH, over the IP,
 * UDP and BTH headers with the variant fields (IPv4 TOS, TTL, header
 * checksum; IPv6 traffic class, flow label, hop limit; UDP checksum; BTH
 * reserved byte holding FECN/BECN) set to all ones, then over the rest.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "dcqcn.h"
#include "flow.h"

#define CNP_BTH_LEN	12
#define CNP_RSVD_LEN	16
#define CNP_ICRC_LEN	4
#define CNP_UDP_LEN	(sizeof(struct udphdr) + CNP_BTH_LEN + CNP_RSVD_LEN + \
			 CNP_ICRC_LEN)
#define CNP_PKEY_DEFAULT 0xffff
#define CNP_BECN	0x40
/* CRC-32 of 0xffffffff followed by 8 bytes of 0xff: the masked LRH */
#define ICRC_SEED	0xdebb20e3

/* ICRC over a linear packet whose network header is at @nh. */
static u32 cnp_icrc(const u8 *nh, bool v4, const u8 *rest, size_t rest_len)
{
	u8 buf[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + CNP_BTH_LEN];
	size_t hlen = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	struct udphdr *udph;
	u32 crc;

	memcpy(buf, nh, hlen + sizeof(*udph) + CNP_BTH_LEN);
	if (v4) {
		struct iphdr *iph = (struct iphdr *)buf;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)buf;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	}
	udph = (struct udphdr *)(buf + hlen);
	udph->check = CSUM_MANGLED_0;
	/* BTH byte 4: FECN, BECN and reserved bits */
	buf[hlen + sizeof(*udph) + 4] = 0xff;

	crc = crc32_le(ICRC_SEED, buf, hlen + sizeof(*udph) + CNP_BTH_LEN);
	crc = crc32_le(crc, rest, rest_len);
	return ~crc;
}

/* UDP header, BTH, reserved bytes; the ICRC space is left for later. */
static void cnp_build_l4(struct sk_buff *skb, const struct rocepath_flow_key *key)
{
	struct udphdr *udph;
	u8 *bth;

	skb_reset_transport_header(skb);
	udph = skb_put(skb, sizeof(*udph));
	udph->source = htons(key->sport);
	udph->dest = htons(ROCEPATH_ROCE_PORT);
	udph->len = htons(CNP_UDP_LEN);
	udph->check = 0;

	bth = skb_put_zero(skb, CNP_BTH_LEN + CNP_RSVD_LEN + CNP_ICRC_LEN);
	bth[0] = ROCEPATH_OP_CNP;
	bth[2] = CNP_PKEY_DEFAULT >> 8;
	bth[3] = CNP_PKEY_DEFAULT & 0xff;
	bth[4] = CNP_BECN;
	bth[5] = key->dqpn >> 16;
	bth[6] = key->dqpn >> 8;
	bth[7] = key->dqpn;
}

static void cnp_finish(struct sk_buff *skb, bool v4)
{
	u8 *nh = skb_network_header(skb);
	u8 *l4 = skb_transport_header(skb);
	u8 *rsvd = l4 + sizeof(struct udphdr) + CNP_BTH_LEN;
	u32 icrc;

	icrc = cnp_icrc(nh, v4, rsvd, CNP_RSVD_LEN);
	/* rxe stores the ICRC in CPU order (little endian on the wire) */
	rsvd[CNP_RSVD_LEN] = icrc;
	rsvd[CNP_RSVD_LEN + 1] = icrc >> 8;
	rsvd[CNP_RSVD_LEN + 2] = icrc >> 16;
	rsvd[CNP_RSVD_LEN + 3] = icrc >> 24;
}

static int cnp_send4(struct net *net, struct sk_buff *skb, int oif,
		     const struct rocepath_flow_key *key, u8 tos)
{
	__be32 saddr = key->local.s6_addr32[3];
	__be32 daddr = key->remote.s6_addr32[3];
	struct flowi4 fl4 = {
		.daddr = daddr,
		.saddr = saddr,
		.flowi4_oif = oif,
		.flowi4_proto = IPPROTO_UDP,
	};
	struct iphdr *iph;
	struct rtable *rt;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	skb->protocol = htons(ETH_P_IP);
	cnp_finish(skb, true);
	ip_send_check(iph);
	return ip_local_out(net, NULL, skb);
}

static int cnp_send6(struct net *net, struct sk_buff *skb, int oif,
		     const struct rocepath_flow_key *key, u8 tclass)
{
	struct flowi6 fl6 = {
		.daddr = key->remote,
		.saddr = key->local,
		.flowi6_oif = oif,
		.flowi6_proto = IPPROTO_UDP,
	};
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	struct udphdr *udph;
	int err;

	/* with saddr set, oif is only a preference unless F_IFACE */
	dst = ip6_route_output_flags(net, NULL, &fl6, RT6_LOOKUP_F_IFACE);
	err = dst->error;
	if (err) {
		dst_release(dst);
		kfree_skb(skb);
		return err;
	}
	skb_dst_set(skb, dst);

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tclass, 0);
	ip6h->payload_len = htons(CNP_UDP_LEN);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	ip6h->saddr = key->local;
	ip6h->daddr = key->remote;
	skb->protocol = htons(ETH_P_IPV6);
	cnp_finish(skb, false);

	/* the ICRC masks the UDP checksum: compute it last */
	udph = udp_hdr(skb);
	udph->check = csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr, CNP_UDP_LEN,
				      IPPROTO_UDP,
				      csum_partial(udph, CNP_UDP_LEN, 0));
	if (!udph->check)
		udph->check = CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
	return ip6_local_out(net, NULL, skb);
}

/**
 * rocepath_cnp_send - send a CNP for a flow whose packets arrived CE-marked
 * @net: namespace of the receiving socket
 * @ndev: interface the marked packet arrived on; the CNP leaves on it,
 *	whatever other routes to the peer say
 * @key: the flow: CNP goes from @key->local to @key->remote, to QP
 *	@key->dqpn, with UDP source port @key->sport (our QP's)
 * @dd: device parameters (np_cnp_dscp)
 * @priority: skb priority for the CNP (np_cnp_prio or the data packet's)
 *
 * Softirq context. Returns 0 when the CNP was handed to IP.
 */
int rocepath_cnp_send(struct net *net, const struct net_device *ndev,
		      const struct rocepath_flow_key *key,
		      const struct rocepath_dcqcn_dev *dd, u32 priority)
{
	u8 tos = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_NP_CNP_DSCP) << 2;
	struct sk_buff *skb;
	int err;

	skb = alloc_skb(MAX_HEADER + sizeof(struct ipv6hdr) + CNP_UDP_LEN,
			GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, MAX_HEADER + sizeof(struct ipv6hdr));
	cnp_build_l4(skb, key);
	skb->priority = priority;
	if (key->v4)
		err = cnp_send4(net, skb, ndev->ifindex, key, tos);
	else
		err = cnp_send6(net, skb, ndev->ifindex, key, tos);
	return net_xmit_eval(err);
}
