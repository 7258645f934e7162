# The gateway's image: one image for every role, chosen by its command.
#   gateway (embedded, or cluster when KAFKA_BROKERS/CLICKHOUSE_URL/REDIS_URL are set): the default CMD
#   cluster gateway node:  node dist/gateway/main.js --role=gateway
#   projector:             node dist/projector/main.js
#   rebuild:               node dist/projector/rebuild.js
# BASE_IMAGE is any Debian-based image with Node >= 24, npm and Node's headers (better-sqlite3 is
# compiled in the build stage); `scripts/images build` makes one locally where no registry answers.
ARG BASE_IMAGE=node:24-trixie-slim

FROM ${BASE_IMAGE} AS build
# better-sqlite3 compiles from source when its prebuilt binary cannot be downloaded.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The lockfile pins every version; `npm ci` installs exactly it. node-gyp is pointed at the headers of
# the Node it runs on (official images ship them beside the binary) so that it never downloads them.
RUN npm_config_nodedir="$(node -p 'require("node:path").resolve(process.execPath, "../..")')" \
    npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${BASE_IMAGE} AS runtime
# tini is PID 1: it reaps zombies and hands SIGTERM to node, whose handler drains requests in flight
# (SHUTDOWN_GRACE_MS) and flushes events before exiting. The data directory belongs to an unprivileged user.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /app --shell /usr/sbin/nologin gateway \
 && mkdir -p /data \
 && chown gateway:gateway /data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
# The glibc settings keep a long-running gateway's memory from growing with arena fragmentation
# (the same ones `npm start` uses).
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=3000 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=2097152
USER gateway
VOLUME ["/data"]
EXPOSE 3000
# Roles without an HTTP port (the projector) override this in their own deployment. The timeout allows
# for a node start on a busy machine (over 3 s was seen on 2 shared cores).
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "--max-semi-space-size=16", "--heap-growing-percent=50", "--no-parallel-scavenge", "dist/gateway/main.js"]
