#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The hook inputs the gate benchmarks time (tests/bench/gate-corpus.sh,
gate-side.sh): hook_inputs.py DIR writes DIR/bash.json, write.json (1 MB of
source-like text, no secret), small.json (20 lines) and denied.json (a Write
outside the write roots), each a PreToolUse input whose cwd is DIR/p."""
import json, os, random, sys
d = sys.argv[1]
def put(name, tool, inp):
    with open(os.path.join(d, name), "w") as f:
        json.dump({"session_id": "s", "hook_event_name": "PreToolUse",
                   "cwd": os.path.join(d, "p"),
                   "tool_name": tool, "tool_input": inp}, f)
put("bash.json", "Bash", {"command": "cd src && make -j2 && ./run-tests --verbose 2>&1 | tee log.txt"})
# 1 MB of source-like text: words, numbers, punctuation, no secret
rnd = random.Random(7)
words = ["static", "int", "return", "if", "else", "for", "while", "const",
         "char", "size_t", "buffer", "length", "value", "key", "token",
         "hash", "update", "0x1f", "42", "==", "{", "}", "(", ")", ";"]
lines, n = [], 0
while n < 1000000:
    l = " ".join(rnd.choice(words) for _ in range(rnd.randint(4, 14)))
    lines.append(l)
    n += len(l) + 1
text = "\n".join(lines)[:1000000]
put("write.json", "Write", {"file_path": os.path.join(d, "p", "src", "big.c"),
                            "content": text})
put("small.json", "Write", {"file_path": "src/main.c",
                            "content": "\n".join(lines[:20])})
put("denied.json", "Write", {"file_path": "../../etc/cron.d/x",
                             "content": "* * * * * root id\n"})
