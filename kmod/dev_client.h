/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: the ib_client that fills the device registry.
 */
#ifndef _ROCEPATH_DEV_CLIENT_H
#define _ROCEPATH_DEV_CLIENT_H

int rocepath_dev_client_init(void);
void rocepath_dev_client_exit(void);

#endif /* _ROCEPATH_DEV_CLIENT_H */
