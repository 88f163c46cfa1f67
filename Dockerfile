# API and worker image (docker compose). Node 24 LTS. Production mode; every secret comes from
# the environment at run time (compose: .env), none is built in (.dockerignore leaves .env out).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Not `npm ci`: the lockfile cannot list other platforms' optional packages (see scripts/setup.sh);
# `npm install --no-save` still installs exactly the locked versions.
RUN npm install --no-save --no-fund --no-audit --loglevel=error
COPY . .
RUN npx tsc -p tsconfig.json && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./package.json
USER node
CMD ["node", "dist/src/main.js"]
