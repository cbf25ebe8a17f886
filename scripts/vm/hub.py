#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Ethernet hub over UDP on loopback for more than two QEMU guests.

Usage: hub.py HUB_PORT GUEST_PORT...
Each guest runs -netdev socket,udp=127.0.0.1:HUB_PORT,localaddr=127.0.0.1:GUEST_PORT;
every frame from one guest is flooded to all others.
"""

import socket
import sys


def main():
    hub = int(sys.argv[1])
    guests = [int(p) for p in sys.argv[2:]]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", hub))
    while True:
        data, (addr, port) = s.recvfrom(65536)
        if addr != "127.0.0.1" or port not in guests:
            continue
        for g in guests:
            if g != port:
                s.sendto(data, ("127.0.0.1", g))


if __name__ == "__main__":
    main()
