#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send forged RoCEv2 packets: UDP to port 4791 carrying a BTH.

usage: flow_forge.py SRC DST SPORT COUNT QPN[,QPN...] [--vary-sport] [--tos N]

Packet i leaves SRC:SPORT (SPORT + i with --vary-sport) for DST:4791 with
a SEND_ONLY BTH to QPN number i % len(QPNs), 16 bytes of payload and a
zero ICRC (rxe drops it; the module's hooks see it first). --tos sets the
IP TOS byte: 3 is CE. IPv4 or IPv6 by the addresses given. Standard
library only.
"""
import argparse
import ipaddress
import socket
import struct
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("sport", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("qpns")
    ap.add_argument("--vary-sport", action="store_true")
    ap.add_argument("--tos", type=int, default=0)
    ap.add_argument("--gap", type=float, default=0.02)
    a = ap.parse_args()

    qpns = [int(q, 0) & 0xffffff for q in a.qpns.split(",")]
    v6 = ipaddress.ip_address(a.src).version == 6
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    for i in range(a.count):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if v6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, a.tos)
        else:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, a.tos)
        s.bind((a.src, a.sport + i if a.vary_sport else a.sport))
        # opcode SEND_ONLY, solicited/pad/tver 0, P_Key, QPN, AckReq + PSN
        bth = struct.pack(">BBHII", 0x04, 0, 0xffff, qpns[i % len(qpns)],
                          0x80000000 | i)
        s.sendto(bth + bytes(16) + bytes(4), (a.dst, 4791))
        s.close()
        time.sleep(a.gap)
    print(a.count)


if __name__ == "__main__":
    main()
