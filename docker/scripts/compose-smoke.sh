#!/usr/bin/env bash
# compose-smoke.sh -- brings docker/compose.yaml up, fetches a page over HTTPS through the edge, checks that
# Prometheus scrapes every target, and takes the stack down again (volumes included unless --keep).
#
#   docker/scripts/compose-smoke.sh [--keep]
#
# Uses `docker compose` when the plugin is installed, else `docker-compose` (Debian's 1.29.2 here).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf 'compose-smoke: %s\n' "$*" >&2; }
if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi
COMPOSE+=(-f "$DIR/compose.yaml" -p elastikey-smoke)
keep=false; [ "${1:-}" = --keep ] && keep=true
$keep || trap '"${COMPOSE[@]}" down -v >/dev/null 2>&1 || true' EXIT

log "using $("${COMPOSE[@]}" version 2>/dev/null | head -1)"
"$DIR/scripts/build-images.sh" elastikey prometheus redis
"${COMPOSE[@]}" up -d

wait_200() { # what, url
  for _ in $(seq 1 300); do curl -fs "$2" >/dev/null 2>&1 && return 0; sleep 1; done
  "${COMPOSE[@]}" ps >&2; "${COMPOSE[@]}" logs --tail 20 >&2; log "FAILED: $1 ($2) not ready"; exit 1
}
wait_200 "key server" http://127.0.0.1:9080/readyz
wait_200 "Redis-backed key server" http://127.0.0.1:9082/readyz
wait_200 "edge" http://127.0.0.1:9081/readyz
wait_200 "Prometheus" http://127.0.0.1:9090/-/ready

ca=$(mktemp)
"${COMPOSE[@]}" exec -T keyserver cat /srv/elastikey-data/pki/ca.pem >"$ca"
log "curl through the edge:"
curl -sS -i --cacert "$ca" --resolve site-1.example.test:4433:127.0.0.1 https://site-1.example.test:4433/hello >&2
rm -f "$ca"
# Every target scraped and up (Prometheus scrapes every 5 s).
targets_up() {
  local t; t=$(curl -fs http://127.0.0.1:9090/api/v1/targets) || return 1
  ! grep -qE '"health":"(down|unknown)"' <<<"$t" && [ "$(grep -o '"health":"up"' <<<"$t" | wc -l)" -ge 4 ]
}
for _ in $(seq 1 60); do targets_up && break; sleep 1; done
curl -fs http://127.0.0.1:9090/api/v1/targets | tr ',' '\n' | grep -E '"(scrapeUrl|health)"' >&2
targets_up || { log "FAILED: not every Prometheus target is up"; exit 1; }
stored=$(curl -fs http://127.0.0.1:9082/metrics | sed -n 's/^elastikey_keys_stored //p')
store=$("${COMPOSE[@]}" logs --no-color keyserver-redis 2>&1 | grep -o 'keys in redis[^,]*' | head -1 || true)
log "Redis-backed key server: ${stored:-0} keys, ${store:-not in Redis}"
[ -n "$store" ] && awk -v n="${stored:-0}" 'BEGIN { exit !(n >= 4) }' ||
  { log "FAILED: the Redis-backed key server does not serve its keys from Redis"; exit 1; }
log "passed"
