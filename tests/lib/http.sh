#!/bin/sh
# Sourced by the tests that serve files over HTTP outside the sandbox
# (the network tests, the proxy's fault injection, the valgrind runs).
# Needs TOP (the source tree).
: "${TOP:?}"

# http_serve DIR PORTFILE [ADDR [PORT]]: serves DIR in the background
# (tests/lib/http_server.py) on ADDR (127.0.0.1) and PORT (0: a free one),
# writing the port to PORTFILE; the server's pid is in HTTP_PID.
http_serve() {
    (cd "$1" && exec python3 "$TOP/tests/lib/http_server.py" "${3:-127.0.0.1}" "${4:-0}" >"$2") &
    HTTP_PID=$!
}

# wait_nonempty FILE...: true once every FILE has content; false when one
# has none after 10 s in all.
wait_nonempty() {
    _wn=0
    for _wf in "$@"; do
        while [ ! -s "$_wf" ] && [ $_wn -lt 100 ]; do
            sleep 0.1
            _wn=$((_wn + 1))
        done
        [ -s "$_wf" ] || return 1
    done
}

# http_git_repo WWW SRC: a repository SRC with one commit ('file' holding
# repo-content) and its bare clone WWW/repo.git, ready to be served over
# dumb HTTP.  False when git cannot make them.
http_git_repo() {
    git -C "$2" init -q && echo repo-content >"$2/file" &&
        git -C "$2" add file && git -C "$2" -c user.name=t -c user.email=t@t commit -qm init &&
        git clone -q --bare "$2" "$1/repo.git" && git -C "$1/repo.git" update-server-info
}
