# filesift service image. Build: docker build -t filesift .
# Node 26, the active LTS line since October 2026; CI runs the suite on it too (.ci/run). Not Node 24: its V8
# optimises one function of PGlite's WebAssembly with ~600 MB of working memory: a 930 MB peak at every start of
# the embedded database, where Node 20 and 26 peak at ~400 MB (docs/benchmarks/restart.md, stop 41).
FROM node:26-bookworm-slim AS build
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json .npmrc tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY sql ./sql
COPY scripts ./scripts
COPY web ./web
# npm ci runs `prepare` (npm run build): TypeScript, the web app into dist/web, the built-in embedder (GloVe
# vectors → an int8 table) into build/models and the embedded database's template into build/pglite-template. Then
# the devDependencies go, the 294 MB GloVe package among them: the service reads only build/models; and the
# template's tar, which only databases in memory (tests) load: a new database on disk copies its folder.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev && rm build/pglite-template/data.tar

FROM node:26-bookworm-slim
WORKDIR /app
# MALLOC_ARENA_MAX: glibc gives each busy thread its own malloc arena; two arenas cut peak RSS by ~130 MB while
# indexing at the same CPU. MALLOC_MMAP_THRESHOLD_: allocations of 128 KB and more mapped on their own, returned
# to the system when freed (~55 MB less at the peak). The same as the filesift command's first line (README, Memory).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    HOST=0.0.0.0 \
    PORT=60534 \
    FILESIFT_DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/sql ./sql
COPY --from=build /app/build ./build
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 60534
# Healthy only when the service answers and its database is reachable (GET /api/status/ is 200 either way).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/src/cli.js", "health"]
# The main thread's young generation at 16 MB, as the filesift command's first line sets it (src/cli.ts).
CMD ["node", "--max-semi-space-size=8", "dist/src/cli.js", "serve"]
