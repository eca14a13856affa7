# syntax=docker/dockerfile:1
#
# One image for every Dirigent service. The command picks the service:
#   docker run dirigent                    (all five in one process)
#   docker run dirigent node dist/services/turn-coordinator/main.js
#   docker run dirigent node dist/libs/persistence/src/migrate.js   (migrations)
# Entry points: dist/services/{discord-ingest,turn-coordinator,router,memory,llm-gateway}/main.js

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first so that a source change reuses the npm ci layer.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# Containers always get DATABASE_URL: the embedded Postgres of `npm start` (a dev
# dependency with ~60 MB of binaries) goes with the other dev dependencies.
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json /app/package-lock.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# DIRIGENT_WORKSPACE (discussion summaries); a volume mounted here inherits the owner.
RUN mkdir -p /var/lib/dirigent/workspace && chown -R 1000:1000 /var/lib/dirigent
# Files are root-owned and read-only for the process; it runs as the unprivileged
# `node` user (uid 1000) and writes only to mounted volumes and /tmp.
USER 1000:1000
# DISCORD_INGEST_PORT, TURN_COORDINATOR_PORT, ROUTER_PORT, MEMORY_PORT, LLM_GATEWAY_PORT
EXPOSE 3001 3002 3003 3004 3005
# Default: all five services in one process (external NATS and Postgres required).
CMD ["node", "dist/services/dirigent/main.js"]
