# One image for the API, the worker and the migrate job; docker-compose.yml picks the command.
FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# A font for the design chat's local renderer (SVG text through librsvg and fontconfig).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm install's postinstall patches the postgres driver (a crash when a connection closes under a write)
COPY scripts/patch-postgres.cjs scripts/
# Production dependencies only (tsx runs the TypeScript sources; the node@22 devDependency is not needed here).
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
# The files volume mounts here; created now so it is owned by the unprivileged user.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "api/main.ts"]
