// SPDX-License-Identifier: GPL-2.0
/*
 * The debug lane's own check: a module that leaks one allocation at load,
 * so a run that insmods it must fail with a kmemleak report.
 */
#include <linux/module.h>
#include <linux/slab.h>

static void *leaked;

static int __init rp_stub_leak_init(void)
{
	leaked = kmalloc(1024, GFP_KERNEL);
	if (!leaked)
		return -ENOMEM;
	/* forget the only reference */
	leaked = NULL;
	return 0;
}

static void __exit rp_stub_leak_exit(void)
{
}

module_init(rp_stub_leak_init);
module_exit(rp_stub_leak_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rocepath debug lane self-check: leaks 1 KiB on purpose");
