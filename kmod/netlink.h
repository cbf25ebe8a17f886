/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: the generic netlink family and its notification helpers.
 */
#ifndef _ROCEPATH_NETLINK_H
#define _ROCEPATH_NETLINK_H

#include <net/genetlink.h>

#include "netlink-gen.h"

extern struct genl_family rocepath_nl_family;

int rocepath_nl_init(void);
void rocepath_nl_exit(void);

/*
 * Attributes of a dump request, parsed with the family policy. The dump
 * info changed shape in 6.2 (struct genl_info inside genl_dumpit_info);
 * Kbuild detects which one the headers have.
 */
static inline struct nlattr **rocepath_dump_attrs(struct netlink_callback *cb)
{
#ifdef ROCEPATH_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* Start one message of a dump, flagged when the table changed under it. */
static inline void *rocepath_dump_put(struct sk_buff *skb,
				      struct netlink_callback *cb, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rocepath_nl_family, NLM_F_MULTI, cmd);
	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

/* Multicast a ready message to the monitor group; consumes @skb. */
void rocepath_nl_notify(struct sk_buff *skb, gfp_t gfp);
/* Allocate a notification of @cmd, or NULL when nobody listens. */
struct sk_buff *rocepath_nl_ntf_new(u8 cmd, gfp_t gfp, void **hdr);
void rocepath_nl_pins_replaced(u32 generation);

#endif /* _ROCEPATH_NETLINK_H */
