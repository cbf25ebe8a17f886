#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print "sport dqpn packets" for the RoCEv2 packets of a pcap sent by SRC.

usage: pin_pcap.py [--no-ud] FILE SRC_IP
Reads classic pcap (Ethernet), IPv4 and IPv6, UDP destination port 4791;
dqpn is the destination QP of the BTH (bytes 5..7 of the UDP payload).
--no-ud leaves out UD packets (BTH opcode transport 011: the GSI QP's
MADs, a library's own UD traffic), which the hook never pins.
"""
import collections
import ipaddress
import struct
import sys


def packets(path):
    with open(path, 'rb') as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return
        magic = struct.unpack('<I', hdr[:4])[0]
        end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(end + 'IIII', rec)[2]
            yield f.read(incl)


def main():
    args = sys.argv[1:]
    no_ud = args[:1] == ['--no-ud']
    if no_ud:
        args = args[1:]
    path, src = args[0], ipaddress.ip_address(args[1])
    count = collections.Counter()
    for p in packets(path):
        eth = struct.unpack('!H', p[12:14])[0]
        off = 14
        if eth == 0x8100:
            eth = struct.unpack('!H', p[16:18])[0]
            off = 18
        if eth == 0x0800:
            ihl = (p[off] & 0xf) * 4
            proto, s = p[off + 9], ipaddress.IPv4Address(p[off + 12:off + 16])
            udp = off + ihl
        elif eth == 0x86dd:
            proto, s = p[off + 6], ipaddress.IPv6Address(p[off + 8:off + 24])
            udp = off + 40
        else:
            continue
        if proto != 17 or s != src:
            continue
        sport, dport = struct.unpack('!HH', p[udp:udp + 4])
        if dport != 4791:
            continue
        bth = udp + 8
        if no_ud and p[bth] >> 5 == 3:
            continue
        dqpn = int.from_bytes(p[bth + 5:bth + 8], 'big')
        count[(sport, dqpn)] += 1
    for (sport, dqpn), n in sorted(count.items()):
        print(sport, dqpn, n)


if __name__ == '__main__':
    main()
