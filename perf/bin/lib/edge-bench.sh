# edge-bench.sh -- shell functions the edge benchmarks share (perf/bin/edge-handshakes, perf/bin/edge-cache-vs-nginx):
# waiting for a server's log line, installing Debian's nginx and h2load, a dev-CA certificate whose key also sits in
# a file (for nginx), and CPU time of processes from /proc. Sourced, never run.

# await LOGFILE TEXT: waits up to 2 minutes for TEXT to appear in LOGFILE, else stops the script.
await() {
    for _ in $(seq 240); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.5; done
    echo "gave up waiting for '$2' in $1" >&2; exit 1
}

# ensure_nginx [h2load]: installs nginx-light (else nginx), and nghttp2-client when asked, with apt-get if missing;
# prints the nginx binary.
ensure_nginx() {
    local missing=0
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing=1
    [ "${1:-}" = h2load ] && { command -v h2load >/dev/null || missing=1; }
    if [ "$missing" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        [ "${1:-}" = h2load ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >&2 \
            || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >&2
    fi
    command -v nginx || echo /usr/sbin/nginx
}

# issue_certificate PKI_DIR TYPE NAME OUT_PREFIX: a new key (TYPE ec256 or rsa2048) in OUT_PREFIX.key and its
# certificate for DNS NAME (and 127.0.0.1) from the dev CA in PKI_DIR, chain (leaf, CA) in OUT_PREFIX.pem.
issue_certificate() {
    local pki=$1 type=$2 name=$3 prefix=$4
    case "$type" in
        ec256) openssl ecparam -name prime256v1 -genkey -noout -out "$prefix.key" ;;
        rsa2048) openssl genrsa -out "$prefix.key" 2048 ;;
        *) echo "unknown key type $type" >&2; return 1 ;;
    esac
    openssl req -new -key "$prefix.key" -subj "/CN=$name" -out "$prefix.csr"
    printf 'subjectAltName=DNS:%s,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' "$name" >"$prefix.ext"
    openssl x509 -req -in "$prefix.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
        -extfile "$prefix.ext" -out "$prefix.leaf.pem"
    cat "$prefix.leaf.pem" "$pki/ca.pem" >"$prefix.pem"
    rm -f "$prefix.csr" "$prefix.ext" "$prefix.leaf.pem"
}

# nginx_pids PIDFILE: the nginx master and its worker processes.
nginx_pids() {
    local master
    master=$(cat "$1")
    echo "$master" $(pgrep -P "$master" | tr '\n' ' ')
}

# cpu_ticks PID...: user + system CPU of the processes (clock ticks, getconf CLK_TCK a second), their children's
# waited-for time excluded; a process that is gone counts 0.
cpu_ticks() {
    local total=0 p t
    for p in "$@"; do
        t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)
        total=$((total + t))
    done
    echo "$total"
}
