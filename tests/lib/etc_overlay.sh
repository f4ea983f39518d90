#!/bin/sh
# Sourced by the tests that write the machine-wide files a client reads
# (/etc/codex, /etc/claude-code) where the client reads them, without
# touching the machine's /etc: the test runs again in a private mount
# namespace and mounts an overlay on /etc there.  Needs root (the tests
# have it here and in CI).

# etc_overlay_ns SECONDS: outside the namespace, runs this script ($0)
# again inside one, under a time limit, and ends with its status (77 when
# there is no root or no unshare); inside, returns.
etc_overlay_ns() {
    [ "${CP_MANAGED_NS:-}" = 1 ] && return 0
    [ "$(id -u)" = 0 ] || { echo "needs root (a private mount namespace over /etc)"; exit 77; }
    command -v unshare >/dev/null 2>&1 || { echo "no unshare"; exit 77; }
    CP_MANAGED_NS=1 exec timeout -k 5 "$1" unshare -m --propagation private sh "$0"
}

# etc_overlay DIR [ETCDIR...]: an overlay on /etc whose changes go to
# DIR/upper (DIR exists), and each ETCDIR (a directory of /etc) there and
# empty; exits 77 when the overlay cannot be mounted.
etc_overlay() {
    mkdir -p "$1/upper" "$1/work" || exit 1
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc ||
        { echo "cannot mount an overlay on /etc in a private namespace"; exit 77; }
    shift
    for _ed in "$@"; do
        rm -rf "$_ed" && mkdir -p "$_ed" || exit 1
    done
}
