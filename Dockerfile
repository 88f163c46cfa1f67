# API and worker image (docker compose; the worker's container runs `node dist/worker/main.js`). Node 24 LTS at
# the exact version set-up installs (scripts/env.sh NODE_VERSION; test/unit/compose.test.ts keeps them equal),
# production mode; every secret comes from the environment at run time, none is built in. Two stages: the
# build compiles only what runs (tsconfig.build.json: src, workflows, activities, worker) and bundles the
# workflows once; the image gets that output and the production dependencies, so no tests, benchmarks,
# development tools or embedded PostgreSQL (a development dependency) are in it. .dockerignore lets only the
# sources in.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Not `npm ci`: the lockfile cannot list other platforms' optional packages (see scripts/setup.sh);
# `npm install --no-save` still installs exactly the locked versions.
RUN npm install --no-save --no-fund --no-audit --loglevel=error
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
# The workflow bundle, built here rather than by every worker at every start (WORKFLOW_BUNDLE_PATH below).
RUN npx tsc -p tsconfig.build.json \
  && node dist/src/cli/bundle-workflows.js dist/workflow-bundle.js \
  && npm prune --omit=dev --no-fund --no-audit --loglevel=error

FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# The API's liveness (/healthz on PORT). The worker's container checks its own endpoint instead:
# node dist/src/cli/healthcheck.js http://127.0.0.1:<WORKER_HEALTH_PORT>/healthz (docker-compose.yml).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "dist/src/cli/healthcheck.js"]
CMD ["node", "dist/src/main.js"]
