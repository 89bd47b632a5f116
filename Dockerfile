# The sample RESTAP agent. Build: docker build -t restap-sample .   Run: docker compose up
# Stage 1 compiles with every dependency; stage 2 installs production dependencies only;
# the runtime image gets those and the compiled output, and runs as the unprivileged `node` user.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY nest-cli.json tsconfig.json ./
COPY libs ./libs
COPY apps ./apps
COPY scripts ./scripts
# Compiles the sample and packs the client into dist/packages, which the agent serves and advertises.
RUN npm run build

FROM node:24-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    RESTAP_DATA_DIR=/data
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Without DATABASE_URL the agent keeps an embedded PostgreSQL in /data: give it to the runtime user.
# No VOLUME here: it would create an anonymous volume on every run, also with DATABASE_URL set
# (docker compose up) where /data is never used. Mount one to keep embedded data:
#   docker run -v restap-data:/data -p 3000:3000 restap-sample
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/sample-agent/apps/sample-agent/src/main.js"]
