# syntax=docker/dockerfile:1
# Both servers, one image each (multi-stage; they run as the unprivileged `node` user):
#
#   docker build --target broker -t handoff-broker .
#   docker run -p 1883:1883 -p 8080:8080 -v handoff-data:/data handoff-broker --password-file /data/passwords
#   docker build --target relay -t handoff-relay .
#   docker run -p 4443:4443 handoff-relay
#
# Arguments after the image name are the app's flags (`--help` lists them). See deploy/README.md.

# --- build: install from the lockfile (this also builds both apps into dist/), then copy each app
# with only its production dependencies into /out.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
RUN npm install -g -E pnpm@12.4.2
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm --filter @handoff/broker deploy --prod --legacy /out/broker \
 && pnpm --filter @handoff/relay deploy --prod --legacy /out/relay

# --- the common runtime: no compilers, no pnpm, no sources beyond what the apps run
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app

# --- the broker: state in the /data volume. With anonymous access (no --password-file) it listens
# on loopback only, like Mosquitto 2; give it a password file, or --host 0.0.0.0 on purpose.
FROM runtime AS broker
COPY --from=build --chown=node:node /out/broker /app
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 1883 8883 8080 9883
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9883/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--enable-source-maps", "/app/bin/handoff-broker.js", "--data-dir", "/data"]

# --- the relay: SIGTERM (docker stop) drains its sessions with GOAWAY before it exits; give docker
# stop a timeout above --drain-timeout (default 10 s): `docker stop -t 15`.
FROM runtime AS relay
COPY --from=build --chown=node:node /out/relay /app
USER node
EXPOSE 4443
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:4443/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--enable-source-maps", "/app/bin/handoff-relay.js"]
