// SPDX-License-Identifier: GPL-2.0
/*
 * Control B of the unload stress: a return probe with an entry handler on
 * _ib_modify_qp and nothing else, to tell a kernel (rethook) problem from
 * one in rocepath's own handlers.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static atomic_long_t calls, returns;

static int stub_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&calls);
	return 0;
}

static int stub_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&returns);
	return 0;
}

static struct kretprobe stub_rp = {
	.kp.symbol_name	= "_ib_modify_qp",
	.entry_handler	= stub_entry,
	.handler	= stub_ret,
	.maxactive	= 256,
};

static int __init rp_stub_kretprobe_init(void)
{
	return register_kretprobe(&stub_rp);
}

static void __exit rp_stub_kretprobe_exit(void)
{
	unregister_kretprobe(&stub_rp);
	pr_info("rp_stub_kretprobe: %ld calls, %ld returns, %d missed\n",
		atomic_long_read(&calls), atomic_long_read(&returns),
		stub_rp.nmissed);
}

module_init(rp_stub_kretprobe_init);
module_exit(rp_stub_kretprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rocepath stress control: return probe on _ib_modify_qp only");
