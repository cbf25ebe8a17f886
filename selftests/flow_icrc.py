#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the RoCEv2 invariant CRC of every packet in a pcap, as rxe does.

Usage: flow_icrc.py PCAP [OPCODE]
Prints "<ok> <bad>" for the packets with BTH opcode OPCODE (default: all).
The algorithm follows drivers/infiniband/sw/rxe/rxe_icrc.c: CRC-32 seeded
with 0xdebb20e3 over the IP, UDP and BTH headers with the variant fields
set to ones, then the rest up to the ICRC, inverted, little endian.
"""
import struct
import sys
import zlib


def crc32_raw(seed, data):
    # zlib.crc32(data, v) = ~crc32_le(~v, data); we need crc32_le(seed, data)
    return (~zlib.crc32(data, (~seed) & 0xffffffff)) & 0xffffffff


def icrc(pkt_ip, v4):
    hlen = 20 if v4 else 40
    hdr = bytearray(pkt_ip[:hlen + 8 + 12])
    if v4:
        hdr[1] = 0xff           # tos
        hdr[8] = 0xff           # ttl
        hdr[10:12] = b"\xff\xff"  # checksum
    else:
        hdr[0] |= 0x0f          # traffic class low nibble... (priority)
        hdr[1] = 0xff           # rest of traffic class and flow label
        hdr[2] = 0xff
        hdr[3] = 0xff
        hdr[7] = 0xff           # hop limit
    hdr[hlen + 6:hlen + 8] = b"\xff\xff"  # udp checksum
    hdr[hlen + 8 + 4] = 0xff              # bth resv8a (fecn/becn)
    crc = crc32_raw(0xdebb20e3, bytes(hdr))
    crc = crc32_raw(crc, pkt_ip[hlen + 8 + 12:-4])
    return (~crc) & 0xffffffff


def main():
    want = int(sys.argv[2], 0) if len(sys.argv) > 2 else None
    data = open(sys.argv[1], "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    off, ok, bad = 24, 0, 0
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if linktype == 1:
            etype, ip = struct.unpack(">H", frame[12:14])[0], frame[14:]
        elif linktype == 113:  # linux cooked
            etype, ip = struct.unpack(">H", frame[14:16])[0], frame[16:]
        else:
            continue
        if etype == 0x0800:
            v4, hlen = True, (ip[0] & 0xf) * 4
            if ip[9] != 17 or hlen != 20:
                continue
            ip = ip[:struct.unpack(">H", ip[2:4])[0]]
        elif etype == 0x86dd:
            v4, hlen = False, 40
            if ip[6] != 17:
                continue
            ip = ip[:40 + struct.unpack(">H", ip[4:6])[0]]
        else:
            continue
        if struct.unpack(">H", ip[hlen + 2:hlen + 4])[0] != 4791:
            continue
        if want is not None and ip[hlen + 8] != want:
            continue
        got = struct.unpack("<I", ip[-4:])[0]
        if got == icrc(ip, v4):
            ok += 1
        else:
            bad += 1
    print(ok, bad)


main()
