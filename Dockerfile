# The Baton agent image: Node 20, the git binary (fetch and push), ssh (ssh remotes, SSH signatures)
# and gpg (OpenPGP signatures). Build: docker build -t <registry>/baton:0.1.0 .
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client gnupg ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY bin ./bin
COPY frameworks ./frameworks
COPY repo-template ./repo-template
COPY schemas ./schemas
ENV HOME=/tmp NODE_ENV=production
USER 65532:65532
ENTRYPOINT ["node", "/app/bin/baton.js"]
CMD ["agent"]
