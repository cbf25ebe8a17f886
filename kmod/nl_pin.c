// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the pin-add, pin-del, pin-get, pin-flush and pin-replace
 * requests (the rule sets and replace transactions are pin.c's).
 */
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "dev.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"

static int fill(struct sk_buff *skb, const struct rocepath_pin *p, u32 gen)
{
	char name[IB_DEVICE_NAME_MAX];
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_u32(skb, ROCEPATH_A_GENERATION, gen))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, ROCEPATH_A_PIN);
	if (!nest)
		return -EMSGSIZE;
	if (p->key.dev_index != ROCEPATH_ANY &&
	    rocepath_dev_index_name(p->key.dev_index, name, sizeof(name)) &&
	    nla_put_string(skb, ROCEPATH_A_PIN_IBDEV, name))
		goto cancel;
	if (nla_put(skb, ROCEPATH_A_PIN_REMOTE, p->remote_v4 ? 4 : 16,
		    p->remote_v4 ? (void *)&p->key.remote.s6_addr32[3] :
				   (void *)&p->key.remote))
		goto cancel;
	for (i = 0; i < p->nsports; i++)
		if (nla_put_u16(skb, ROCEPATH_A_PIN_SPORT, p->sports[i]))
			goto cancel;
	if (p->key.rqpn != ROCEPATH_ANY &&
	    nla_put_u32(skb, ROCEPATH_A_PIN_RQPN, p->key.rqpn))
		goto cancel;
	if (p->key.lqpn != ROCEPATH_ANY &&
	    nla_put_u32(skb, ROCEPATH_A_PIN_LQPN, p->key.lqpn))
		goto cancel;
	for (i = 0; i < p->nsports; i++)
		if (nla_put_u32(skb, ROCEPATH_A_PIN_SPORT_QPS,
				rocepath_qp_sport_count(&p->key.remote,
							p->sports[i])))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int dump_fill(struct sk_buff *skb, const void *obj,
		     const struct rocepath_dump *d)
{
	return fill(skb, obj, d->gen);
}

/*
 * One message per rule, each with the generation, which is also the dump's
 * sequence: a dump racing a change is flagged NLM_F_DUMP_INTR.
 */
int rocepath_nl_pin_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	int ret;

	rcu_read_lock();
	ret = rocepath_dump_run(skb, cb, rocepath_pin_generation(),
				rocepath_pin_dump_walk, dump_fill);
	rcu_read_unlock();
	return ret;
}

/* pin-add and pin-del: one rule in, the new generation out. */
static int pin_rule_doit(struct genl_info *info,
			 int (*op)(const struct nlattr *nest,
				   struct netlink_ext_ack *extack, u32 *gen))
{
	u32 gen;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ROCEPATH_A_PIN))
		return -EINVAL;
	err = op(info->attrs[ROCEPATH_A_PIN], info->extack, &gen);
	if (err)
		return err;
	rocepath_nl_pins_replaced(gen);
	return rocepath_nl_reply_generation(info, gen);
}

int rocepath_nl_pin_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pin_rule_doit(info, rocepath_pin_add);
}

int rocepath_nl_pin_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pin_rule_doit(info, rocepath_pin_del);
}

int rocepath_nl_pin_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 gen;
	int err;

	err = rocepath_pin_flush(&gen);
	if (err)
		return err;
	rocepath_nl_pins_replaced(gen);
	return rocepath_nl_reply_generation(info, gen);
}

/* Monitors hear of a transaction once, when it commits. */
int rocepath_nl_pin_replace_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 flags = 0, gen;
	int err;

	if (info->attrs[ROCEPATH_A_REPLACE_FLAGS])
		flags = nla_get_u32(info->attrs[ROCEPATH_A_REPLACE_FLAGS]);
	err = rocepath_pin_replace(info, &gen);
	if (err)
		return err;
	if (flags & ROCEPATH_REPLACE_FLAGS_COMMIT)
		rocepath_nl_pins_replaced(gen);
	return rocepath_nl_reply_generation(info, gen);
}

