/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: registering the generic netlink family with its ops.
 */
#ifndef _ROCEPATH_NL_FAMILY_H
#define _ROCEPATH_NL_FAMILY_H

int rocepath_nl_init(void);
void rocepath_nl_exit(void);

#endif /* _ROCEPATH_NL_FAMILY_H */
