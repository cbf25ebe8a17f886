// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/rocepath.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/rocepath.h>

/* Integer value ranges */
static const struct netlink_range_validation rocepath_a_pin_sport_range = {
	.min	= ROCEPATH_SPORT_MIN,
	.max	= ROCEPATH_SPORT_MAX,
};

static const struct netlink_range_validation rocepath_a_pin_rqpn_range = {
	.max	= ROCEPATH_QPN_MAX,
};

static const struct netlink_range_validation rocepath_a_pin_lqpn_range = {
	.max	= ROCEPATH_QPN_MAX,
};

/* Common nested types */
const struct nla_policy rocepath_dcqcn_nl_policy[ROCEPATH_A_DCQCN_FQ_MISSING + 1] = {
	[ROCEPATH_A_DCQCN_IBDEV] = { .type = NLA_NUL_STRING, },
	[ROCEPATH_A_DCQCN_NP_ENABLE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_ENABLE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_CLAMP_TGT_RATE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_CLAMP_TGT_RATE_ATI] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_TIME_RESET] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_BYTE_RESET] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_THRESHOLD] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_AI_RATE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_MAX_RATE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_HAI_RATE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_MIN_DEC_FAC] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_MIN_RATE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_DCE_TCP_G] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_DCE_TCP_RTT] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_INITIAL_ALPHA_VALUE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_RP_GD] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_NP_MIN_TIME_BETWEEN_CNPS] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_NP_CNP_DSCP] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_NP_CNP_PRIO_MODE] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_NP_CNP_PRIO] = { .type = NLA_U32, },
	[ROCEPATH_A_DCQCN_SOFT] = { .type = NLA_U8, },
	[ROCEPATH_A_DCQCN_FQ_MISSING] = { .type = NLA_U8, },
};

const struct nla_policy rocepath_pin_nl_policy[ROCEPATH_A_PIN_SPORT_QPS + 1] = {
	[ROCEPATH_A_PIN_IBDEV] = { .type = NLA_NUL_STRING, .len = 63, },
	[ROCEPATH_A_PIN_REMOTE] = { .type = NLA_BINARY, },
	[ROCEPATH_A_PIN_SPORT] = NLA_POLICY_FULL_RANGE(NLA_U16, &rocepath_a_pin_sport_range),
	[ROCEPATH_A_PIN_RQPN] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_pin_rqpn_range),
	[ROCEPATH_A_PIN_LQPN] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_pin_lqpn_range),
	[ROCEPATH_A_PIN_SPORT_QPS] = { .type = NLA_U32, },
};

/* Global operation policy for rocepath */
const struct nla_policy rocepath_nl_policy[ROCEPATH_A_DCQCN + 1] = {
	[ROCEPATH_A_IBDEV] = { .type = NLA_NUL_STRING, .len = 63, },
	[ROCEPATH_A_GENERATION] = { .type = NLA_U32, },
	[ROCEPATH_A_REPLACE_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x3),
	[ROCEPATH_A_PIN] = NLA_POLICY_NESTED(rocepath_pin_nl_policy),
	[ROCEPATH_A_DCQCN] = NLA_POLICY_NESTED(rocepath_dcqcn_nl_policy),
};

/* Ops table for rocepath */
const struct genl_small_ops rocepath_nl_ops[12] = {
	{
		.cmd	= ROCEPATH_CMD_DEV_GET,
		.dumpit	= rocepath_nl_dev_get_dumpit,
	},
	{
		.cmd	= ROCEPATH_CMD_PIN_ADD,
		.doit	= rocepath_nl_pin_add_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= ROCEPATH_CMD_PIN_DEL,
		.doit	= rocepath_nl_pin_del_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= ROCEPATH_CMD_PIN_GET,
		.dumpit	= rocepath_nl_pin_get_dumpit,
	},
	{
		.cmd	= ROCEPATH_CMD_PIN_FLUSH,
		.doit	= rocepath_nl_pin_flush_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= ROCEPATH_CMD_PIN_REPLACE,
		.doit	= rocepath_nl_pin_replace_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= ROCEPATH_CMD_QP_GET,
		.dumpit	= rocepath_nl_qp_get_dumpit,
	},
	{
		.cmd	= ROCEPATH_CMD_STATS_GET,
		.doit	= rocepath_nl_stats_get_doit,
	},
	{
		.cmd	= ROCEPATH_CMD_FLOW_GET,
		.dumpit	= rocepath_nl_flow_get_dumpit,
	},
	{
		.cmd	= ROCEPATH_CMD_FLOW_RESET,
		.doit	= rocepath_nl_flow_reset_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= ROCEPATH_CMD_DCQCN_GET,
		.dumpit	= rocepath_nl_dcqcn_get_dumpit,
	},
	{
		.cmd	= ROCEPATH_CMD_DCQCN_SET,
		.doit	= rocepath_nl_dcqcn_set_doit,
		.flags	= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group rocepath_nl_mcgrps[] = {
	[ROCEPATH_NLGRP_MONITOR] = { "monitor", },
};
