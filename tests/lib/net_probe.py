#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Probes run inside `confpol run` by tests/sh/net-proxy.sh: each prints one
# line "NAME: RESULT" so the shell test can compare exactly.
import ast
import os
import select
import socket
import sys
import time
import urllib.error
import urllib.request


def bridge():
    url = os.environ["HTTP_PROXY"]
    host, port = url.rsplit("/", 1)[1].rsplit(":", 1)
    return host, int(port)


def socks_connect(arg, version):
    """A SOCKS5 CONNECT to arg "HOST:PORT" whose request says VERSION: the
    reply's code, or "none"."""
    host, port = arg.rsplit(":", 1)
    s = socket.create_connection(bridge(), timeout=10)
    s.sendall(b"\x05\x01\x00")
    s.recv(2)
    s.sendall(bytes([version]) + b"\x01\x00\x03" + bytes([len(host)]) +
              host.encode() + int(port).to_bytes(2, "big"))
    r = s.recv(10)
    return r[1] if len(r) > 1 else "none"


def raw(data, wait=0.0, read=True):
    """Sends data to the proxy (through the bridge); returns the first line
    of its answer, or what happened."""
    s = socket.create_connection(bridge(), timeout=10)
    try:
        if data:
            s.sendall(data)
        if wait:
            time.sleep(wait)
        if not read:
            return s
        got = s.recv(4096)
        return got.split(b"\r\n", 1)[0].decode("latin-1") if got else "closed"
    except OSError as e:
        return "error " + type(e).__name__


def main():
    what = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    if what == "urllib":
        try:
            body = urllib.request.urlopen(arg, timeout=10).read().decode().strip()
            print("urllib:", body)
        except urllib.error.HTTPError as e:
            print("urllib: HTTP", e.code, e.headers.get("X-Confpol-Rule"))
        except OSError as e:
            print("urllib: error", type(e).__name__)
    elif what == "malformed":
        print("malformed:", raw(b"NONSENSE\r\n\r\n"))
    elif what == "nullbyte":
        print("nullbyte:", raw(b"GET http://a\x00b/ HTTP/1.1\r\n\r\n"))
    elif what == "huge":
        print("huge:", raw(b"GET http://allowed.test/ HTTP/1.1\r\n" +
                           b"X-Pad: " + b"a" * 20000 + b"\r\n\r\n"))
    elif what == "slow":
        # Half a request line, then silence: the proxy's head deadline
        # (CONFPOL_PROXY_HEADER_MS) answers 408 and closes.
        print("slow:", raw(b"GET http://allowed", wait=0.1))
    elif what == "halfclose":
        # Half a request line, then the client's end of writing: answered
        # 400 at once (nothing more can come), not at the head deadline.
        s = socket.create_connection(bridge(), timeout=10)
        s.sendall(b"GET http://allowed")
        s.shutdown(socket.SHUT_WR)
        start = time.monotonic()
        got = s.recv(4096)
        print("halfclose:", got.split(b"\r\n", 1)[0].decode("latin-1") if got else "closed",
              "in time" if time.monotonic() - start < 2 else "late")
    elif what == "silent":
        # Connected, not a byte sent: the first byte's deadline answers
        # 408 too (not only a head cut short).
        print("silent:", raw(b""))
    elif what == "https-uri":
        print("https-uri:", raw(b"GET https://allowed.test/ HTTP/1.1\r\n\r\n"))
    elif what == "socks-bind":
        s = socket.create_connection(bridge(), timeout=10)
        s.sendall(b"\x05\x01\x00")
        s.recv(2)
        s.sendall(b"\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50")  # BIND
        r = s.recv(10)
        print("socks-bind: reply", r[1] if len(r) > 1 else "none")
    elif what == "socks-version":
        # A CONNECT to an allowed name (arg "HOST:PORT") whose request
        # says version 4: refused as malformed, never connected.
        print("socks-version: reply", socks_connect(arg, 4))
    elif what == "socks-auth":
        # A greeting that offers username/password alone: the proxy asks
        # for no authentication, so it answers "no acceptable method".
        s = socket.create_connection(bridge(), timeout=10)
        s.sendall(b"\x05\x01\x02")
        r = s.recv(2)
        print("socks-auth: reply", r.hex() if r else "none")
    elif what == "socks-slow":
        # The version byte of a SOCKS5 greeting, then silence: closed at the
        # head deadline (CONFPOL_PROXY_HEADER_MS), never held open.
        print("socks-slow:", raw(b"\x05"))
    elif what == "socks-nomethods":
        # A greeting that offers no method at all (NMETHODS 0): malformed,
        # closed without an answer.
        s = socket.create_connection(bridge(), timeout=10)
        s.sendall(b"\x05\x00")
        r = s.recv(2)
        print("socks-nomethods: reply", r.hex() if r else "none")
    elif what == "socks-connect":
        # A CONNECT to arg "HOST:PORT": the reply's code (0 connected, 2
        # not allowed, 4 no such host, 5 refused).
        print("socks-connect: reply", socks_connect(arg, 5))
    elif what == "toomany":
        # arg idle connections held open, then one more.
        n = int(arg)
        held = [raw(b"", read=False) for _ in range(n)]
        time.sleep(0.3)
        print("toomany:", raw(b"GET http://allowed.test/ HTTP/1.1\r\n\r\n"))
        for s in held:
            s.close()
    elif what == "raw":
        # arg: a Python bytes literal, sent as it is.
        print("raw:", raw(ast.literal_eval(arg)))
    elif what == "surplus":
        # "N M": N idle connections held, then M more at once that send
        # nothing and never close; prints how many were answered 503 and
        # the seconds until the last answer.
        n, m = (int(x) for x in arg.split())
        held = [raw(b"", read=False) for _ in range(n)]
        time.sleep(0.3)
        start = time.monotonic()
        more = [socket.create_connection(bridge(), timeout=10) for _ in range(m)]
        got, left = 0, set(more)
        while left and time.monotonic() - start < 20:
            ready, _, _ = select.select(list(left), [], [], 1.0)
            for s in ready:
                line = s.recv(4096).split(b"\r\n", 1)[0]
                got += line.startswith(b"HTTP/1.1 503")
                left.discard(s)
        took = time.monotonic() - start
        print("surplus: %d x 503 in %s" % (got, "under 4 s" if took < 4 else "%.1f s" % took))
        for s in held + more:
            s.close()
    elif what == "direct":
        # Straight at an address, no proxy: there is no route.
        host, port = arg.rsplit(":", 1)
        try:
            socket.create_connection((host, int(port)), timeout=3).close()
            print("direct: connected")
        except OSError as e:
            print("direct: error", type(e).__name__)
    elif what == "unix":
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(3)
            s.connect(arg)
            print("unix: connected", s.recv(16).decode())
        except OSError as e:
            print("unix: error", type(e).__name__)
    elif what == "abstract":
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\0" + arg)
            print("abstract: connected")
        except OSError as e:
            print("abstract: error", type(e).__name__)
    elif what == "socketpair":
        a, b = socket.socketpair()
        a.sendall(b"x")
        print("socketpair:", b.recv(1).decode())
    else:
        sys.exit("unknown probe " + what)


main()
