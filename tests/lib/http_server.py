#!/usr/bin/env python3
# A static file server for the tests, outside the sandbox: serves the
# working directory on ADDR (default 127.0.0.1) and PORT (default 0: a
# free one the kernel chooses), quietly, and prints the port it got, so
# that a test can wait for it (tests/lib/http.sh).
import http.server
import sys


class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


addr = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
s = http.server.ThreadingHTTPServer((addr, port), H)
print(s.server_address[1], flush=True)
s.serve_forever()
