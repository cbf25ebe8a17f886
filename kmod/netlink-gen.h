/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/rocepath.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_ROCEPATH_GEN_H
#define _LINUX_ROCEPATH_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/rocepath.h>

/* Common nested types */
extern const struct nla_policy rocepath_dcqcn_nl_policy[ROCEPATH_A_DCQCN_FQ_MISSING + 1];
extern const struct nla_policy rocepath_pin_nl_policy[ROCEPATH_A_PIN_SPORT_QPS + 1];

/* Global operation policy for rocepath */
extern const struct nla_policy rocepath_nl_policy[ROCEPATH_A_DCQCN + 1];

/* Ops table for rocepath */
extern const struct genl_small_ops rocepath_nl_ops[12];

int rocepath_nl_dev_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int rocepath_nl_pin_add_doit(struct sk_buff *skb, struct genl_info *info);
int rocepath_nl_pin_del_doit(struct sk_buff *skb, struct genl_info *info);
int rocepath_nl_pin_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int rocepath_nl_pin_flush_doit(struct sk_buff *skb, struct genl_info *info);
int rocepath_nl_pin_replace_doit(struct sk_buff *skb, struct genl_info *info);
int rocepath_nl_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int rocepath_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int rocepath_nl_flow_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int rocepath_nl_flow_reset_doit(struct sk_buff *skb, struct genl_info *info);
int rocepath_nl_dcqcn_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int rocepath_nl_dcqcn_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	ROCEPATH_NLGRP_MONITOR,
};

#endif /* _LINUX_ROCEPATH_GEN_H */
