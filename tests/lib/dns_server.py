#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A small DNS server for the network tests (tests/sh/net-resolver.sh): it
# answers A and AAAA queries over UDP from a table of its own, so that a
# test can give an allowed name the hostile answers an attacker's DNS
# would (::ffff:127.0.0.1, 64:ff9b::a00:5, ...).  Every query name is
# appended to a log, so a test can see what the resolver asked.
#   dns_server.py ADDR PORT TABLE LOG READY
# TABLE: lines "NAME A|AAAA ADDRESS"; a name in no line: NXDOMAIN; a name
# with answers of the other type only: no data.  TTL 0.  READY is
# created once the socket is bound.
import socket
import sys


def read_table(path):
    table = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and not w[0].startswith("#"):
                table.setdefault(w[0].lower().rstrip("."), []).append((w[1], w[2]))
    return table


def parse_question(q):
    """The query's name, type and the end of its question section."""
    i, labels = 12, []
    while q[i]:
        n = q[i]
        labels.append(q[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    qtype = int.from_bytes(q[i + 1:i + 3], "big")
    return ".".join(labels).lower(), qtype, i + 5


def answer(q, table):
    name, qtype, end = parse_question(q)
    records = table.get(name)
    rcode = 0 if records is not None else 3
    rrs = []
    for kind, addr in records or []:
        if kind == "A" and qtype == 1:
            rrs.append((1, socket.inet_pton(socket.AF_INET, addr)))
        elif kind == "AAAA" and qtype == 28:
            rrs.append((28, socket.inet_pton(socket.AF_INET6, addr)))
    flags = 0x8180 | rcode  # response, recursion desired and available
    head = q[:2] + flags.to_bytes(2, "big") + b"\x00\x01" + \
        len(rrs).to_bytes(2, "big") + b"\x00\x00\x00\x00"
    body = q[12:end]
    for t, data in rrs:
        body += b"\xc0\x0c" + t.to_bytes(2, "big") + b"\x00\x01" + \
            b"\x00\x00\x00\x00" + len(data).to_bytes(2, "big") + data
    return name, head + body


def main():
    addr, port, table_path, log_path, ready = sys.argv[1:6]
    table = read_table(table_path)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, int(port)))
    open(ready, "w").close()
    log = open(log_path, "a")
    while True:
        q, peer = s.recvfrom(4096)
        try:
            name, r = answer(q, table)
        except (IndexError, ValueError):
            continue
        log.write(name + "\n")
        log.flush()
        s.sendto(r, peer)


main()
