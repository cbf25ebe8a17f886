// SPDX-License-Identifier: GPL-2.0
/* Control A of the unload stress: a module that does nothing. */
#include <linux/module.h>

static int __init rp_stub_empty_init(void)
{
	return 0;
}

static void __exit rp_stub_empty_exit(void)
{
}

module_init(rp_stub_empty_init);
module_exit(rp_stub_empty_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rocepath stress control: empty module");
