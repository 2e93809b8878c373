# mmkit: the market-making daemon and its paper exchange, in one image.
#
#   docker build -t mmkit .
#   docker run -d --name mmkit -p 127.0.0.1:8787:8787 -v mmkit-data:/data mmkit            # paper trading; status page on :8787
#   docker run --rm -p 127.0.0.1:8080:8080 mmkit exchange --host 0.0.0.0 --port 8080     # the paper exchange alone
#   docker stop -t 30 mmkit                                                              # orderly stop: cancels every order first
#
# Signals: node is PID 1 (the exec form of ENTRYPOINT, no shell in between). PID 1 gets no default
# signal handling: `mmkit run` installs its SIGTERM/SIGINT handlers before it loads anything else, so
# `docker stop` (SIGTERM) is the same orderly stop as Ctrl-C, and exits 0 (4 after a risk stop of the
# kill switch). /data holds one daemon at a time (daemon.lock): a restarted container takes its own
# stale lock over; a new container (new hostname) refuses a lock left by a killed one: remove
# /data/daemon.lock then, once no other container uses the volume.
#
# Logs: JSON lines on stderr (MMKIT_LOG_FORMAT=json; `docker run -e MMKIT_LOG_FORMAT=pretty` for a
# person). `docker logs mmkit` shows them.
#
# Two stages: `build` has the compilers the native modules need (better-sqlite3, keccak, secp256k1)
# and dev dependencies for the compiler; `runtime` is slim, runs as a non-root user and holds only
# production dependencies with their compiled addons and the compiled JavaScript of dist/ (no src/:
# bin/mmkit.js then runs dist/ without checking a build stamp). User strategies in .ts still load,
# through tsx (a production dependency).

# ---- build ---------------------------------------------------------------------------------------
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# dependencies first: this layer is reused until package*.json change
COPY package.json package-lock.json ./
# `prepare` (npm ci) builds dist/ when the sources are there; here they come later, so it skips
COPY bin/build-stamp.js ./bin/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
COPY config ./config
# compile src/ and strategies/ into dist/ (type-checked), then drop dev dependencies; the native
# addons built by `npm ci` stay in node_modules
RUN node bin/build-stamp.js --build \
 && npm prune --omit=dev \
 && npm cache clean --force

# ---- runtime -------------------------------------------------------------------------------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MMKIT_DATA_DIR=/data \
    MMKIT_HTTP_HOST=0.0.0.0 \
    MMKIT_HTTP_PORT=8787 \
    MMKIT_LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/strategies ./strategies
COPY --from=build /app/config ./config
# the SQLite store, the paper wallet and keystores live in /data, owned by the unprivileged user
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
# slim images have no curl: ask /healthz with node's own fetch (unhealthy while a feed is stale, the
# heartbeat fails or reconciliation is pending)
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.MMKIT_HTTP_PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/mmkit.js"]
CMD ["run"]
