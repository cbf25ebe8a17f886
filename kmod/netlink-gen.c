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

static const struct netlink_range_validation rocepath_a_dcqcn_rp_time_reset_range = {
	.min	= 1ULL,
	.max	= 131071ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_ai_rate_range = {
	.min	= 1ULL,
	.max	= 400000ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_max_rate_range = {
	.min	= 0ULL,
	.max	= 400000ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_hai_rate_range = {
	.min	= 1ULL,
	.max	= 400000ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_min_rate_range = {
	.min	= 0ULL,
	.max	= 400000ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_rate_to_set_on_first_cnp_range = {
	.min	= 0ULL,
	.max	= 400000ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_dce_tcp_rtt_range = {
	.min	= 1ULL,
	.max	= 131071ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_rp_rate_reduce_monitor_period_range = {
	.min	= 0ULL,
	.max	= 131071ULL,
};

static const struct netlink_range_validation rocepath_a_dcqcn_np_min_time_between_cnps_range = {
	.min	= 0ULL,
	.max	= 4095000ULL,
};

/* Common nested types */
const struct nla_policy rocepath_dcqcn_nl_policy[ROCEPATH_A_DCQCN_FQ_MISSING + 1] = {
	[ROCEPATH_A_DCQCN_IBDEV] = { .type = NLA_NUL_STRING, .len = 63, },
	[ROCEPATH_A_DCQCN_NP_ENABLE] = NLA_POLICY_RANGE(NLA_U32, 0, 1),
	[ROCEPATH_A_DCQCN_RP_ENABLE] = NLA_POLICY_RANGE(NLA_U32, 0, 1),
	[ROCEPATH_A_DCQCN_RP_CLAMP_TGT_RATE] = NLA_POLICY_RANGE(NLA_U32, 0, 1),
	[ROCEPATH_A_DCQCN_RP_CLAMP_TGT_RATE_ATI] = NLA_POLICY_RANGE(NLA_U32, 0, 1),
	[ROCEPATH_A_DCQCN_RP_TIME_RESET] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_time_reset_range),
	[ROCEPATH_A_DCQCN_RP_BYTE_RESET] = NLA_POLICY_RANGE(NLA_U32, 0, 32767),
	[ROCEPATH_A_DCQCN_RP_THRESHOLD] = NLA_POLICY_RANGE(NLA_U32, 1, 31),
	[ROCEPATH_A_DCQCN_RP_AI_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_ai_rate_range),
	[ROCEPATH_A_DCQCN_RP_MAX_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_max_rate_range),
	[ROCEPATH_A_DCQCN_RP_HAI_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_hai_rate_range),
	[ROCEPATH_A_DCQCN_RP_MIN_DEC_FAC] = NLA_POLICY_RANGE(NLA_U32, 1, 100),
	[ROCEPATH_A_DCQCN_RP_MIN_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_min_rate_range),
	[ROCEPATH_A_DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_rate_to_set_on_first_cnp_range),
	[ROCEPATH_A_DCQCN_RP_DCE_TCP_G] = NLA_POLICY_RANGE(NLA_U32, 0, 1023),
	[ROCEPATH_A_DCQCN_RP_DCE_TCP_RTT] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_dce_tcp_rtt_range),
	[ROCEPATH_A_DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_rp_rate_reduce_monitor_period_range),
	[ROCEPATH_A_DCQCN_RP_INITIAL_ALPHA_VALUE] = NLA_POLICY_RANGE(NLA_U32, 0, 1023),
	[ROCEPATH_A_DCQCN_RP_GD] = NLA_POLICY_RANGE(NLA_U32, 0, 15),
	[ROCEPATH_A_DCQCN_NP_MIN_TIME_BETWEEN_CNPS] = NLA_POLICY_FULL_RANGE(NLA_U32, &rocepath_a_dcqcn_np_min_time_between_cnps_range),
	[ROCEPATH_A_DCQCN_NP_CNP_DSCP] = NLA_POLICY_RANGE(NLA_U32, 0, 63),
	[ROCEPATH_A_DCQCN_NP_CNP_PRIO_MODE] = NLA_POLICY_RANGE(NLA_U32, 0, 1),
	[ROCEPATH_A_DCQCN_NP_CNP_PRIO] = NLA_POLICY_RANGE(NLA_U32, 0, 7),
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
		.flags	= GENL_ADMIN_PERM,
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
