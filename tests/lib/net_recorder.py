#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# An upstream server for tests/sh/net-resolver.sh that records what the
# proxy sends it: each connection's bytes (until a blank line or one
# second of silence) are appended to LOG, followed by a line "----"; it
# answers "HTTP/1.0 200 OK" with the body "recorded".
#   net_recorder.py PORT LOG READY
import socket
import sys
import threading


def serve(c, log, lock):
    c.settimeout(1.0)
    got = b""
    try:
        while b"\r\n\r\n" not in got and len(got) < 1 << 20:
            b = c.recv(65536)
            if not b:
                break
            got += b
    except OSError:
        pass
    with lock:
        log.write(got + b"\n----\n")
        log.flush()
    try:
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nrecorded")
    except OSError:
        pass
    c.close()


def main():
    port, log_path, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(64)
    open(ready, "w").close()
    log, lock = open(log_path, "ab"), threading.Lock()
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c, log, lock), daemon=True).start()


main()
