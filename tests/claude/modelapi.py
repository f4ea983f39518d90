# SPDX-License-Identifier: MIT
"""A stand-in for the model API on loopback: it answers Claude Code's
Messages API requests (streamed or not) so that the real client issues a
scripted list of tool calls, and records what each call returned.

usage: modelapi.py SCRIPT LOG PORTFILE
SCRIPT: a JSON array of steps {"tool": NAME, "input": {...}}; the N-th
request of the agent's loop (a request that offers tools, holding N
tool calls) is answered with step N as one tool_use block, the last
with the text "done".  Requests without tools (titles, summaries) get a
short text.  LOG: one JSON line per tool result the client sent back,
{"step": N, "tool": NAME, "is_error": BOOL, "content": TEXT}.  The port the
server listens on (127.0.0.1, picked by the kernel) is written to PORTFILE
once it listens.  It serves until killed."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = json.load(open(sys.argv[1], encoding="utf-8"))
LOG = sys.argv[2]
LOCK = threading.Lock()
SEEN = set()
DEBUG = __import__("os").environ.get("MODELAPI_DEBUG")


def text_of(content):
    if isinstance(content, str):
        return content
    out = []
    for c in content or []:
        if isinstance(c, dict) and c.get("type") == "text":
            out.append(c.get("text", ""))
    return "\n".join(out)


def record(messages):
    """Log the tool results the client sent, once each (the client may put
    other turns after the last one that holds them)."""
    for m in messages:
        if m.get("role") != "user" or not isinstance(m.get("content"), list):
            continue
        for c in m["content"]:
            if not isinstance(c, dict) or c.get("type") != "tool_result":
                continue
            tid = c.get("tool_use_id", "")
            if not tid.startswith("toolu_step") or tid in SEEN:
                continue
            SEEN.add(tid)
            n = int(tid[len("toolu_step"):])
            line = {"step": n, "tool": SCRIPT[n]["tool"],
                    "is_error": bool(c.get("is_error")),
                    "content": text_of(c.get("content"))}
            with LOCK, open(LOG, "a", encoding="utf-8") as f:
                f.write(json.dumps(line, sort_keys=True) + "\n")


def reply_for(req):
    """The content block of the answer, and its stop reason."""
    messages = req.get("messages", [])
    if not req.get("tools"):
        return {"type": "text", "text": "ok"}, "end_turn"
    record(messages)
    # The client merges consecutive turns, so count the calls made, not
    # the assistant messages.
    n = len({c.get("id") for m in messages if m.get("role") == "assistant"
             and isinstance(m.get("content"), list) for c in m["content"]
             if isinstance(c, dict) and c.get("type") == "tool_use"})
    if n < len(SCRIPT):
        step = SCRIPT[n]
        return ({"type": "tool_use", "id": "toolu_step%d" % n,
                 "name": step["tool"], "input": step["input"]}, "tool_use")
    return {"type": "text", "text": "done"}, "end_turn"


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_json(200, {"data": [], "has_more": False})

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            req = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            req = {}
        if DEBUG:
            with LOCK, open(DEBUG, "a", encoding="utf-8") as f:
                f.write(json.dumps({"path": self.path, "req": req}) + "\n")
        if "count_tokens" in self.path:
            self.send_json(200, {"input_tokens": 10})
            return
        if "/v1/messages" not in self.path:
            self.send_json(200, {})
            return
        block, stop = reply_for(req)
        msg = {"id": "msg_standin", "type": "message", "role": "assistant",
               "model": req.get("model", "stand-in"), "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 1, "output_tokens": 1}}
        if not req.get("stream"):
            msg.update(content=[block], stop_reason=stop)
            self.send_json(200, msg)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        out = sse("message_start", {"type": "message_start", "message": msg})
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta",
                     "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        out += sse("content_block_start", {"type": "content_block_start",
                                           "index": 0, "content_block": start})
        out += sse("content_block_delta", {"type": "content_block_delta",
                                           "index": 0, "delta": delta})
        out += sse("content_block_stop", {"type": "content_block_stop",
                                          "index": 0})
        out += sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop,
                                               "stop_sequence": None},
                                     "usage": {"output_tokens": 1}})
        out += sse("message_stop", {"type": "message_stop"})
        self.wfile.write(out)
        self.close_connection = True


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(sys.argv[3] + ".tmp", "w", encoding="utf-8") as f:
        f.write("%d\n" % srv.server_address[1])
    __import__("os").rename(sys.argv[3] + ".tmp", sys.argv[3])
    srv.serve_forever()


if __name__ == "__main__":
    main()
